"""The heights of a pick and place: how far above what the gripper and the moved object go.

Every height is in metres. The expert (:class:`~rsb_mj.expert.pick_place.PickPlaceExpert`)
and the concept modules it calls (:mod:`rsb_mj.expert.insertion`,
:mod:`rsb_mj.expert.handover`) share them.
"""

from __future__ import annotations

#: Height of the pre-grasp TCP above the grasp TCP [m].
APPROACH_HEIGHT = 0.08
#: Height of the object's bottom above the table while carried [m].
CARRY_CLEARANCE = 0.10
#: Height of the object's bottom above the table when it is held at reset (``pick_only``):
#: low, so the arm hides less of the table from the head camera [m].
HOLD_CLEARANCE = 0.03
#: Lowest carry height of the object's bottom above the table, tried when the answer zone
#: is out of reach at :data:`CARRY_CLEARANCE` [m].
LOW_CARRY_CLEARANCE = 0.03
#: Height of the object's bottom above the support (the table, a plate, a shelf's floor)
#: when it is released [m].
RELEASE_HEIGHT = 0.008
#: Height of the retreat after release [m].
RETREAT_HEIGHT = 0.08
#: A support whose top is this far above the table [m] is high: the carry over it keeps
#: :data:`HIGH_CLEARANCE` instead of :data:`CARRY_CLEARANCE` (the arm reaches less far up).
HIGH_SUPPORT, HIGH_CLEARANCE = 0.05, 0.07
#: Clearance [m] of the carried object's bottom over a container it is lowered into.
IN_CLEARANCE = 0.03
#: Least rise [m] of the lift (an object picked from a cabinet's top, above the carry height).
LIFT_RISE = 0.05
#: Clearances [m] of the mover's bottom over the support's top tried, in order, when the
#: pose above the place at the carry clearance is out of the arm's reach (a bowl on a
#: cabinet, a book over the caddy's far compartment): by the arm holding the mover, else,
#: after a handover (:func:`rsb_mj.expert.handover.relay`), by the other one.
LOW_CLEARANCES = (0.03, 0.02)
#: Extra heights [m] tried, in order, above the support when the pose above it collides.
PLACE_RAISE = (0.0, 0.04, 0.08)
