"""The built-in expert: IK, motion planning and the scripted pick-and-place policy.

* :class:`ArmIK`: damped-least-squares IK generic over (model, site, joint names).
* :class:`CollisionChecker` and :func:`plan_path`: MuJoCo collision checks and
  RRT-Connect with shortcutting in joint space.
* :func:`time_parameterize`: trapezoidal timing within velocity/acceleration limits.
* :func:`rsb_mj.expert.placements.placements`: what a task and its episode ask the arms to
  do (:class:`~rsb_mj.expert.placements.Placement` values); :func:`rsb_mj.expert.entry.expert_for`:
  the one entry point that carries them out.
* :class:`PickPlaceExpert`: the one expert: a question's answer (a placement bound to a
  candidate) and a goal's placements, one pick and place after another; what only some
  placements ask lives in concept modules it calls: grasps by shape
  (:mod:`rsb_mj.expert.grasp`), the place and its support (:mod:`rsb_mj.expert.support`),
  insertion under an overhang (:mod:`rsb_mj.expert.insertion`), the handover through the
  table (:mod:`rsb_mj.expert.handover`), the hazards' costs (:mod:`rsb_mj.expert.hazards`),
  fixtures (:mod:`rsb_mj.expert.articulation`).

The evaluated policy ``expert`` (:class:`rsb_mj.policies.scripted.ExpertPolicy`) runs it; the
commands built on that policy and the evaluation runner: ``rsb expert-check`` (success
figures and failure reasons, :mod:`rsb_mj.evaluation.expert_check`) and ``rsb demos`` (HDF5
demonstrations, :mod:`rsb_mj.datasets.demos`, format in :mod:`rsb_mj.datasets.demo_file`).
"""

from rsb_mj.expert.collision import CollisionChecker
from rsb_mj.expert.ik import ArmIK, IKResult
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.expert.planner import plan_path
from rsb_mj.expert.timing import time_parameterize

__all__ = [
    "ArmIK",
    "CollisionChecker",
    "IKResult",
    "PickPlaceExpert",
    "plan_path",
    "time_parameterize",
]
