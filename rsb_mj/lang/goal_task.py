"""Goal tasks: a task file without ``(:question ...)`` (nor ``(:domain rsb)``:
:func:`rsb_mj.lang.task.task_family` decides) as the runtime reads it. Pure Python.

A goal task (every LIBERO and VLA-Arena file, or a user's own "put the bowl on the plate")
declares objects, fixtures and regions, places them with ``:init`` and says what must hold at
the end with ``:goal``; ``:language`` is the instruction. :func:`goal_task_of` reads one into a
:class:`GoalTask`: its goal placements (``On``/``In`` of a mover onto an object, a region or
into a site), its init relations (``On`` a region, ``On`` another object, ``In`` a site), the
predicate semantics of its source (:data:`SEMANTICS`) and its tier (:func:`tier_of`).

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
"""

from __future__ import annotations

from dataclasses import dataclass

from rsb_mj.errors import TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Atom, Name, walk_atoms
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import task_family, task_semantics

#: Predicate semantics per source: the xy distance [m] within which ``On(a, b)`` (b an
#: object) holds. LIBERO's ``check_ontop`` uses 0.03 m, VLA-Arena's 0.07 m.
SEMANTICS: dict[str, float] = {"libero": 0.03, "vla_arena": 0.07}
#: Fixture categories that are articulated (drawers, doors, knobs) in LIBERO / VLA-Arena;
#: rsb_mj poses them as static props (tier A1).
ARTICULATED = frozenset(
    {
        "wooden_cabinet",
        "white_cabinet",
        "short_cabinet",
        "flat_stove",
        "microwave",
        "slide_cabinet",
        "window",
        "faucet",
        "short_fridge",
        "dishwasher",
    }
)
#: Workspace fixture categories (the table the scene stands on; ``floor`` is tier C).
TABLES = frozenset(
    {"table", "kitchen_table", "living_room_table", "study_table", "main_table", "coffee_table"}
    | {"floor"}  # tier C: the floor patch is re-hosted on the table (frame_map.layout_change)
)
#: Regions of an articulated fixture that are on top of it (usable as a prop's surface).
TOP_REGIONS = frozenset({"top_side", "cook_region", "top_region_on_top"})
#: Goal predicates that operate a fixture (tier B2).
OPERATING = frozenset({"open", "close", "turnon", "turnoff"})
#: The tiers rsb_mj builds: all of them (tier B's fixtures articulated, tier C's floor
#: patch on the table). What stops a file is then not its tier (:func:`unbuildable`).
BUILDABLE_TIERS = ("A0", "A1", "B1", "B2", "C")
#: The tiers whose scenes stand fixtures as static props (their ``:init`` states unapplied).
TABLETOP_TIERS = ("A0", "A1")
#: Goal predicates rsb_mj scores (lowercased): placements and fixture states.
SCORED_PREDICATES = frozenset({"on", "in", *OPERATING})
#: The fixture categories rsb_mj builds with joints in a tier B scene, and the states
#: (lowercased) each can be set to and read in (``rsb_mj.scene.categories.articulated``'s
#: stand-ins and their ``init_ranges``; ``tests/lang/test_goal_task.py`` checks they agree).
MODELLED_STATES: dict[str, frozenset[str]] = {
    "wooden_cabinet": frozenset({"open", "close"}),
    "white_cabinet": frozenset({"open", "close"}),
    "microwave": frozenset({"open", "close"}),
    "flat_stove": frozenset({"turnon", "turnoff"}),
}


@dataclass(frozen=True)
class Relation:
    """One ``On``/``In`` atom between a thing and a place.

    Attributes:
        predicate: ``"On"`` or ``"In"``.
        mover: the object placed (first argument).
        place: an object or fixture name, or a region's full name.
        kind: ``"object"`` (place is an object or fixture), ``"region"`` (a region on the
            table), ``"site"`` (a region on a fixture or object).
        span: position of the atom in the task file.
    """

    predicate: str
    mover: str
    place: str
    kind: str
    span: Span

    @property
    def text(self) -> str:
        """``On apple_1 plate_1``."""
        return f"{self.predicate} {self.mover} {self.place}"


