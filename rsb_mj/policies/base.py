"""The policy interface every evaluated policy implements.

The runner calls ``reset(env, obs, info)`` once per episode, then ``act(obs)`` until the
episode ends. ``act`` returns one action, float (14,) joint positions ``[left 6 (rad), left
gripper, right 6 (rad), right gripper]`` with grippers 0 closed .. 1 open, or a chunk
(H, 14) that the runner executes row by row before asking again.

What a policy is handed never holds the answer (see :mod:`rsb_mj.env.views`): ``env`` is a
:class:`~rsb_mj.env.views.PolicyEnv` (spaces, candidate names, control rate, instruction),
``obs`` the observation and ``info`` the public info (``instruction``, ``candidates``,
``step``, ``signals``, ``sim``). Built-in scripted policies that set ``simulator = True`` get
a :class:`~rsb_mj.env.views.SimView` for motion planning; only a policy that sets
``privileged = True`` (the built-in expert) can read ``env.answer``, and its records and
report rows are marked privileged.

A policy may also hand over per-layer features of its last ``act`` (:attr:`Policy.features`,
:mod:`rsb_mj.policies.features`) for ``rsb eval --features``; they are stored beside the
records and never scored, and nothing about them flows back to the policy.

A user's policy (``module:factory``) runs in a policy process of its own
(:mod:`rsb_mj.policies.child`) and is handed exactly this interface's values, copied over a
socket. Run in rsb's own process instead (``inprocess:module:factory``, for debugging), it
could read anything rsb holds, the answer included: its records carry the privileged mark
too (:attr:`Policy.marked`), so it is never ranked.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

#: Dimension of one action (and of the state).
ACTION_DIM = 14


@dataclass(frozen=True)
class PolicyStatus:
    """What a policy says about itself at the end of an episode (for failure reasons).

    Attributes:
        phase: what it was doing (e.g. the expert's ``"carry"``), ``""`` when it does not say.
        failure: why it gave up (e.g. ``"approach: no collision-free path"``), or None.
        warnings: problems it worked around (e.g. no collision-free grasp).
    """

    phase: str = ""
    failure: str | None = None
    warnings: tuple[str, ...] = ()


class Policy(ABC):
    """A policy evaluated by ``rsb eval``.

    Attributes:
        name: the spec it was built from (recorded in every episode record).
        cameras: cameras the policy reads (``()`` renders nothing: much faster).
        simulator: the policy reads simulator state for its motions (built-in scripted
            policies); it gets a :class:`~rsb_mj.env.views.SimView`, still without the answer.
        privileged: the policy reads the correct candidate (``env.answer``); its runs are an
            oracle reference, marked ``privileged`` and never ranked beside learned policies.
        user_in_process: user code built in rsb's own process (an ``inprocess:`` spec, set on
            the instance): nothing stops it reading the answer, so it is marked as well.
    """

    name: str = "policy"
    cameras: ClassVar[tuple[str, ...]] = ()
    simulator: ClassVar[bool] = False
    privileged: ClassVar[bool] = False
    user_in_process: bool = False
    #: Per-layer features of the last ``act`` (:mod:`rsb_mj.policies.features`): a mapping
    #: layer name -> 1-D array in depth order, or None. A subclass that has them overrides
    #: this with an attribute, a property or a method returning the mapping.
    features: Any = None

    @property
    def marked(self) -> bool:
        """Its records say ``privileged: true`` and its report rows carry the privileged
        mark (never ranked): it reads the answer, or it is user code run in process."""
        return bool(self.privileged or self.user_in_process)

    def preflight(self, timeout_s: float) -> None:  # noqa: B027 - most policies need nothing
        """Check, before any episode runs, that the policy can run (e.g. its server answers).

        Args:
            timeout_s: the most seconds the check may take.

        Raises:
            InfraError: when it cannot (the run stops before scoring anything).
        """

    @abstractmethod
    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Start an episode: ``env`` is a view (see the module docstring), ``obs``/``info``
        as returned by ``env.reset`` with the answer removed."""

    @abstractmethod
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """Next action (14,) or chunk (H, 14) for observation ``obs``."""

    @property
    def offers_features(self) -> bool:
        """True when the policy may hand over per-layer features (it overrides
        :attr:`features`, or sets it on the instance)."""
        return type(self).features is not Policy.features or "features" in vars(self)

    @property
    def done(self) -> bool:
        """True when the policy has nothing left to do (the runner may end the episode)."""
        return False

    @property
    def text(self) -> str | None:
        """Text the policy wrote with its last action (a rationale), or None. The runner
        keeps the last text of an episode and the option it names (RSB Table 5)."""
        return None

    def status(self) -> PolicyStatus:
        """The policy's own account of the episode so far; a failed episode's record states
        it in ``failure_reason`` (see :mod:`rsb_mj.evaluation.failure`)."""
        return PolicyStatus()

    def close(self) -> None:  # noqa: B027 - most policies hold nothing
        """Release resources (connections) when the run ends."""


def policy_rng(env: Any) -> np.random.Generator:
    """The generator of a simulator policy for this episode (``env`` is its ``SimView``).

    Seeded by the view's ``seed`` (derived from the episode seed and the policy name): same
    episode and policy, same draws, whichever worker runs it and in whatever order.
    """
    return np.random.default_rng(int(env.seed))
