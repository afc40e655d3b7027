"""Safety costs: a task's ``:cost`` block evaluated at every control step (VLA-Arena's CBDDL).

Terms. The block's terms are the children of its top-level ``And`` (or the block's one
expression). VLA-Arena keeps only the first of several top-level terms written without an
``And``; rsb evaluates every one of them either way and says so in the record
(``cost_implicit_and``; the linter's RSB414 flags the block). Each term may nest ``And``,
``Or`` and ``Not`` at any depth over the predicates of :mod:`rsb_mj.scoring.cost_predicates`.

Weights (VLA-Arena's ``_check_cost``: a per-step predicate costs ``0.1 * 10``, any other one
``10`` when evaluated at the end):

* a **step** term (every atom a per-step predicate: ``InContact``, ``CheckGripperContact``,
  ``CheckDistance``, ``CheckGripperDistance``, ``CheckForce``, ``Up``) adds
  :data:`STEP_COST` (1) for each control step in which it holds at some physics substep;
* an **end** term (any atom among ``Collide``, ``Fall``, ``NotOn``) adds
  :data:`END_COST` (10) when it holds at the last substep of the episode. (VLA-Arena adds
  it only on the step its goal is reached; rsb at the end of every episode.)

The episode's cost is the sum over terms. The environment evaluates the terms on its sensor
rows (:class:`CostMeter`) and reports ``info["cost"]`` (this step's step-term cost) and
``info["cost_violations"]`` (per term, held this step); :class:`CostTally` sums them into the
record's ``cost`` and per-term counts, the way the runner rescores ``:grasp``/``:goal`` from
``info["signals"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from rsb_mj.errors import EvalError, SceneError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import And, Atom, Expr, Name, Not, Or, Variable, walk_atoms
from rsb_mj.lang.formatter import expr_line
from rsb_mj.lang.predicates import PREDICATES
from rsb_mj.scene.probes import Probe
from rsb_mj.scoring.cost_predicates import CostPredicate, Scope, get_cost_predicate

#: Cost of a step term for each control step it is violated.
STEP_COST = 1.0
#: Cost of an end term violated at the end of the episode (VLA-Arena's alpha = 10).
END_COST = 10.0
#: Term kinds.
KINDS = ("step", "end")


@dataclass(frozen=True)
class CostTerm:
    """One term of a ``:cost`` block.

    Attributes:
        text: the term as written (normalized spelling), e.g. ``"(InContact a b)"``.
        kind: ``"step"`` (1 per violating control step) or ``"end"`` (10 at the end).
    """

    text: str
    kind: str

    @property
    def weight(self) -> float:
        """Cost of one violation."""
        return STEP_COST if self.kind == "step" else END_COST


def cost_terms(problem: Problem) -> tuple[Expr, ...]:
    """The terms of ``problem``'s ``:cost`` (children of a top-level And; all of them)."""
    terms: list[Expr] = []
    for expr in problem.cost_terms or ():
        terms.extend(expr.terms if isinstance(expr, And) else (expr,))
    return tuple(terms)


def implicit_and(problem: Problem) -> bool:
    """The block has several top-level terms without an ``And`` (VLA-Arena keeps the first)."""
    return len(problem.cost_terms or ()) > 1


#: The variable bound to the episode's correct candidate.
ANSWER = "answer"


def _bind(atom: Atom, candidate: str) -> Atom:
    """``atom`` with ``?answer`` replaced by ``candidate`` (same span)."""
    args = tuple(Name(candidate, span=a.span) if isinstance(a, Variable) else a for a in atom.args)
    return Atom(atom.predicate, args, span=atom.span)


def _kind(term: Expr) -> str:
    per_step = all(
        (info := PREDICATES.get(a.predicate.lower())) is not None and info.per_step_cost
        for a in walk_atoms(term)
    )
    return "step" if per_step else "end"


class _Node:
    def __init__(
        self, op: str, children: list[_Node] | None = None, atom: CostPredicate | None = None
    ) -> None:
        self.op, self.children, self.atom = op, children or [], atom

    def evaluate(self, rows: np.ndarray) -> np.ndarray:
        if self.atom is not None:
            return self.atom.evaluate(rows)
        if self.op == "pick":  # ?answer: the copy bound to this episode's correct candidate
            return self.children[self.pick].evaluate(rows)
        values = [c.evaluate(rows) for c in self.children]
        if self.op == "not":
            return ~values[0]
        reduce = np.logical_and if self.op == "and" else np.logical_or
        return reduce.reduce(values)


