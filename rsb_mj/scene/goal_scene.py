"""Goal scenes: a LIBERO / VLA-Arena task file's layout on the Aloha table.

Usage::

    scene = compile_goal_scene(task)          # once per task
    layout = scene.reset(data, seed)          # every episode: sampled, settled, checked

**The frame map.** LIBERO's and VLA-Arena's ``:ranges`` are in their table frame (x forward
from their robot, y to its left). They map to rsb_mj's table frame (x to the right of the
head camera's view, y away from it; :mod:`rsb_mj.workspace`) by::

    x = s * y_L + shift_x        y = -s * x_L + shift_y        yaw = yaw_L - pi / 2

which keeps image-left image-left between LIBERO's ``agentview`` and the head camera. The
scale ``s`` (1.0, else 0.85 or 0.75) and the shift are chosen once per task by
:func:`choose_map`, deterministically: the first scale, then the shift nearest the origin
on a 0.025 m grid (lateral within +-0.25 m, depth within +-0.3 m), for which one arm reaches
both ends of every goal pair (the mover's ``:init`` region and its place) and every region
centre lies on the table and off the arms' bases. Results are "LIBERO/VLA-Arena layouts on
Aloha": a new benchmark, not comparable with published LIBERO/VLA-Arena numbers.

**Episodes.** An episode is a seed: its layout draws each object's pose uniformly within its
``:init`` region's (mapped) rectangle and its yaw within the region's ``:yaw_rotation``
(0 without one); ``(On a b)`` stacks a on b, ``(On a site)`` / ``(In a site)`` put a on the
site of a fixture or object. The scene is then settled for :data:`SETTLE_S` with the arms at
home and checked (:meth:`GoalScene.check`): every object at rest, none off the table or
interpenetrating another, the goal false. A layout that fails is drawn again from the same
generator (deterministic), up to :data:`ATTEMPTS` times.

Fixtures are static props (no joint) at their ``:init`` region; regions on fixtures and
objects are sites ``{name}_{region}``; table regions are sites ``{table}_{region}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.lang.ast import Rect
from rsb_mj.lang.goal_task import GoalTask, Relation
from rsb_mj.scene import aloha
from rsb_mj.scene.assets import STANDINS_SOURCE, ObjectSource, OriginalCategory, find_object_xml
from rsb_mj.scene.categories import CATEGORIES, Category
from rsb_mj.scene.categories.standins import STANDINS
from rsb_mj.scene.goal_props import Prop, build_prop, fixture_prop, object_prop
from rsb_mj.scene.probes import Probe, add_probes
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN, TABLE_HALF_XY, TABLE_TOP_Z

#: Scales tried, in order, when no shift at full scale makes every goal pair reachable.
SCALES = (1.0, 0.85, 0.75)
#: Lateral (x) and depth (y) shift bounds [m] of the frame map, and the grid step.
SHIFT_X, SHIFT_Y, SHIFT_STEP = 0.25, 0.30, 0.025
#: Margin [m] kept inside the reach annulus for goal ends, and inside the table edge.
REACH_MARGIN, EDGE_MARGIN = 0.06, 0.04
#: How much nearer [m] a place on a fixture must be than the other ends (it is high).
HIGH_REACH = 0.06
#: Seconds the scene settles before the checks.
SETTLE_S = 1.0
#: Speed [m/s] under which an object counts as at rest.
REST_SPEED = 0.02
#: Penetration depth [m] beyond which two objects interpenetrate.
PENETRATION = 0.004
#: Where an object without an ``:init`` place is put: table-frame x and y ranges [m].
FREE_X, FREE_Y = (-0.2, 0.2), (0.1, 0.3)
#: Layout draws per episode before the reset fails.
ATTEMPTS = 10
#: Colours of the rsb categories used in goal scenes (their colour is per episode otherwise).
CATEGORY_RGBA = {
    "apple": (0.8, 0.1, 0.1, 1.0),
    "lemon": (0.98, 0.92, 0.2, 1.0),
    "orange": (0.98, 0.55, 0.1, 1.0),
    "banana": (0.95, 0.85, 0.2, 1.0),
    "pear": (0.7, 0.8, 0.2, 1.0),
}


@dataclass(frozen=True)
class FrameMap:
    """The map from the LIBERO / VLA-Arena table frame to rsb_mj's (module docstring)."""

    scale: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)

    def point(self, x_l: float, y_l: float) -> tuple[float, float]:
        """rsb table-frame (x, y) [m] of LIBERO point (x_l, y_l)."""
        return (self.scale * y_l + self.shift[0], -self.scale * x_l + self.shift[1])

    def rect(self, r: Rect) -> tuple[float, float, float, float]:
        """rsb (x0, y0, x1, y1) [m] of a LIBERO ``:ranges`` rectangle."""
        ax, ay = self.point(r.x0, r.y0)
        bx, by = self.point(r.x1, r.y1)
        return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))

    @staticmethod
    def yaw(yaw_l: float) -> float:
        """rsb yaw [rad] of a LIBERO yaw."""
        return yaw_l - math.pi / 2


