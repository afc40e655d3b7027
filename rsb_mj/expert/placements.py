"""What a task and its episode ask the arms to do: the *placements* the expert carries out.

:func:`placements` reads them once, for any task, as :class:`Placement` values: the object
moved, the goal atom that says where (``?answer`` bound), the place's region in the world
frame when the task fixes it, and what the planner needs besides (the arm rule, what rides
on the mover). The expert (:func:`rsb_mj.expert.entry.expert_for`) plans and executes them;
nothing else tells it what to do.

* A task with candidates (its ``:goal`` places ``?answer``: ``(In ?answer
  table_answer_zone)``, Act2Answer's ``(On cube ?answer)``) asks one placement per episode,
  the goal's first, ``?answer`` bound to a candidate (the episode's target, or a baseline's
  own choice): the candidate into the answer zone
  (:attr:`Placement.zone`, fixed by the task's ``(:answer_zone ...)``), or the named object
  onto the candidate; the arm is the one on the candidate's side of the table
  (:attr:`Placement.choice`).
* A task without candidates asks every ``On``/``In`` of its goal, each mover onto or into
  its place, in the order the expert can do them (:func:`placement_order`); the place is
  measured when its placement starts (an earlier one may have moved it), and what stands on
  or in the mover at ``:init`` moves with it (:func:`riders`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import ExpertError, RsbError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.goal import placements as goal_atoms
from rsb_mj.lang.layout import answer_zone_rects
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import Relation, Task, task_of
from rsb_mj.scene.frames import table_to_world
from rsb_mj.scoring.placement import Placement as GoalPlace
from rsb_mj.scoring.placement import goal_placement


@dataclass(frozen=True)
class Zone:
    """A place region fixed in the world frame (the answer zone).

    Attributes:
        center: its centre on the table top, world (x, y, z) [m].
        half: its half sizes in world x, y [m].
    """

    center: tuple[float, float, float]
    half: tuple[float, float]


@dataclass(frozen=True)
class Placement:
    """One object the arms move, and where.

    Attributes:
        relation: the goal atom with ``?answer`` bound: ``relation.mover`` is the object
            moved (its body in the model has its name), ``relation.place`` the region, site
            or object it goes in or on, ``relation.kind`` which (``"region"``, ``"site"``,
            ``"object"``), ``relation.predicate`` ``"In"`` or ``"On"``.
        zone: the place in the world frame when the task fixes it (the answer zone: the
            mover's centre goes over the zone's); None when it is measured as the placement
            starts (an object's footprint or top, a site of a fixture).
        choice: the candidate ``?answer`` is bound to, or None: a bound placement is moved
            by the arm on that candidate's side of the table (world x >= 0: the right arm)
            in one pick and place (the first grasp is the choice); an unbound one by the arm
            that reaches both its ends.
        riders: the objects that stand on or in the mover at ``:init`` and move with it
            (:func:`riders`): the carry's collision check looks through them.
    """

    relation: Relation
    zone: Zone | None = None
    choice: str | None = None
    riders: frozenset[str] = field(default_factory=frozenset)

    @property
    def mover(self) -> str:
        """The object moved (its body in the model has this name)."""
        return self.relation.mover


def placements(task: Problem | Task, episode: Episode | str | None = None) -> tuple[Placement, ...]:
    """What ``task`` and ``episode`` ask the arms to do, in the order to do it.

    Args:
        task: the task (:class:`~rsb_mj.lang.task.Task`), or its parsed problem.
        episode: the episode (its ``target`` is the candidate ``?answer`` binds), or that
            candidate's name (a scripted baseline's own choice); None or ``""`` for a task
            without candidates.

    Raises:
        ExpertError: a task with candidates and no candidate bound, or bound to a name that
            is no candidate (the candidates listed), a binding for a task without
            candidates, or a goal with no place to move to.
        TaskError: a task without candidates whose goal cannot be read.
    """
    problem = task.problem if isinstance(task, Task) else task
    answer = episode if isinstance(episode, str) or episode is None else episode.target
    if problem.candidates or answer:
        return (_bound(problem, answer or ""),)
    goal = task if isinstance(task, Task) else task_of(problem, expect="goal")
    order = placement_order(goal.goal, goal.init)
    movers = {r.mover for r in order}
    return tuple(
        Placement(rel, riders=riders(rel.mover, goal.init, goal.objects, movers)) for rel in order
    )


def choices(task: Problem | Task) -> tuple[str, ...]:
    """The candidates an episode may bind ``?answer`` to, declaration order; ``()`` for a
    task without candidates (nothing to choose: its goal is what the arms do)."""
    return task.candidates


def answer_zone(problem: Problem) -> Zone:
    """The first answer-zone rectangle of ``problem`` in the world frame (the table's centre
    and no size without one): where a bound placement puts a candidate."""
    rects = answer_zone_rects(problem)
    if not rects:
        center, half = table_to_world(0.0, 0.0), (0.0, 0.0)
    else:  # as the scene compiler computes it (rsb_mj.scene.compiler: Scene.zone_center)
        x0, y0, x1, y1 = rects[0]
        center = table_to_world((x0 + x1) / 2, (y0 + y1) / 2, 0.0)
        half = (abs(x1 - x0) / 2, abs(y1 - y0) / 2)
    x, y, z = (float(v) for v in center)
    return Zone((x, y, z), (float(half[0]), float(half[1])))


def _bound(problem: Problem, answer: str) -> Placement:
    """The first placement of ``problem``'s goal with ``?answer`` bound to ``answer``
    (:func:`rsb_mj.scoring.placement.goal_placement`; a task without a goal: the candidate
    into the answer zone)."""
    if not problem.candidates:
        raise ExpertError(
            f"{problem.path}: no candidate to bind ?answer to ({answer!r}): the task has no "
            "(:candidates ...); its goal's placements need no binding"
        )
    if not answer:
        raise ExpertError(
            f"{problem.path}: the task's candidates ask one placement per episode: bind "
            f"?answer to one of them; valid choices: {', '.join(problem.candidates)}"
        )
    if answer not in problem.candidates:
        raise ExpertError(
            f"target {answer!r} is not a candidate; valid choices: {', '.join(problem.candidates)}"
        )
    place = GoalPlace(answer)
    if problem.goal is not None:
        try:
            place = goal_placement(problem, answer)
        except RsbError as exc:
            raise ExpertError(str(exc)) from None
    atoms = goal_atoms(problem)
    span = atoms[0].atom.span if atoms else Span(line=1, column=1, end_line=1, end_column=1)
    if place.onto is not None:
        rel = Relation("On", place.mover, place.onto, "object", span)
        return Placement(rel, choice=answer)
    zones = problem.answer_zone_names
    rel = Relation("In", place.mover, zones[0] if zones else "", "region", span)
    return Placement(rel, zone=answer_zone(problem), choice=answer)


def placement_order(
    goal: tuple[Relation, ...], init: tuple[Relation, ...] = ()
) -> tuple[Relation, ...]:
    """The goal's relations in the order the expert carries them out: source order, except
    that an object is put in its place before anything is put on or in it (``stack the
    left bowl on the right bowl and place them in the tray``: the right bowl goes into the
    tray first), and an object that stands at ``init`` where another goes is moved away
    first (``put the tomato that is on the plate in the bowl, then the orange on the
    plate``, whatever their order in the goal)."""
    on_at_init = {(r.mover, r.place) for r in init}
    todo = list(goal)
    done: list[Relation] = []
    while todo:

        def waits(r: Relation) -> bool:
            return any(
                o.mover == r.place or (o.mover, r.place) in on_at_init for o in todo if o is not r
            )

        ready = [r for r in todo if not waits(r)]
        nxt = ready[0] if ready else todo[0]  # a cycle: keep source order
        done.append(nxt)
        todo.remove(nxt)
    return tuple(done)


def riders(
    mover: str, init: tuple[Relation, ...], objects: Iterable[str], placed: Iterable[str] = ()
) -> frozenset[str]:
    """The objects that stand on or in ``mover`` at ``init``, directly or on one another
    (``(On water_ball_1 mug_1) (On water_ball_2 water_ball_1)``): they move with it when it
    is carried. A place that is a site counts as its owner among ``objects`` (``mug_1`` of
    ``mug_1_contain_region``); objects in ``placed`` (the goal's movers, which the expert
    places itself) are left out."""
    names = sorted(objects, key=len, reverse=True)  # the longest owner name wins

    def owner(rel: Relation) -> str | None:
        if rel.kind == "object":
            return rel.place
        if rel.kind == "site":
            return next((o for o in names if rel.place.startswith(o + "_")), None)
        return None

    skip = set(placed)
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for rel in init:
            new = rel.mover not in out and rel.mover not in skip and rel.mover != mover
            if new and (owner(rel) == mover or owner(rel) in out):
                out.add(rel.mover)
                grew = True
    return frozenset(out)