@dataclass(frozen=True)
class StateAtom:
    """One fixture-state atom: ``(Open X)``, ``(Close X)``, ``(TurnOn X)``, ``(TurnOff X)``.

    Attributes:
        predicate: ``"Open"``, ``"Close"``, ``"TurnOn"`` or ``"TurnOff"`` (LIBERO lowercases
            predicate names, so ``Turnon`` is ``TurnOn``).
        target: a whole fixture (``microwave_1``) or a region on one
            (``wooden_cabinet_1_top_region``: that drawer's joint alone).
        span: position of the atom in the task file.
    """

    predicate: str
    target: str
    span: Span

    @property
    def text(self) -> str:
        """``Open wooden_cabinet_1_top_region``."""
        return f"{self.predicate} {self.target}"


#: Canonical spelling of each fixture-state predicate, by its lowercased name.
STATE_PREDICATES = {"open": "Open", "close": "Close", "turnon": "TurnOn", "turnoff": "TurnOff"}


@dataclass(frozen=True)
class Issue:
    """A part of a goal task rsb_mj cannot build, with its position."""

    span: Span
    message: str

    def format(self, path: str) -> str:
        """``path:line:col: message``."""
        return f"{path}:{self.span.line}:{self.span.column}: {self.message}"


@dataclass(frozen=True)
class GoalTask:
    """A goal task as the runtime reads it.

    Attributes:
        problem: the parsed task.
        path: the task file path.
        source: ``"libero"`` or ``"vla_arena"`` (whose predicate semantics apply).
        instruction: ``:language`` (the instruction the policy gets).
        objects: object name -> category, declaration order.
        fixtures: fixture name -> category (the table included).
        goal: the goal's placements, source order.
        init: the ``:init`` placements, source order.
        tier: ``"A0"``, ``"A1"``, ``"B1"``, ``"B2"`` or ``"C"``.
        on_xy: the ``On(a, b)`` xy threshold of the source [m].
        goal_states: the goal's fixture-state atoms (``Open``/``Close``/``TurnOn``/
            ``TurnOff``), source order.
        init_states: the ``:init`` fixture-state atoms, source order.
    """

    problem: Problem
    path: str
    source: str
    instruction: str
    objects: dict[str, str]
    fixtures: dict[str, str]
    goal: tuple[Relation, ...]
    init: tuple[Relation, ...]
    tier: str
    goal_states: tuple[StateAtom, ...] = ()
    init_states: tuple[StateAtom, ...] = ()

    @property
    def on_xy(self) -> float:
        """The ``On(a, b)`` xy threshold of the source [m]."""
        return SEMANTICS[self.source]

    @property
    def table(self) -> str:
        """The name of the workspace table fixture (``main_table`` when none is declared)."""
        for name, cat in self.fixtures.items():
            if cat in TABLES:
                return name
        return "main_table"

    @property
    def movers(self) -> tuple[str, ...]:
        """The objects the goal moves, first appearance order."""
        return tuple(dict.fromkeys(r.mover for r in self.goal))


def is_goal_task(problem: Problem) -> bool:
    """True for a goal task (a LIBERO / VLA-Arena style file: no ``(:question ...)`` and a
    domain other than rsb's; :func:`rsb_mj.lang.task.task_family` decides)."""
    return task_family(problem) == "goal"


def source_of(problem: Problem) -> str:
    """Whose thresholds a goal problem is scored with: ``"libero"`` for a LIBERO problem (its
    name starts with ``LIBERO``), else ``"vla_arena"`` (VLA-Arena's and users' own goal tasks
    use its thresholds): :func:`rsb_mj.lang.task.task_semantics`."""
    return task_semantics(problem)


