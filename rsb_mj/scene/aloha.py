"""The bimanual Aloha at its table, as a ``mujoco.MjSpec`` with position actuators.

For the expert engineer and anyone who needs the bare robot::

    from rsb_mj.scene.aloha import aloha_spec
    spec = aloha_spec(quality="fast")      # robot + table + floor + lights + cameras
    model = spec.compile()                 # ~0.4 s once the cache exists (first use ~15 s)

The robot is composed by robosuite (``robosuite.models.robots.create_robot("Aloha")`` with
robosuite-models' ``AlohaMount`` base and ``AlohaGripper`` on each arm); the composed MJCF is
then edited here: robosuite's torque motors are replaced by position actuators, names lose
robosuite's ``robot0_``/``gripper0_`` prefixes, the floor-standing frame of the mount is left
out, and a table, a head camera and named tool sites are added. Composition and mesh
preprocessing (convex hulls for collision, decimated visual meshes for ``fast``) run once and
are cached (see :mod:`rsb_mj.scene.cache`).

Frames: world x/y coincide with the table frame (origin at the table-top center, x to the
robot's right, y away from the robot); the table top is at world z = ``TABLE_TOP_Z``. Arm
bases stand on the table at ``rsb_mj.workspace.ARM_BASE_XY`` (left arm at -x, right arm at
+x, facing each other). Gravity compensation is on for every robot body, so a held joint target
is tracked without steady-state sag; ``home_qpos_ctrl(model)`` gives the home pose
(``HOME_ARM``, grippers open) for any model that contains the robot.

Names (all per side ``"left"``/``"right"``):
    joints ``{side}/waist, shoulder, elbow, forearm_roll, wrist_angle, wrist_rotate`` and the
    finger slides ``{side}/left_finger``, ``{side}/right_finger`` [m, 0 closed .. 0.041];
    actuators of the same names (position servos; arm targets in rad, finger targets in m);
    site ``{side}/gripper``: tool center point between the finger pads, its z axis along the
    approach direction (out of the palm); cameras ``head``, ``left_wrist``, ``right_wrist``.
    Collision meshes are in geom group 3 (hidden), visual meshes in group 1.

Gripper command (0 closed .. 1 open) <-> finger target: ``gripper_to_finger`` and
``finger_to_gripper`` (linear between ``FINGER_CLOSED`` and ``FINGER_OPEN``).
"""

from __future__ import annotations

import io
import logging
import sys
from contextlib import redirect_stderr, redirect_stdout
from functools import cache
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.errors import SceneError
from rsb_mj.progress import LogProgress, progress
from rsb_mj.rates import PHYSICS_TIMESTEP_S
from rsb_mj.scene.cache import cache_dir
from rsb_mj.scene.frames import table_to_world
from rsb_mj.scene.meshes import TriMesh, convex_hull, decimate, read_stl
from rsb_mj.workspace import TABLE_HALF_XY, TABLE_TOP_Z

SIDES: tuple[str, str] = ("left", "right")
ARM_JOINT_NAMES: tuple[str, ...] = (
    "waist",
    "shoulder",
    "elbow",
    "forearm_roll",
    "wrist_angle",
    "wrist_rotate",
)
FINGER_NAMES: tuple[str, str] = ("left_finger", "right_finger")
QUALITIES: tuple[str, str] = ("fast", "full")

