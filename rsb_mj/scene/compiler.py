"""The scene compiler: a task -> compiled MuJoCo scene; episode -> poses and looks.

Usage::

    scene = compile_scene(task, quality="fast")   # once per task (~0.5 s)
    scene.apply_episode(data, episode)            # every reset of a task in rsb's frame
    scene.layout.apply_episode(data, episode, holds)  # every reset of a LIBERO-frame task

One compiler for every task (:func:`compile_scene`): the robot, the candidates' letters, the
regions and the answer zone, the fixtures, the objects and the sensors are built by the same
code for a question task and a goal task. Candidates are the objects a binding names (a
question task's; none for a goal task): they get letters, signal sensors and the colours of
the episode. The answer zone is the region a binding's goal places ``?answer`` into, a gray
patch on the table. What differs comes from the frame the task's ``:ranges`` are read in
(:func:`_frame`): rsb's own table frame, whose episodes carry their layout, or LIBERO's /
VLA-Arena's, mapped onto the Aloha table, whose scene draws its seeds' layouts
(:class:`~rsb_mj.scene.region_layout.GoalLayout`).

Compiling does not depend on the episode: every candidate is a free body, and what an episode
draws (layout, option->object mapping, colors) is applied to ``model``/``data`` in
:meth:`Scene.apply_episode` without recompiling, so resets are cheap and two environments
with the same episode are bit-identical.

Frames: world x/y = table frame x/y; the table top is at world z = ``table_top_z``
(:mod:`rsb_mj.scene.frames`). Element names: object ``obj`` is body ``obj`` with free joint
``{obj}/free`` (a mocap body without one when it moves); answer-zone patches are geoms
``answer_zone/{i}`` of the table body; a LIBERO-frame task's table regions are sites named
by the region's full name; robot names are listed in :mod:`rsb_mj.scene.aloha`. Each object
body's ``info`` in rsb's frame holds ``task_path:line`` of its declaration, so compile errors
point back to the task file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE, rgba
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import SceneError
from rsb_mj.lang.ast import Problem, Rect
from rsb_mj.lang.display import answer_candidates
from rsb_mj.lang.frame_map import FrameMap, choose_map, owner_of, region_rect
from rsb_mj.lang.motion import Motion, read_moving_objects
from rsb_mj.lang.task import Task, task_of
from rsb_mj.scene import aloha
from rsb_mj.scene.assets import STANDINS_SOURCE, ObjectSource, OriginalCategory, find_object_xml
from rsb_mj.scene.categories import CATEGORIES, BuiltObject, Category, get_category
from rsb_mj.scene.categories.articulated import ARTICULATED_FIXTURES, ArticulatedCategory
from rsb_mj.scene.categories.base import add_region_site
from rsb_mj.scene.categories.standins import GOAL_STANDINS, STANDINS
from rsb_mj.scene.display import apply_answers
from rsb_mj.scene.fixture_placement import (
    CENTRE_X,
    STEP,
    SWEEP,
    arms_label,
    clear_xy,
    label,
    operated,
    placement,
)
from rsb_mj.scene.frames import table_to_world
from rsb_mj.scene.letters import TEXTURE_SIZE, letter_image
from rsb_mj.scene.motion import MotionPlayer
from rsb_mj.scene.primitive_props import Prop, build_prop, fixture_prop, object_prop
from rsb_mj.scene.probes import Probe, add_probes
from rsb_mj.scene.region_layout import GoalLayout
from rsb_mj.workspace import TABLE_TOP_Z

#: Fixture categories a task in rsb's frame may declare (the table is part of the robot
#: scene).
FIXTURES = ("table",)
#: Thickness [m] of the answer-zone patch above the table top.
ZONE_THICKNESS = 0.0005
#: Tiers whose articulated fixtures are built with their joints (tier A keeps static props).
ARTICULATED_TIERS = ("B1", "B2")
#: Colours of the rsb categories in a LIBERO-frame scene (in rsb's frame: per episode).
CATEGORY_RGBA = {
    "apple": (0.8, 0.1, 0.1, 1.0),
    "lemon": (0.98, 0.92, 0.2, 1.0),
    "orange": (0.98, 0.55, 0.1, 1.0),
    "banana": (0.95, 0.85, 0.2, 1.0),
    "pear": (0.7, 0.8, 0.2, 1.0),
}


@dataclass
class Scene:
    """A compiled scene (of a question task or a goal task) plus the names and ids privileged
    users need.

    Attributes:
        model: the compiled model (the env's own; :meth:`apply_episode` edits looks in it).
        problem: the task the scene was compiled from (a goal task's parsed problem).
        quality: ``"fast"`` or ``"full"``.
        candidates: candidate object names, the objects a binding names (a question task's;
            empty for a goal task).
        axis: the object names of every per-object signal axis, in order: the candidates of
            a question task, the objects of a goal task.
        candidate_bodies: body name per candidate (same as the object name).
        arm_joints: side -> the six arm joint names.
        arm_actuators: side -> int array (6,) of actuator ids (targets in rad).
        gripper_actuators: side -> int array (2,) of finger actuator ids (targets in m).
        finger_qpos: side -> int array (2,) of finger joint qpos addresses.
        arm_qpos: side -> int array (6,) of arm joint qpos addresses.
        gripper_sites: side -> tool-center-point site name.
        table_top_z: world z of the table top [m].
        rest_height: object (or stand-in fixture) -> height [m] of its body origin above the
            surface it rests on.
        fixtures: fixture name -> category (the table included where the task declares it).
        regions: the task's regions the scene builds, by name (:func:`_add_regions`): the
            answer zone's (geoms ``answer_zone/{i}``) and, where the scene draws its own
            layout, the table regions (sites).
        zone_center: world xyz [m] of the (first) answer-zone rectangle's center on the table
            (the table's center where there is none).
        zone_half_size: its half extents along x, y [m] (zero where there is none).
        grip_width: candidate -> object extent [m] across its body y axis.
        sources: a goal scene's object name -> where its model came from (as
            :attr:`rsb_mj.scene.region_layout.GoalLayout.sources`; empty for a question scene,
            whose objects are rsb_mj's categories).
        sensors: addresses of the signal sensors in ``data.sensordata`` (a question scene's;
            None for a goal scene).
        motion: drives the ``:moving_objects`` (mocap bodies; see :mod:`rsb_mj.scene.motion`)
            of a task in rsb's frame; None where the scene draws its own layout (it stands
            every object still).
        layout: a goal task's layout sampler (:class:`rsb_mj.scene.region_layout.GoalLayout`:
            its seeds' layouts drawn, settled and checked at reset); None for a question task,
            whose layout comes with its episode.
    """

    model: mujoco.MjModel
    problem: Problem
    quality: str
    candidates: tuple[str, ...]
    axis: tuple[str, ...]
    candidate_bodies: tuple[str, ...]
    arm_joints: dict[str, tuple[str, ...]]
    arm_actuators: dict[str, np.ndarray]
    gripper_actuators: dict[str, np.ndarray]
    finger_qpos: dict[str, np.ndarray]
    arm_qpos: dict[str, np.ndarray]
    gripper_sites: dict[str, str]
    table_top_z: float
    rest_height: dict[str, float]
    fixtures: dict[str, str] = field(default_factory=dict)
    regions: tuple[str, ...] = ()
    zone_center: np.ndarray = field(default_factory=lambda: table_to_world(0.0, 0.0))
    zone_half_size: np.ndarray = field(default_factory=lambda: np.zeros(2))
    grip_width: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    sensors: SignalSensors | None = None
    motion: MotionPlayer | None = field(default=None, repr=False)
    layout: GoalLayout | None = field(default=None, repr=False)
    _built: dict[str, BuiltObject] = field(repr=False, default_factory=dict)
    _letter_materials: dict[tuple[str, str], int] = field(repr=False, default_factory=dict)

    @staticmethod
    def table_to_world(x: float, y: float, z: float = 0.0) -> np.ndarray:
        """World position [m] of the table-frame point (x, y, z)."""
        return table_to_world(x, y, z)

    def apply_episode(self, data: mujoco.MjData, episode: Episode) -> None:
        """Reset ``data`` to the home pose with the episode's layout, colors and letters.

        Raises:
            SceneError: when the episode's layout or colors do not name every candidate.
        """
        model = self.model
        missing = [c for c in self.candidates if c not in episode.layout]
        if missing:
            raise SceneError(
                f"episode layout has no pose for {missing}; candidates: "
                + ", ".join(self.candidates)
            )
        letter_of = {obj: letter for letter, obj in episode.mapping.items()}
        mujoco.mj_resetData(model, data)
        qpos, ctrl = aloha.home_qpos_ctrl(model)
        data.qpos[:] = qpos
        data.ctrl[:] = ctrl
        for obj in self.candidates:
            pose = episode.layout[obj]
            adr = model.joint(f"{obj}/free").qposadr[0]
            data.qpos[adr : adr + 3] = table_to_world(pose.x, pose.y, self.rest_height[obj])
            data.qpos[adr + 3 : adr + 7] = [np.cos(pose.yaw / 2), 0.0, 0.0, np.sin(pose.yaw / 2)]
            color = episode.colors.get(obj)
            if color is None:
                raise SceneError(
                    f"episode colors have no entry for {obj!r}; candidates: "
                    + ", ".join(self.candidates)
                )
            built = self._built[obj]
            for geom in built.color_geoms:
                model.geom(geom).rgba = rgba(color)
            if built.letter_geoms:
                letter = letter_of.get(obj)
                key = (letter or "", color)
                if key not in self._letter_materials:
                    key = ("", color)
                for geom in built.letter_geoms:
                    model.geom_matid[model.geom(geom).id] = self._letter_materials[key]
        self._apply_distractors(data, episode)
        if self.motion:
            self.motion.reset(data, episode.seed)
        apply_answers(model, episode, answer_candidates(self.problem))  # rsb_mj.scene.display
        mujoco.mj_forward(model, data)

    def _apply_distractors(self, data: mujoco.MjData, episode: Episode) -> None:
        """Pose and color every non-candidate object the episode places (the others keep
        their compiled pose at their region's center).

        Raises:
            SceneError: for a distractor the task does not declare.
        """
        model = self.model
        for obj, placed in episode.distractors.items():
            built = self._built.get(obj)
            if built is None or obj in self.candidates:
                raise SceneError(
                    f"episode distractor {obj!r} is not a non-candidate object of the task; "
                    "valid choices: "
                    + ", ".join(sorted(set(self._built) - set(self.candidates)) or ["(none)"])
                )
            pose = placed.pose
            adr = model.joint(f"{obj}/free").qposadr[0]
            data.qpos[adr : adr + 3] = table_to_world(pose.x, pose.y, self.rest_height[obj])
            data.qpos[adr + 3 : adr + 7] = [np.cos(pose.yaw / 2), 0.0, 0.0, np.sin(pose.yaw / 2)]
            for geom in built.color_geoms:
                model.geom(geom).rgba = rgba(placed.color)


def _add_letter_materials(spec: mujoco.MjSpec, letters: tuple[str, ...]) -> None:
    """Textures ``letter_{L}`` and materials ``letter_{L}_{color}`` (and ``plain_{color}``)."""
    white = np.full((TEXTURE_SIZE, TEXTURE_SIZE, 3), 255, dtype=np.uint8)
    for letter in ("", *letters):
        tex_name = f"letter_{letter}" if letter else "letter_blank"
        tex = spec.add_texture(
            name=tex_name,
            type=mujoco.mjtTexture.mjTEXTURE_2D,
            width=TEXTURE_SIZE,
            height=TEXTURE_SIZE,
            nchannel=3,
        )
        tex.data = (letter_image(letter) if letter else white).tobytes()
        for color, value in PALETTE.items():
            mat = spec.add_material(name=f"{tex_name}_{color}", rgba=list(value))
            mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = tex_name
            mat.specular = 0.1
            mat.shininess = 0.1


def _add_signal_sensors(spec: mujoco.MjSpec, candidates: tuple[str, ...]) -> None:
    """Sensors the environment reads once per physics step (see :class:`SignalSensors`),
    for each of ``candidates`` (the candidates and the other tracked objects):
    ``sig/contact/{obj}/{side}/{finger}`` (number of contacts between the object and one
    finger link), ``sig/table/{obj}`` (contacts between the object and the table body,
    answer-zone patch included), ``sig/pos/{obj}`` and ``sig/quat/{obj}`` (object body
    position and orientation, world) and ``sig/finger/{side}/{finger}`` (finger slide
    position)."""
    body = mujoco.mjtObj.mjOBJ_BODY
    for obj in candidates:
        for side in aloha.SIDES:
            for finger in aloha.FINGER_NAMES:
                _add_contact_sensor(
                    spec, f"sig/contact/{obj}/{side}/{finger}", obj, f"{side}/{finger}_link"
                )
    for obj in candidates:
        _add_contact_sensor(spec, f"sig/table/{obj}", obj, "table")
    for obj in candidates:
        spec.add_sensor(
            name=f"sig/pos/{obj}", type=mujoco.mjtSensor.mjSENS_FRAMEPOS, objtype=body, objname=obj
        )
    for obj in candidates:
        spec.add_sensor(
            name=f"sig/quat/{obj}",
            type=mujoco.mjtSensor.mjSENS_FRAMEQUAT,
            objtype=body,
            objname=obj,
        )
    for side in aloha.SIDES:
        for name in aloha.finger_joints(side):
            spec.add_sensor(
                name=f"sig/finger/{name}",
                type=mujoco.mjtSensor.mjSENS_JOINTPOS,
                objtype=mujoco.mjtObj.mjOBJ_JOINT,
                objname=name,
            )


def _add_touch_sensors(
    spec: mujoco.MjSpec, movers: tuple[str, ...], candidates: tuple[str, ...]
) -> None:
    """``sig/touch/{obj}/{candidate}``: contacts between each tracked object that is not a
    candidate (one the task moves onto a candidate) and each candidate."""
    for obj in movers:
        for cand in candidates:
            _add_contact_sensor(spec, f"sig/touch/{obj}/{cand}", obj, cand)


def _add_contact_sensor(spec: mujoco.MjSpec, name: str, body: str, other: str) -> None:
    """Contact sensor ``name``: whether body ``body`` touches body ``other`` (the number
    of contacts found, one slot)."""
    sensor = spec.add_sensor(
        name=name,
        type=mujoco.mjtSensor.mjSENS_CONTACT,
        objtype=mujoco.mjtObj.mjOBJ_BODY,
        objname=body,
        reftype=mujoco.mjtObj.mjOBJ_BODY,
        refname=other,
    )
    sensor.intprm = [1, 0, 1]  # data="found", reduce="none", num=1


@dataclass(frozen=True)
class SignalSensors:
    """Addresses in ``data.sensordata`` of the signal sensors.

    Attributes:
        contact: int (N, 2, 2): candidate, side [left, right], finger -> contact count.
        table: int (N,): candidate -> contact count with the table (zone patch included).
        position: int (N, 3): candidate -> world x, y, z of its body [m].
        orientation: int (N, 4): candidate -> world orientation of its body (w, x, y, z).
        finger: int (2, 2): side, finger -> slide position [m].
    """

    contact: np.ndarray
    table: np.ndarray
    position: np.ndarray
    orientation: np.ndarray
    finger: np.ndarray

    @classmethod
    def of(cls, model: mujoco.MjModel, candidates: tuple[str, ...]) -> SignalSensors:
        """Look the sensors up by name in a compiled scene model (``candidates``: the
        candidates, or any tracked objects)."""
        adr = lambda name: int(model.sensor(name).adr[0])  # noqa: E731
        contact = np.array(
            [
                [[adr(f"sig/contact/{o}/{s}/{f}") for f in aloha.FINGER_NAMES] for s in aloha.SIDES]
                for o in candidates
            ]
        ).reshape(len(candidates), 2, 2)
        table = np.array([adr(f"sig/table/{o}") for o in candidates], dtype=int)
        position = np.array([adr(f"sig/pos/{o}") + np.arange(3) for o in candidates])
        orientation = np.array([adr(f"sig/quat/{o}") + np.arange(4) for o in candidates])
        finger = np.array(
            [[adr(f"sig/finger/{n}") for n in aloha.finger_joints(s)] for s in aloha.SIDES]
        )
        n = len(candidates)
        return cls(contact, table, position.reshape(n, 3), orientation.reshape(n, 4), finger)


def compile_scene(
    task: Problem | Task,
    *,
    quality: str = "fast",
    probes: tuple[Probe, ...] = (),
    tracked: tuple[str, ...] = (),
    objects: ObjectSource | None = None,
) -> Scene:
    """Compile a task on the Aloha table: the one scene compiler of every task.

    One path builds every scene, in this order: the robot (:mod:`rsb_mj.scene.aloha`); the
    letter materials of the candidates a binding names (none for a task without
    candidates); the task's regions (:func:`_add_regions`: the answer zone a binding's goal
    places ``?answer`` into, a gray patch on the table, and the table regions a scene that
    draws its own layout reads, sites); its fixtures (:func:`_add_fixtures`: every fixture
    but the workspace table, placed by ``:init``); its objects (:func:`_add_objects`); the
    signal sensors of the candidates and of ``tracked`` (the objects the task's predicates
    talk about, :func:`rsb_mj.scoring.signal_plan`); ``probes``, extra sensors
    (:mod:`rsb_mj.scene.probes`, e.g. the ``:cost`` terms').

    Where a task's ``:ranges`` are read (:func:`_frame`) says who lays it out: a task in
    rsb's table frame gets its layout with its episode (:meth:`Scene.apply_episode`; its
    objects are rsb's categories, coloured per episode), a LIBERO / VLA-Arena task's scene
    draws its seeds' layouts itself (:attr:`Scene.layout`, a
    :class:`~rsb_mj.scene.region_layout.GoalLayout`; its objects from ``objects``,
    :mod:`rsb_mj.scene.assets`, the shipped stand-ins by default). A tier B file's cabinets,
    microwave and stove are articulated (:data:`ARTICULATED_TIERS`); a tier A file's are
    static props.

    Args:
        task: the task (a parsed :class:`~rsb_mj.lang.ast.Problem` is read with
            :func:`~rsb_mj.lang.task.task_of`).

    Raises:
        SceneError: naming the task file, for: an unknown category; a task in rsb's frame
            without candidates, with a fixture other than the table, with moving objects
            that are candidates or undeclared, or with candidates or ``tracked`` objects not
            in ``:objects``; a fixture category rsb_mj has no prop for, a fixture without a
            table region in ``:init``, an ``:init`` state its fixture has no range for; a
            model MuJoCo rejects.
    """
    task = task if isinstance(task, Task) else task_of(task)
    frame = _frame(task)
    motions = _check(task, frame, tracked)
    candidates = task.candidates
    spec = aloha.aloha_spec(quality)
    spec.modelname = task.problem.name if frame is None else "goal_" + task.problem.name
    letters = LETTERS.get(len(candidates), LETTERS[max(LETTERS)]) if candidates else ()
    if candidates:
        _add_letter_materials(spec, letters)
    regions, zone = _add_regions(spec, task, frame)
    parts = _Parts()
    changes = _add_fixtures(spec, task, frame, objects or STANDINS_SOURCE, parts)
    _add_objects(spec, task, frame, objects or STANDINS_SOURCE, motions, parts)
    if candidates:
        _add_signal_sensors(spec, tuple(dict.fromkeys((*candidates, *tracked))))
        _add_touch_sensors(spec, tuple(o for o in tracked if o not in candidates), candidates)
    add_probes(spec, probes)
    model = _compile(spec, task.path, "scene" if frame is None else "goal scene")
    layout = None
    if frame is not None:  # the scene draws its seeds' layouts
        init_joints = _init_joints(task, model) if task.tier in ARTICULATED_TIERS else ()
        changes += _clear_arms(model, task, init_joints)
        layout = GoalLayout(
            task, model, frame, parts.rest, parts.tops, parts.sources, parts.half_xy, init_joints
        )
        layout.part_ranges = _part_ranges(task, model, init_joints)
        layout.layout_changes = changes
        layout._frame_head()
    if zone:
        x0, y0, x1, y1 = zone[0]
        zone_center = table_to_world((x0 + x1) / 2, (y0 + y1) / 2, 0.0)
        zone_half = np.array([abs(x1 - x0) / 2, abs(y1 - y0) / 2])
    else:
        zone_center, zone_half = table_to_world(0.0, 0.0), np.zeros(2)
    return Scene(
        model=model,
        problem=task.problem,
        quality=quality,
        candidates=candidates,
        axis=candidates or tuple(task.objects),
        candidate_bodies=candidates,
        **_robot_index(model),
        fixtures=dict(task.fixtures),
        regions=regions,
        zone_center=zone_center,
        zone_half_size=zone_half,
        table_top_z=TABLE_TOP_Z,
        rest_height=parts.rest,
        grip_width={c: parts.built[c].grip_width for c in candidates},
        sources=parts.sources,
        sensors=SignalSensors.of(model, candidates) if candidates else None,
        motion=MotionPlayer(model, motions, parts.rest) if frame is None else None,
        layout=layout,
        _built=parts.built,
        _letter_materials=_letter_material_ids(model, letters) if candidates else {},
    )


def _frame(task: Task) -> FrameMap | None:
    """Where ``task``'s ``:ranges`` are read: None for rsb's own table frame (RSB's
    semantics: the Aloha table's frame, the layout coming with each episode), else the frame
    map of a LIBERO / VLA-Arena task (:func:`~rsb_mj.lang.frame_map.choose_map`), whose
    scene draws its seeds' layouts."""
    return None if task.semantics == "rsb" else choose_map(task)


def _check(task: Task, frame: FrameMap | None, tracked: tuple[str, ...]) -> tuple[Motion, ...]:
    """What a task in rsb's frame must hold before its scene is built: candidates declared
    in ``:objects``, the table as its one fixture, moving objects that are declared and not
    candidates, ``tracked`` objects in ``:objects``; returns its moving objects (``()`` in a
    LIBERO / VLA-Arena frame, whose scene stands every object still).

    Raises:
        SceneError: for the first of these that fails (the message names the task file).
    """
    problem, path, candidates = task.problem, task.path, task.candidates
    if frame is not None:
        return ()
    if not candidates:
        raise SceneError(f"{path}: the task declares no :candidates")
    for fixture in problem.fixtures:
        if fixture.category not in FIXTURES:
            raise SceneError(
                f"{path}:{fixture.span}: fixture {fixture.name!r} has category "
                f"{fixture.category!r}; valid choices: {', '.join(FIXTURES)}"
            )
    motions, issues = read_moving_objects(problem)
    if issues:
        raise SceneError(f"{path}:{issues[0].span}: {issues[0].message}")
    moving = {m.name for m in motions}
    if moving & set(candidates):
        raise SceneError(f"{path}: candidates cannot move: {sorted(moving & set(candidates))}")
    undeclared = moving - {d.name for d in problem.objects}
    if undeclared:
        raise SceneError(f"{path}: moving objects {sorted(undeclared)} are not in :objects")
    declared = [d.name for d in problem.objects]
    for decl in problem.objects:  # an unknown category first, as the build meets it
        get_category(decl.category)
    unknown = [c for c in candidates if c not in declared]
    if unknown:
        raise SceneError(f"{path}: candidates {unknown} are not declared in :objects")
    untracked = [o for o in tracked if o not in declared]
    if untracked:
        raise SceneError(
            f"{path}: tracked objects {untracked} are not in :objects; valid choices: "
            + ", ".join(declared)
        )
    return tuple(motions)


@dataclass
class _Parts:
    """What the compiler learns of each object and fixture while it builds them.

    Attributes:
        rest: name -> height [m] of its body origin above the surface it rests on.
        tops: name -> its height [m] (a fixture's top, an object's extent).
        sources: a LIBERO / VLA-Arena object -> where its model came from.
        half_xy: name -> its footprint's half extents (x, y) [m].
        built: an object in rsb's frame -> what its category built (colour, letter geoms).
    """

    rest: dict[str, float] = field(default_factory=dict)
    tops: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    half_xy: dict[str, tuple[float, float]] = field(default_factory=dict)
    built: dict[str, BuiltObject] = field(default_factory=dict)


def _rect(frame: FrameMap | None, r: Rect, region: str) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) [m, rsb table frame] of a ``:ranges`` rectangle of ``region``."""
    return (r.x0, r.y0, r.x1, r.y1) if frame is None else frame.rect(r, region)


def _add_regions(
    spec: mujoco.MjSpec, task: Task, frame: FrameMap | None
) -> tuple[tuple[str, ...], list[tuple[float, float, float, float]]]:
    """Build ``task``'s regions; returns their full names (:attr:`Scene.regions`) and the
    answer zone's rectangles [m, table frame].

    The answer zone (the regions ``(:answer_zone ...)`` names, which a binding's goal places
    ``?answer`` into: ``(In ?answer table_answer_zone)``) is a patch on the table, every
    rectangle of it a geom ``answer_zone/{i}`` (:data:`ZONE_THICKNESS` thick, the zone's
    ``:rgba``, gray by default, no collisions). Where the scene draws its own layout
    (``frame``: a LIBERO / VLA-Arena task) every other region on the workspace table is an
    invisible box site of its first rectangle (a repeated name: the first one counts), which
    the layout sampler and the goal's checks read; a task in rsb's frame reads its other
    regions' rectangles from the task itself.
    """
    problem = task.problem
    zones = {r.full_name for r in problem.answer_zone_regions}
    zone_rgba = [0.5, 0.5, 0.5, 1.0]
    for region in problem.answer_zone_regions:
        if region.rgba is not None:
            zone_rgba = list(region.rgba)
    table = spec.body("table")
    names: list[str] = []
    zone: list[tuple[float, float, float, float]] = []
    for region in problem.regions:
        name = region.full_name
        if name in zones:
            for r in region.ranges:
                x0, y0, x1, y1 = _rect(frame, r, name)
                table.add_geom(
                    name=f"answer_zone/{len(zone)}",
                    type=mujoco.mjtGeom.mjGEOM_BOX,
                    size=[abs(x1 - x0) / 2, abs(y1 - y0) / 2, ZONE_THICKNESS / 2],
                    pos=[(x0 + x1) / 2, (y0 + y1) / 2, ZONE_THICKNESS / 2],
                    rgba=zone_rgba,
                    group=2,
                    contype=0,
                    conaffinity=0,
                )
                zone.append((x0, y0, x1, y1))
            names.append(name)
        elif (
            frame is not None
            and region.target == task.table
            and region.ranges
            and name not in names
        ):
            x0, y0, x1, y1 = _rect(frame, region.ranges[0], name)
            spec.worldbody.add_site(
                name=name,
                pos=[(x0 + x1) / 2, (y0 + y1) / 2, TABLE_TOP_Z],
                size=[(x1 - x0) / 2, (y1 - y0) / 2, 0.001],
                type=mujoco.mjtGeom.mjGEOM_BOX,
                rgba=[0, 0, 0, 0],
                group=5,
            )
            names.append(name)
    return tuple(names), zone


def _add_fixtures(
    spec: mujoco.MjSpec,
    task: Task,
    frame: FrameMap | None,
    objects: ObjectSource,
    parts: _Parts,
) -> tuple[str, ...]:
    """Build every fixture of ``task`` but its workspace table (the robot scene's): a
    stand-in or the user's original from ``objects``, articulated in a tier B file
    (:data:`ARTICULATED_TIERS`), else a static prop, at the centre of its ``:init`` table
    region; a tier B fixture the goal operates is moved along x by
    :mod:`rsb_mj.scene.fixture_placement`'s rule (its front faces the far arm), kept clear
    of the other fixtures. Returns the moves made (``layout_changes``).

    Raises:
        SceneError: for a category with no prop, or a fixture without ``(On NAME REGION)``
            in ``:init``.
    """
    articulated = task.tier in ARTICULATED_TIERS
    moves: dict[str, tuple[float, float]] = {}  # fixture -> x in the file, x by the rule
    for name, category in task.fixtures.items():
        if name == task.table:
            continue
        known = _source_category(objects, category)
        # the articulated stand-in, unless the user's original (which has its joints)
        if (
            articulated
            and category in ARTICULATED_FIXTURES
            and not isinstance(known, OriginalCategory)
        ):
            known = ARTICULATED_FIXTURES[category]
        prop = None if known is not None and known.fixture else fixture_prop(category)
        if prop is None and (known is None or not known.fixture):
            raise SceneError(f"{task.path}: fixture {name!r}: no prop for category {category!r}")
        place = next((r for r in task.init if r.mover == name and r.kind == "region"), None)
        rect = region_rect(task, place.place) if place else None
        if rect is None or place is None:
            raise SceneError(f"{task.path}: fixture {name!r} has no (On {name} REGION) in :init")
        region = next(r for r in task.problem.regions if r.full_name == place.place)
        x0, y0, x1, y1 = _rect(frame, rect, place.place)
        x, y = (x0 + x1) / 2, (y0 + y1) / 2
        yaw = FrameMap.yaw(region.yaw_rotation[0][0] if region.yaw_rotation else 0.0)
        if articulated and isinstance(known, ArticulatedCategory) and operated(task, name):
            moves[name] = (x, placement(category, x, yaw))  # its front faces the far arm
        body = spec.worldbody.add_body(name=name)
        body.quat = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
        if prop is None:  # a stand-in fixture: its origin is its box's centre
            assert known is not None
            body.pos = [x, y, TABLE_TOP_Z + known.rest_height]
            known.build(spec, body, name)
            if articulated and isinstance(known, OriginalCategory):
                _regions_on_parts(spec, name, known)
            parts.tops[name] = 2 * known.half_extents[2]
            parts.rest[name] = known.rest_height
            parts.half_xy[name] = known.half_extents[:2]
        else:
            body.pos = [x, y, TABLE_TOP_Z]
            build_prop(body, name, prop)
            parts.tops[name], parts.rest[name], parts.half_xy[name] = (
                prop.height,
                0.0,
                prop.half[:2],
            )
    return _clear_moves(spec, task, moves, parts.half_xy)


def _clear_moves(
    spec: mujoco.MjSpec,
    task: Task,
    moves: dict[str, tuple[float, float]],
    half_xy: dict[str, tuple[float, float]],
) -> tuple[str, ...]:
    """Move each fixture of ``moves`` (name -> (x in the file, x by the rule) [m]) to where
    the rule puts it, kept clear of the other fixtures (slid along y, or stopped short
    along x: :func:`~rsb_mj.scene.fixture_placement.clear_xy`); returns the moves made, in
    words (:func:`~rsb_mj.scene.fixture_placement.label`)."""
    changes: list[str] = []
    for name, (x_file, x_rule) in moves.items():
        body = spec.body(name)
        if x_rule == x_file or body is None:
            continue
        yaw = 2 * math.atan2(body.quat[3], body.quat[0])
        others = [
            (spec.body(f).pos[0], spec.body(f).pos[1], 2 * math.atan2(spec.body(f).quat[3],
             spec.body(f).quat[0]), half_xy[f])
            for f in half_xy
            if f != name
        ]  # fmt: skip
        own = (x_rule, body.pos[1], yaw, half_xy[name])
        x, y = clear_xy(x_file, x_rule, own, others, SWEEP.get(task.fixtures[name], 0.0))
        if x != x_file:
            changes.append(label(name, x_file, x, yaw, body.pos[1], y))
            body.pos = [x, y, body.pos[2]]
    return tuple(changes)


def _add_objects(
    spec: mujoco.MjSpec,
    task: Task,
    frame: FrameMap | None,
    objects: ObjectSource,
    motions: tuple[Motion, ...],
    parts: _Parts,
) -> None:
    """Build every object of ``task`` (its free body, or a mocap body for one of
    ``motions``), in declaration order. In rsb's frame an object is its rsb category,
    coloured per episode (:meth:`Scene.apply_episode`), and one no binding names stands at
    the centre of its ``:init`` region until an episode's ``distractors`` move it; in a
    LIBERO / VLA-Arena frame it comes from ``objects`` (an original, a stand-in, rsb's model
    in its :data:`CATEGORY_RGBA` colour, or a primitive prop), placed by the layout."""
    moving = {m.name for m in motions}
    problem, candidates = task.problem, task.candidates
    for decl in problem.objects:
        name = decl.name
        info = f"{task.path}:{decl.span}" if frame is None else None
        body = _add_object(spec, name, moving=name in moving, info=info)
        if frame is not None:
            built = _object_model(spec, body, name, decl.category, objects)
            parts.rest[name], parts.tops[name], parts.sources[name], parts.half_xy[name] = built
            continue
        category = get_category(decl.category)
        parts.built[name] = category.build(spec, body, name)
        parts.rest[name] = category.rest_height
        if name not in candidates:
            r = problem.region(problem.placement_of(name)).ranges[0]
            body.pos = table_to_world((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, parts.rest[name])


def _letter_material_ids(
    model: mujoco.MjModel, letters: tuple[str, ...]
) -> dict[tuple[str, str], int]:
    """(letter or ``""``, colour) -> the id of its material (:func:`_add_letter_materials`)."""
    out: dict[tuple[str, str], int] = {}
    for letter in ("", *letters):
        for color in PALETTE:
            tex_name = f"letter_{letter}" if letter else "letter_blank"
            out[(letter, color)] = model.material(f"{tex_name}_{color}").id
    return out


# ---- the robot and the bodies -----------------------------------------------------------


def _robot_index(model: mujoco.MjModel) -> dict[str, dict]:
    """The robot's names and ids in a compiled scene, as :class:`Scene`'s fields
    ``arm_joints``, ``arm_actuators``, ``gripper_actuators``, ``finger_qpos``, ``arm_qpos``
    and ``gripper_sites`` (names: :mod:`rsb_mj.scene.aloha`)."""
    sides = aloha.SIDES
    return {
        "arm_joints": {s: aloha.arm_joints(s) for s in sides},
        "arm_actuators": {
            s: np.array([model.actuator(n).id for n in aloha.arm_joints(s)]) for s in sides
        },
        "gripper_actuators": {
            s: np.array([model.actuator(n).id for n in aloha.finger_joints(s)]) for s in sides
        },
        "finger_qpos": {
            s: np.array([model.joint(n).qposadr[0] for n in aloha.finger_joints(s)]) for s in sides
        },
        "arm_qpos": {
            s: np.array([model.joint(n).qposadr[0] for n in aloha.arm_joints(s)]) for s in sides
        },
        "gripper_sites": {s: aloha.gripper_site(s) for s in sides},
    }


def _add_object(
    spec: mujoco.MjSpec, name: str, *, moving: bool = False, info: str | None = None
) -> mujoco.MjsBody:
    """A task object's body ``name`` on the world body: free (joint ``{name}/free``), or a
    mocap body when the task drives it (``:moving_objects``, :mod:`rsb_mj.scene.motion`);
    ``info`` (``task_path:line``) points compile errors back to its declaration."""
    body = spec.worldbody.add_body(name=name, mocap=moving)
    if info is not None:
        body.info = info
    if not moving:
        body.add_freejoint(name=f"{name}/free")
    return body


def _compile(spec: mujoco.MjSpec, path: str, what: str) -> mujoco.MjModel:
    """The compiled model of ``spec``.

    Raises:
        SceneError: ``{path}: MuJoCo could not compile the {what}: ...``.
    """
    try:
        return spec.compile()
    except ValueError as exc:
        raise SceneError(f"{path}: MuJoCo could not compile the {what}: {exc}") from None


# ---- objects' and fixtures' models -----------------------------------------------------


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
    return "standins" if category in STANDINS or category in GOAL_STANDINS else "rsb"


def _object_model(
    spec: mujoco.MjSpec, body: mujoco.MjsBody, name: str, category: str, objects: ObjectSource
):
    """Build object ``name`` into ``body``; returns (rest height, height, source, footprint
    half extents (x, y)) [m]."""
    known = _source_category(objects, category)
    if known is not None and not known.fixture:
        built = known.build(spec, body, name)
        rgba = CATEGORY_RGBA.get(category, (0.7, 0.7, 0.7, 1.0))
        for g in built.color_geoms:
            spec.geom(g).rgba = list(rgba)
        hx, hy, hz = known.half_extents
        return known.rest_height, 2 * hz, _label(known, objects, category), (hx, hy)
    prop: Prop = object_prop(category)
    build_prop(body, name, prop)
    return 0.0, prop.height, "rsb-primitive", prop.half[:2]


def state_owner(task: Task, target: str) -> str | None:
    """The fixture a state atom's ``target`` names: itself (a whole fixture) or the owner of
    the region site (``wooden_cabinet_1_top_region`` -> ``wooden_cabinet_1``), or None."""
    if target in task.fixtures:
        return target
    owner = owner_of(task, target)
    return owner if owner in task.fixtures else None


def state_joints(model: mujoco.MjModel, task: Task, target: str) -> tuple[int, ...]:
    """The joint ids a state atom on ``target`` reads and sets, as LIBERO's: every hinge and
    slide joint of a whole fixture's bodies (``ObjectState``), or the joints of the body that
    carries the region site (``SiteObjectState``: one drawer's); () where there are none (a
    static prop, an unknown name)."""
    if target in task.fixtures:
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, target)
        if bid < 0:
            return ()
        return tuple(
            j
            for j in range(model.njnt)
            if model.body_rootid[model.jnt_bodyid[j]] == bid
            and model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
        )
    sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, target)
    if sid < 0:
        return ()
    body = int(model.site_bodyid[sid])
    first, count = int(model.body_jntadr[body]), int(model.body_jntnum[body])
    return tuple(
        j
        for j in range(first, first + count)
        if model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE)
    )


def _arm_touch(
    model: mujoco.MjModel,
    root: int,
    joints: dict[str, float],
    fixtures: frozenset[int],
    arm_q: Sequence[float] = aloha.HOME_ARM,
    side: str | None = None,
) -> str | None:
    """The arm link (body name) that a collision geom of fixture body ``root`` penetrates
    with the arm ``side`` (both for ``None``) at ``arm_q`` (arm joints [rad]; home by
    default), the other at home, and ``joints`` (name -> qpos [m or rad]) set, else
    ``"fixture NAME"`` for another fixture of ``fixtures`` (root body ids) it penetrates;
    ``None`` when it penetrates neither (MuJoCo's geom distances after forward kinematics)."""
    data = mujoco.MjData(model)
    data.qpos[:] = aloha.home_qpos_ctrl(model)[0]
    for arm in aloha.SIDES if side is None else (side,):
        for name, q in zip(aloha.arm_joints(arm), arm_q, strict=True):
            data.qpos[model.joint(name).qposadr[0]] = q
    for name, q in joints.items():
        data.qpos[model.joint(name).qposadr[0]] = q
    mujoco.mj_kinematics(model, data)
    roots = model.body_rootid[model.geom_bodyid]
    solid = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
    mine = np.flatnonzero(solid & (roots == root))
    names = [model.body(int(b)).name for b in model.geom_bodyid]
    arms = [g for g in np.flatnonzero(solid) if names[g].startswith(("left/", "right/"))]
    beside = np.flatnonzero(solid & np.isin(roots, sorted(fixtures - {root})))
    fromto = np.zeros(6)
    for others, what in ((arms, None), (beside, "fixture")):
        for g in others:
            for m in mine:
                if mujoco.mj_geomDistance(model, data, int(m), int(g), 0.0, fromto) < 0.0:
                    if what is None:
                        return names[g]
                    return f"fixture {model.body(int(roots[g])).name}"
    return None


#: The arm poses [rad] a fixture moved by the arms' rule keeps clear of with the arm on its
#: side of the table: home, and reaching over the table's middle
#: (:data:`~rsb_mj.scene.aloha.HANDOVER_REACH_ARM`).
REACHES: tuple[Sequence[float], ...] = (aloha.HOME_ARM, *aloha.HANDOVER_REACH_ARM)


def _clear_at(
    model: mujoco.MjModel,
    root: int,
    x: float,
    joints: dict[str, float],
    fixtures: frozenset[int],
    poses: Sequence[Sequence[float]],
) -> bool:
    """Whether fixture body ``root`` moved to world x = ``x`` [m] (``model.body_pos``, left
    there) and with ``joints`` set touches no arm link with the arm on its side of the table
    at any of ``poses`` (the other at home) and no other fixture (:func:`_arm_touch`)."""
    model.body_pos[root][0] = x
    side = "left" if x < 0 else "right"
    return all(_arm_touch(model, root, joints, fixtures, q, side) is None for q in poses)


def _clear_arms(
    model: mujoco.MjModel,
    task: Task,
    init_joints: tuple[tuple[tuple[str, ...], tuple[float, float]], ...],
) -> tuple[str, ...]:
    """The arms' rule of :mod:`rsb_mj.scene.fixture_placement` on the compiled ``model``:
    each fixture whose part open at ``:init`` (``init_joints``; the most open state of its
    range) touches an arm link at home is moved along x toward the centre (``model.body_pos``,
    steps of ``STEP`` up to ``CENTRE_X``) to the first x where it touches no arm link, at home
    nor with the arm on its side reaching over the table's middle
    (``aloha.HANDOVER_REACH_ARM``), and no other fixture; where no x clears those reaches, to
    the first x clear at home; returns the moves made, in words
    (:func:`~rsb_mj.scene.fixture_placement.arms_label`)."""
    changes: list[str] = []
    fixtures = frozenset(model.body(f).id for f in task.fixtures if f != task.table)
    for joints, (lo, hi) in init_joints:
        q = lo if abs(lo) >= abs(hi) else hi  # the most open state drawn
        drawn = dict.fromkeys(joints, q)
        for root in sorted({int(model.body_rootid[model.joint(j).bodyid[0]]) for j in joints}):
            link = _arm_touch(model, root, drawn, fixtures)
            if link is None or not link.startswith(("left/", "right/")):
                continue
            x_file = float(model.body_pos[root][0])
            n = max(0, math.floor((abs(x_file) - CENTRE_X) / STEP + 1e-9))
            xs = [x_file - math.copysign(k * STEP, x_file) for k in range(1, n + 1)]
            x = next((x for x in xs if _clear_at(model, root, x, drawn, fixtures, REACHES)), None)
            if x is None:  # no place clears the reaches: the first clear of the arms at home
                home = (aloha.HOME_ARM,)
                x = next((x for x in xs if _clear_at(model, root, x, drawn, fixtures, home)), None)
            model.body_pos[root][0] = x_file if x is None else x
            if x is not None:
                changes.append(arms_label(model.body(root).name, x_file, x, link))
    return tuple(changes)


def _init_joints(
    task: Task, model: mujoco.MjModel
) -> tuple[tuple[tuple[str, ...], tuple[float, float]], ...]:
    """Each ``:init`` fixture state's joints (names) and the range its qpos is drawn from.

    Raises:
        SceneError: for a state its fixture has no range for (``(TurnOn wooden_cabinet_1)``)
            or whose target has no joint, at the atom's position.
    """
    out = []
    for atom in task.init_states:
        owner = state_owner(task, atom.target)
        category = task.fixtures.get(owner or "", "")
        where = f"{task.path}:{atom.span.line}:{atom.span.column}"
        fixture = ARTICULATED_FIXTURES.get(category)
        ranges = fixture.spec.init_ranges if fixture is not None else {}
        key = atom.predicate.lower()
        joints = state_joints(model, task, atom.target)
        if key not in ranges or not joints:
            valid = ", ".join(sorted(ranges)) or "none"
            raise SceneError(
                f"{where}: ({atom.predicate} {atom.target}): {category or atom.target!r} has "
                f"no {key!r} state to set at :init (its states: {valid})"
            )
        out.append((tuple(model.joint(j).name for j in joints), ranges[key]))
    return tuple(out)


def _part_ranges(
    task: Task,
    model: mujoco.MjModel,
    init_joints: tuple[tuple[tuple[str, ...], tuple[float, float]], ...],
) -> tuple[tuple[str, tuple[float, float]], ...]:
    """Each fixture joint (name) a task moves, source order, and the range [lo, hi] [m or
    rad] of the states it takes from reset to the goal: its drawn ``:init`` range (``()`` in
    ``init_joints``: 0 without one) joined with the range of the goal's state on it
    (``(Open X)``: X's ``open`` ``:init`` range, as LIBERO draws an open drawer or door;
    ``Close``, ``TurnOn``, ``TurnOff`` alike) and, for a drawer the goal puts something
    ``In`` that ``:init`` does not open, its ``open`` range (it is opened first). What the
    head camera frames of a moving part (:meth:`GoalLayout.boxes`); ``()`` in a scene without
    joints (tier A)."""
    span: dict[str, tuple[float, float]] = {}
    for joints, (lo, hi) in init_joints:
        for joint in joints:
            span[joint] = (lo, hi)
    opened = {a.target for a in task.init_states if a.predicate in ("Open", "TurnOn")}
    wanted = [(a.target, a.predicate.lower()) for a in task.goal_states]
    wanted += [
        (r.place, "open") for r in task.goal if r.predicate == "In" and r.place not in opened
    ]
    for target, key in wanted:
        owner = state_owner(task, target)
        fixture = ARTICULATED_FIXTURES.get(task.fixtures.get(owner or "", ""))
        goal = fixture.spec.init_ranges.get(key) if fixture is not None else None
        if goal is None:
            continue
        for j in state_joints(model, task, target):
            name = model.joint(j).name
            lo, hi = span.get(name, (0.0, 0.0))
            span[name] = (min(lo, goal[0]), max(hi, goal[1]))
    return tuple(span.items())


def _regions_on_parts(spec: mujoco.MjSpec, name: str, original: OriginalCategory) -> None:
    """Move the region sites ``{name}_{region}`` of the user's original articulated fixture
    onto the body that carries the original's own site where that body has a joint (a
    drawer's region onto its drawer, so it moves with it), as LIBERO keeps them."""
    for r in original.regions:
        inner = spec.site(f"{name}/{r.name}")
        outer = spec.site(f"{name}_{r.name}")
        if inner is None or outer is None or inner.parent.first_joint() is None:
            continue  # on the carcass: it stays where it is
        spec.delete(outer)
        add_region_site(inner.parent, f"{name}_{r.name}", inner.size, inner.pos, inner.quat)