class CostMeter:
    """Evaluates a task's cost terms on sensor rows (environment side).

    Attributes:
        terms: the :class:`CostTerm` of each term, in block order.
        implicit_and: see :func:`implicit_and`.
        probes: the sensors the terms read (pass to ``compile_scene(..., probes=...)``).
        term_bodies: per term, the bodies its atoms name (the environment stops a moving
            object once a step term naming it is violated).
    """

    def __init__(self, problem: Problem) -> None:
        """Compile the block.

        Raises:
            EvalError: ``path:line:col`` of an atom rsb cannot evaluate (unknown predicate,
                variable or undeclared argument, wrong count), with the valid choices.
        """
        self._path = str(problem.path)
        self._scope = Scope(problem)
        self._candidates = problem.candidates
        self._pickers: list[_Node] = []
        self._atoms: list[CostPredicate] = []
        exprs = cost_terms(problem)
        self._roots = []
        bodies: list[frozenset[str]] = []
        for expr in exprs:
            start = len(self._atoms)
            self._roots.append(self._compile(expr))
            bodies.append(frozenset(b for a in self._atoms[start:] for b in a.bodies))
        self.term_bodies: tuple[frozenset[str], ...] = tuple(bodies)
        self.terms = tuple(CostTerm(expr_line(e), _kind(e)) for e in exprs)
        self.implicit_and = implicit_and(problem)
        self.probes: tuple[Probe, ...] = tuple(p for a in self._atoms for p in a.probes())

    def _compile(self, expr: Expr) -> _Node:
        if isinstance(expr, Atom):
            where = f"{self._path}:{expr.span}"
            variables = [a for a in expr.args if isinstance(a, Variable)]
            if any(v.name != ANSWER or v.kind is not None for v in variables):
                raise EvalError(
                    f"{where}: :cost terms take object names and ?answer (the correct "
                    "option's candidate); a variable ranging over candidates cannot be costed"
                )
            if variables:
                picker = _Node("pick", [self._compile(_bind(expr, c)) for c in self._candidates])
                self._pickers.append(picker)
                return picker
            atom = get_cost_predicate(expr.predicate, where)(expr.args, self._scope, where)
            self._atoms.append(atom)
            return _Node("atom", atom=atom)
        if isinstance(expr, Not):
            return _Node("not", [self._compile(expr.term)])
        if isinstance(expr, And | Or):
            return _Node(
                "and" if isinstance(expr, And) else "or", [self._compile(t) for t in expr.terms]
            )
        raise EvalError(f"{self._path}: cannot evaluate expression node {type(expr).__name__}")

    def bind(self, model: mujoco.MjModel) -> None:
        """Find the probes in a model compiled with :attr:`probes`.

        Raises:
            EvalError: when the model lacks them.
        """
        try:
            for atom in self._atoms:
                atom.bind(model)
        except SceneError as exc:
            raise EvalError(f"{self._path}: the scene lacks the cost sensors ({exc})") from None

    def reset(self, row: np.ndarray, target: str | None = None) -> None:
        """Take ``data.sensordata`` at reset (after ``mj_forward``) as the reference pose and
        bind ``?answer`` to ``target`` (the episode's correct candidate).

        Raises:
            EvalError: when the block uses ``?answer`` and ``target`` is not a candidate.
        """
        if self._pickers:
            if target not in self._candidates:
                raise EvalError(
                    f"{self._path}: ?answer must be bound to a candidate, got {target!r}; "
                    f"valid choices: {', '.join(self._candidates)}"
                )
            for picker in self._pickers:
                picker.pick = self._candidates.index(target)
        for atom in self._atoms:
            atom.reset(np.asarray(row, dtype=float))

    def step(self, rows: np.ndarray) -> tuple[float, tuple[bool, ...]]:
        """Evaluate one control step's sensordata rows (S, nsensordata).

        Returns:
            (cost of this step's step terms, per term: violated in this step: a step term at
            some substep, an end term at the last substep).
        """
        violated: list[bool] = []
        cost = 0.0
        for term, root in zip(self.terms, self._roots, strict=True):
            truth = root.evaluate(rows)
            hit = bool(truth.any()) if term.kind == "step" else bool(truth[-1])
            violated.append(hit)
            if hit and term.kind == "step":
                cost += STEP_COST
        return cost, tuple(violated)


class CostTally:
    """Sums an episode's cost from the environment's ``info`` (runner side)."""

    def __init__(self, terms: Sequence[CostTerm], implicit: bool = False) -> None:
        self.terms = tuple(terms)
        self.implicit_and = implicit
        self.counts = [0] * len(self.terms)
        self._last = [False] * len(self.terms)

    @classmethod
    def from_info(cls, info: Mapping[str, Any]) -> CostTally | None:
        """From the reset ``info`` (``info["cost_terms"]``); None when the task has no cost."""
        spec = info.get("cost_terms")
        if spec is None:
            return None
        terms = [CostTerm(str(t), str(k)) for t, k in spec["terms"]]
        return cls(terms, bool(spec.get("implicit_and", False)))

    def update(self, info: Mapping[str, Any]) -> None:
        """Count one step's ``info["cost_violations"]``.

        Raises:
            EvalError: when the step reports a different number of terms.
        """
        hits = tuple(bool(h) for h in info["cost_violations"])
        if len(hits) != len(self.terms):
            raise EvalError(
                f"info['cost_violations'] has {len(hits)} values; the task has "
                f"{len(self.terms)} cost terms"
            )
        for i, (term, hit) in enumerate(zip(self.terms, hits, strict=True)):
            if term.kind == "step" and hit:
                self.counts[i] += 1
        self._last = list(hits)

    def _term_costs(self) -> list[float]:
        out = []
        for term, count, last in zip(self.terms, self.counts, self._last, strict=True):
            out.append(count * STEP_COST if term.kind == "step" else END_COST * last)
        return out

    @property
    def total(self) -> float:
        """The episode's cumulative cost so far (end terms as of the last step seen)."""
        return float(sum(self._term_costs()))

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per term ``"{i} {text}"`` -> ``{"kind", "violations", "cost"}`` (the record's
        ``cost_terms``): violations are violating steps (step terms) or 0/1 (end terms)."""
        out: dict[str, dict[str, Any]] = {}
        costs = self._term_costs()
        for i, term in enumerate(self.terms):
            count = self.counts[i] if term.kind == "step" else int(self._last[i])
            out[f"{i + 1} {term.text}"] = {"kind": term.kind, "violations": count, "cost": costs[i]}
        return out
