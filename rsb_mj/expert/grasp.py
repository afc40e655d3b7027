"""Grasp poses from an object's collision geometry.

The object is summarised by an oriented box: the body-frame bounds of the corners of every
collision geom's local bounding box (``model.geom_aabb``) of the body and its children.
A top-down grasp closes the fingers along one horizontal box axis that fits between the open
finger pads; the tool center point (TCP, the gripper site between the pads) goes to the box's
horizontal center, at a height that keeps the finger tips off the table.

Two more grasps, for the stand-ins a category describes (:mod:`rsb_mj.scene.categories`):
a hollow object (a bowl, a mug) or one too wide for the gripper is taken across its wall
(:func:`rim_of`, :func:`rim_grasps`: one finger inside, one outside, closing radially), and
one with a handle (a pan, a moka pot) across the handle's bar (:func:`handle_grasp`).

Frames: everything here is in the world frame, metres, except where a name says ``local``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.collision import subtree_bodies
from rsb_mj.scene.categories.parts import Handle, Rim

#: Usable gap between the open finger pads [m] (the Aloha gripper opens to about 58 mm).
MAX_GRASP_WIDTH = 0.054
#: Clearance kept between the finger tips and the table top [m] (low objects such as a
#: 16 mm deck of cards are taken with the tips this close to the table).
TIP_CLEARANCE = 0.004
#: How far the finger tips extend past the TCP along the approach axis [m].
TIP_PAST_TCP = 0.006
#: Preferred depth of the TCP below the object's top [m].
GRASP_DEPTH = 0.022
#: Rim grasp (a bowl, a plate, a mug too wide for a top-down grasp): the TCP goes this far
#: inside the rim [m] and this far below the object's top [m], fingers closing radially.
RIM_INSET, RIM_DEPTH = 0.012, 0.016
#: Closing directions tried across a round object's outline when every grasp across its box
#: axes collides (evenly spaced over a half turn, the box axes among them).
TURNS = 12
#: An outline counts as round when its width across the box's diagonal is at most this
#: fraction of the box's (a circle's or an ellipse's: 0.71; a rectangle's: 1).
ROUND_RATIO = 0.8
#: Points sampled round a sphere's, ellipsoid's, cylinder's or capsule's axis (and over its
#: height) to outline it (:func:`collision_points` with ``round_surfaces``).
ROUND_SAMPLES = 24
#: Directions tried around the rim (evenly spaced).
RIM_DIRECTIONS = 12
#: Rim directions closer than this (cosine) to a mug's handle are not tried.
HANDLE_COS = math.cos(math.radians(50.0))
#: The Aloha gripper's extent [m] behind the TCP along its approach axis (its camera
#: mount's back; ``{side}/gripper_base``'s collision geoms): what a grasp from above
#: stacks on the object it holds.
GRIPPER_LENGTH = 0.153


@dataclass(frozen=True)
class ObjectBox:
    """An object's oriented bounding box.

    Attributes:
        center: box center, world frame [m], shape (3,).
        half: half extents along the box axes [m], shape (3,).
        axes: box axes as columns of a rotation matrix (world frame), shape (3, 3).
    """

    center: np.ndarray
    half: np.ndarray
    axes: np.ndarray

    @property
    def bottom(self) -> float:
        """Lowest world z of the box [m]."""
        return float(self.center[2] - np.abs(self.axes[2]) @ self.half)

    @property
    def top(self) -> float:
        """Highest world z of the box [m]."""
        return float(self.center[2] + np.abs(self.axes[2]) @ self.half)


def object_box(
    model: mujoco.MjModel, data: mujoco.MjData, body: str, *, fixed: bool = False
) -> ObjectBox:
    """The oriented box of ``body``'s collision geoms (itself and its children; with
    ``fixed``, only the children welded to it: not a microwave's hinged door).

    Raises:
        ExpertError: if the body does not exist or has no collision geom.
    """
    bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    if bid < 0:
        raise ExpertError(f"object body {body!r} not found in the model")
    bodies = subtree_bodies(model, bid)
    if fixed:
        bodies = {b for b in bodies if _welded(model, b, bid)}
    pos = data.xpos[bid]
    rot = data.xmat[bid].reshape(3, 3)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    points = []
    for g in range(model.ngeom):
        if int(model.geom_bodyid[g]) not in bodies:
            continue
        if not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        c, h = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
        corners = c + signs * h
        world = corners @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        points.append((world - pos) @ rot)
    if not points:
        raise ExpertError(f"object body {body!r} has no collision geom to grasp")
    local = np.concatenate(points)
    lo, hi = local.min(axis=0), local.max(axis=0)
    center = pos + rot @ ((lo + hi) / 2)
    return ObjectBox(center=center, half=(hi - lo) / 2, axes=rot.copy())


def _welded(model: mujoco.MjModel, body: int, root: int) -> bool:
    """Whether ``body`` moves with its ancestor ``root``: no joint on the way up to it."""
    while body != root:
        if model.body_jntnum[body]:
            return False
        body = int(model.body_parentid[body])
    return True


def risen(before: ObjectBox, after: ObjectBox) -> float:
    """How far an object rose between two of its boxes (world z, m): the larger of its
    box's bottom's rise and its centre's.

    The bottom alone misjudges an object that turns in the fingers: a plate pinched at its
    rim hangs tilted (its far edge on the table, dragged), the lowest corner of its tilted
    box below where its bottom was, while its centre rose 4 cm with the gripper. An object
    left behind rises by neither.
    """
    return max(after.bottom - before.bottom, float(after.center[2] - before.center[2]))


def top_down_rotation(closing: np.ndarray, tilt: float = 0.0) -> np.ndarray:
    """TCP rotation for a top-down grasp: approach (site z) down, fingers close along
    ``closing`` (site x, a horizontal unit vector).

    ``tilt`` [rad] leans the approach about the closing axis (the fingers still close
    horizontally), moving the gripper body and its camera mount sideways, away from a tall
    neighbour.
    """
    x = np.array([closing[0], closing[1], 0.0])
    x /= np.linalg.norm(x)
    down = np.array([0.0, 0.0, -1.0])
    z = np.cos(tilt) * down + np.sin(tilt) * np.cross(x, down)
    return np.column_stack([x, np.cross(z, x), z])


def _round_surface(kind: int, size: np.ndarray) -> np.ndarray | None:
    """Points on the surface of a round primitive (local frame, m): :data:`ROUND_SAMPLES`
    around its z axis at the heights that outline it (a cylinder's two end circles, a
    capsule's and an ellipsoid's or sphere's circles of latitude); None for another type."""
    t = np.linspace(0.0, 2 * np.pi, ROUND_SAMPLES, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    geom = mujoco.mjtGeom
    if kind == geom.mjGEOM_CYLINDER:
        r, h = float(size[0]), float(size[1])
        return np.concatenate([np.column_stack([r * ring, np.full(len(t), z)]) for z in (-h, h)])
    lat = np.linspace(-np.pi / 2, np.pi / 2, ROUND_SAMPLES // 2 + 1)
    if kind in (geom.mjGEOM_SPHERE, geom.mjGEOM_ELLIPSOID):
        a = np.full(3, size[0]) if kind == geom.mjGEOM_SPHERE else np.asarray(size[:3], float)
        return np.concatenate(
            [
                np.column_stack([a[:2] * np.cos(p) * ring, np.full(len(t), a[2] * np.sin(p))])
                for p in lat
            ]
        )
    if kind == geom.mjGEOM_CAPSULE:
        r, h = float(size[0]), float(size[1])
        return np.concatenate(
            [
                np.column_stack([r * np.cos(p) * ring, np.full(len(t), r * np.sin(p) + z)])
                for p in lat
                for z in ((h,) if p > 0 else (-h,) if p < 0 else (-h, h))
            ]
        )
    return None


def collision_points(
    model: mujoco.MjModel, data: mujoco.MjData, body: str, *, round_surfaces: bool = False
) -> list[np.ndarray]:
    """World points outlining each collision geom of ``body`` (and its children).

    One array per geom, each a set of points whose convex hull contains the geom (exactly the
    collision hull for meshes: MuJoCo collides meshes through their convex hull; the local
    bounding-box corners for primitives). With ``round_surfaces``, a sphere, an ellipsoid, a
    cylinder or a capsule is outlined by points on its surface instead
    (:func:`_round_surface`; their hull lies inside the geom, within 1% of its radius), so
    that its width across a diagonal is its own, not its bounding box's.
    """
    bid = model.body(body).id
    bodies = subtree_bodies(model, bid)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    out = []
    for g in range(model.ngeom):
        if int(model.geom_bodyid[g]) not in bodies:
            continue
        if not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        round_local = _round_surface(int(model.geom_type[g]), model.geom_size[g])
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            mid = model.geom_dataid[g]
            adr, num = model.mesh_vertadr[mid], model.mesh_vertnum[mid]
            local = model.mesh_vert[adr : adr + num].astype(float)
        elif round_surfaces and round_local is not None:
            local = round_local
        else:
            local = model.geom_aabb[g, :3] + signs * model.geom_aabb[g, 3:]
        out.append(local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g])
    return out


def slice_above(hulls: list[np.ndarray], z_min: float) -> np.ndarray:
    """Points spanning the part of the convex hulls above ``z_min`` (world frame).

    The slice of a convex hull above a plane is the hull of its vertices above the plane and
    of the plane's intersections with the segments between vertices on either side.
    """
    parts = []
    for pts in hulls:
        above = pts[pts[:, 2] >= z_min]
        below = pts[pts[:, 2] < z_min]
        parts.append(above)
        if len(above) and len(below):
            a = above[:, None, :]
            b = below[None, :, :]
            t = (z_min - b[..., 2]) / (a[..., 2] - b[..., 2])
            parts.append((b + t[..., None] * (a - b)).reshape(-1, 3))
    return np.concatenate(parts) if parts else np.zeros((0, 3))


@dataclass(frozen=True)
class GraspPlan:
    """A top-down grasp of one object.

    Attributes:
        position: TCP position at the grasp, world frame [m].
        closings: candidate closing directions (horizontal unit vectors), best first by width.
        width: object width along the closing direction [m].
        turns: for a round object, grasps across its other diameters: (TCP position, world
            frame [m]; horizontal closing direction, unit) pairs, narrowest first, at the
            directions between the box axes (:data:`TURNS` over a half turn) across which
            the part above the finger tips fits in the gripper (a cake, 48 mm across every
            diameter; an egg lying along y, 56 x 46 mm, up to 60 degrees off its narrow
            axis); the expert tries them when every grasp across the box axes collides.
    """

    position: np.ndarray
    closings: tuple[np.ndarray, ...]
    width: float
    turns: tuple[tuple[np.ndarray, np.ndarray], ...] = ()


def plan_top_down(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    body: str,
    table_z: float,
    *,
    min_overlap: float = 0.0,
) -> GraspPlan:
    """A top-down grasp of ``body`` standing on a table at world height ``table_z``.

    The TCP goes :data:`GRASP_DEPTH` below the object's top (never so low that the finger
    tips come within :data:`TIP_CLEARANCE` of the table). The fingers close along a
    horizontal axis of the object's box; what must fit between them is the part of the
    object above the finger tips (so a bottle is taken by its neck).

    With ``min_overlap`` [m] > 0, an object so low that the tips stop at the table's
    clearance is taken by its part that rises at least ``min_overlap`` above the tips, where
    it has one (a knife by its 12 mm handle, not at the middle of its 6 mm blade).

    Raises:
        ExpertError: if that part is wider than the gripper along every horizontal axis.
    """
    box = object_box(model, data, body)
    z = max(box.top - GRASP_DEPTH, table_z + TIP_CLEARANCE + TIP_PAST_TCP)
    hulls = collision_points(model, data, body)
    z_slice = z - TIP_PAST_TCP - 0.003
    points = slice_above(hulls, z_slice)
    if not len(points):  # e.g. fallen off the table, below the finger tips' lowest height
        raise ExpertError(
            f"object {body!r} lies below the finger tips' lowest height, "
            f"{(table_z + TIP_CLEARANCE) * 1e3:.0f} mm"
        )
    if min_overlap > 0 and z > box.top - GRASP_DEPTH:  # a low object: tips near the table
        tall = slice_above(hulls, z - TIP_PAST_TCP + min_overlap)
        if len(tall):
            points, z_slice = tall, z - TIP_PAST_TCP + min_overlap
    vertical = int(np.argmax(np.abs(box.axes[2])))
    axes = []
    for i in range(3):
        if i == vertical:
            continue
        axis = box.axes[:, i].copy()
        axis[2] = 0.0
        axes.append(axis / np.linalg.norm(axis))
    proj = [points @ a for a in axes]
    widths = [float(p.max() - p.min()) for p in proj]
    # Center of the slice in the horizontal plane, from its extents along both axes.
    mid = [(p.max() + p.min()) / 2 for p in proj]
    xy = mid[0] * axes[0][:2] + mid[1] * axes[1][:2]
    order = np.argsort(widths)
    closings: list[np.ndarray] = []
    for k in order:
        w = widths[k]
        if w > MAX_GRASP_WIDTH:
            continue
        # A near-square footprint can be grasped across either axis.
        if closings and w > widths[order[0]] + 0.01:
            continue
        closings.extend([axes[k], -axes[k]])
    if not closings:
        raise ExpertError(
            f"object {body!r} is {min(widths) * 1e3:.0f} mm wide at its narrowest; the "
            f"gripper opens to {MAX_GRASP_WIDTH * 1e3:.0f} mm"
        )
    position = np.array([xy[0], xy[1], z])
    turns = _turns(
        slice_above(collision_points(model, data, body, round_surfaces=True), float(z_slice)),
        axes[0],
        z,
    )
    return GraspPlan(position=position, closings=tuple(closings), width=min(widths), turns=turns)


def _turns(
    points: np.ndarray, axis: np.ndarray, z: float
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Grasps across the directions between the box axes (``axis``: the first, horizontal,
    unit; :data:`TURNS` over a half turn) across which ``points`` (the part of the object
    above the finger tips, world frame) fit in the gripper, where the part is round
    (:data:`ROUND_RATIO`; a box is not taken across its corners): (TCP position at height ``z``
    [m], at the part's middle along and across the direction; closing direction) pairs, both
    senses of each direction, narrowest first."""
    if not len(points):
        return ()
    perp = np.array([-axis[1], axis[0], 0.0])
    diagonal = (axis + perp) / math.sqrt(2.0)
    box_diagonal = (np.ptp(points @ axis) + np.ptp(points @ perp)) / math.sqrt(2.0)
    if np.ptp(points @ diagonal) > ROUND_RATIO * box_diagonal:  # a corner: not round
        return ()
    found = []
    for k in range(1, TURNS):
        if 2 * k == TURNS:  # the box's other axis
            continue
        a = np.pi * k / TURNS
        c, s = math.cos(a), math.sin(a)
        u = np.array([c * axis[0] - s * axis[1], s * axis[0] + c * axis[1], 0.0])
        v = np.array([-u[1], u[0], 0.0])
        pu, pv = points @ u, points @ v
        width = float(pu.max() - pu.min())
        if width > MAX_GRASP_WIDTH:
            continue
        xy = (pu.max() + pu.min()) / 2 * u[:2] + (pv.max() + pv.min()) / 2 * v[:2]
        p = np.array([xy[0], xy[1], z])
        found.append((width, k, p, u))
    found.sort(key=lambda f: (f[0], f[1]))
    return tuple((p, d) for _, _, p, u in found for d in (u, -u))


def rim_of(
    model: mujoco.MjModel, data: mujoco.MjData, body: str, rim: Rim
) -> tuple[np.ndarray, float, float, np.ndarray | None]:
    """The rim of ``body``, a hollow stand-in whose category describes it as ``rim``: its
    axis's point at the rim's top (world, m), the wall's mid radius and depth [m], and the
    world direction (unit, xy) of a handle beside it (None without one)."""
    bid = model.body(body).id
    rot = data.xmat[bid].reshape(3, 3)
    axis = data.xpos[bid] + rot @ np.array([rim.center[0], rim.center[1], rim.top])
    offset = (rot @ np.array([rim.center[0], rim.center[1], 0.0]))[:2]
    handle = None
    if np.linalg.norm(offset) > 1e-3:  # the box centre lies between the cup and its handle
        handle = -offset / np.linalg.norm(offset)
    return axis, rim.radius, rim.depth, handle


def rim_grasps(
    box: ObjectBox,
    rim: tuple[np.ndarray, float, float, np.ndarray | None] | None,
    table_z: float,
    base_xy: np.ndarray,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Grasps across the wall of a wide object, in order of preference: (TCP position,
    horizontal closing direction, unit) pairs, one finger inside, one outside, closing
    radially. A hollow stand-in's wall (``rim``: :func:`rim_of`) is taken
    :data:`RIM_DEPTH` below its top at its mid-surface, away from a handle; another wide
    object (``rim`` None; ``box``: its oriented box) :data:`RIM_INSET` inside its outline.
    The finger tips stay :data:`TIP_CLEARANCE` over the table at ``table_z``; directions
    facing the arm (its waist at world ``base_xy``) come first."""
    handle = None
    if rim is not None:
        axis, radius, depth, handle = rim
        center, top = axis[:2], float(axis[2])
        z = top - min(RIM_DEPTH, depth - TIP_PAST_TCP - 0.002)
    else:
        center, top = box.center[:2], box.top
        radius = float(min(box.half[0], box.half[1])) - RIM_INSET
        z = top - RIM_DEPTH
    z = max(z, table_z + TIP_CLEARANCE + TIP_PAST_TCP)
    toward = base_xy - center
    toward /= max(float(np.linalg.norm(toward)), 1e-9)
    angles = np.arange(RIM_DIRECTIONS) * 2 * np.pi / RIM_DIRECTIONS
    dirs = [np.array([np.cos(a), np.sin(a)]) for a in angles]
    if handle is not None:  # keep the fingers off the handle
        dirs = [d for d in dirs if float(d @ handle) < HANDLE_COS]
    dirs.sort(key=lambda d: -float(d @ toward))
    return [(np.array([*(center + radius * d), z]), d) for d in dirs]


def handle_grasp(
    model: mujoco.MjModel, data: mujoco.MjData, body: str, handle: Handle
) -> tuple[np.ndarray, np.ndarray]:
    """Where a handle grasp takes ``body``, a stand-in whose category describes its
    ``handle`` (a pan, a moka pot): the TCP position (world, m) and the horizontal closing
    direction across the bar (unit)."""
    bid = model.body(body).id
    rot = data.xmat[bid].reshape(3, 3)
    local = np.array(handle.center)
    local[2] = max(local[2], handle.top - GRASP_DEPTH)
    p = data.xpos[bid] + rot @ local
    along = rot @ np.array([handle.axis[0], handle.axis[1], 0.0])
    across = np.array([-along[1], along[0]])
    return p, across / max(float(np.linalg.norm(across)), 1e-9)