def _region_rect(task: GoalTask, full_name: str) -> Rect | None:
    for region in task.problem.regions:
        if region.full_name == full_name and region.ranges:
            return region.ranges[0]
    return None


def _centre(r: Rect) -> tuple[float, float]:
    return ((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)


def _root_region(task: GoalTask, name: str, seen: tuple[str, ...] = ()) -> Rect | None:
    """The table region under ``name`` (following ``On a b`` / sites down to the table)."""
    if name in seen:
        return None
    for rel in task.init:
        if rel.mover != name:
            continue
        if rel.kind == "region":
            return _region_rect(task, rel.place)
        owner = rel.place if rel.kind == "object" else _owner(task, rel.place)
        if owner:
            return _root_region(task, owner, (*seen, name))
    return None


def _owner(task: GoalTask, site: str) -> str | None:
    """The fixture or object a site ``{owner}_{region}`` belongs to."""
    for region in task.problem.regions:
        if region.full_name == site and region.target:
            return region.target
    names = sorted({*task.objects, *task.fixtures}, key=len, reverse=True)
    return next((n for n in names if site.startswith(n + "_")), None)


def _on_fixture(task: GoalTask, name: str) -> bool:
    """True when ``name`` starts on a fixture other than the table (``:init``)."""
    for rel in task.init:
        if rel.mover == name and rel.kind != "region":
            owner = rel.place if rel.kind == "object" else _owner(task, rel.place)
            return owner in task.fixtures and owner != task.table
    return False


def _reach(x: float, y: float, side: str) -> float:
    bx, by = ARM_BASE_XY[side]
    return math.hypot(x - bx, y - by)


def _score(task: GoalTask, fmap: FrameMap) -> tuple[int, int]:
    """(goal pairs one arm reaches, region centres off the table or on an arm base)."""
    pairs = 0
    for rel in task.goal:
        ends = [_root_region(task, rel.mover)]
        if rel.kind == "region":
            ends.append(_region_rect(task, rel.place))
        else:
            ends.append(
                _root_region(
                    task, rel.place if rel.kind == "object" else (_owner(task, rel.place) or "")
                )
            )
        if any(e is None for e in ends):
            continue
        pts = [fmap.point(*_centre(e)) for e in ends if e is not None]
        # an end on a fixture is high: the arm reaches less far up there
        place_owner = rel.place if rel.kind == "object" else _owner(task, rel.place)
        far = REACH_MAX - REACH_MARGIN
        outer = [
            far - (HIGH_REACH if _on_fixture(task, rel.mover) else 0.0),
            far - (HIGH_REACH if place_owner in task.fixtures else 0.0),
        ]
        if any(
            all(
                REACH_MIN + REACH_MARGIN <= _reach(x, y, s) <= limit
                for (x, y), limit in zip(pts, outer, strict=True)
            )
            for s in ARM_BASE_XY
        ):
            pairs += 1
    bad = 0
    hx, hy = TABLE_HALF_XY
    for rel in task.init:
        if rel.kind != "region":
            continue
        r = _region_rect(task, rel.place)
        if r is None:
            continue
        x, y = fmap.point(*_centre(r))
        if (
            abs(x) > hx - EDGE_MARGIN
            or abs(y) > hy - EDGE_MARGIN
            or min(_reach(x, y, s) for s in ARM_BASE_XY) < REACH_MIN
        ):
            bad += 1
    return pairs, bad


def choose_map(task: GoalTask) -> FrameMap:
    """The task's frame map (module docstring): the first scale of :data:`SCALES` and the
    shift nearest the origin with every goal pair reachable and no region off the table;
    when none has, the best found (most pairs, fewest bad regions)."""
    best: tuple[tuple[int, int, float], FrameMap] | None = None
    nx, ny = round(SHIFT_X / SHIFT_STEP), round(SHIFT_Y / SHIFT_STEP)
    shifts = sorted(
        ((i * SHIFT_STEP, j * SHIFT_STEP) for i in range(-nx, nx + 1) for j in range(-ny, ny + 1)),
        key=lambda s: (round(math.hypot(*s), 6), s),
    )
    for scale in SCALES:
        for sx, sy in shifts:
            fmap = FrameMap(scale, (round(sx, 3), round(sy, 3)))
            pairs, bad = _score(task, fmap)
            if pairs == len(task.goal) and bad == 0:
                return fmap
            key = (pairs, -bad, -math.hypot(sx, sy))
            if best is None or key > best[0]:
                best = (key, fmap)
    assert best is not None
    return best[1]


@dataclass
class GoalScene:
    """A compiled goal scene.

    Attributes:
        task: the goal task.
        model: the compiled model.
        frame: the frame map of the task.
        rest: object (or stand-in fixture) name -> height [m] of its body origin above the
            surface it rests on.
        tops: object or fixture name -> its height [m] (top above its bottom).
        sources: object name -> where its model came from (``"standins"`` a stand-in of
            :mod:`rsb_mj.scene.categories.standins`, ``"assets:<fingerprint>"`` the user's
            original (:mod:`rsb_mj.scene.assets`), ``"rsb"`` a question task's category,
            ``"rsb-primitive"`` a primitive of :mod:`rsb_mj.scene.goal_props`).
    """

    task: GoalTask
    model: mujoco.MjModel
    frame: FrameMap
    rest: dict[str, float]
    tops: dict[str, float]
    sources: dict[str, str]

    # -- layout ---------------------------------------------------------------------------
    def _draw(self, rng: np.random.Generator) -> dict[str, tuple[float, float, float, float]]:
        """Object name -> (x, y, z of the body origin [m, world], yaw [rad])."""
        task = self.task
        poses: dict[str, tuple[float, float, float, float]] = {}
        pending = [r for r in task.init if r.mover in task.objects]
        for _ in range(len(pending) + 1):
            left = []
            for rel in pending:
                pose = self._pose(rel, poses, rng)
                if pose is None:
                    left.append(rel)
                elif rel.mover not in poses:
                    poses[rel.mover] = pose
            if not left:
                break
            pending = left
        for obj in task.objects:
            if obj not in poses:  # no :init place (a warning of the task): a free spot
                x, y = float(rng.uniform(*FREE_X)), float(rng.uniform(*FREE_Y))
                poses[obj] = (x, y, TABLE_TOP_Z + self.rest[obj], float(rng.uniform(-1.5, 1.5)))
        return poses

    def _pose(
        self, rel: Relation, poses: dict, rng: np.random.Generator
    ) -> tuple[float, float, float, float] | None:
        task, model = self.task, self.model
        rest = self.rest[rel.mover]
        if rel.kind == "region":
            region = next(r for r in task.problem.regions if r.full_name == rel.place)
            rect = region.ranges[int(rng.integers(len(region.ranges)))]
            x0, y0, x1, y1 = self.frame.rect(rect)
            x, y = float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))
            lo, hi = region.yaw_rotation[0] if region.yaw_rotation else (0.0, 0.0)
            yaw = FrameMap.yaw(float(rng.uniform(lo, hi)))
            return (x, y, TABLE_TOP_Z + rest, yaw)
        if rel.kind == "object":
            if rel.place in poses:
                bx, by, bz, _ = poses[rel.place]
                base = bz - self.rest[rel.place]
            elif rel.place in task.fixtures:
                bid = model.body(rel.place).id
                bx, by, bz = (float(v) for v in model.body_pos[bid])
                base = bz - self.rest.get(rel.place, 0.0)
            else:
                return None
            return (
                bx,
                by,
                base + self.tops[rel.place] + rest + 0.002,
                float(rng.uniform(-0.3, 0.3)),
            )
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, rel.place)
        owner = _owner(task, rel.place)
        if sid < 0 and owner in task.fixtures and owner != task.table:
            # a region the prop lacks: on top of the prop instead
            bx, by, bz = (float(v) for v in model.body_pos[model.body(owner).id])
            return (bx, by, bz - self.rest[owner] + self.tops[owner] + rest + 0.002, 0.0)
        if sid < 0:
            return None
        if owner in task.objects and owner not in poses:
            return None
        body = int(model.site_bodyid[sid])
        local = np.zeros(3)  # the site's offset from its body's origin, turned as the body
        if owner in poses:
            ox, oy, oz, oyaw = poses[owner]
            quat = np.array([math.cos(oyaw / 2), 0.0, 0.0, math.sin(oyaw / 2)])
            mujoco.mju_rotVecQuat(local, model.site_pos[sid], quat)
            p = np.array([ox, oy, oz]) + local
        else:
            mujoco.mju_rotVecQuat(local, model.site_pos[sid], model.body_quat[body])
            p = model.body_pos[body] + local
        return (float(p[0]), float(p[1]), float(p[2] + model.site_size[sid][2] + rest + 0.002), 0.0)

    def _apply(self, data: mujoco.MjData, poses: dict) -> None:
        model = self.model
        mujoco.mj_resetData(model, data)
        qpos, ctrl = aloha.home_qpos_ctrl(model)
        data.qpos[:] = qpos
        data.ctrl[:] = ctrl
        for obj, (x, y, z, yaw) in poses.items():
            adr = model.joint(f"{obj}/free").qposadr[0]
            data.qpos[adr : adr + 3] = (x, y, z)
            data.qpos[adr + 3 : adr + 7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
        mujoco.mj_forward(model, data)

    def check(
        self, data: mujoco.MjData, goal: Callable[[mujoco.MjData], bool] | None = None
    ) -> str | None:
        """Why the settled scene is not a valid start, or None: an object moving, off the
        table, interpenetrating another, or ``goal`` (the goal's truth on ``data``, e.g.
        :meth:`rsb_mj.scoring.goal_predicates.GoalChecker.holds`) already true."""
        model = self.model
        hx, hy = TABLE_HALF_XY
        for obj in self.task.objects:
            bid = model.body(obj).id
            adr = model.joint(f"{obj}/free").dofadr[0]
            speed = float(np.linalg.norm(data.qvel[adr : adr + 3]))
            x, y, z = data.xpos[bid]
            if z < TABLE_TOP_Z - 0.02 or abs(x) > hx or abs(y) > hy:
                return f"{obj} is off the table"
            if speed > REST_SPEED:
                return f"{obj} is not at rest after {SETTLE_S:g} s ({speed:.3f} m/s)"
        roots = {
            model.body(o).id for o in (*self.task.objects, *self.task.fixtures) if o in self._bodies
        }
        for i in range(data.ncon):
            c = data.contact[i]
            b1 = int(model.body_rootid[model.geom_bodyid[c.geom1]])
            b2 = int(model.body_rootid[model.geom_bodyid[c.geom2]])
            if b1 != b2 and b1 in roots and b2 in roots and c.dist < -PENETRATION:
                return (
                    f"{model.body(b1).name} and {model.body(b2).name} interpenetrate "
                    f"({-c.dist * 1e3:.1f} mm)"
                )
        if goal is not None and goal(data):
            return "the goal holds at reset"
        return None

    @property
    def _bodies(self) -> set[str]:
        return {self.model.body(i).name for i in range(self.model.nbody)}

    def layouts(self, seed: int) -> Iterator[dict[str, tuple[float, float, float, float]]]:
        """The layouts the generator of ``seed`` draws, in order (no physics): what
        :meth:`reset` tries one by one; draw ``k`` of a frozen row is the ``k``-th."""
        rng = np.random.default_rng(seed)
        while True:
            yield self._draw(rng)

    def place(
        self,
        data: mujoco.MjData,
        poses: dict[str, tuple[float, float, float, float]],
        goal: Callable[[mujoco.MjData], bool] | None = None,
    ) -> str | None:
        """Put the objects at ``poses`` (x, y, z [m, world], yaw [rad]) with the arms at
        home, settle :data:`SETTLE_S` and check (:meth:`check`); returns why it is not a
        valid start, or None (then ``data.time`` is 0).

        Raises:
            SceneError: when ``poses`` lacks an object of the task or names another.
        """
        missing = [o for o in self.task.objects if o not in poses]
        if missing:
            raise SceneError(f"{self.task.path}: no :init pose for {missing}")
        unknown = [o for o in poses if o not in self.task.objects]
        if unknown:
            raise SceneError(f"{self.task.path}: a pose for {unknown}, not objects of the task")
        self._apply(data, poses)
        mujoco.mj_step(self.model, data, nstep=round(SETTLE_S / self.model.opt.timestep))
        reason = self.check(data, goal)
        if reason is None:
            data.time = 0.0
        return reason

    def reset_draw(
        self,
        data: mujoco.MjData,
        seed: int,
        goal: Callable[[mujoco.MjData], bool] | None = None,
    ) -> tuple[int, dict[str, tuple[float, float, float, float]]]:
        """:meth:`reset`, also returning which draw of the seed's generator was kept (0: the
        first): ``(draw, poses)``.

        Raises:
            SceneError: when :data:`ATTEMPTS` draws all fail the checks (the last reason).
        """
        why = ""
        for draw, poses in zip(range(ATTEMPTS), self.layouts(seed), strict=False):
            reason = self.place(data, poses, goal)
            if reason is None:
                return draw, poses
            why = reason
        raise SceneError(
            f"{self.task.path}: seed {seed}: no valid layout in {ATTEMPTS} draws ({why})"
        )

    def reset(
        self,
        data: mujoco.MjData,
        seed: int,
        goal: Callable[[mujoco.MjData], bool] | None = None,
    ) -> dict[str, tuple[float, float, float, float]]:
        """Draw, apply and settle the layout of episode ``seed`` (checked with
        :meth:`check`); returns the object poses drawn (x, y, z [m, world], yaw [rad]).

        Raises:
            SceneError: when :data:`ATTEMPTS` draws all fail the checks (the last reason).
        """
        return self.reset_draw(data, seed, goal)[1]


def _source_category(objects: ObjectSource, category: str) -> Category | None:
    """``category`` from ``objects`` (an original where the user's folder has it, else the
    stand-in or rsb model), or None where rsb_mj has no model."""
    if category not in CATEGORIES and (
        objects.root is None or find_object_xml(objects.root, category) is None
    ):
        return None
    return objects.category(category)


def _label(known: Category, objects: ObjectSource, category: str) -> str:
    if isinstance(known, OriginalCategory):
        return objects.label
    return "standins" if category in STANDINS else "rsb"


def _object_model(
    spec: mujoco.MjSpec, body: mujoco.MjsBody, name: str, category: str, objects: ObjectSource
):
    """Build object ``name`` into ``body``; returns (rest height, height, source)."""
    known = _source_category(objects, category)
    if known is not None and not known.fixture:
        built = known.build(spec, body, name)
        rgba = CATEGORY_RGBA.get(category, (0.7, 0.7, 0.7, 1.0))
        for g in built.color_geoms:
            spec.geom(g).rgba = list(rgba)
        height = 2 * known.half_extents[2]
        return known.rest_height, height, _label(known, objects, category)
    prop: Prop = object_prop(category)
    build_prop(body, name, prop)
    return 0.0, prop.height, "rsb-primitive"


def compile_goal_scene(
    task: GoalTask,
    *,
    quality: str = "fast",
    objects: ObjectSource | None = None,
    probes: tuple[Probe, ...] = (),
) -> GoalScene:
    """Compile ``task`` (tier A0/A1) on the Aloha table, its objects and fixtures from
    ``objects`` (:mod:`rsb_mj.scene.assets`; the shipped stand-ins by default); ``probes``
    are extra sensors (:mod:`rsb_mj.scene.probes`, e.g. the ``:cost`` terms').

    Raises:
        SceneError: for a fixture category rsb_mj has no prop for, a fixture without a table
            region in ``:init``, or a model MuJoCo rejects.
    """
    objects = objects or STANDINS_SOURCE
    fmap = choose_map(task)
    spec = aloha.aloha_spec(quality)
    spec.modelname = "goal_" + task.problem.name
    rest: dict[str, float] = {}
    tops: dict[str, float] = {}
    sources: dict[str, str] = {}
    table = task.table
    seen: set[str] = set()
    for region in task.problem.regions:
        if region.target == table and region.ranges and region.full_name not in seen:
            seen.add(region.full_name)  # a repeated region: the first one counts
            x0, y0, x1, y1 = fmap.rect(region.ranges[0])
            spec.worldbody.add_site(
                name=region.full_name,
                pos=[(x0 + x1) / 2, (y0 + y1) / 2, TABLE_TOP_Z],
                size=[(x1 - x0) / 2, (y1 - y0) / 2, 0.001],
                type=mujoco.mjtGeom.mjGEOM_BOX,
                rgba=[0, 0, 0, 0],
                group=5,
            )
    for name, category in task.fixtures.items():
        if name == table:
            continue
        known = _source_category(objects, category)
        prop = None if known is not None and known.fixture else fixture_prop(category)
        if prop is None and (known is None or not known.fixture):
            raise SceneError(f"{task.path}: fixture {name!r}: no prop for category {category!r}")
        place = next((r for r in task.init if r.mover == name and r.kind == "region"), None)
        rect = _region_rect(task, place.place) if place else None
        if rect is None:
            raise SceneError(f"{task.path}: fixture {name!r} has no (On {name} REGION) in :init")
        region = next(r for r in task.problem.regions if r.full_name == place.place)
        x, y = fmap.point(*_centre(rect))
        yaw_l = region.yaw_rotation[0][0] if region.yaw_rotation else 0.0
        yaw = FrameMap.yaw(yaw_l)
        body = spec.worldbody.add_body(name=name)
        body.quat = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
        if prop is None:  # a stand-in fixture: its origin is its box's centre
            assert known is not None
            body.pos = [x, y, TABLE_TOP_Z + known.rest_height]
            known.build(spec, body, name)
            tops[name] = 2 * known.half_extents[2]
            rest[name] = known.rest_height
        else:
            body.pos = [x, y, TABLE_TOP_Z]
            build_prop(body, name, prop)
            tops[name], rest[name] = prop.height, 0.0
    for name, category in task.objects.items():
        body = spec.worldbody.add_body(name=name)
        body.add_freejoint(name=f"{name}/free")
        rest[name], tops[name], sources[name] = _object_model(spec, body, name, category, objects)
    add_probes(spec, probes)
    try:
        model = spec.compile()
    except ValueError as exc:
        raise SceneError(f"{task.path}: MuJoCo could not compile the goal scene: {exc}") from None
    return GoalScene(task, model, fmap, rest, tops, sources)
