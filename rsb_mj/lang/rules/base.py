"""The rule registry: every diagnostic code, its kebab-case name, severity and documentation.

A rule is a function ``check(ctx: Context) -> None`` that calls ``ctx.report(...)``. It is
registered with :func:`rule`, which records its code, name, severity, a bad and a good example
(shown by ``rsb lint --explain CODE``), its docstring as the rule's documentation, and which
tasks it applies to (``applies_to``: ``"question"``, ``"goal"`` or ``"any"``; the family is
:func:`rsb_mj.lang.task.task_family`'s, and the linter runs a rule only on the tasks it
applies to: a rule never tests the family itself). Codes are stable: 1xx syntax, 2xx names
and types, 3xx geometry and placement, 4xx semantics and leakage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rsb_mj.lang import ast
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.expr import Atom, Expr, Name, walk_atoms
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import FAMILIES, Family, task_family, task_semantics

#: What a rule may apply to: a task family (:data:`rsb_mj.lang.task.FAMILIES`) or ``"any"``.
APPLIES_TO = ("any", *FAMILIES)


@dataclass(frozen=True)
class Rule:
    """A lint rule's identity and documentation.

    Attributes:
        code: stable code, e.g. ``"RSB304"``.
        name: kebab-case name, e.g. ``"region-capacity"``.
        severity: ``"error"`` or ``"warning"``.
        doc: one paragraph saying what the rule checks and why.
        bad: a snippet that triggers the rule.
        good: the same snippet fixed.
        check: the check function (None for rules reported by the parser or template linter).
        applies_to: the tasks the rule checks: ``"question"``, ``"goal"`` or ``"any"``.
    """

    code: str
    name: str
    severity: str
    doc: str
    bad: str
    good: str
    check: Callable[[Context], None] | None = field(default=None, compare=False)
    applies_to: str = "any"

    def applies(self, family: Family) -> bool:
        """Whether the rule checks a task of ``family``."""
        return self.applies_to in ("any", family)

    def explain(self) -> str:
        """The text ``rsb lint --explain`` prints."""
        return (
            f"{self.code} {self.name} ({self.severity})\n\n{self.doc}\n\n"
            f"Bad:\n{_indent(self.bad)}\n\nGood:\n{_indent(self.good)}\n"
        )


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.strip("\n").splitlines())


#: Every rule by code, filled at import time by :func:`rule` and :func:`declare`.
RULES: dict[str, Rule] = {}


def _register(new: Rule) -> Rule:
    if new.code in RULES or any(r.name == new.name for r in RULES.values()):
        raise ValueError(f"rule {new.code} {new.name} registered twice")
    if new.applies_to not in APPLIES_TO:
        raise ValueError(
            f"rule {new.code}: applies_to {new.applies_to!r}; valid choices: "
            + ", ".join(APPLIES_TO)
        )
    RULES[new.code] = new
    return new


def declare(code: str, name: str, severity: str, doc: str, bad: str, good: str) -> Rule:
    """Register a rule whose findings are produced elsewhere (parser, template linter)."""
    return _register(Rule(code, name, severity, " ".join(doc.split()), bad, good))


def rule(
    code: str, name: str, severity: str, *, bad: str, good: str, applies_to: str = "any"
) -> Callable[[Callable[[Context], None]], Callable[[Context], None]]:
    """Decorator registering ``check(ctx)`` as rule ``code``; its docstring is the rule's doc,
    ``applies_to`` the tasks it checks (``"question"``, ``"goal"`` or ``"any"``)."""

    def wrap(check: Callable[[Context], None]) -> Callable[[Context], None]:
        doc = " ".join((check.__doc__ or "").split())
        _register(Rule(code, name, severity, doc, bad, good, check, applies_to))
        return check

    return wrap


def choices_text(choices: Iterable[str], limit: int = 12) -> str:
    """``"a, b, c"`` (sorted; at most ``limit`` shown, then ``"... (N in all)"``)."""
    items = sorted(set(choices))
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... ({len(items)} in all)"


class Context:
    """What a rule sees: the problem, precomputed lookups, and :meth:`report`.

    Attributes:
        problem: the parsed task.
        path: the file name used in diagnostics.
        target: ``"rsb"`` when the file is checked as a scene rsb_mj must build and run
            (``rsb lint --target rsb``), ``"question"`` as a question scene (the question
            environment), else None (what the file declares).
        family: the task's family (:func:`rsb_mj.lang.task.task_family`); the linter runs
            the rules that apply to it (:meth:`Rule.applies`).
        semantics: whose vocabulary and loaders the task is read with
            (:func:`rsb_mj.lang.task.task_semantics`: ``"rsb"``, ``"libero"``,
            ``"vla_arena"``); a rule that applies to any task reads it where rsb's own
            vocabulary is stricter than LIBERO's or VLA-Arena's loaders.
        diagnostics: findings so far.
    """

    def __init__(self, problem: ast.Problem, path: str, target: str | None = None) -> None:
        self.problem = problem
        self.path = path
        self.target = target
        self.diagnostics: list[Diagnostic] = []
        self.decls: dict[str, ast.TypedName] = {}
        for decl in (*problem.fixtures, *problem.objects):
            self.decls.setdefault(decl.name, decl)
        self.objects = {d.name: d for d in problem.objects}
        self.fixtures = {d.name: d for d in problem.fixtures}
        self.regions: dict[str, ast.Region] = {}
        for region in problem.regions:
            self.regions.setdefault(region.full_name, region)
        self.candidates = problem.candidates
        self.family: Family = task_family(problem)
        self.semantics = task_semantics(problem)
        self._expressions: tuple[tuple[str, Expr], ...] | None = None
        self._atoms: tuple[tuple[str, Atom], ...] | None = None

    def block_span(self, keyword: str) -> Span:
        """Span of the first top-level block ``keyword`` (the problem's span if absent)."""
        for name, span in self.problem.blocks:
            if name == keyword:
                return span
        return self.problem.span

    def report(
        self,
        code: str,
        message: str,
        span: Span | None,
        fix: str | None = None,
        severity: str | None = None,
    ) -> None:
        """Record a finding of rule ``code`` at ``span`` (the problem's span when None), at the
        rule's severity unless ``severity`` (``"warning"``: what LIBERO's or VLA-Arena's own
        loader accepts in a file of their domains) says otherwise."""
        spec = RULES[code]
        where = span if span is not None and span.line > 0 else self.problem.span
        level = severity or spec.severity
        self.diagnostics.append(
            Diagnostic(spec.code, spec.name, level, message, self.path, where, fix)
        )

    def used_names(self) -> set[str]:
        """Every name an atom of ``:init``, ``:grasp``, ``:goal`` or ``:cost`` uses."""
        return {a.value for _, atom in self.atoms() for a in atom.args if isinstance(a, Name)}

    def expressions(self) -> tuple[tuple[str, Expr], ...]:
        """Every top-level expression with its block keyword (init, grasp, goal, cost)."""
        if self._expressions is None:
            p = self.problem
            self._expressions = tuple(
                (block, term)
                for block, terms in (
                    ("init", p.init),
                    ("grasp", p.grasp_terms),
                    ("goal", p.goal_terms),
                    ("cost", p.cost_terms or ()),
                )
                for term in terms
            )
        return self._expressions

    def atoms(self) -> tuple[tuple[str, Atom], ...]:
        """Every atom with the block keyword it appears in, in source order (worked out once:
        most rules read them)."""
        if self._atoms is None:
            self._atoms = tuple(
                (block, atom) for block, expr in self.expressions() for atom in walk_atoms(expr)
            )
        return self._atoms
