"""``(:moving_objects ...)``: VLA-Arena's moving objects, read and checked with positions.

Syntax (VLA-Arena's ``bddl_utils.get_moving_objects``)::

    (:moving_objects
      (cart_1
        (:motion_type linear)            ; linear | circle | waypoint | parabolic
        (:motion_period 40)              ; steps for one back-and-forth
        (:motion_travel_dist 0.3)        ; metres each way
        (:motion_direction (1 0 0))))    ; any non-zero vector

A *step* is one VLA-Arena control step (1/20 s); rsb advances the motion every physics
substep by the elapsed time, so it is the same at any control rate. Keys per type, with the
defaults VLA-Arena's generators use (``required`` where its default cannot work in rsb):

=============  ============================================================================
``linear``     ``:motion_period`` (required, >= 2 steps per back-and-forth),
               ``:motion_travel_dist`` (1 m each way), ``:motion_direction`` ((0 1 0))
``circle``     ``:motion_center`` (required, (x y z)), ``:motion_period`` (required, steps
               per turn); the radius is the distance from the start position to the
               center, in the plane z = const
``waypoint``   ``:motion_waypoints`` (required, at least two ``((x y z) (dx dy dz))``:
               position and heading), ``:motion_dt`` (0.01; a segment takes 10 / dt steps),
               ``:motion_loop`` (true: back and forth forever; false: once there and back)
``parabolic``  ``:motion_start_pos`` (the object's :init place), ``:motion_initial_speed``
               (1 m/s), ``:motion_direction`` ((0 1 0)), ``:motion_dt`` (0.01 s of flight
               per step), ``:motion_gravity`` ((0 0 -9.81) m/s^2); it stops on landing
=============  ============================================================================

``:motion_start_quat`` (circle, parabolic) and ``:motion_dt`` (circle) are read and ignored,
as VLA-Arena's generators ignore them. rsb adds ``(:motion_phase random)`` (any type but
parabolic): the motion starts at a step drawn from the episode seed within one period
(``(:motion_phase 12)``: at step 12). Positions (``:motion_center``, waypoints,
``:motion_start_pos``) are in the rsb *table frame* (x right, y away from the robot, z above
the table top) [m]; VLA-Arena's files give robosuite world coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Number, SExp, SList, Symbol
from rsb_mj.lang.nodes import NO_SPAN, Span

MOTION_TYPES = ("linear", "circle", "waypoint", "parabolic")
#: Keys each motion type reads (without the ``:motion_`` prefix); ``type`` is always read.
KEYS: dict[str, tuple[str, ...]] = {
    "linear": ("period", "travel_dist", "direction", "phase"),
    "circle": ("center", "period", "phase", "start_quat", "dt"),
    "waypoint": ("waypoints", "dt", "loop", "phase"),
    "parabolic": ("start_pos", "initial_speed", "direction", "dt", "gravity", "start_quat"),
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "linear": ("period",),
    "circle": ("center", "period"),
    "waypoint": ("waypoints",),
    "parabolic": (),
}


@dataclass(frozen=True)
class Motion:
    """One moving object's declared motion (units in the module docstring).

    Attributes:
        name: the object.
        type: one of :data:`MOTION_TYPES`.
        period: steps per back-and-forth (linear) or per turn (circle).
        travel_dist: metres each way (linear).
        direction: direction of travel (linear) or of launch (parabolic), not normalized.
        center: circle center, table frame [m].
        waypoints: ((x, y, z), (dx, dy, dz)) per waypoint, table frame [m].
        dt: waypoint: 10 / dt steps per segment; parabolic: seconds of flight per step.
        loop: waypoint: repeat forever.
        initial_speed: parabolic launch speed [m/s].
        start_pos: parabolic start, table frame [m], or None for the object's place.
        gravity: parabolic acceleration [m/s^2].
        phase: ``"random"``, a start step, or None (step 0).
        span: the declaration's position.
    """

    name: str
    type: str
    period: float = 0.0
    travel_dist: float = 1.0
    direction: tuple[float, float, float] = (0.0, 1.0, 0.0)
    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    waypoints: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...] = ()
    dt: float = 0.01
    loop: bool = True
    initial_speed: float = 1.0
    start_pos: tuple[float, float, float] | None = None
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    phase: str | float | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True)
class Issue:
    """A problem in the block: the lint rule's code, the message, where."""

    code: str
    message: str
    span: Span


def _vector(node: SExp, size: int) -> tuple[float, ...] | None:
    if (
        isinstance(node, SList)
        and len(node.items) == size
        and all(isinstance(i, Number) for i in node.items)
    ):
        return tuple(float(i.value) for i in node.items)  # type: ignore[union-attr]
    return None


def _positive(node: SExp, *, minimum: float = 0.0, strict: bool = True) -> float | None:
    if isinstance(node, Number):
        value = float(node.value)
        if value > minimum or (not strict and value >= minimum):
            return value
    return None


