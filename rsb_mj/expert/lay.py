"""Laying a held object down on a sloped region: LIBERO's wine rack.

The rack's ``top_region`` is a slab standing along its upper plane, which slopes 31 degrees
(its site frame: x along the plane's width, z up the slope, y into the plane); ``On`` holds
for an object whose origin lies within 22 mm of the plane's lip region along the plane's
normal and up to 10 cm up the slope: a bottle lying in the rack against its lip, not one
standing on it (it cannot stand on the slope, and its origin would be 8 cm off the plane).
So an upright object grasped from above is turned a quarter, its long axis (the gripper's
approach axis) along the site's x, and lowered onto the plane along its normal.

Frames: world, metres.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from rsb_mj.errors import ExpertError
from rsb_mj.expert.grasp import object_box
from rsb_mj.scene.aloha import HOME_ARM

#: A region whose site's z axis leans further than this from vertical [rad] is sloped.
SLOPE_MIN = math.radians(30.0)
#: Where the held object's origin goes in the site frame: this far up the slope [m] ...
UP_SLOPE = 0.03
#: ... and this far [m] above the site's centre along the plane's normal, beyond its own
#: half thickness across its long axis (it is released that much above where it rests).
RELEASE_GAP = 0.008
#: The approach and the retreat run this far [m] along the plane's normal.
APPROACH = 0.08


def sloped(site_mat: np.ndarray) -> bool:
    """Whether a region site (3x3 rotation, world) is sloped (:data:`SLOPE_MIN`)."""
    return float(np.asarray(site_mat).reshape(3, 3)[2, 2]) < math.cos(SLOPE_MIN)


def lay_targets(
    site_pos: np.ndarray, site_mat: np.ndarray, local: np.ndarray, radius: float
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(TCP position, TCP rotation, the plane's normal) that lay a held object on the
    sloped region of ``site_pos``/``site_mat`` (world), one per direction along the site's
    x its long axis can point.

    ``local`` is the object's origin in the TCP frame (constant while held, its long axis
    along the TCP's z); ``radius`` its half thickness across that axis [m]. The origin goes
    :data:`UP_SLOPE` up the slope from the site's centre and ``radius`` +
    :data:`RELEASE_GAP` above it along the normal (the site's -y, turned upward).
    """
    rot = np.asarray(site_mat, float).reshape(3, 3)
    normal = -rot[:, 1] if rot[2, 1] < 0 else rot[:, 1]
    origin = np.asarray(site_pos, float) + UP_SLOPE * rot[:, 2] + (radius + RELEASE_GAP) * normal
    out = []
    for sign in (1.0, -1.0):
        z = sign * rot[:, 0]
        x = np.cross(z, normal)
        x /= np.linalg.norm(x)
        tcp_rot = np.column_stack([x, np.cross(z, x), z])
        out.append((origin - tcp_rot @ local, tcp_rot, normal))
    return out


def lay_down(
    expert: Any, site: int, obj_geoms: Sequence[int], riders: Sequence[int]
) -> Iterator[list[np.ndarray]] | None:
    """The motions that lay ``expert``'s held mover on the sloped region site ``site``
    (carry above it along the plane's normal, lower, release, back out, home); None where
    the holding arm reaches no laying pose (the caller's placement runs instead).

    ``expert`` is a :class:`~rsb_mj.expert.pick_place.PickPlaceExpert` holding the mover after
    the lift; ``obj_geoms`` the mover's geoms, ``riders`` what rides on it.
    """
    w, arm = expert.world, expert.arm
    bid = w.model.body(expert.mover).id
    tcp, tcp_rot = arm.tcp(w.data)
    local = tcp_rot.T @ (w.data.xpos[bid] - tcp)
    # the object's half thickness across its long axis (the TCP's z): the larger of its
    # box's two smaller half extents
    box = object_box(w.model, w.data, expert.mover)
    radius = float(np.sort(box.half)[:2].max())
    for p, rot, normal in lay_targets(
        w.data.site_xpos[site], w.data.site_xmat[site], local, radius
    ):
        p_pre = p + APPROACH * normal
        try:
            q_pre = arm.ik.solve(p_pre, rot, q0=expert._target_q, rng=expert._rng).q
            arm.ik.solve(p, rot, q0=q_pre, rng=expert._rng)
        except ExpertError:
            continue
        arm.checker.carry(bid, w.data)
        try:
            carry = expert._move_joint(q_pre, 0.0, allowed=(*obj_geoms, *riders))
        except ExpertError:
            continue
        finally:
            arm.checker.carry(None)
        return _lay(expert, carry, p_pre, p, rot)
    return None


def _lay(
    expert: Any, carry: list[np.ndarray], p_pre: np.ndarray, p: np.ndarray, rot: np.ndarray
) -> Iterator[list[np.ndarray]]:
    yield carry
    yield from expert._settle()
    expert.phase = "lower"
    yield expert._line(p_pre, p, rot, 0.0)
    yield from expert._settle()
    expert.phase = "release"
    yield from expert._grip(1.0)
    expert.phase = "retreat"
    try:
        yield expert._line(p, p_pre, rot, 1.0)
    except ExpertError as exc:  # released already: go home by a planned motion instead
        expert.warnings.append(f"retreat: {exc}")
    expert.phase = "home"
    yield expert._move_joint(np.asarray(HOME_ARM, float), 1.0)
