"""Why an episode failed, in one line: the ``failure_reason`` of its record.

Reasons, first match wins:

* an error record: its error (``"InfraError: env.step failed: ..."``);
* the policy gave up: ``"<policy>: <its failure>"`` (e.g. ``"expert: approach: no IK
  solution"``, see :meth:`rsb_mj.policies.base.Policy.status`);
* ``"step limit N reached in phase P"``: cut at the step limit while the policy was still
  working (``" in phase P"`` only when the policy names its phase);
* ``"X, Y grasped in the same control step: no choice"`` (two candidates at once);
* ``"no grasp detected"``; ``"grasped X instead of Y"`` (a wrong one attempt);
* ``"target not released in the zone (in zone: [...])"``: the correct candidate was grasped
  but the goal did not hold.

Warnings the policy worked around follow the outcome-based reasons, ``"; "``-separated.
"""

from __future__ import annotations

from rsb_mj.policies.base import PolicyStatus
from rsb_mj.scoring.outcome import Outcome


def failure_reason(
    outcome: Outcome,
    *,
    termination: str,
    target: str,
    max_steps: int,
    policy: str,
    status: PolicyStatus,
    policy_done: bool,
    error: str | None = None,
) -> str | None:
    """The reason an episode failed, or None when it succeeded.

    Args:
        outcome: the finished outcome (:meth:`EpisodeScorer.finish`).
        termination: the record's termination (``"error"``, ``"step_limit"``, ...).
        target: the correct candidate.
        max_steps: the step limit in force.
        policy: the policy's name (prefixes its own failure).
        status: the policy's account of itself at the end.
        policy_done: the policy had reported ``done`` when the episode ended.
        error: the error message of an error record.
    """
    if termination == "error":
        return error or "error"
    if outcome.success:
        return None
    if status.failure:
        return f"{policy}: {status.failure}"
    if termination == "step_limit" and not policy_done:
        reason = f"step limit {max_steps} reached"
        if status.phase:
            reason += f" in phase {status.phase}"
    elif outcome.void_reason:
        reason = outcome.void_reason
    elif not outcome.grasped:
        reason = "no grasp detected"
    elif outcome.choice != target:
        reason = f"grasped {outcome.choice} instead of {target}"
    else:
        reason = f"target not released in the zone (in zone: {outcome.in_zone or 'none'})"
    if status.warnings:
        reason += "; " + "; ".join(status.warnings)
    return reason


#: What :func:`failure_kind` returns, in the order its reasons are tried.
FAILURE_KINDS = (
    "infra error",
    "policy error",
    "policy gave up",
    "step limit",
    "no grasp",
    "wrong candidate",
    "not placed",
    "other",
)


def failure_kind(
    reason: str | None, *, policy: str, termination: str, error_kind: str | None = None
) -> str | None:
    """The family of a failure reason (one of :data:`FAILURE_KINDS`), None for a success.

    It reads the reasons :func:`failure_reason` writes: an error record is an ``infra
    error`` or a ``policy error`` (its ``error_kind``), a policy fault (a scored failure) a
    ``policy error``; ``"<policy>: ..."`` is the policy
    giving up; then ``step limit``, ``no grasp``, ``wrong candidate`` (``"grasped X instead
    of Y"``) and ``not placed`` (the target not released in the zone).

    >>> failure_kind("grasped block_b instead of block_a", policy="p", termination="wrong_choice")
    'wrong candidate'
    """
    if termination == "error":
        return "policy error" if error_kind == "policy" else "infra error"
    if termination == "policy_fault":  # the policy's own fault, scored as a failure
        return "policy error"
    if reason is None:
        return None
    if reason.startswith(f"{policy}: "):
        return "policy gave up"
    for prefix, kind in (
        ("step limit ", "step limit"),
        ("no grasp detected", "no grasp"),
        ("target not released in the zone", "not placed"),
    ):
        if reason.startswith(prefix):
            return kind
    if reason.startswith("grasped ") and " instead of " in reason:
        return "wrong candidate"
    return "other"


#: Classes of a goal episode's failure (:func:`goal_failure_class`).
GOAL_FAILURE_CLASSES = ("reset", "reach", "grasp", "placement", "policy", "error")
#: Expert phases and the class of a failure in them.
_PHASES = {
    "approach": "grasp",
    "descend": "grasp",
    "close": "grasp",
    "lift": "reach",
    "carry": "reach",
    "lower": "placement",
    "release": "placement",
    "retreat": "placement",
    "home": "placement",
}


def goal_failure_class(reason: str | None, *, policy: str, termination: str = "") -> str:
    """The class of a goal episode's failure ``reason`` (:func:`failure_reason`'s text):

    * ``reset``: no valid layout for the seed (``"reset: ..."``);
    * ``reach``: an arm pose the IK cannot reach, or a carry that finds no pose above the
      place (the policy's own ``"<policy>: lift|carry: ..."``, or ``unreachable``);
    * ``grasp``: no grasp, or the object not held (``"<policy>: approach|descend|close:
      ..."``, ``not held``);
    * ``placement``: released, the goal not holding (``"goal not held (...)"``, or a
      failure in the lower/release/retreat phases);
    * ``policy``: the policy ran out of steps (``"step limit ..."``) or gave up otherwise;
    * ``error``: an error record (``termination == "error"``);
    * ``""`` for a success.

    >>> goal_failure_class("expert: lift: object 'bowl_1' not held: it rose 3 mm", policy="expert")
    'grasp'
    """
    if termination == "error":
        return "error"
    if not reason:
        return ""
    if reason.startswith("reset:"):
        return "reset"
    if reason.startswith("goal not held"):
        return "placement"
    if not reason.startswith(f"{policy}: "):
        return "policy"
    failure = reason.removeprefix(f"{policy}: ")
    if "not held" in failure:
        return "grasp"
    phase = failure.split(":", 1)[0]
    if phase in _PHASES:
        if "unreachable" in failure or "no reachable" in failure:
            return "reach"
        return _PHASES[phase]
    return "policy"