class _Reader:
    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.issues: list[Issue] = []
        self.motions: list[Motion] = []

    def issue(self, code: str, message: str, span: Span) -> None:
        self.issues.append(Issue(code, message, span))

    def read(self) -> None:
        seen: set[str] = set()
        for section in self.problem.sections:
            if section.keyword != "moving_objects":
                continue
            for item in section.items:
                motion = self.entry(item)
                if motion is None:
                    continue
                if motion.name in seen:
                    self.issue("RSB427", f"{motion.name!r} is declared moving twice", item.span)
                    continue
                seen.add(motion.name)
                self.motions.append(motion)

    def entry(self, item: SExp) -> Motion | None:
        if not isinstance(item, SList) or not item.items or not isinstance(item.items[0], Symbol):
            self.issue(
                "RSB427",
                "each moving object is (NAME (:motion_type TYPE) (:motion_KEY VALUE) ...)",
                item.span,
            )
            return None
        name = item.items[0].value
        keys: dict[str, SList] = {}
        for prop in item.items[1:]:
            if (
                not isinstance(prop, SList)
                or len(prop.items) != 2
                or not isinstance(prop.items[0], Symbol)
                or not prop.items[0].value.startswith(":motion_")
            ):
                self.issue("RSB427", f"{name}: each property is (:motion_KEY VALUE)", prop.span)
                continue
            key = prop.items[0].value.removeprefix(":motion_")
            if key in keys:
                self.issue("RSB427", f"{name}: :motion_{key} is given twice", prop.span)
            keys[key] = prop
        kind_prop = keys.pop("type", None)
        kind = kind_prop.items[1] if kind_prop is not None else None
        if not isinstance(kind, Symbol) or kind.value not in MOTION_TYPES:
            shown = f"{kind.value!r}" if isinstance(kind, Symbol) else "no :motion_type"
            self.issue(
                "RSB426",
                f"{name}: {shown}; valid motion types: {', '.join(MOTION_TYPES)}",
                kind_prop.span if kind_prop is not None else item.span,
            )
            return None
        mtype = kind.value
        values: dict[str, object] = {}
        for key, prop in keys.items():
            if key not in KEYS[mtype]:
                self.issue(
                    "RSB427",
                    f"{name}: a {mtype} motion does not read :motion_{key}; valid keys: "
                    + ", ".join(f":motion_{k}" for k in ("type", *KEYS[mtype])),
                    prop.span,
                )
                continue
            value = self.value(name, key, prop.items[1])
            if value is not None:
                values[key] = value
        for key in REQUIRED[mtype]:
            if key not in keys:
                self.issue("RSB428", f"{name}: a {mtype} motion needs :motion_{key}", item.span)
                return None
        if mtype == "linear" and "period" in values and float(values["period"]) < 2:  # type: ignore[arg-type]
            self.issue(
                "RSB428",
                f"{name}: :motion_period of a linear motion must be >= 2 steps (one step out "
                "and one back)",
                keys["period"].span,
            )
            return None
        if len(values) < len([k for k in keys if k in KEYS[mtype]]):
            return None  # a bad value was reported
        values.pop("start_quat", None)
        if mtype == "circle":
            values.pop("dt", None)
        return Motion(name=name, type=mtype, span=item.span, **values)  # type: ignore[arg-type]

    def value(self, name: str, key: str, node: SExp) -> object | None:
        where = node.span
        bad = f"{name}: :motion_{key} takes "
        if key in ("direction", "center", "start_pos", "gravity"):
            vec = _vector(node, 3)
            if vec is None or (key == "direction" and not any(vec)):
                what = "a non-zero vector (x y z)" if key == "direction" else "(x y z)"
                self.issue("RSB428", bad + what, where)
                return None
            return vec
        if key == "start_quat":
            if _vector(node, 4) is None:
                self.issue("RSB428", bad + "(x y z w)", where)
                return None
            return True
        if key in ("period", "dt"):
            value = _positive(node)
            if value is None:
                self.issue("RSB428", bad + "a number > 0", where)
            return value
        if key in ("travel_dist", "initial_speed"):
            value = _positive(node, strict=False)
            if value is None:
                self.issue("RSB428", bad + "a number >= 0", where)
            return value
        if key == "loop":
            if isinstance(node, Symbol) and node.value.lower() in ("true", "false"):
                return node.value.lower() == "true"
            self.issue("RSB428", bad + "true or false", where)
            return None
        if key == "phase":
            if isinstance(node, Symbol) and node.value == "random":
                return "random"
            value = _positive(node, strict=False)
            if value is None:
                self.issue("RSB428", bad + "random or a step >= 0", where)
            return value
        # waypoints
        points = []
        if isinstance(node, SList):
            for wp in node.items:
                pair = wp.items if isinstance(wp, SList) and len(wp.items) == 2 else ()
                pos = _vector(pair[0], 3) if pair else None
                heading = _vector(pair[1], 3) if pair else None
                if pos is None or heading is None:
                    points = []
                    break
                points.append((pos, heading))
        if len(points) < 2:
            self.issue("RSB428", bad + "at least two ((x y z) (dx dy dz))", where)
            return None
        return tuple(points)


def read_moving_objects(problem: Problem) -> tuple[tuple[Motion, ...], tuple[Issue, ...]]:
    """The ``:moving_objects`` declarations and the problems found reading them.

    Declarations with a problem are left out. Names are not checked against ``:objects``
    here (the lint rule does it).
    """
    reader = _Reader(problem)
    reader.read()
    return tuple(reader.motions), tuple(reader.issues)
