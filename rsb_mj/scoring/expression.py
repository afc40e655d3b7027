"""Compile a task file's ``:grasp`` / ``:goal`` expression into a per-substep evaluator.

Expressions are the task language's AST nodes (``And``/``Or``/``Not``/``Atom``). The task
names what moves; ``?answer`` binds a candidate:

* an atom's first argument is its *subject*, the object it talks about: a candidate
  (``?answer``, a candidate variable such as ``?c - candidate``, or a candidate's name) or
  another object the task declares (Act2Answer's ``cube``);
* a predicate with a support (``On``) takes a candidate as its second argument
  (``(On cube ?answer)``);
* an expression has at most one *variable*, ``?answer`` or a candidate variable, and is
  evaluated for every candidate as its value.

Evaluation returns a bool array (S, N): per physics substep, per candidate as the value of
the variable (all columns equal when the expression has none). The scorer reads the
answer's column of the goal and, for the choice, the columns of the grasp or of the goal
(:mod:`rsb_mj.scoring.outcome`). Connectives combine these arrays elementwise.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.expr import And, Atom, Expr, Name, Not, Or, Variable
from rsb_mj.lang.goal import ANSWER_VARIABLE
from rsb_mj.scoring.predicates import Predicate, get_predicate
from rsb_mj.scoring.signals import StepSignals

#: Variable kinds that range over the candidates (None: undeclared, e.g. ``?answer``).
CANDIDATE_KINDS = (None, "candidate")


def atoms(expr: Expr) -> Iterator[Atom]:
    """The atoms of ``expr``, in source order."""
    if isinstance(expr, Atom):
        yield expr
    elif isinstance(expr, Not):
        yield from atoms(expr.term)
    elif isinstance(expr, And | Or):
        for term in expr.terms:
            yield from atoms(term)


def subjects(exprs: Iterable[Expr], candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The signals' object axis for ``exprs``: the candidates when some atom's subject is a
    candidate (a variable or a candidate's name), then every other named subject in order
    of first appearance."""
    named: list[str] = []
    any_candidate = False
    for expr in exprs:
        for atom in atoms(expr):
            subject = atom.args[0] if atom.args else None
            if isinstance(subject, Variable) or (
                isinstance(subject, Name) and subject.value in candidates
            ):
                any_candidate = True
            elif isinstance(subject, Name) and subject.value not in named:
                named.append(subject.value)
    return (*(candidates if any_candidate else ()), *named)


class _Node(ABC):
    @abstractmethod
    def evaluate(self, signals: StepSignals) -> np.ndarray: ...

    @abstractmethod
    def reset(self) -> None: ...


