"""Which objects a safety-aware expert keeps clear of: the hazards a task's ``:cost`` names.

Every static object (not a candidate, not a ``:moving_objects`` body) and every fixture but
the table (a goal scene's stove, a prop body of its own name) that a ``:cost`` atom names is
a hazard. The expert's fingers (and the object it carries) keep
``D + HAZARD_MARGIN`` metres from it, where D is the largest distance of a
``(CheckGripperDistance OBJ D)`` or ``(CheckDistance A B D)`` atom naming it (0 for the
other predicates: touching it is what costs).

Where a placement measures its motions against the hazards (a goal's placement,
:class:`~rsb_mj.expert.pick_place.PickPlaceExpert`), three more choices keep the cost low:
:func:`hazard_rank` ranks a grasp by how far its descent comes inside a clearance,
:func:`escape` lifts a mover grasped inside one away from the hazard, and
:func:`clear_spots` lists where in a region the mover may go, farthest from the hazards
first.
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.grasp import object_box
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Name, Number, walk_atoms
from rsb_mj.lang.motion import read_moving_objects

#: Clearance kept beyond the cost's own distance [m] (tracking error of the servos).
HAZARD_MARGIN = 0.015
#: Grasp rank of a pose inside a hazard's cost distance and of one inside its clearance
#: only, and the poses checked from the pre-grasp down to the grasp (:func:`hazard_rank`;
#: at most 5 x 150, below a collision's 1000).
HAZARD_RANK, HAZARD_NEAR_RANK, HAZARD_SAMPLES = 150.0, 20.0, 5
#: Placing in a region near a hazard (:func:`clear_spots`): the most grid points tried
#: besides its centre, the share of its half sizes searched, the grid step [m].
SPOT_TRIES, SPOT_SHARE, SPOT_STEP = 8, 0.7, 0.01
#: How far [m] the lift moves the mover sideways, away from a hazard whose clearance it (or
#: a finger) is inside when grasped (:func:`escape`).
ESCAPE = 0.05


def hazard_objects(problem: Problem) -> dict[str, float]:
    """Hazard object name -> the distance [m] its ``:cost`` atoms measure (0: contact)."""
    declared = {d.name for d in problem.objects}
    declared |= {f.name for f in problem.fixtures if f.category != "table"}
    skip = set(problem.candidates) | {m.name for m in read_moving_objects(problem)[0]}
    out: dict[str, float] = {}
    for expr in problem.cost_terms or ():
        for atom in walk_atoms(expr):
            numbers = [float(a.value) for a in atom.args if isinstance(a, Number)]
            reach = max(numbers) if atom.predicate.lower().endswith("distance") and numbers else 0.0
            for arg in atom.args:
                if isinstance(arg, Name) and arg.value in declared and arg.value not in skip:
                    out[arg.value] = max(out.get(arg.value, 0.0), reach)
    return out


def hazard_clearances(model: mujoco.MjModel, problem: Problem) -> dict[int, float]:
    """Geom id -> clearance [m] (distance + :data:`HAZARD_MARGIN`) of every hazard's geoms
    that collide (contype or conaffinity set): its body's, and for a fixture the bodies
    below it too (a stove's burner plate); a name the model has no body for is skipped."""
    fixtures = {f.name for f in problem.fixtures}
    out: dict[int, float] = {}
    for name, reach in hazard_objects(problem).items():
        try:
            root = model.body(name).id
        except KeyError:
            continue
        bodies = {root}
        for b in range(root + 1, model.nbody):
            if name in fixtures and int(model.body_parentid[b]) in bodies:
                bodies.add(b)
        for g in range(model.ngeom):
            collides = model.geom_contype[g] or model.geom_conaffinity[g]
            if int(model.geom_bodyid[g]) in bodies and collides:
                out[g] = reach + HAZARD_MARGIN
    return out


def hazard_rank(checker: CollisionChecker, q_pre: np.ndarray, q: np.ndarray) -> float:
    """A grasp's rank for the hazards ``checker`` keeps clear of: of :data:`HAZARD_SAMPLES`
    poses from the pre-grasp ``q_pre`` down to the grasp ``q``, :data:`HAZARD_RANK` for each
    whose fingers are inside a hazard's cost distance (its clearance less
    :data:`HAZARD_MARGIN`: those steps cost) and :data:`HAZARD_NEAR_RANK` for each inside
    the clearance only (a grasp across a tomato beside the stove, not towards it); grasps as
    costly keep their order."""
    rank = 0.0
    for t in np.linspace(0.0, 1.0, HAZARD_SAMPLES):
        short = checker.shortfall(q_pre + (q - q_pre) * t)
        if short > HAZARD_MARGIN:
            rank += HAZARD_RANK
        elif short > 0:
            rank += HAZARD_NEAR_RANK
    return rank


def clear_spots(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    region: str,
    mover: str,
    xy: np.ndarray,
    hazards: dict[int, float],
) -> list[np.ndarray]:
    """Where in the site ``region`` (world xy [m]; its centre ``xy``) ``mover`` may go when a
    ``:cost`` names ``hazards`` (geom id -> clearance [m]; VLA-Arena's lemon "between the
    teapots"), in the order tried: the centre, then up to :data:`SPOT_TRIES` points of a
    grid over the inner :data:`SPOT_SHARE` of the region, those whose mover footprint is
    farthest outside the hazards' clearances first (horizontal distances to each hazard's
    box footprint; of two as far, the nearer the centre)."""
    sid = model.site(region).id
    mat = data.site_xmat[sid].reshape(3, 3)
    half = model.site_size[sid][:2] * SPOT_SHARE
    box_m = object_box(model, data, mover)
    radius = float(max(box_m.half[0], box_m.half[1]))
    bodies: dict[int, float] = {}
    for g, c in hazards.items():
        b = int(model.geom_bodyid[g])
        bodies[b] = max(bodies.get(b, 0.0), c)
    boxes = [(object_box(model, data, model.body(b).name), c) for b, c in bodies.items()]

    def room(p: np.ndarray) -> float:
        out = np.inf
        for box, c in boxes:
            local = box.axes[:2, :2].T @ (p - box.center[:2])
            nearest = np.clip(local, -box.half[:2], box.half[:2])
            out = min(out, float(np.linalg.norm(local - nearest)) - radius - c)
        return out

    grid = []
    for u in np.arange(-half[0], half[0] + 1e-9, SPOT_STEP):
        for v in np.arange(-half[1], half[1] + 1e-9, SPOT_STEP):
            p = xy + mat[:2, :2] @ np.array([u, v])
            grid.append((-round(room(p), 4), float(np.hypot(u, v)), p))
    grid.sort(key=lambda t: t[:2])
    return [xy, *(p for *_, p in grid[:SPOT_TRIES])]


def escape(
    checker: CollisionChecker,
    model: mujoco.MjModel,
    data: mujoco.MjData,
    mover: str,
    q: np.ndarray,
    hazards: dict[int, float],
    p: np.ndarray,
) -> np.ndarray:
    """Where the lift from grasp point ``p`` (world, m) of ``mover`` by the arm at joints
    ``q`` ends in xy when the mover or the fingers are inside a clearance of ``hazards``
    there (geom id -> clearance [m]; ``checker`` keeps them), by no more than
    :data:`ESCAPE` (a longer lift that cannot leave the clearance only stays longer inside
    the cost's distance): :data:`ESCAPE` [m] away, horizontally, from the nearest point of
    the nearest such hazard's box footprint (from its centre when the mover is over it), so
    that the lift rises and leaves at once; ``p``'s own xy otherwise."""
    checker.set_scene(data, q_start=q)
    gaps = checker.hazard_gaps(q)
    checker.carry(model.body(mover).id, data)
    try:  # the mover too, as held
        held = checker.hazard_gaps(q)
    finally:
        checker.carry(None)
    inside = [
        (min(gaps[h], held[h]), h)
        for h, c in hazards.items()
        if c - ESCAPE <= min(gaps[h], held[h]) < c
    ]
    if not inside:
        return p[:2].copy()
    hazard = model.body(int(model.geom_bodyid[min(inside)[1]])).name
    box = object_box(model, data, hazard)
    at = data.xpos[model.body(mover).id][:2]
    local = box.axes[:2, :2].T @ (at - box.center[:2])
    nearest = box.center[:2] + box.axes[:2, :2] @ np.clip(local, -box.half[:2], box.half[:2])
    out = at - nearest
    if np.linalg.norm(out) < 1e-3:  # over the hazard: away from its centre
        out = at - box.center[:2]
    norm = float(np.linalg.norm(out))
    if norm < 1e-6:
        return p[:2].copy()
    return p[:2] + ESCAPE * out / norm
