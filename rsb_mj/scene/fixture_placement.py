"""The placement rule for operated fixtures whose front faces the far arm (tier B).

LIBERO stands its cabinets and microwaves at the table's lateral sides (y = +-0.25..0.35 m in
its frame), their fronts turned toward the table's centre line. Through the frame map
(:mod:`rsb_mj.lang.frame_map`: LIBERO's y becomes rsb_mj's x, the arm-to-arm axis) such a
fixture lands beside one waist with its front facing the *other* arm: the near arm is behind
it, the far arm ~0.6 m from its handle, at the edge of its reach (``shared/reference/
articulated_fixtures.md`` section 1.4).

**The rule** (one, deterministic, applied when a tier B scene is compiled): an articulated
fixture with a part the expert pulls or swings out of its front (a cabinet's drawers, the
microwave's door; :data:`OPERATED`) whose front points within 45 degrees of the world x axis
toward the other side of the table (``front_x * x < 0``) and whose centre is more than
:data:`CENTRE_X` from the table's centre line is moved along x to ``sign(x) * CENTRE_X``:
toward the centre, on its own side, its yaw and y unchanged. The far arm then has its handle
at ~0.42 m and the drawer pulled out at ~0.27 m (in its reach annulus). Objects whose
``:init`` place comes within a fixture's footprint are pushed clear by the layout as for
any fixture. The move is a layout change: :func:`placement` says it, and a record names it
(``goal.layout_changes``). Tier A files (static props) and the stove (its knob is turned
from above, only its reach matters) keep LIBERO's places.
"""

from __future__ import annotations

import math

#: Fixture categories with a part pulled or swung out of their front.
OPERATED = frozenset({"wooden_cabinet", "white_cabinet", "microwave"})
#: Where [m] (|x| of the body's centre, world) the rule puts such a fixture.
CENTRE_X = 0.05
#: A front within this angle [rad] of the x axis faces an arm.
FACING = math.radians(45.0)


def front_of(yaw: float) -> tuple[float, float]:
    """World xy unit direction of a fixture's front (its body's -y) at world ``yaw`` [rad]."""
    return (math.sin(yaw), -math.cos(yaw))


def placement(name: str, category: str, x: float, y: float, yaw: float) -> tuple[float, str]:
    """The x [m, world] fixture ``name`` (``category``, centre ``x``, ``y``, world ``yaw``)
    stands at under the rule (module docstring), and the layout change's label (``""``
    when it stays)."""
    if category not in OPERATED:
        return x, ""
    fx, _ = front_of(yaw)
    if abs(fx) < math.cos(FACING) or fx * x >= 0.0 or abs(x) <= CENTRE_X:
        return x, ""
    new = math.copysign(CENTRE_X, x)
    arm = "left" if fx < 0 else "right"
    return new, (
        f"{name}: moved along x from {x:+.3f} to {new:+.3f} m (toward the table's centre; "
        f"its front faces the {arm} arm across the table)"
    )


__all__ = ["CENTRE_X", "OPERATED", "front_of", "placement"]