class _AtomNode(_Node):
    """One atom: its predicate, its subject's rows on the object axis and its support.

    ``subject`` is an int object index (a fixed object) or an int array (N,) of the
    candidates' object indices (the variable); ``support`` is None (no support), an int
    candidate index or the string ``"variable"``.
    """

    def __init__(
        self, predicate: Predicate, subject: int | np.ndarray, support: int | str | None, n: int
    ) -> None:
        self.predicate = predicate
        self.subject = subject
        self.support = support
        self.n = n

    def evaluate(self, signals: StepSignals) -> np.ndarray:
        truth = self.predicate.evaluate(signals)
        if self.support is None:
            if isinstance(self.subject, np.ndarray):
                return truth[:, self.subject]
            return np.repeat(truth[:, self.subject : self.subject + 1], self.n, axis=1)
        if isinstance(self.subject, np.ndarray):
            if self.support == "variable":
                return truth[:, self.subject, np.arange(self.n)]
            return truth[:, self.subject, self.support]
        if self.support == "variable":
            return truth[:, self.subject, :].copy()
        column = truth[:, self.subject, self.support][:, None]
        return np.repeat(column, self.n, axis=1)

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
    """An expression bound to one task's candidates and objects.

    Attributes:
        candidates: the candidate axis N.
        objects: the signals' object axis M.
        variable: the expression's variable (``"answer"``, ``"c"``, ...), or None.
        signals: the signals its predicates read.
        places: the compiled place atoms (``In``, ``On``) combined with ``And``, or None
            when it has none (see :meth:`place_witnesses`).
    """

    def __init__(
        self,
        expr: Expr,
        candidates: tuple[str, ...],
        *,
        objects: tuple[str, ...] | None = None,
        movers: tuple[str, ...] = (),
        path: str = "<task>",
        zones: tuple[str, ...] = (),
    ) -> None:
        """Compile ``expr``.

        Args:
            expr: the AST expression (e.g. ``problem.goal``).
            candidates: candidate names in the order of the signals' N axis.
            objects: the signals' object axis (default: :func:`subjects` of ``expr``).
            movers: the task's other objects an atom may name as its subject.
            path: the task file, for error messages (``path:line:col``).
            zones: full names of the answer-zone regions (``problem.answer_zone_names``).

        Raises:
            EvalError: for an unknown predicate, candidate or object, a variable kind that
                is not a candidate, or more than one variable.
        """
        self.candidates = tuple(candidates)
        self.objects = subjects((expr,), self.candidates) if objects is None else objects
        self._movers = tuple(movers)
        self._path = path
        self._zones = tuple(zones)
        self._variables: set[str] = set()
        self._places: list[_Node] = []
        self.signals: set[str] = set()
        self._root = self._compile(expr)
        if len(self._variables) > 1:
            raise EvalError(
                f"{path}:{getattr(expr, 'span', '')}: expression has variables "
                f"{sorted(self._variables)}; at most one may range over the candidates"
            )
        self.variable = next(iter(self._variables), None)
        self.places = _Connective("and", self._places) if self._places else None

    @property
    def free_variable(self) -> str | None:
        """The variable when it is not ``?answer`` (the expression ranges over the
        candidates, e.g. ``(Grasped ?c - candidate)``), else None."""
        return None if self.variable == ANSWER_VARIABLE else self.variable

    def _compile(self, expr: Expr) -> _Node:
        if isinstance(expr, Atom):
            node = self._atom(expr)
            if node.predicate.place:
                self._places.append(node)
            return node
        if isinstance(expr, Not):
            return _Connective("not", [self._compile(expr.term)])
        if isinstance(expr, And | Or):
            kind = "and" if isinstance(expr, And) else "or"
            return _Connective(kind, [self._compile(t) for t in expr.terms])
        raise EvalError(f"{self._path}: cannot score expression node {type(expr).__name__}")

    def _variable(self, arg: Variable, where: str) -> str:
        if arg.name != ANSWER_VARIABLE and arg.kind not in CANDIDATE_KINDS:
            raise EvalError(
                f"{where}: variable ?{arg.name} - {arg.kind} cannot be scored; "
                "valid kinds: candidate"
            )
        self._variables.add(arg.name)
        return "variable"

    def _atom(self, atom: Atom) -> _AtomNode:
        where = f"{self._path}:{atom.span}"
        cls = get_predicate(atom.predicate, where=where)
        if not atom.args:
            raise EvalError(
                f"{where}: ({atom.predicate}) needs an object argument; valid choices: "
                + ", ".join(("?answer", *self.candidates, *self._movers))
            )
        subject_arg, rest = atom.args[0], list(atom.args[1:])
        support: int | str | None = None
        if cls.support:
            if not rest:
                raise EvalError(
                    f"{where}: ({atom.predicate} ...) takes {len(cls.roles())} argument(s) "
                    f"({', '.join(cls.roles())}), got 1"
                )
            support = self._support(atom, rest.pop(0), where)
        if any(not isinstance(a, Name) for a in rest):
            raise EvalError(f"{where}: ({atom.predicate} ...) takes names after the object")
        predicate = cls(
            tuple(a.value for a in rest),  # type: ignore[union-attr]
            where=where,
            zones=self._zones,
        )
        self.signals.update(predicate.signals)
        subject = self._subject(atom, subject_arg, where)
        moves_a_candidate = (
            not isinstance(subject_arg, Name) or subject_arg.value in self.candidates
        )
        if cls.support and moves_a_candidate:
            raise EvalError(
                f"{where}: ({atom.predicate} ...) puts an object the task declares on a "
                "candidate, not a candidate; valid choices: " + ", ".join(self._movers or ("none",))
            )
        return _AtomNode(predicate, subject, support, len(self.candidates))

    def _subject(self, atom: Atom, arg: object, where: str) -> int | np.ndarray:
        if isinstance(arg, Variable):
            self._variable(arg, where)
            return np.array([self._object(c, where) for c in self.candidates], dtype=int)
        if isinstance(arg, Name) and (arg.value in self.candidates or arg.value in self._movers):
            return self._object(arg.value, where)
        shown = arg.value if isinstance(arg, Name) else arg
        raise EvalError(
            f"{where}: ({atom.predicate} {shown} ...) names no candidate; valid choices: "
            + ", ".join(("?answer", *self.candidates, *self._movers))
        )

    def _object(self, name: str, where: str) -> int:
        if name not in self.objects:
            raise EvalError(
                f"{where}: {name!r} has no signals; the object axis is " + ", ".join(self.objects)
            )
        return self.objects.index(name)

    def _support(self, atom: Atom, arg: object, where: str) -> int | str:
        if isinstance(arg, Variable):
            return self._variable(arg, where)
        if isinstance(arg, Name) and arg.value in self.candidates:
            return self.candidates.index(arg.value)
        shown = arg.value if isinstance(arg, Name) else arg
        raise EvalError(
            f"{where}: ({atom.predicate} ... {shown}) cannot be scored: its support must be a "
            "candidate; valid choices: "
            + ", ".join(("?answer", "?c - candidate", *self.candidates))
        )

    def reset(self) -> None:
        """Clear the predicates' state for a new episode."""
        self._root.reset()

    def witnesses(self, signals: StepSignals) -> np.ndarray:
        """Bool (S, N): the expression per substep and candidate as the variable's value."""
        return self._root.evaluate(signals)

    def place_witnesses(self, signals: StepSignals) -> np.ndarray:
        """Bool (S, N): the place atoms alone (where the subject is, e.g. ``In ?answer
        zone``); all False without place atoms. Evaluate after :meth:`witnesses` (stateful
        predicates are stepped there)."""
        if self.places is None:
            return np.zeros((signals.substeps, len(self.candidates)), dtype=bool)
        return self.places.evaluate(signals)

    def holds(self, witnesses: np.ndarray) -> np.ndarray:
        """Bool (S,) from :meth:`witnesses`: some candidate satisfies it (or it is closed)."""
        if self.variable is None:
            return witnesses[:, 0].copy()
        return witnesses.any(axis=1)
