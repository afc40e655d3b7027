"""The built-in expert: IK, motion planning and the scripted pick-and-place policy.

* :class:`ArmIK`: damped-least-squares IK generic over (model, site, joint names).
* :class:`CollisionChecker` and :func:`plan_path`: MuJoCo collision checks and
  RRT-Connect with shortcutting in joint space.
* :func:`time_parameterize`: trapezoidal timing within velocity/acceleration limits.
* :func:`rsb_mj.expert.placements.placements`: what a task and its episode ask the arms to
  do (:class:`~rsb_mj.expert.placements.Placement` values); :func:`rsb_mj.expert.entry.expert_for`:
  the one entry point that carries them out (:class:`PickPlaceExpert` for a placement bound
  to a candidate, :class:`rsb_mj.expert.goal_expert.GoalExpert` for a goal's placements).
* :class:`PickPlaceExpert`: grasps a candidate and places it in the answer zone.

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
