"""What rsb_mj builds of a goal task: the parts it cannot, and what it builds differently.

A goal task (every LIBERO and VLA-Arena file, or a user's own "put the bowl on the plate")
is a :class:`rsb_mj.lang.task.Task` whose family is ``"goal"``: it declares objects,
fixtures and regions, places them with ``:init`` and says what must hold at the end with
``:goal``; ``:language`` is the instruction. Its placements, state atoms, source semantics
and tier are read by :func:`rsb_mj.lang.task.task_of`, for every task. This module says
which of them rsb_mj builds: :func:`unbuildable` (the parts it cannot, with positions, by
tier: :data:`BUILDABLE_TIERS`), :func:`warnings_of` (what the scene builds differently from
the file) and :func:`check_buildable`.

Tiers (``shared/reference/goal_tasks.md``): **A0** a table workspace, no articulated
fixture, a goal of On/In only; **A1** as A0 with an articulated fixture standing as a prop;
**B1** a drawer or microwave used as a container (by the goal, or holding an object at
``:init``); **B2** a goal that operates a fixture (Open, Close, TurnOn, TurnOff); **C** a
floor workspace. rsb_mj builds every tier: B's fixtures articulated
(:mod:`rsb_mj.scene.categories.articulated`), C's floor patch re-hosted on the table
(:func:`rsb_mj.lang.frame_map.layout_change`).

Names: a region ``R`` with ``(:target T)`` is called ``T_R`` (``main_table_plate_region``,
``wooden_cabinet_1_top_side``); on a fixture or object it is the site ``{T}_{R}`` of the
scene.

Every stage names the one :class:`~rsb_mj.lang.task.Task` and :func:`~rsb_mj.lang.task.task_of`
(``GoalTask`` and ``goal_task_of``, the names of the goal reader before it, are gone).
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.errors import TaskError
from rsb_mj.lang.expr import walk_atoms
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import ARTICULATED, OPERATING, STATE_PREDICATES, TOP_REGIONS, Task

#: The tiers rsb_mj builds: all of them (tier B's fixtures articulated, tier C's floor
#: patch on the table). What stops a file is then not its tier (:func:`unbuildable`).
BUILDABLE_TIERS = ("A0", "A1", "B1", "B2", "C")
#: The tiers whose scenes stand fixtures as static props (their ``:init`` states unapplied).
TABLETOP_TIERS = ("A0", "A1")
#: Goal predicates rsb_mj scores (lowercased): placements and fixture states.
SCORED_PREDICATES = frozenset({"on", "in", *OPERATING})
#: The fixture categories rsb_mj builds with joints in a tier B scene, and the states
#: (lowercased) each can be set to and read in (``rsb_mj.scene.categories.articulated``'s
#: stand-ins and their ``init_ranges``; ``tests/lang/test_buildable.py`` checks they agree).
MODELLED_STATES: dict[str, frozenset[str]] = {
    "wooden_cabinet": frozenset({"open", "close"}),
    "white_cabinet": frozenset({"open", "close"}),
    "microwave": frozenset({"open", "close"}),
    "flat_stove": frozenset({"turnon", "turnoff"}),
}


@dataclass(frozen=True)
class Issue:
    """A part of a goal task rsb_mj cannot build, with its position."""

    span: Span
    message: str

    def format(self, path: str) -> str:
        """``path:line:col: message``."""
        return f"{path}:{self.span.line}:{self.span.column}: {self.message}"


def unbuildable(task: Task, known: set[str]) -> list[Issue]:
    """Every part of ``task`` rsb_mj cannot build, with positions: an object category
    without a model in ``known`` (the category names the scene can build) and a goal atom
    nothing scores (a predicate other than ``On``/``In``/``Open``/``Close``/``TurnOn``/
    ``TurnOff``, e.g. LIBERO's ``Up`` or ``Stack``), and in a tier B file a fixture state
    (``:init`` or ``:goal``) on a fixture rsb_mj models without that state
    (:data:`MODELLED_STATES`: ``(Open plate_1)``, ``(TurnOn wooden_cabinet_1)``). Every tier
    builds (:data:`BUILDABLE_TIERS`)."""
    problem = task.problem
    issues: list[Issue] = []
    for decl in problem.objects:
        if decl.category not in known:
            issues.append(
                Issue(
                    decl.category_span,
                    f"object {decl.name!r}: category {decl.category!r} has no rsb model",
                )
            )
    for term in problem.goal_terms:
        for atom in walk_atoms(term):
            if atom.predicate.lower() not in SCORED_PREDICATES:
                issues.append(
                    Issue(
                        atom.span,
                        f"goal predicate {atom.predicate!r} is not scored by rsb_mj (it scores "
                        "On, In, Open, Close, TurnOn, TurnOff)",
                    )
                )
    if task.tier in TABLETOP_TIERS:
        return issues  # a tier A file's :init states are not applied (RSB541)
    for state in (*task.init_states, *task.goal_states):
        owner = _state_owner(task, state.target)
        category = task.fixtures.get(owner or "", "")
        states = MODELLED_STATES.get(category, frozenset())
        if state.predicate.lower() not in states:
            what = f"{owner!r} ({category})" if owner else f"{state.target!r}"
            valid = ", ".join(STATE_PREDICATES[k] for k in sorted(states)) or "none"
            issues.append(
                Issue(
                    state.span,
                    f"({state.text}): {what} has no {state.predicate} state in rsb_mj (its "
                    f"states: {valid}; fixtures with states: {', '.join(MODELLED_STATES)})",
                )
            )
    return issues


def _state_owner(task: Task, target: str) -> str | None:
    """The fixture a state atom's ``target`` names: itself, or the owner of the region
    ``{fixture}_{region}`` (the longest fixture name that prefixes it), else None."""
    if target in task.fixtures:
        return target
    names = sorted(task.fixtures, key=len, reverse=True)
    return next((n for n in names if target.startswith(n + "_")), None)


def warnings_of(task: Task) -> list[Issue]:
    """What the scene builds differently from the file, with positions (LIBERO / VLA-Arena
    accept these files too): an object without ``On``/``In`` in ``:init`` (placed at a
    free spot of the table), and in a tier A file ``:init`` atoms rsb_mj does not apply
    (``Open``, ``TurnOn``: fixtures are static props there; a tier B file's are
    articulated and take them)."""
    out: list[Issue] = []
    placed = {r.mover for r in task.init}
    for decl in task.problem.objects:
        if decl.name not in placed:
            out.append(
                Issue(decl.span, f"object {decl.name!r} has no On/In in :init; placed on the table")
            )
    if task.tier not in TABLETOP_TIERS:
        return out  # tier B builds its articulated fixtures and applies these; C has none
    articulated = {n for n, c in task.fixtures.items() if c in ARTICULATED}
    for rel in task.init:
        owner = next((f for f in articulated if rel.place.startswith(f + "_")), None)
        if rel.kind == "site" and owner and rel.place[len(owner) + 1 :] not in TOP_REGIONS:
            out.append(
                Issue(rel.span, f"{rel.mover!r} starts inside {rel.place!r}: placed on the prop")
            )
    for term in task.problem.init:
        for atom in walk_atoms(term):
            if atom.predicate.lower() in OPERATING:
                out.append(
                    Issue(
                        atom.span, f"(:init {atom.predicate} ...) not applied: fixtures are props"
                    )
                )
    return out


def check_buildable(task: Task, known: set[str]) -> None:
    """Raise when :func:`unbuildable` finds anything.

    Raises:
        TaskError: ``path: rsb_mj cannot build this scene (tier T):`` then one
            ``path:line:col: message`` line per part.
    """
    issues = unbuildable(task, known)
    if issues:
        lines = [f"{task.path}: rsb_mj cannot build this scene (tier {task.tier}):"]
        lines += ["  " + i.format(task.path) for i in issues]
        raise TaskError("\n".join(lines))