#: Finger slide targets [m] for gripper command 0 (closed) and 1 (open).
FINGER_CLOSED, FINGER_OPEN = 0.002, 0.037
#: Arm joint positions of the home pose [rad] (same for both arms; see ARM_JOINT_NAMES).
HOME_ARM = (0.0, -0.9, 0.7, 0.0, 1.1, 0.0)
#: Arm joint positions [rad] of the pre-grasps over the table's middle, where the goal
#: expert hands objects over (``rsb_mj.expert.handover``: spots 0.25-0.50 m from both
#: waists): the gripper pointing down, its TCP 0.10 m above the table top (a grasp's 0.08 m
#: approach over a low object), 0.03 m past the table's centre toward the other arm, at y =
#: -0.2, -0.1, 0, 0.1, 0.2 m for the left arm (IK, to the mm). The arms mirror each other, so
#: the right arm at these joints reaches the same band (x = -0.03 m, y = 0.2 ... -0.2 m).
#: The arms' rule (``rsb_mj.scene.fixture_placement``) moves a fixture clear of them.
HANDOVER_REACH_ARM: tuple[tuple[float, ...], ...] = (
    (-0.374, 0.686, -0.649, -0.001, 1.534, -1.946),
    (-0.19, 0.563, -0.435, -0.001, 1.442, -1.761),
    (0.008, 0.526, -0.371, -0.001, 1.416, -1.562),
    (0.206, 0.57, -0.446, -0.001, 1.447, -1.366),
    (0.388, 0.699, -0.673, -0.001, 1.544, -1.183),
)
#: Position-servo stiffness [N m / rad] and damping [N m s / rad] per arm joint.
ARM_KP = (43.0, 265.0, 227.0, 78.0, 37.0, 10.4)
ARM_KV = (4.0, 25.0, 20.0, 3.0, 2.0, 0.6)
#: Tool center point in the gripper base frame [m] (midpoint of the finger pads).
TCP_IN_GRIPPER = (0.0, 0.004, 0.1057)
#: Head camera (ALOHA's ``cam_high``): eye and look-at point in the table frame [m], and the
#: vertical field of view [deg]. It looks down at the workspace 20 deg from vertical from above
#: the robot's side of the table, framed so that every candidate region, the answer zone and
#: 16 cm tall objects fit a 4:3 image, with every block letter >= 14 px tall at 320x240 (see
#: :mod:`rsb_mj.scene.legibility`). Was eye (0, -0.5, 0.58), target (0, 0.05, 0), 60 deg.
HEAD_EYE = (0.0, -0.21, 0.85)
HEAD_TARGET = (0.0, 0.10, 0.0)
HEAD_FOVY = 32.0

_XML_NAME = "aloha_robosuite.xml"
_MESH_NAME = "aloha_meshes.npz"


def arm_joints(side: str) -> tuple[str, ...]:
    """Names of the six arm joints of ``side`` (also the names of their actuators)."""
    return tuple(f"{side}/{j}" for j in ARM_JOINT_NAMES)


def finger_joints(side: str) -> tuple[str, str]:
    """Names of the two finger slide joints of ``side`` (also their actuators' names)."""
    return (f"{side}/{FINGER_NAMES[0]}", f"{side}/{FINGER_NAMES[1]}")


def gripper_site(side: str) -> str:
    """Name of the tool-center-point site of ``side``."""
    return f"{side}/gripper"


def _compose_with_robosuite() -> str:
    """The Aloha MJCF as robosuite composes it (robot + mount + two grippers)."""
    logging.getLogger("robosuite_logs").setLevel(logging.ERROR)
    sink = io.StringIO()
    with redirect_stdout(sink), redirect_stderr(sink):
        import robosuite_models  # noqa: F401  (registers Aloha, AlohaMount, AlohaGripper)

        # heavy: robosuite (about 1 s), only when the arms' model is first built
        from robosuite.models.bases import robot_base_factory
        from robosuite.models.grippers import gripper_factory
        from robosuite.models.robots import create_robot

        robot = create_robot("Aloha", idn=0)
        robot.add_base(robot_base_factory(robot.default_base, idn=0))
        for arm in robot.arms:
            gripper = gripper_factory(robot.default_gripper[arm], idn=f"0_{arm}")
            robot.add_gripper(gripper, robot.eef_name[arm])
        return robot.get_xml()


def robosuite_xml() -> str:
    """The composed robosuite MJCF, cached after the first call."""
    path = cache_dir() / _XML_NAME
    if path.is_file():
        return path.read_text()
    xml = _compose_with_robosuite()
    atomic_write_bytes(path, xml.encode())
    return xml