def _relation(problem: Problem, atom: Atom, regions: set[str]) -> Relation | None:
    pred = atom.predicate.lower()
    if pred not in ("on", "in") or len(atom.args) != 2:
        return None
    a, b = atom.args
    if not isinstance(a, Name) or not isinstance(b, Name):
        return None
    decls = problem.declarations()
    if b.value in regions:
        region = problem.region(b.value)
        target = region.target or ""
        kind = "region" if target in _tables(problem) else "site"
    elif b.value in decls:
        kind = "object"
    else:
        kind = "site"  # a site the fixture's model defines (e.g. white_cabinet_1_top_region)
    return Relation("On" if pred == "on" else "In", a.value, b.value, kind, atom.span)


def _state(atom: Atom) -> StateAtom | None:
    pred = STATE_PREDICATES.get(atom.predicate.lower())
    if pred is None or len(atom.args) != 1 or not isinstance(atom.args[0], Name):
        return None
    return StateAtom(pred, atom.args[0].value, atom.span)


def _tables(problem: Problem) -> set[str]:
    out = {d.name for d in problem.fixtures if d.category in TABLES}
    return out or {"main_table"}


def tier_of(problem: Problem) -> str:
    """The tier of ``problem`` (see the module docstring)."""
    if any(d.category == "floor" for d in problem.fixtures):
        return "C"
    atoms = [a for t in problem.goal_terms for a in walk_atoms(t)]
    if any(a.predicate.lower() in OPERATING for a in atoms):
        return "B2"
    # a drawer used as a container: by the goal, or holding an object at :init
    atoms += [a for t in problem.init for a in walk_atoms(t) if a.predicate.lower() == "in"]
    articulated = {d.name for d in problem.fixtures if d.category in ARTICULATED}
    regions = {r.full_name: r for r in problem.regions}
    for atom in atoms:
        if atom.predicate.lower() not in ("on", "in") or len(atom.args) != 2:
            continue
        place = atom.args[1]
        if not isinstance(place, Name):
            continue
        region = regions.get(place.value)
        target = region.target if region is not None else None
        name = region.name if region is not None else None
        if region is None:  # a site named by the fixture's model: `{fixture}_{region}`
            for fixture in articulated:
                if place.value.startswith(fixture + "_"):
                    target, name = fixture, place.value[len(fixture) + 1 :]
        if target in articulated and name not in TOP_REGIONS:
            return "B1"
    return "A1" if articulated else "A0"


def goal_task_of(problem: Problem) -> GoalTask:
    """The :class:`GoalTask` of ``problem``.

    Raises:
        TaskError: for a task with ``(:question ...)`` (a question task) or without ``:goal``.
    """
    path = str(problem.path)
    if not is_goal_task(problem):
        raise TaskError(f"{path}: a question task is not read as a goal task")
    if not problem.goal_terms:
        raise TaskError(f"{path}: the task has no :goal")
    regions = {r.full_name for r in problem.regions}
    goal = tuple(
        r
        for t in problem.goal_terms
        for a in walk_atoms(t)
        if (r := _relation(problem, a, regions)) is not None
    )
    init = tuple(
        r for t in problem.init for a in walk_atoms(t) if (r := _relation(problem, a, regions))
    )
    return GoalTask(
        problem=problem,
        path=path,
        source=source_of(problem),
        instruction=(problem.language or "").strip(),
        objects={d.name: d.category for d in problem.objects},
        fixtures={d.name: d.category for d in problem.fixtures},
        goal=goal,
        init=init,
        tier=tier_of(problem),
        goal_states=tuple(
            s for t in problem.goal_terms for a in walk_atoms(t) if (s := _state(a)) is not None
        ),
        init_states=tuple(
            s for t in problem.init for a in walk_atoms(t) if (s := _state(a)) is not None
        ),
    )


def unbuildable(task: GoalTask, known: set[str]) -> list[Issue]:
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


def _state_owner(task: GoalTask, target: str) -> str | None:
    """The fixture a state atom's ``target`` names: itself, or the owner of the region
    ``{fixture}_{region}`` (the longest fixture name that prefixes it), else None."""
    if target in task.fixtures:
        return target
    names = sorted(task.fixtures, key=len, reverse=True)
    return next((n for n in names if target.startswith(n + "_")), None)


def warnings_of(task: GoalTask) -> list[Issue]:
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


def check_buildable(task: GoalTask, known: set[str]) -> None:
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
