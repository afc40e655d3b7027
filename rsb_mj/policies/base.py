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

Batched policies (``rsb eval --batch B``): a policy that overrides :meth:`Policy.act_batch`
holds several episodes at once, each in a *slot* (an int, stable for the episode):
``reset_slot(slot, env, obs, info)`` starts the episode of a slot, ``act_batch(obs, slots)``
answers the observations of several episodes in one call (``obs[i]`` belongs to
``slots[i]``) with one action or chunk per observation, in order. An item of the returned
list that is an exception instance fails that episode alone; an ``act_batch`` that raises
fails every episode of the call. ``slot_done``, ``slot_text`` and ``slot_status`` are the
per-slot ``done``, ``text`` and ``status``, ``slot_features`` the per-slot ``features``
(read for the slots whose features ``rsb eval --features`` stores, right after
``act_batch``); ``batch_size`` caps the observations of one call.
:class:`BatchedPolicy` gives such a policy the one-episode methods (slot 0). A policy
without ``act_batch`` is built once per slot and asked one episode at a time.

An adapter of a model with a batched forward opts in the same way: its ``act_batch``
stacks the observations, runs one forward and returns each episode's chunk (the runner
executes chunks per episode), keeping what the model needs per episode (its prompt) per
slot. An adapter that can batch some models only also overrides :attr:`Policy.batched`
(False: built once per slot, asked one episode at a time). The LeRobot adapter
(:mod:`rsb_mj.policies.lerobot`) is batched for an ACT checkpoint without temporal
ensembling only: each observation through the pre-processor, the items stacked, one
``predict_action_chunk`` forward, each episode's first ``n_action_steps`` rows through the
post-processor (the chunk ``select_action`` would queue, executed to its end); a policy
with per-episode state in the model (observation histories, ensembles, noise from torch's
one generator) is not. With ``--batch 1`` no policy is shared between slots, so every
policy, LeRobot's included, is asked through ``reset``/``act`` (``select_action``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

#: Dimension of one action (and of the state).
ACTION_DIM = 14
#: Most episodes one worker holds in lockstep (``rsb eval --batch``), so the most
#: observations of one ``act_batch`` call.
MAX_BATCH = 256


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
    #: Most observations one :meth:`act_batch` call takes (read for batched policies only;
    #: the default takes as many as the worker holds).
    batch_size: int = MAX_BATCH

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
        :attr:`features` or :meth:`slot_features`, or sets ``features`` on the instance)."""
        if type(self).slot_features is not Policy.slot_features:
            return True
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

    # ---- batched policies (see the module docstring) -------------------------------------

    @property
    def batched(self) -> bool:
        """The policy holds several episodes at once (it overrides :meth:`act_batch`; an
        adapter that batches some models only narrows this); the runner then builds it
        once per worker, not once per slot."""
        return type(self).act_batch is not Policy.act_batch

    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Batched policies: start the episode of ``slot`` (arguments as :meth:`reset`)."""
        raise NotImplementedError(f"{type(self).__name__} is not a batched policy")

    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """Batched policies: one action (14,) or chunk (H, 14) per observation, in order
        (``obs[i]`` is the observation of the episode in ``slots[i]``); an item may be an
        exception instance, which fails that episode alone."""
        raise NotImplementedError(f"{type(self).__name__} is not a batched policy")

    def slot_done(self, slot: int) -> bool:
        """Batched policies: :attr:`done` of the episode in ``slot``."""
        return False

    def slot_text(self, slot: int) -> str | None:
        """Batched policies: :attr:`text` of the episode in ``slot`` after its last action."""
        return None

    def slot_status(self, slot: int) -> PolicyStatus:
        """Batched policies: :meth:`status` of the episode in ``slot``."""
        return PolicyStatus()

    def slot_features(self, slot: int) -> Any:
        """Batched policies: :attr:`features` of the episode in ``slot`` after its last
        action (a mapping layer name -> 1-D array, or None; :mod:`rsb_mj.policies.features`).
        A batched policy that has them overrides this (and :attr:`offers_features` then
        says so)."""
        return None


class BatchedPolicy(Policy):
    """A batched policy (see the module docstring): implement :meth:`reset_slot` and
    :meth:`act_batch`; the one-episode interface is slot 0 of it (``reset``, ``act``,
    ``done``, ``text``, ``status``), so the policy also runs without ``--batch``."""

    @abstractmethod
    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Start the episode of ``slot``."""

    @abstractmethod
    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """One action or chunk per observation (see :meth:`Policy.act_batch`)."""

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """:meth:`reset_slot` of slot 0."""
        self.reset_slot(0, env, obs, info)

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """:meth:`act_batch` of one observation in slot 0 (an exception item is raised)."""
        (action,) = self.act_batch([obs], [0])
        if isinstance(action, BaseException):
            raise action
        return action

    @property
    def done(self) -> bool:
        """:meth:`slot_done` of slot 0."""
        return self.slot_done(0)

    @property
    def text(self) -> str | None:
        """:meth:`slot_text` of slot 0."""
        return self.slot_text(0)

    def status(self) -> PolicyStatus:
        """:meth:`slot_status` of slot 0."""
        return self.slot_status(0)

    @property
    def features(self) -> Any:
        """:meth:`slot_features` of slot 0."""
        return self.slot_features(0)

    @property
    def offers_features(self) -> bool:
        """True when the class overrides :meth:`slot_features`."""
        return type(self).slot_features is not Policy.slot_features


def policy_rng(env: Any) -> np.random.Generator:
    """The generator of a simulator policy for this episode (``env`` is its ``SimView``).

    Seeded by the view's ``seed`` (derived from the episode seed and the policy name): same
    episode and policy, same draws, whichever worker runs it and in whatever order.
    """
    return np.random.default_rng(int(env.seed))