def _rename(name: str) -> str:
    """Strip robosuite's prefixes: ``robot0_left/waist`` -> ``left/waist``,
    ``gripper0_left_left_finger`` -> ``left/left_finger``."""
    for side in SIDES:
        if name.startswith(f"gripper0_{side}_"):
            return f"{side}/" + name.removeprefix(f"gripper0_{side}_")
    return name.removeprefix("robot0_")


#: What the mesh cache's progress lines say (the build takes about 25 s on 2 idle cores).
CACHE_PROGRESS = "rsb_mj: building the mesh cache (first use, ~25 s)"


def _mesh_library(spec: mujoco.MjSpec, *, shown: bool = True) -> dict[str, np.ndarray]:
    """Hull and decimated meshes for every mesh asset of ``spec``, cached as one npz.

    Keys: ``{mesh}/hull/v``, ``{mesh}/hull/f``, ``{mesh}/lite/v``, ``{mesh}/lite/f``; vertices
    are already scaled to metres. Building it (first use) shows its progress on stderr
    unless not ``shown`` (:func:`build_cache`): a line at the start naming the folder, then
    ``rsb_mj: building the mesh cache (first use, ~25 s): k/N meshes ...`` (a bar on a
    terminal); loading it shows nothing.
    """
    path = cache_dir() / _MESH_NAME
    if path.is_file():
        with np.load(path) as npz:
            return dict(npz)
    meshes = list(spec.meshes)
    bar = _cache_progress(len(meshes), path, shown)
    arrays: dict[str, np.ndarray] = {}
    for mesh in meshes:
        raw = read_stl(mesh.file)
        scaled = TriMesh(raw.vertices * np.asarray(mesh.scale), raw.faces)
        for kind, out in (("hull", convex_hull(scaled)), ("lite", decimate(scaled))):
            arrays[f"{mesh.name}/{kind}/v"] = out.vertices.astype(np.float32)
            arrays[f"{mesh.name}/{kind}/f"] = out.faces.astype(np.int32)
        bar.update(1)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())
    bar.close()
    return arrays


