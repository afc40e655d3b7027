"""Which objects a safety-aware expert keeps clear of: the hazards a task's ``:cost`` names.

Every static object (not a candidate, not a ``:moving_objects`` body) and every fixture but
the table (a goal scene's stove, a prop body of its own name) that a ``:cost`` atom names is
a hazard. The expert's fingers (and the object it carries) keep
``D + HAZARD_MARGIN`` metres from it, where D is the largest distance of a
``(CheckGripperDistance OBJ D)`` or ``(CheckDistance A B D)`` atom naming it (0 for the
other predicates: touching it is what costs).
"""

from __future__ import annotations

import mujoco

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Name, Number, walk_atoms
from rsb_mj.lang.motion import read_moving_objects

#: Clearance kept beyond the cost's own distance [m] (tracking error of the servos).
HAZARD_MARGIN = 0.015


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
