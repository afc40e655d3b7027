"""Where a placement's mover comes to rest: the place's centre, its support's top and surface.

:func:`place_of` measures, when a placement starts, the world (x, y) its mover goes to, the
top of the support there (what the carry must clear) and the surface the mover rests on (a
bowl's floor is below its rim: :func:`support_top` casts rays over the mover's footprint);
:func:`site_yaws` turns a mover put ``In`` a site to line up with it (a book into a
caddy's compartment). World frame, metres and radians.
"""

from __future__ import annotations

from collections.abc import Sequence

import mujoco
import numpy as np

from rsb_mj.expert.grasp import ObjectBox, object_box
from rsb_mj.expert.world import World
from rsb_mj.lang.task import Relation

#: Yaw changes [rad] tried, in order, when the grasp's yaw cannot reach above the place.
PLACE_YAWS = (0.0, 0.4, -0.4, 0.8, -0.8, 1.2, -1.2, 1.6, -1.6, np.pi, 2.0, -2.0)
#: Share of the mover's half width whose circle :func:`support_top` probes.
FOOTPRINT = 0.8
#: How far from a site's centre the outermost of the movers that share it goes, as a
#: share of its half size (:func:`shared_spot`): two moka pots on LIBERO's 0.075 m cook
#: region stand 0.09 m apart, their origins 0.03 m inside its edges.
SHARED_SPREAD = 0.6


def support_top(
    world: World, place: str, mover: str, xy: np.ndarray, reach: float, top: float
) -> float:
    """Where the mover comes to rest on object ``place`` near world ``xy``: the highest
    surface of ``place`` that rays straight down hit at ``xy`` and on a circle of radius
    ``reach`` [m] (the mover's footprint) around it, world z [m]; ``top`` (the place's
    top) when no ray hits it. A bowl's or a plate's floor is lower than its rim."""
    w = world
    root = int(w.model.body_rootid[w.model.body(place).id])
    mover_id = w.model.body(mover).id
    geomid = np.zeros(1, dtype=np.int32)
    hits = []
    offsets = [np.zeros(2)] + [
        reach * np.array([np.cos(a), np.sin(a)]) for a in np.arange(8) * np.pi / 4
    ]
    for off in offsets:
        start = np.array([xy[0] + off[0], xy[1] + off[1], top + 0.05])
        dist = mujoco.mj_ray(
            w.model, w.data, start, np.array([0.0, 0.0, -1.0]), None, 1, mover_id, geomid
        )
        g = int(geomid[0])
        if g < 0 or dist < 0:
            continue
        if int(w.model.body_rootid[int(w.model.geom_bodyid[g])]) != root:
            continue
        hits.append(float(start[2] - dist))
    return max(hits) if hits else top


def place_of(world: World, rel: Relation) -> tuple[np.ndarray, float, float]:
    """World (x, y) of where ``rel`` puts its mover, the support's top z and the z of
    the surface the mover comes to rest on there [m] (:func:`support_top`; a site's:
    its top, or its floor for ``In``)."""
    w = world
    if rel.kind == "object":
        box = object_box(w.model, w.data, rel.place)
        bid = w.model.body(rel.place).id
        xy = w.data.xpos[bid][:2].copy()
        mover = object_box(w.model, w.data, rel.mover)
        reach = FOOTPRINT * float(min(mover.half[0], mover.half[1]))
        return xy, box.top, support_top(w, rel.place, rel.mover, xy, reach, box.top)
    sid = w.model.site(rel.place).id
    pos = w.data.site_xpos[sid]
    top = float(pos[2] + w.model.site_size[sid][2])
    rest = top
    if rel.predicate == "In":  # into the site's box: onto its floor
        rest = float(pos[2] - w.model.site_size[sid][2])
    if int(w.model.site_bodyid[sid]) != 0:  # a region of a fixture or object: over it
        owner = w.model.body(int(w.model.site_bodyid[sid])).name
        top = max(top, object_box(w.model, w.data, owner).top)
        if rel.predicate == "On":
            rest = top
    return pos[:2].copy(), top, rest


def shared_spot(world: World, rel: Relation, others: Sequence[str]) -> np.ndarray | None:
    """Where ``rel``'s mover goes on its site when the goal puts ``others`` (object names)
    ``On`` the same site too (world xy [m]; LIBERO's "put both moka pots on the stove": a
    second pot at the centre met the first): the movers' spots lie evenly along the site's
    axis across which the mover is narrowest (world frame, its box as it stands now), the
    outermost :data:`SHARED_SPREAD` of the half size from the centre; of those, the one
    farthest from where the others stand now (the first mover: from where they wait).
    None when ``others`` is empty or ``rel`` is not ``On`` a site."""
    if not others or rel.kind != "site" or rel.predicate != "On":
        return None
    w = world
    sid = w.model.site(rel.place).id
    mat = w.data.site_xmat[sid].reshape(3, 3)
    centre = w.data.site_xpos[sid][:2].copy()
    half = w.model.site_size[sid][:2]
    box = object_box(w.model, w.data, rel.mover)

    def width(k: int) -> float:  # the mover's half extent along the site's axis k
        axis = mat[:, k]
        return float(np.sum(np.abs(box.axes.T @ axis) * box.half))

    k = min((0, 1), key=width)
    n = len(others) + 1
    reach = SHARED_SPREAD * float(half[k])
    spots = [centre + t * mat[:2, k] for t in np.linspace(-reach, reach, n)]
    taken = [w.data.xpos[w.model.body(o).id][:2] for o in others]
    return max(spots, key=lambda p: min(float(np.linalg.norm(p - q)) for q in taken))


def site_yaws(world: World, rel: Relation, box: ObjectBox) -> tuple[float, ...]:
    """Yaw turns [rad] of the held object (its oriented ``box``) to try above the place,
    in order: for ``In`` a site, those that line its long side up with the site's long
    side (either way round; both sides of a square site) first, then
    :data:`PLACE_YAWS`; for anything else :data:`PLACE_YAWS`."""
    if rel.predicate != "In" or rel.kind == "object":
        return PLACE_YAWS
    w = world
    sid = w.model.site(rel.place).id
    mat = w.data.site_xmat[sid].reshape(3, 3)
    half = w.model.site_size[sid]
    horizontal = [k for k in range(3) if abs(box.axes[2, k]) < 0.7]
    if len(horizontal) < 2:
        return PLACE_YAWS
    long = max(horizontal, key=lambda k: box.half[k])
    a = float(np.arctan2(box.axes[1, long], box.axes[0, long]))
    targets = [0, 1] if abs(half[0] - half[1]) < 0.005 else [0 if half[0] > half[1] else 1]
    yaws: list[float] = []
    for k in targets:
        t = float(np.arctan2(mat[1, k], mat[0, k]))
        d = (t - a + np.pi / 2) % np.pi - np.pi / 2  # in [-pi/2, pi/2)
        yaws += [d, d + np.pi if d < 0 else d - np.pi]
    yaws.sort(key=abs)
    return (*yaws, *PLACE_YAWS)
