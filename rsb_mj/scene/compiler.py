"""The scene compiler: task AST -> compiled MuJoCo scene; episode -> poses and looks.

Usage::

    scene = compile_scene(problem, quality="fast")   # once per task (~0.5 s)
    scene.apply_episode(data, episode)               # every reset: layout, colors, letters

Compiling does not depend on the episode: every candidate is a free body, and what an episode
draws (layout, option->object mapping, colors) is applied to ``model``/``data`` in
:meth:`Scene.apply_episode` without recompiling, so resets are cheap and two environments
with the same episode are bit-identical.

Frames: world x/y = table frame x/y; the table top is at world z = ``table_top_z``
(:mod:`rsb_mj.scene.frames`). Element names: candidate ``obj`` is body ``obj`` with free joint
``{obj}/free``; answer-zone patches are geoms ``answer_zone/{i}``; robot names are listed in
:mod:`rsb_mj.scene.aloha`. Each candidate body's ``info`` holds ``task_path:line`` of its
declaration, so compile errors point back to the task file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE, rgba
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import SceneError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.display import answer_candidates
from rsb_mj.lang.goal_task import GoalTask
from rsb_mj.lang.layout import answer_zone_rects
from rsb_mj.lang.motion import read_moving_objects
from rsb_mj.scene import aloha
from rsb_mj.scene.assets import ObjectSource
from rsb_mj.scene.categories import BuiltObject, get_category
from rsb_mj.scene.display import apply_answers
from rsb_mj.scene.frames import table_to_world
from rsb_mj.scene.goal_scene import GoalScene, compile_goal_scene
from rsb_mj.scene.letters import TEXTURE_SIZE, letter_image
from rsb_mj.scene.motion import MotionPlayer
from rsb_mj.scene.probes import Probe, add_probes
from rsb_mj.workspace import TABLE_TOP_Z

#: Fixture categories the compiler knows (the table is part of the robot scene).
FIXTURES = ("table",)
#: Thickness [m] of the answer-zone patch above the table top.
ZONE_THICKNESS = 0.0005


@dataclass
class Scene:
    """A compiled scene plus the names and ids privileged users need.

    Attributes:
        model: the compiled model (the env's own; :meth:`apply_episode` edits looks in it).
        problem: the task the scene was compiled from.
        quality: ``"fast"`` or ``"full"``.
        candidates: candidate object names (the order of every per-candidate signal axis).
        candidate_bodies: body name per candidate (same as the object name).
        arm_joints: side -> the six arm joint names.
        arm_actuators: side -> int array (6,) of actuator ids (targets in rad).
        gripper_actuators: side -> int array (2,) of finger actuator ids (targets in m).
        finger_qpos: side -> int array (2,) of finger joint qpos addresses.
        arm_qpos: side -> int array (6,) of arm joint qpos addresses.
        gripper_sites: side -> tool-center-point site name.
        zone_center: world xyz [m] of the (first) answer-zone rectangle's center on the table.
        zone_half_size: its half extents along x, y [m].
        table_top_z: world z of the table top [m].
        rest_height: candidate -> height [m] of its body origin above the table at rest.
        grip_width: candidate -> object extent [m] across its body y axis.
        sensors: addresses of the signal sensors in ``data.sensordata``.
        motion: drives the ``:moving_objects`` (mocap bodies; see :mod:`rsb_mj.scene.motion`).
    """

    model: mujoco.MjModel
    problem: Problem
    quality: str
    candidates: tuple[str, ...]
    candidate_bodies: tuple[str, ...]
    arm_joints: dict[str, tuple[str, ...]]
    arm_actuators: dict[str, np.ndarray]
    gripper_actuators: dict[str, np.ndarray]
    finger_qpos: dict[str, np.ndarray]
    arm_qpos: dict[str, np.ndarray]
    gripper_sites: dict[str, str]
    zone_center: np.ndarray
    zone_half_size: np.ndarray
    table_top_z: float
    rest_height: dict[str, float]
    grip_width: dict[str, float]
    sensors: SignalSensors
    motion: MotionPlayer | None = field(default=None, repr=False)
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
    body, contact = mujoco.mjtObj.mjOBJ_BODY, mujoco.mjtSensor.mjSENS_CONTACT
    for obj in candidates:
        for side in aloha.SIDES:
            for finger in aloha.FINGER_NAMES:
                sensor = spec.add_sensor(
                    name=f"sig/contact/{obj}/{side}/{finger}",
                    type=contact,
                    objtype=body,
                    objname=obj,
                    reftype=body,
                    refname=f"{side}/{finger}_link",
                )
                sensor.intprm = [1, 0, 1]  # data="found", reduce="none", num=1
    for obj in candidates:
        sensor = spec.add_sensor(
            name=f"sig/table/{obj}",
            type=contact,
            objtype=body,
            objname=obj,
            reftype=body,
            refname="table",
        )
        sensor.intprm = [1, 0, 1]  # data="found", reduce="none", num=1
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
    body, contact = mujoco.mjtObj.mjOBJ_BODY, mujoco.mjtSensor.mjSENS_CONTACT
    for obj in movers:
        for cand in candidates:
            sensor = spec.add_sensor(
                name=f"sig/touch/{obj}/{cand}",
                type=contact,
                objtype=body,
                objname=obj,
                reftype=body,
                refname=cand,
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
    task: Problem | GoalTask,
    *,
    quality: str = "fast",
    probes: tuple[Probe, ...] = (),
    tracked: tuple[str, ...] = (),
    objects: ObjectSource | None = None,
) -> Scene | GoalScene:
    """Compile a task on the Aloha table: the one entry point of the scene compiler.

    A question task (a :class:`rsb_mj.lang.Problem`) gives a :class:`Scene` (candidates,
    letters, the answer zone; ``tracked``: see :func:`_compile_question_scene`); a goal task
    (a :class:`~rsb_mj.lang.goal_task.GoalTask`) a
    :class:`~rsb_mj.scene.goal_scene.GoalScene` (fixtures and regions placed by ``:init``,
    objects from ``objects``: :func:`rsb_mj.scene.goal_scene.compile_goal_scene`).
    ``probes`` are extra sensors of either (:mod:`rsb_mj.scene.probes`).

    Raises:
        SceneError: for what either scene cannot build (the message names the task file).
    """
    if isinstance(task, GoalTask):
        return compile_goal_scene(task, quality=quality, objects=objects, probes=probes)
    return _compile_question_scene(task, quality=quality, probes=probes, tracked=tracked)


def _compile_question_scene(
    problem: Problem,
    *,
    quality: str = "fast",
    probes: tuple[Probe, ...] = (),
    tracked: tuple[str, ...] = (),
) -> Scene:
    """Compile ``problem`` (a :class:`rsb_mj.lang.Problem`) into a :class:`Scene`.

    Non-candidate objects are compiled at the center of their ``:init`` region; an episode
    with ``distractors`` moves and colors them (:meth:`Scene.apply_episode`). ``probes``
    are extra sensors (:mod:`rsb_mj.scene.probes`, e.g. the safety costs' contacts);
    ``tracked`` names the objects besides the candidates that get signal sensors (the
    objects the task's predicates talk about, :func:`rsb_mj.scoring.signal_plan`).

    Raises:
        SceneError: for an unknown category or fixture, a task without candidates, a
            tracked object the task does not declare, or a model MuJoCo rejects (the
            message names the task file).
    """
    path = problem.path
    candidates = tuple(problem.candidates)
    if not candidates:
        raise SceneError(f"{path}: the task declares no :candidates")
    for fixture in problem.fixtures:
        if fixture.category not in FIXTURES:
            raise SceneError(
                f"{path}:{fixture.span}: fixture {fixture.name!r} has category "
                f"{fixture.category!r}; valid choices: {', '.join(FIXTURES)}"
            )
    spec = aloha.aloha_spec(quality)
    spec.modelname = problem.name
    choices = len(candidates)
    letters = LETTERS.get(choices, LETTERS[max(LETTERS)])
    _add_letter_materials(spec, letters)
    table = spec.body("table")
    zone = answer_zone_rects(problem)
    zone_rgba = [0.5, 0.5, 0.5, 1.0]
    for region in problem.answer_zone_regions:
        if region.rgba is not None:
            zone_rgba = list(region.rgba)
    for i, (x0, y0, x1, y1) in enumerate(zone):
        table.add_geom(
            name=f"answer_zone/{i}",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[abs(x1 - x0) / 2, abs(y1 - y0) / 2, ZONE_THICKNESS / 2],
            pos=[(x0 + x1) / 2, (y0 + y1) / 2, ZONE_THICKNESS / 2],
            rgba=zone_rgba,
            group=2,
            contype=0,
            conaffinity=0,
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
    built: dict[str, BuiltObject] = {}
    rest: dict[str, float] = {}
    for decl in problem.objects:
        category = get_category(decl.category)
        body = spec.worldbody.add_body(name=decl.name, mocap=decl.name in moving)
        body.info = f"{path}:{decl.span}"
        if decl.name not in moving:
            body.add_freejoint(name=f"{decl.name}/free")
        built[decl.name] = category.build(spec, body, decl.name)
        rest[decl.name] = category.rest_height
        if decl.name not in candidates:
            region = problem.region(problem.placement_of(decl.name))
            r = region.ranges[0]
            body.pos = table_to_world((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, rest[decl.name])
    unknown = [c for c in candidates if c not in built]
    if unknown:
        raise SceneError(f"{path}: candidates {unknown} are not declared in :objects")
    untracked = [o for o in tracked if o not in built]
    if untracked:
        raise SceneError(
            f"{path}: tracked objects {untracked} are not in :objects; valid choices: "
            + ", ".join(built)
        )
    _add_signal_sensors(spec, tuple(dict.fromkeys((*candidates, *tracked))))
    _add_touch_sensors(spec, tuple(o for o in tracked if o not in candidates), candidates)
    add_probes(spec, probes)
    try:
        model = spec.compile()
    except ValueError as exc:
        raise SceneError(f"{path}: MuJoCo could not compile the scene: {exc}") from None
    letter_materials: dict[tuple[str, str], int] = {}
    for letter in ("", *letters):
        for color in PALETTE:
            tex_name = f"letter_{letter}" if letter else "letter_blank"
            letter_materials[(letter, color)] = model.material(f"{tex_name}_{color}").id
    if zone:
        x0, y0, x1, y1 = zone[0]
        zone_center = table_to_world((x0 + x1) / 2, (y0 + y1) / 2, 0.0)
        zone_half = np.array([abs(x1 - x0) / 2, abs(y1 - y0) / 2])
    else:
        zone_center, zone_half = table_to_world(0.0, 0.0), np.zeros(2)
    sides = aloha.SIDES
    return Scene(
        model=model,
        problem=problem,
        quality=quality,
        candidates=candidates,
        candidate_bodies=candidates,
        arm_joints={s: aloha.arm_joints(s) for s in sides},
        arm_actuators={
            s: np.array([model.actuator(n).id for n in aloha.arm_joints(s)]) for s in sides
        },
        gripper_actuators={
            s: np.array([model.actuator(n).id for n in aloha.finger_joints(s)]) for s in sides
        },
        finger_qpos={
            s: np.array([model.joint(n).qposadr[0] for n in aloha.finger_joints(s)]) for s in sides
        },
        arm_qpos={
            s: np.array([model.joint(n).qposadr[0] for n in aloha.arm_joints(s)]) for s in sides
        },
        gripper_sites={s: aloha.gripper_site(s) for s in sides},
        zone_center=zone_center,
        zone_half_size=zone_half,
        table_top_z=TABLE_TOP_Z,
        rest_height=rest,
        grip_width={c: built[c].grip_width for c in candidates},
        sensors=SignalSensors.of(model, candidates),
        motion=MotionPlayer(model, motions, rest),
        _built=built,
        _letter_materials=letter_materials,
    )
