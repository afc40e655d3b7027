"""Compile a task file's ``:grasp`` / ``:goal`` expression into a per-substep evaluator.

Expressions are the task language's AST nodes (``And``/``Or``/``Not``/``Atom``). Each atom's
first argument is the candidate it talks about:

* ``?answer`` is bound to the episode's correct candidate (never shown to the policy);
* another variable, e.g. ``?c - candidate``, ranges over all candidates: the expression
  holds when it holds for *some* candidate (at most one such variable per expression);
* a bare name (``block_a``) is that candidate.

Evaluation returns a bool array (S, N): per physics substep, per value of the free variable
(all columns equal when there is none). Connectives combine these arrays elementwise.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import And, Atom, Expr, Name, Not, Or, Variable
from rsb_mj.scoring.predicates import Predicate, get_predicate
from rsb_mj.scoring.signals import StepSignals

#: The variable bound to the correct candidate.
ANSWER_VARIABLE = "answer"


class _Node(ABC):
    @abstractmethod
    def evaluate(self, signals: StepSignals) -> np.ndarray: ...

    @abstractmethod
    def reset(self) -> None: ...


class _AtomNode(_Node):
    def __init__(self, predicate: Predicate, column: int | None) -> None:
        self.predicate = predicate
        self.column = column  # None: the free variable (all columns)

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        truth = self.predicate.evaluate(signals)
        if self.column is None:
            return truth
        return np.repeat(truth[:, self.column : self.column + 1], truth.shape[1], axis=1)

    def reset(self) -> None:
        self.predicate.reset()


class _Connective(_Node):
    def __init__(self, kind: str, children: list[_Node]) -> None:
        self.kind = kind
        self.children = children

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        values = [c.evaluate(signals) for c in self.children]
        if self.kind == "not":
            return ~values[0]
        if self.kind == "and":
            return np.logical_and.reduce(values)
        return np.logical_or.reduce(values)

    def reset(self) -> None:
        for child in self.children:
            child.reset()


class CompiledExpression:
    """An expression bound to one episode's candidates and correct candidate.

    Attributes:
        free_variable: name of the variable ranging over candidates, or None.
    """

    def __init__(
        self,
        expr: Expr,
        candidates: tuple[str, ...],
        answer: str,
        *,
        path: str = "<task>",
        zones: tuple[str, ...] = (),
    ) -> None:
        """Compile ``expr``.

        Args:
            expr: the AST expression (e.g. ``problem.goal``).
            candidates: candidate names in the order of the signals' N axis.
            answer: the correct candidate, bound to ``?answer``.
            path: the task file, for error messages (``path:line:col``).
            zones: full names of the answer-zone regions (``problem.answer_zone_names``).

        Raises:
            EvalError: for an unknown predicate or candidate, a non-candidate variable kind,
                or more than one free variable.
        """
        if answer not in candidates:
            raise EvalError(f"answer {answer!r} is not a candidate; valid: {', '.join(candidates)}")
        self.candidates = candidates
        self._answer = candidates.index(answer)
        self._path = path
        self._zones = tuple(zones)
        self._free: set[str] = set()
        self._root = self._compile(expr)
        if len(self._free) > 1:
            raise EvalError(
                f"{path}:{getattr(expr, 'span', '')}: expression has free variables "
                f"{sorted(self._free)}; at most one may range over the candidates"
            )
        self.free_variable = next(iter(self._free), None)

    def _compile(self, expr: Expr) -> _Node:
        if isinstance(expr, Atom):
            return self._atom(expr)
        if isinstance(expr, Not):
            return _Connective("not", [self._compile(expr.term)])
        if isinstance(expr, And | Or):
            kind = "and" if isinstance(expr, And) else "or"
            return _Connective(kind, [self._compile(t) for t in expr.terms])
        raise EvalError(f"{self._path}: cannot score expression node {type(expr).__name__}")

    def _atom(self, atom: Atom) -> _AtomNode:
        where = f"{self._path}:{atom.span}"
        if not atom.args:
            raise EvalError(f"{where}: ({atom.predicate}) needs a candidate argument")
        subject, rest = atom.args[0], atom.args[1:]
        if any(not isinstance(a, Name) for a in rest):
            raise EvalError(f"{where}: ({atom.predicate} ...) takes names after the candidate")
        predicate = get_predicate(atom.predicate, where=where)(
            tuple(a.value for a in rest),  # type: ignore[union-attr]
            where=where,
            zones=self._zones,
        )
        if isinstance(subject, Variable):
            if subject.name == ANSWER_VARIABLE:
                return _AtomNode(predicate, self._answer)
            if subject.kind not in (None, "candidate"):
                raise EvalError(
                    f"{where}: variable ?{subject.name} - {subject.kind} cannot be scored; "
                    "valid kinds: candidate"
                )
            self._free.add(subject.name)
            return _AtomNode(predicate, None)
        if isinstance(subject, Name) and subject.value in self.candidates:
            return _AtomNode(predicate, self.candidates.index(subject.value))
        shown = subject.value if isinstance(subject, Name) else subject
        raise EvalError(
            f"{where}: ({atom.predicate} {shown} ...) names no candidate; valid choices: "
            + ", ".join(("?answer", *self.candidates))
        )

    def reset(self) -> None:
        """Clear the predicates' state for a new episode."""
        self._root.reset()

    def witnesses(self, signals: StepSignals) -> np.ndarray:
        """Bool (S, N): the expression per substep and value of the free variable."""
        return self._root.evaluate(signals)

    def holds(self, witnesses: np.ndarray) -> np.ndarray:
        """Bool (S,) from :meth:`witnesses`: some candidate satisfies it (or it is closed)."""
        if self.free_variable is None:
            return witnesses[:, 0].copy()
        return witnesses.any(axis=1)