def _cache_progress(total: int, path: Path, shown: bool) -> Any:
    """The mesh cache build's progress on stderr (:func:`rsb_mj.progress.progress`; in a
    log a line at the start and one per fifth of the meshes)."""
    if not shown:
        return progress(total, desc=CACHE_PROGRESS, unit="meshes", enabled=False)
    if sys.stderr.isatty():
        return progress(total, desc=CACHE_PROGRESS, unit="meshes")
    print(f"{CACHE_PROGRESS}: 0/{total} meshes, in {path.parent}", file=sys.stderr, flush=True)
    return LogProgress(total, desc=CACHE_PROGRESS, unit="meshes", every=max(1, total // 5))


def cache_ready() -> bool:
    """Whether the robot's cache (the composed XML and its meshes) is built."""
    folder = cache_dir()
    return (folder / _XML_NAME).is_file() and (folder / _MESH_NAME).is_file()


def build_cache(*, shown: bool = True) -> bool:
    """Build the robot's cache now when it is missing (composing the Aloha, then its meshes,
    with their progress on stderr when ``shown``), so that processes started after find it
    (``rsb eval`` calls it before its workers start: one build, one progress); return
    whether it built anything.

    Raises:
        RsbError: when the cache folder cannot be written (:mod:`rsb_mj.scene.cache`).
    """
    if cache_ready():
        return False
    _mesh_library(mujoco.MjSpec.from_string(robosuite_xml()), shown=shown)
    return True


def _swap_meshes(spec: mujoco.MjSpec, quality: str) -> None:
    """Collision geoms -> hull meshes; visual geoms -> decimated meshes in ``fast``."""
    library = _mesh_library(spec)
    originals = list(spec.meshes)
    kinds = ("hull", "lite") if quality == "fast" else ("hull",)
    for mesh in originals:
        for kind in kinds:
            new = spec.add_mesh(name=f"{mesh.name}_{kind}")
            new.uservert = library[f"{mesh.name}/{kind}/v"].ravel().astype(np.float64).tolist()
            new.userface = library[f"{mesh.name}/{kind}/f"].ravel().tolist()
    for geom in spec.geoms:
        if geom.type != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        if geom.contype or geom.conaffinity:
            geom.meshname = f"{geom.meshname}_hull"
            geom.group = 3
        elif quality == "fast":
            geom.meshname = f"{geom.meshname}_lite"
    if quality == "fast":
        for mesh in originals:
            spec.delete(mesh)


def _edit_robot(spec: mujoco.MjSpec) -> None:
    """Turn robosuite's Aloha into the position-controlled rsb robot (in place)."""
    mount = spec.body("fixed_mount0_aloha_mount")
    if mount is not None:
        spec.delete(mount)
    for cam in list(spec.cameras):
        if cam.name.startswith("robot0_"):
            spec.delete(cam)
    for site in list(spec.sites):  # robosuite's markers and eef frames; ours are added below
        spec.delete(site)
    for sensor in list(spec.sensors):
        spec.delete(sensor)
    for actuator in list(spec.actuators):
        spec.delete(actuator)
    for kind in ("bodies", "joints", "geoms", "sites", "cameras"):
        for element in getattr(spec, kind):
            if element.name:
                element.name = _rename(element.name)
    for exclude in spec.excludes:
        exclude.bodyname1 = _rename(exclude.bodyname1)
        exclude.bodyname2 = _rename(exclude.bodyname2)
    for side in SIDES:
        # The finger hulls overlap before the pads meet; fingers never touch each other.
        spec.add_exclude(
            bodyname1=f"{side}/left_finger_link", bodyname2=f"{side}/right_finger_link"
        )
    for side in SIDES:
        spec.camera(f"{side}/wrist_cam_right").name = f"{side}_wrist"
        gripper_base = spec.body(f"{side}/gripper_base")
        gripper_base.add_site(
            name=gripper_site(side), pos=list(TCP_IN_GRIPPER), size=[0.005, 0, 0], group=4
        )
    base = spec.body("base")
    # robosuite faces the robot along +x; turn it by +90 deg about z so that its right arm
    # stands at table +x, and lift it so that the arm mounts sit on the table top.
    base.quat = [0.0, 0.0, 0.0, 1.0]
    base.pos = [0.0, -0.019, TABLE_TOP_Z]
    for body in spec.bodies:
        if body.name and body.name != "world":
            body.gravcomp = 1.0
    for side in SIDES:
        for name, kp, kv in zip(arm_joints(side), ARM_KP, ARM_KV, strict=True):
            joint = spec.joint(name)
            joint.armature = 0.1
            act = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            act.set_to_position(kp=kp, kv=kv)
            act.ctrllimited = True
            act.ctrlrange = list(joint.range)
        for name in finger_joints(side):
            act = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            act.set_to_position(kp=2000.0, kv=124.0)
            act.ctrllimited = True
            act.ctrlrange = [FINGER_CLOSED, FINGER_OPEN]
            act.forcelimited = True
            act.forcerange = [-20.0, 20.0]


def _add_world(spec: mujoco.MjSpec, quality: str) -> None:
    """Floor, table, lights and the head camera."""
    spec.option.timestep = PHYSICS_TIMESTEP_S
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.option.impratio = 10.0
    spec.visual.global_.offwidth = 1280
    spec.visual.global_.offheight = 960
    spec.visual.quality.shadowsize = 4096 if quality == "full" else 0
    # Lights sum to about 1 on an upward face seen by the head camera, so that top faces
    # keep their palette color instead of clipping (orange read as yellow, pink as white).
    spec.visual.headlight.ambient = [0.28, 0.28, 0.28]
    spec.visual.headlight.diffuse = [0.25, 0.25, 0.25]
    spec.visual.headlight.specular = [0.0, 0.0, 0.0]
    spec.stat.center = [0.0, 0.0, TABLE_TOP_Z]
    spec.stat.extent = 1.0
    world = spec.worldbody
    floor = spec.add_material(name="floor", rgba=[0.32, 0.34, 0.38, 1.0])
    wood = spec.add_material(name="table", rgba=[0.62, 0.52, 0.40, 1.0])
    legs = spec.add_material(name="table_legs", rgba=[0.2, 0.2, 0.22, 1.0])
    world.add_geom(
        name="floor",
        type=mujoco.mjtGeom.mjGEOM_PLANE,
        size=[3, 3, 0.05],
        material=floor.name,
        group=2,
    )
    table = world.add_body(name="table", pos=[0, 0, TABLE_TOP_Z])
    hx, hy = TABLE_HALF_XY
    table.add_geom(
        name="table_top",
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=[hx, hy, 0.02],
        pos=[0, 0, -0.02],
        material=wood.name,
        group=2,
        friction=[1.0, 0.005, 0.0001],
    )
    for i, (sx, sy) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
        table.add_geom(
            name=f"table_leg{i}",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[0.025, 0.025, 0.36],
            pos=[sx * (hx - 0.05), sy * (hy - 0.05), -0.4],
            material=legs.name,
            group=2,
            contype=0,
            conaffinity=0,
        )
    world.add_light(
        name="key",
        pos=[0.3, -0.6, TABLE_TOP_Z + 1.6],
        dir=[-0.15, 0.35, -1.0],
        diffuse=[0.35, 0.35, 0.35],
        specular=[0.1, 0.1, 0.1],
        castshadow=quality == "full",
    )
    world.add_light(
        name="fill",
        pos=[-0.4, 0.6, TABLE_TOP_Z + 1.4],
        dir=[0.2, -0.4, -1.0],
        diffuse=[0.15, 0.15, 0.15],
        specular=[0, 0, 0],
        castshadow=False,
    )
    eye = np.array(table_to_world(*HEAD_EYE))
    target = np.array(table_to_world(*HEAD_TARGET))
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    world.add_camera(name="head", pos=eye.tolist(), xyaxes=[*right, *up], fovy=HEAD_FOVY)


@cache
def _robot_spec(quality: str) -> mujoco.MjSpec:
    """The finished robot + table spec for ``quality`` (memoised per process; never edit it)."""
    spec = mujoco.MjSpec.from_string(robosuite_xml())
    spec.compiler.degree = False
    spec.compiler.autolimits = True
    spec.modelname = "rsb_aloha"
    _swap_meshes(spec, quality)
    _edit_robot(spec)
    _add_world(spec, quality)
    return spec


def aloha_spec(quality: str = "fast") -> mujoco.MjSpec:
    """A fresh, editable spec of the Aloha at its table (see the module docstring).

    Args:
        quality: ``"fast"`` (decimated visual meshes, no shadows) or ``"full"``.

    Raises:
        SceneError: for an unknown quality.
    """
    if quality not in QUALITIES:
        raise SceneError(f"unknown quality {quality!r}; valid choices: {', '.join(QUALITIES)}")
    return _robot_spec(quality).copy()


def home_qpos_ctrl(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray]:
    """qpos and ctrl of the home pose for any model that contains the robot.

    Joints that are not the robot's keep ``model.qpos0``.
    """
    qpos = model.qpos0.copy()
    ctrl = np.zeros(model.nu)
    for side in SIDES:
        for name, q in zip(arm_joints(side), HOME_ARM, strict=True):
            qpos[model.joint(name).qposadr[0]] = q
            ctrl[model.actuator(name).id] = q
        for name in finger_joints(side):
            qpos[model.joint(name).qposadr[0]] = FINGER_OPEN
            ctrl[model.actuator(name).id] = FINGER_OPEN
    return qpos, ctrl


def gripper_to_finger(command: float | np.ndarray) -> float | np.ndarray:
    """Finger slide target [m] for a normalized gripper command (0 closed .. 1 open)."""
    return FINGER_CLOSED + np.clip(command, 0.0, 1.0) * (FINGER_OPEN - FINGER_CLOSED)


def finger_to_gripper(position: float | np.ndarray) -> float | np.ndarray:
    """Normalized gripper opening (0 closed .. 1 open) for finger slide positions [m]."""
    return np.clip((position - FINGER_CLOSED) / (FINGER_OPEN - FINGER_CLOSED), 0.0, 1.0)
