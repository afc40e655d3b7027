"""The LIBERO / VLA-Arena layout sampler: a compiled goal scene's layout, drawn per seed.

A goal task's scene is compiled by the one scene compiler
(:func:`rsb_mj.scene.compiler.compile_scene` of a :class:`~rsb_mj.lang.buildable.Task`);
what exists for goal tasks alone is this: their episodes are seeds, and each seed's layout is
drawn, settled and checked at reset (a question task's layout is drawn with its episode,
:mod:`rsb_mj.lang.layout`, and only put in place by :meth:`rsb_mj.scene.compiler.Scene.
apply_episode`). :class:`GoalLayout` is that sampler (and its head camera's framing); a
goal task's :class:`~rsb_mj.scene.compiler.Scene` holds it as ``layout``.

Usage::

    scene = compile_scene(goal_task)          # once per task (rsb_mj.scene.compiler)
    poses = scene.layout.reset(data, seed)    # every episode: sampled, settled, checked

**The frame map** (:mod:`rsb_mj.lang.frame_map`, chosen once per task) takes LIBERO's and
VLA-Arena's ``:ranges`` from their table frame to rsb_mj's. Results are "LIBERO/VLA-Arena
layouts on Aloha": a new benchmark, not comparable with published LIBERO/VLA-Arena numbers.

**Episodes.** An episode is a seed: its layout draws each object's pose uniformly within its
``:init`` region's (mapped) rectangle and its yaw within the region's ``:yaw_rotation``
(0 without one); ``(On a b)`` stacks a on b, ``(On a site)`` / ``(In a site)`` put a on the
site of a fixture or object; an object on a table region whose footprint comes within
:data:`CLEARANCE` of a fixture's or an earlier object's is drawn again, then in its region
grown, then pushed clear (:meth:`GoalLayout._draw`). The scene is then settled for
:data:`SETTLE_S` with the arms at
home and checked (:meth:`GoalLayout.check`): every object at rest, none off the table or
interpenetrating another, the goal false. A layout that fails is drawn again from the same
generator (deterministic), up to :data:`ATTEMPTS` times.

Fixtures are static props (no joint) at their ``:init`` region; regions on fixtures and
objects are sites ``{name}_{region}``; table regions are sites ``{table}_{region}``. In a
tier B file (a drawer, the microwave or the stove operated or holding the goal) the
cabinets, the microwave and the stove are the articulated stand-ins of
:mod:`rsb_mj.scene.categories.articulated` (joints ``{name}/top_level`` ...; a drawer's
region site on the drawer); its ``:init`` states ``(Open X)``, ``(Close X)``, ``(TurnOn X)``,
``(TurnOff X)`` are drawn first, each uniformly in the fixture's range
(:attr:`~rsb_mj.scene.categories.articulated.ArticulatedFixture.init_ranges`, LIBERO's
``default_*_ranges``) and set on every joint of X (a whole fixture) or of the site's body (a
drawer's region), as LIBERO's ``OpenCloseSampler`` / ``TurnOnOffSampler``; a layout then
holds them as ``{joint name}: (qpos,)``. A file without such states draws nothing more.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import mujoco
import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import LayoutError, SceneError
from rsb_mj.lang.buildable import TABLETOP_TIERS
from rsb_mj.lang.frame_map import FrameMap, owner_of
from rsb_mj.lang.named_objects import named_objects
from rsb_mj.lang.task import Relation, Task
from rsb_mj.scene import aloha
from rsb_mj.scene.framing import Box, HeadView, Kept, frame_task, holds
from rsb_mj.workspace import TABLE_HALF_XY, TABLE_TOP_Z

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
#: Step [rad] of the door angles whose boxes a layout keeps clear between a drawn open
#: door and shut (:meth:`GoalLayout._parts_out`).
DOOR_STEP = 0.25
#: Room [m] a layout keeps around the footprint of a fixture that the tier-B placement rule
#: moved (:mod:`rsb_mj.scene.fixture_placement`) onto where the file's objects stand: a
#: finger beside an object there, grasping it from above (LIBERO's ``KITCHEN_SCENE10``
#: butter beside the moved cabinet).
MOVED_ROOM = 0.07
#: Clearance [m] kept between two footprints on the table when a layout is drawn.
CLEARANCE = 0.005
#: Draws of one object's place in its region before the region grows by :data:`GROW` [m]
#: per draw (as many draws again), then the object is pushed clear instead.
PLACE_TRIES, GROW = 20, 0.01
#: How far [m or rad] a fixture joint's drawn ``:init`` state may move while the scene settles.
STATE_DRIFT = 0.005
#: Layout draws (no physics) whose places frame an object in a scene whose layout is not the
#: file's (:meth:`GoalLayout.boxes`), the seed of their generator (outside every table's
#: seeds: eval rows from 0, train rows from 100000), and how many of the most extreme places
#: on each side the box leaves out (rule 1 then skips such a draw when it leaves the image).
FRAME_DRAWS, FRAME_SEED, FRAME_TRIM = 40, 2**31 - 1, 2
#: Largest step [rad] between the hinge angles at which a swung part is framed.
FRAME_HINGE_STEP = 0.05


@dataclass
class GoalLayout:
    """The layout sampler of a compiled goal scene (:attr:`rsb_mj.scene.compiler.Scene.layout`).

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
            ``"rsb-primitive"`` a primitive of :mod:`rsb_mj.scene.primitive_props`).
        half_xy: object or fixture name -> half extents (x, y) [m] of its footprint, body
            frame (the footprint a layout keeps clear of the others').
        init_joints: the ``:init`` fixture states drawn at reset, source order: (the joints
            it sets, the range [lo, hi] its qpos is drawn from) [m or rad].
    """

    task: Task
    model: mujoco.MjModel
    frame: FrameMap
    rest: dict[str, float]
    tops: dict[str, float]
    sources: dict[str, str]
    half_xy: dict[str, tuple[float, float]] = field(default_factory=dict)
    init_joints: tuple[tuple[tuple[str, ...], tuple[float, float]], ...] = ()
    #: The fixture joints' states the last layout applied set (joint name -> qpos).
    _drawn: dict[str, float] = field(default_factory=dict, repr=False)
    _pusher: dict[str, str] = field(default_factory=dict, repr=False)
    head: HeadView | None = None
    #: Whether :attr:`head` is the tight framing's (:func:`rsb_mj.scene.framing.frame_task`:
    #: no other pose gave every small named object its estimated pixels); rule 1 reads it
    #: (:func:`rsb_mj.env.visibility.pixel_floors`).
    tight: bool = False
    #: Where the scene differs from the file's layout (:mod:`rsb_mj.scene.fixture_placement`).
    layout_changes: tuple[str, ...] = ()
    #: Each fixture joint the task moves and the range [lo, hi] [m or rad] of its states
    #: from reset to the goal (:func:`rsb_mj.scene.compiler._part_ranges`): the head camera
    #: frames the part over it.
    part_ranges: tuple[tuple[str, tuple[float, float]], ...] = ()

    # -- the head camera ------------------------------------------------------------------
    def frame_box(self) -> Box:
        """The box [m, world] of every place an object or fixture of the task can stand at
        reset (:mod:`rsb_mj.scene.framing`), from the task alone."""
        return Box.union(self.boxes().values())

    def boxes(self) -> dict[str, Box]:
        """Object or fixture name -> the box [m, world] of every place it can stand at reset
        (:mod:`rsb_mj.scene.framing`), from the task alone; the table top alone (as
        ``""``) when the task has neither. A fixture's box holds its parts over
        :attr:`part_ranges` (:meth:`_part_boxes`); where the layout is not the file's (a
        fixture moved, a part drawn open) an object's box is that of its places in
        :data:`FRAME_DRAWS` draws (:meth:`_drawn_boxes`): in place of its region's box for
        an object on a table region, joined with its owner's for the others."""
        task = self.task
        boxes: dict[str, Box] = {}
        for name in self._props():
            x, y, _, yaw = self._fixture_xy_yaw(name)
            corners = self._footprint(name, x, y, 0.0, yaw)
            top = TABLE_TOP_Z + self.tops[name]
            boxes[name] = Box(
                (float(corners[:, 0].min()), float(corners[:, 1].min()), TABLE_TOP_Z),
                (float(corners[:, 0].max()), float(corners[:, 1].max()), top),
            )
        for name, parts in self._part_boxes().items():  # its drawers and doors as they move
            boxes[name] = Box.union([boxes[name], parts])

        def of(name: str, seen: tuple[str, ...] = ()) -> Box | None:
            if name in boxes:
                return boxes[name]
            if name in seen or name not in task.objects:
                return None
            radius = math.hypot(*self.half_xy.get(name, (0.0, 0.0)))
            height = self.tops[name]
            box = None
            for rel in task.init:
                if rel.mover != name:
                    continue
                if rel.kind == "region":
                    region = next(r for r in task.problem.regions if r.full_name == rel.place)
                    rects = [self.frame.rect(r, region.full_name) for r in region.ranges]
                    box = Box(
                        (
                            min(r[0] for r in rects) - radius,
                            min(r[1] for r in rects) - radius,
                            TABLE_TOP_Z,
                        ),
                        (
                            max(r[2] for r in rects) + radius,
                            max(r[3] for r in rects) + radius,
                            TABLE_TOP_Z + height,
                        ),
                    )
                else:
                    owner = rel.place if rel.kind == "object" else owner_of(task, rel.place)
                    under = of(owner, (*seen, name)) if owner else None
                    if under is not None:
                        box = Box(under.lo, (*under.hi[:2], under.hi[2] + height))
                break
            if box is None:  # no place: the free spot
                box = Box(
                    (FREE_X[0] - radius, FREE_Y[0] - radius, TABLE_TOP_Z),
                    (FREE_X[1] + radius, FREE_Y[1] + radius, TABLE_TOP_Z + height),
                )
            boxes[name] = box
            return box

        for name in task.objects:
            of(name)
        if self.layout_changes or self.init_joints:  # not the file's layout: as drawn
            on_table = {r.mover for r in task.init if r.kind == "region"}
            for name, drawn in self._drawn_boxes().items():
                boxes[name] = drawn if name in on_table else Box.union([boxes[name], drawn])
        if not boxes:  # nothing on the table: the table top
            hx, hy = TABLE_HALF_XY
            return {"": Box((-hx, -hy, TABLE_TOP_Z), (hx, hy, TABLE_TOP_Z))}
        return boxes

    def _part_boxes(self) -> dict[str, Box]:
        """Fixture name -> the box [m, world] of its visual geoms (groups 1 and 2, as rule 1
        reads them) with each joint of :attr:`part_ranges` at every state of its range (a
        slide at both ends, a hinge in steps of at most :data:`FRAME_HINGE_STEP`), the other
        joints at 0: an open drawer at its drawn extent, a door at its drawn angle and on
        its way to the goal's."""
        model = self.model
        if not self.part_ranges:
            return {}
        joints = [(model.joint(name), lo, hi) for name, (lo, hi) in self.part_ranges]
        hinge = int(mujoco.mjtJoint.mjJNT_HINGE)
        steps = max(
            [1] + [math.ceil((hi - lo) / FRAME_HINGE_STEP) for j, lo, hi in joints
                   if int(j.type[0]) == hinge]
        )  # fmt: skip
        roots = {int(model.body_rootid[j.bodyid[0]]) for j, _, _ in joints}
        visual = np.isin(model.geom_group, (1, 2))
        geom_root = model.body_rootid[model.geom_bodyid]
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        data = mujoco.MjData(model)
        pts: dict[int, list[np.ndarray]] = {r: [] for r in roots}
        for k in range(steps + 1):
            for j, lo, hi in joints:
                data.qpos[j.qposadr[0]] = lo + (hi - lo) * k / steps
            mujoco.mj_kinematics(model, data)
            for root in roots:
                for g in np.flatnonzero(visual & (geom_root == root)):
                    local = model.geom_aabb[g, :3] + signs * model.geom_aabb[g, 3:]
                    pts[root].append(local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g])
        out = {}
        for root, found in pts.items():
            if found:
                every = np.concatenate(found)
                lo3, hi3 = every.min(axis=0), every.max(axis=0)
                out[model.body(root).name] = Box(
                    tuple(float(v) for v in lo3),  # type: ignore[arg-type]
                    tuple(float(v) for v in hi3),  # type: ignore[arg-type]
                )
        return out

    def _drawn_boxes(self) -> dict[str, Box]:
        """Object name -> the box [m, world] of its places in :data:`FRAME_DRAWS` layouts
        drawn (no physics) from the generator of :data:`FRAME_SEED`, the :data:`FRAME_TRIM`
        most extreme on each side of each axis left out: its footprint radius around each
        place, from its bottom to its top. Where a fixture was moved or a part starts open,
        the layout keeps objects clear of where they stand now, not where the file stood
        them (an object of a region the moved cabinet covers is drawn in the region grown,
        or pushed clear); the same for every episode of the task."""
        pts: dict[str, list[tuple[float, ...]]] = {name: [] for name in self.task.objects}
        for _, poses in zip(range(FRAME_DRAWS), self.layouts(FRAME_SEED), strict=False):
            for name in pts:
                x, y, z, _ = poses[name]
                r = math.hypot(*self.half_xy.get(name, (0.0, 0.0)))
                bottom = z - self.rest[name]
                pts[name].append((x - r, y - r, bottom, x + r, y + r, bottom + self.tops[name]))
        out = {}
        for name, found in pts.items():
            a = np.sort(np.array(found), axis=0)  # each column on its own
            k = min(FRAME_TRIM, (len(a) - 1) // 2)
            out[name] = Box(
                (float(a[k, 0]), float(a[k, 1]), float(a[k, 2])),
                (float(a[-1 - k, 3]), float(a[-1 - k, 4]), float(a[-1 - k, 5])),
            )
        return out

    def _frame_head(self) -> None:
        """Pose the model's head camera by :func:`rsb_mj.scene.framing.frame_task` over
        :meth:`boxes` (the named objects' first); the pose is kept as :attr:`head`. Where
        the tight framing is taken and a named object's drawn places (:meth:`_drawn_boxes`:
        the layout pushes an object clear of a fixture over its region) leave that pose's
        image, its box is joined with them and the pose framed again."""
        boxes = self.boxes()
        view, tight = self._framed(boxes)
        if tight:
            named = set(named_objects(self.task)) & set(boxes)
            drawn = self._drawn_boxes()
            out = {n for n in named if n in drawn and not holds(view, drawn[n])}
            if out:
                boxes = {n: Box.union([b, drawn[n]]) if n in out else b for n, b in boxes.items()}
                view, _ = self._framed(boxes)
        self.set_head(view)
        self.tight = tight

    def _framed(self, boxes: dict[str, Box]) -> tuple[HeadView, bool]:
        """The head pose of :func:`~rsb_mj.scene.framing.frame_task` over ``boxes`` (name ->
        every place it can stand [m, world]) and whether it is the tight framing's: the
        named objects on the table are kept (tier B: their footprint; tier A and C: their
        footprint and side, pi / 4 of their box's, guard the tight framing alone)."""
        named = set(named_objects(self.task)) & set(boxes)
        small = sorted(n for n in named if n in self.task.objects and n in self.half_xy)
        keep = tuple(
            Kept(boxes[n], math.pi * self.half_xy[n][0] * self.half_xy[n][1]) for n in small
        )
        if self.task.tier not in TABLETOP_TIERS and self.task.tier != "C":  # tier B
            guard = keep
        else:  # tier A and C: their footprint and side (round: pi / 4 of the box's)
            guard = tuple(
                Kept(k.box, k.area, math.pi / 2 * max(self.half_xy[n]) * self.tops[n])
                for n, k in zip(small, keep, strict=True)
            )
            keep = ()
        inner = [b for n, b in boxes.items() if n in named]
        outer = [b for n, b in boxes.items() if n not in named]
        view = frame_task(inner, outer, keep=keep, guard=guard)
        return view, view != frame_task(inner, outer, keep=keep)

    def set_head(self, view: HeadView) -> None:
        """Give the model's head camera the pose ``view`` (kept as :attr:`head`)."""
        cid = self.model.camera("head").id
        x, y = np.array(view.xyaxes[:3]), np.array(view.xyaxes[3:])
        mat = np.stack([x, y, np.cross(x, y)], axis=1).ravel()
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, mat)
        self.model.cam_pos[cid] = view.pos
        self.model.cam_quat[cid] = quat
        self.model.cam_fovy[cid] = view.fovy
        self.head = view

    # -- layout ---------------------------------------------------------------------------
    def _draw(self, rng: np.random.Generator) -> dict[str, tuple[float, ...]]:
        """Object name -> (x, y, z of the body origin [m, world], yaw [rad]); in a tier B
        scene also each drawn ``:init`` fixture state, joint name -> (qpos,) [m or rad].

        An object on a table region is drawn again (up to :data:`PLACE_TRIES` times) while
        its footprint comes within :data:`CLEARANCE` of a fixture's or of an object drawn
        before it on the table (as LIBERO's and robosuite's samplers reject overlapping
        placements), then pushed clear: the frame map brings regions closer than the
        originals stood, and the stand-ins' footprints are their own."""
        task = self.task
        poses: dict[str, tuple[float, ...]] = {}
        for joints, (lo, hi) in self.init_joints:  # LIBERO samples these first too
            q = float(rng.uniform(lo, hi))
            for joint in joints:
                poses[joint] = (q,)
        props = self._props()
        moved = {change.split(":")[0] for change in self.layout_changes}
        floor = [
            self._footprint(f, *self._fixture_xy_yaw(f), grow=MOVED_ROOM if f in moved else 0.0)
            for f in props
        ]  # a fixture the placement rule moved onto the objects' places: finger room
        floor += self._parts_out(poses)  # drawers and doors where their drawn states put them
        fixed = len(floor)
        pending = [r for r in task.init if r.mover in task.objects]
        for _ in range(len(pending) + 1):
            left = []
            for rel in pending:
                pose = self._pose(rel, poses, rng)
                for k in range(2 * PLACE_TRIES if rel.kind == "region" else 0):
                    if pose is None or not _overlaps(self._footprint(rel.mover, *pose), floor):
                        break
                    pose = self._pose(rel, poses, rng, GROW * max(0, k + 1 - PLACE_TRIES))
                if pose is not None and rel.kind == "region" and rel.mover not in poses:
                    pose = self._clear(rel.mover, pose, floor, fixed)
                    floor.append(self._footprint(rel.mover, *pose))
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

    def _parts_out(self, poses: dict) -> list[np.ndarray]:
        """The footprints (4 corners (x, y) [m, world], grown by half the :data:`CLEARANCE`)
        of the moving parts whose ``:init`` state was drawn (an open drawer, a door), where
        the drawn states put them, as boxes in their fixture's frame; a door's also every
        :data:`DOOR_STEP` of its way shut (an object there would stop it closing)."""
        drawn = {name: value for name, value in poses.items() if len(value) == 1}
        if not drawn:
            return []
        model = self.model
        out = self._boxes_at(drawn, tuple(drawn))
        for name, (q,) in drawn.items():  # a door's way shut: its box every DOOR_STEP rad
            jid = model.joint(name).id
            door = model.jnt_type[jid] == mujoco.mjtJoint.mjJNT_HINGE
            if door and model.jnt_range[jid][1] <= 0.01:
                n = math.ceil(abs(q) / DOOR_STEP)
                for k in range(n):
                    out += self._boxes_at({**drawn, name: (q * k / n,)}, (name,))
        return out

    def _boxes_at(self, drawn: dict, joints: tuple[str, ...]) -> list[np.ndarray]:
        """The footprints (as :meth:`_parts_out`) of the bodies of ``joints`` with the joints
        of ``drawn`` (name -> (qpos,)) set."""
        model = self.model
        data = mujoco.MjData(model)
        for name, (q,) in drawn.items():
            data.qpos[model.joint(name).qposadr[0]] = q
        mujoco.mj_kinematics(model, data)
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        out = []
        for body in sorted({int(model.joint(name).bodyid[0]) for name in joints}):
            fixture = int(model.body_rootid[body])
            rot = data.xmat[fixture].reshape(3, 3)[:2, :2]  # the fixture's yaw
            pts = []
            for g in range(model.ngeom):
                if model.geom_bodyid[g] != body:
                    continue
                local = model.geom_aabb[g, :3] + signs * model.geom_aabb[g, 3:]
                pts.append(local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g])
            if not pts:
                continue
            xy = (np.concatenate(pts)[:, :2] - data.xpos[fixture][:2]) @ rot  # fixture frame
            lo, hi = xy.min(axis=0) - CLEARANCE / 2, xy.max(axis=0) + CLEARANCE / 2
            box = np.array([[hi[0], hi[1]], [lo[0], hi[1]], [lo[0], lo[1]], [hi[0], lo[1]]])
            out.append(box @ rot.T + data.xpos[fixture][:2])
        return out

    def _props(self) -> list[str]:
        """The fixtures standing on the table (the table itself excepted)."""
        return [f for f in self.task.fixtures if f != self.task.table and f in self.half_xy]

    def _fixture_xy_yaw(self, name: str) -> tuple[float, float, float, float]:
        """(x, y, z, yaw) [m, rad; world] of fixture ``name``'s body."""
        bid = self.model.body(name).id
        w, _, _, z = (float(v) for v in self.model.body_quat[bid])
        x, y, h = (float(v) for v in self.model.body_pos[bid])
        return (x, y, h, 2 * math.atan2(z, w))

    def _footprint(
        self, name: str, x: float, y: float, _z: float, yaw: float, grow: float = 0.0
    ) -> np.ndarray:
        """The 4 corners (x, y) [m, world] of ``name``'s footprint at (x, y, yaw), grown by
        half the :data:`CLEARANCE` and ``grow`` [m]."""
        hx, hy = (h + CLEARANCE / 2 + grow for h in self.half_xy.get(name, (0.0, 0.0)))
        c, s = math.cos(yaw), math.sin(yaw)
        local = np.array([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]])
        return local @ np.array([[c, s], [-s, c]]) + (x, y)

    def _clear(
        self,
        name: str,
        pose: tuple[float, float, float, float],
        floor: list[np.ndarray],
        fixed: int,
    ) -> tuple[float, float, float, float]:
        """``pose`` moved the shortest way out of each footprint of ``floor`` it overlaps, kept
        on the table: a few passes over them all, then over the first ``fixed`` (the static
        fixtures, which the settling cannot push aside) alone; the settled scene's checks
        judge what is left."""
        x, y, z, yaw = pose
        hx, hy = TABLE_HALF_XY
        for others in (floor, floor[:fixed]):
            for _ in range(8):
                moved = False
                for other in others:
                    push = _separation(self._footprint(name, x, y, z, yaw), other)
                    if push is not None:
                        x, y, moved = x + float(push[0]), y + float(push[1]), True
                x, y = min(max(x, -hx + 0.02), hx - 0.02), min(max(y, -hy + 0.02), hy - 0.02)
                if not moved:
                    return (x, y, z, yaw)
        return (x, y, z, yaw)

    def _pose(
        self, rel: Relation, poses: dict, rng: np.random.Generator, grow: float = 0.0
    ) -> tuple[float, float, float, float] | None:
        task, model = self.task, self.model
        rest = self.rest[rel.mover]
        if rel.kind == "region":
            region = next(r for r in task.problem.regions if r.full_name == rel.place)
            rect = region.ranges[int(rng.integers(len(region.ranges)))]
            x0, y0, x1, y1 = self.frame.rect(rect, region.full_name)
            if grow:  # the region grown, kept on the table
                hx, hy = TABLE_HALF_XY[0] - 0.03, TABLE_HALF_XY[1] - 0.03
                x0, y0 = max(x0 - grow, -hx), max(y0 - grow, -hy)
                x1, y1 = min(x1 + grow, hx), min(y1 + grow, hy)
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
        owner = owner_of(task, rel.place)
        if sid < 0 and owner in task.fixtures and owner != task.table:
            # a region the prop lacks: on top of the prop instead
            bx, by, bz = (float(v) for v in model.body_pos[model.body(owner).id])
            return (bx, by, bz - self.rest[owner] + self.tops[owner] + rest + 0.002, 0.0)
        if sid < 0:
            return None
        if owner in task.objects and owner not in poses:
            return None
        body = int(model.site_bodyid[sid])
        if model.body_parentid[body] != 0:  # a drawer's region: where the drawn states put it
            p, size = self._site_at(sid, poses)
            floor = p[2] - size[2] if rel.predicate == "In" else p[2] + size[2]
            return (float(p[0]), float(p[1]), float(floor + rest + 0.002), 0.0)
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

    def _site_at(self, sid: int, poses: dict) -> tuple[np.ndarray, np.ndarray]:
        """Site ``sid``'s centre [m, world] and its world-axis half extents [m] with the
        fixture joints at ``poses``' drawn states (0 for the others)."""
        model = self.model
        data = mujoco.MjData(model)
        for name, value in poses.items():
            if len(value) == 1:
                data.qpos[model.joint(name).qposadr[0]] = value[0]
        mujoco.mj_kinematics(model, data)
        mat = data.site_xmat[sid].reshape(3, 3)
        return data.site_xpos[sid].copy(), np.abs(mat) @ model.site_size[sid]

    def _apply(self, data: mujoco.MjData, poses: dict) -> None:
        model = self.model
        mujoco.mj_resetData(model, data)
        qpos, ctrl = aloha.home_qpos_ctrl(model)
        data.qpos[:] = qpos
        data.ctrl[:] = ctrl
        self._drawn = {name: value[0] for name, value in poses.items() if len(value) == 1}
        for name, q in self._drawn.items():  # a fixture joint's drawn state
            data.qpos[model.joint(name).qposadr[0]] = q
        for obj, value in poses.items():
            if len(value) == 1:
                continue
            x, y, z, yaw = value
            adr = model.joint(f"{obj}/free").qposadr[0]
            data.qpos[adr : adr + 3] = (x, y, z)
            data.qpos[adr + 3 : adr + 7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
        mujoco.mj_forward(model, data)
        self._pusher = {  # what a drawn state's part starts in (named if it is pushed back)
            name: self._deepest(data, model.joint(name).bodyid[0]) for name in self._drawn
        }

    def check(
        self, data: mujoco.MjData, goal: Callable[[mujoco.MjData], bool] | None = None
    ) -> str | None:
        """Why the settled scene is not a valid start, or None: an object moving, off the
        table, interpenetrating another, a fixture joint moved more than
        :data:`STATE_DRIFT` from its drawn ``:init`` state (an open drawer pushed shut by an
        arm at home), or ``goal`` (the goal's truth on ``data``, e.g.
        :meth:`rsb_mj.scoring.goal_checker.GoalChecker.holds`) already true."""
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
        for name, q in self._drawn.items():
            now = float(data.qpos[model.joint(name).qposadr[0]])
            if abs(now - q) > STATE_DRIFT:
                return f"{name} moved from its :init state {q:.4f} to {now:.4f} while settling" + (
                    f" (it started in {self._pusher[name]})" if self._pusher.get(name) else ""
                )
        if goal is not None and goal(data):
            return "the goal holds at reset"
        return None

    def _deepest(self, data: mujoco.MjData, body: int) -> str:
        """The body outside ``body``'s fixture that penetrates ``body`` deepest now, or ''."""
        model = self.model
        root, best, name = int(model.body_rootid[body]), 0.0, ""
        for i in range(data.ncon):
            c = data.contact[i]
            b1, b2 = int(model.geom_bodyid[c.geom1]), int(model.geom_bodyid[c.geom2])
            if body in (b1, b2):
                other = b2 if b1 == body else b1
                if int(model.body_rootid[other]) != root and c.dist < best:
                    best, name = float(c.dist), model.body(other).name
        return name

    @property
    def _bodies(self) -> set[str]:
        return {self.model.body(i).name for i in range(self.model.nbody)}

    def apply_episode(
        self,
        data: mujoco.MjData,
        episode: Episode,
        goal: Callable[[mujoco.MjData], bool] | None = None,
    ) -> dict[str, tuple[float, ...]]:
        """Put a goal episode's layout in ``data`` (as :meth:`Scene.apply_episode
        <rsb_mj.scene.compiler.Scene.apply_episode>` puts a question episode's): a frozen
        table row's poses (:meth:`place`), else the draw of its seed (:meth:`reset`);
        settled and checked against ``goal`` (true at reset fails). Returns the layout
        placed (object -> x, y, z [m, world], yaw [rad]; a drawn fixture state
        ``{joint}: (qpos,)``).

        Raises:
            LayoutError: for a seed with no valid layout, or a frozen layout that is not a
                valid start (naming the row and why).
        """
        if episode.frozen:
            why = self.place(data, dict(episode.layout), goal)
            if why is not None:
                raise LayoutError(
                    f"{episode.suite} {episode.split} table, {episode.task} row {episode.index} "
                    f"(seed {episode.seed}): the frozen layout is not a valid start ({why}); "
                    f"refreeze it: rsb episodes build {episode.suite or episode.task}"
                )
            return dict(episode.layout)
        try:
            return self.reset(data, int(episode.seed), goal)
        except SceneError as exc:
            raise LayoutError(str(exc)) from None

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
        """Put the objects at ``poses`` (x, y, z [m, world], yaw [rad]; a fixture joint's
        drawn state ``{joint}: (qpos,)``) with the arms at home, settle :data:`SETTLE_S` and
        check (:meth:`check`); returns why it is not a valid start, or None (then
        ``data.time`` is 0).

        Raises:
            SceneError: when ``poses`` lacks an object of the task or names another.
        """
        missing = [o for o in self.task.objects if o not in poses]
        if missing:
            raise SceneError(f"{self.task.path}: no :init pose for {missing}")
        drawn = {j for joints, _ in self.init_joints for j in joints}
        unknown = [o for o in poses if o not in self.task.objects and o not in drawn]
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


def _separation(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The shortest move (x, y) [m] of convex polygon ``a`` (corners, 4x2) out of ``b``, or
    None when they do not overlap (separating axes of both rectangles' edges)."""
    best: tuple[float, np.ndarray] | None = None
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-edge[1], edge[0]]) / (np.linalg.norm(edge) or 1.0)
            pa, pb = a @ axis, b @ axis
            overlap = min(pa.max(), pb.max()) - max(pa.min(), pb.min())
            if overlap <= 0:
                return None
            if best is None or overlap < best[0]:
                sign = 1.0 if pa.mean() >= pb.mean() else -1.0
                best = (overlap, sign * axis)
    assert best is not None
    return best[1] * (best[0] + 1e-4)


def _overlaps(a: np.ndarray, floor: list[np.ndarray]) -> bool:
    return any(_separation(a, b) is not None for b in floor)
