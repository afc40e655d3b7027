"""What an episode asks of its policy, and the answers, for one episode or a batch.

An episode (:class:`~rsb_mj.evaluation.rollout.Rollout`) never calls its policy: it yields
a query and gets the answer back (or the fault thrown in). The queries:

* :class:`Reset`: start the episode (``policy.reset``); answered None, or, when it asks
  (``rsb eval --features``), whether the policy offers per-layer features;
* :class:`Act`: the next action: the policy's ``done`` first, then ``act`` and ``text``
  (and, when the query asks, its ``features``, read right after them on the same thread);
  answered :data:`DONE` when the policy is done (nothing asked), else an :class:`Answer`;
* :class:`Finish`: the policy's account at the end (``status()`` and ``done``), asked only
  for a failed, scored episode; answered an :class:`Ending` (never a fault: a status that
  cannot be read says nothing).

:func:`answer` answers one query of one episode by calling a policy at once;
:func:`answer_slots` answers the queries of several episodes that share one batched
policy (:attr:`~rsb_mj.policies.base.Policy.batched`), all their ``Act`` queries in one
``act_batch`` call. Whatever the policy's code raises (``SystemExit`` included, not
``KeyboardInterrupt``) becomes a :class:`~rsb_mj.errors.PolicyError` naming the call;
faults (:class:`~rsb_mj.errors.EpisodeFault`) keep their kind. In a batch, an ``act_batch``
that raises fails every episode of the call, an item that is an exception fails its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rsb_mj.errors import EpisodeFault, PolicyError, describe
from rsb_mj.policies.base import Policy, PolicyStatus
from rsb_mj.policies.features import read_features


@dataclass(frozen=True)
class Reset:
    """Start the episode: ``policy.reset(view, obs, info)``; with ``features``, answer
    ``policy.offers_features`` too (read after the reset)."""

    view: Any
    obs: dict[str, Any]
    info: dict[str, Any]
    features: bool = False


@dataclass(frozen=True)
class Act:
    """The next action for ``obs`` (unless the policy is done); with ``features``, the
    policy's per-layer features of that action are read too (``rsb eval --features``)."""

    obs: dict[str, Any]
    features: bool = False


@dataclass(frozen=True)
class Finish:
    """The policy's status and ``done`` at the end of a failed, scored episode."""


@dataclass(frozen=True)
class Answer:
    """What ``act`` returned (not yet checked) and the ``text`` read right after it (as the
    policy gave it; the rollout keeps a truthy one as a string).

    Attributes:
        features: the raw ``features`` read after ``text`` when the query asked (None
            otherwise); features_fault: what reading them raised (None if nothing), kept
            apart so that a failing read fails the features, not the episode
            (:class:`~rsb_mj.probing.capture.FeatureRecorder` decides).
    """

    action: Any
    text: Any
    features: Any = None
    features_fault: BaseException | None = None

    def read_features(self) -> Any:
        """The features read, or what reading them raised, raised again."""
        if self.features_fault is not None:
            raise self.features_fault
        return self.features


@dataclass(frozen=True)
class Ending:
    """The policy's account of a finished episode (defaults when it cannot be read)."""

    status: PolicyStatus = field(default_factory=PolicyStatus)
    done: bool = False


#: The answer to an :class:`Act` when the policy reports ``done``.
DONE = "done"

Query = Reset | Act | Finish


def call_policy(policy: Policy, what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Run policy code; its failures become :class:`PolicyError` (faults keep their kind).

    Raises:
        PolicyError: ``"policy NAME: WHAT raised Type: message"``; EpisodeFault as raised;
            KeyboardInterrupt as raised.
    """
    try:
        return fn(*args)
    except EpisodeFault:
        raise
    except (Exception, SystemExit) as exc:
        raise PolicyError(
            f"policy {policy.name}: {what} raised {type(exc).__name__}: {exc}"
        ) from exc


def _status(read: Callable[[], Any]) -> PolicyStatus:
    try:
        status = read()
    except Exception:  # the episode is over; its record matters more than a status
        return PolicyStatus()
    return status if isinstance(status, PolicyStatus) else PolicyStatus()


def _done(read: Callable[[], Any]) -> bool:
    try:
        return bool(read())
    except Exception:  # as in _status
        return False


def _features(read: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """``read()`` and None, or None and the exception it raised (the policy's code)."""
    try:
        return read(), None
    except Exception as exc:  # judged by the episode's FeatureRecorder, not here
        return None, exc


def answer(policy: Policy, query: Query) -> Any:
    """The answer of ``policy`` (one episode at a time) to ``query``.

    Raises:
        EpisodeFault: what the policy's code raised, as :class:`PolicyError`, or a fault.
    """
    if isinstance(query, Reset):
        call_policy(policy, "reset()", policy.reset, query.view, query.obs, query.info)
        if not query.features:
            return None
        return call_policy(policy, "features", lambda: bool(policy.offers_features))
    if isinstance(query, Act):
        if call_policy(policy, "done", lambda: bool(policy.done)):
            return DONE
        action = call_policy(policy, "act()", policy.act, query.obs)
        text = call_policy(policy, "text", lambda: policy.text)
        if not query.features:
            return Answer(action, text)
        return Answer(action, text, *_features(lambda: read_features(policy)))
    return Ending(_status(policy.status), _done(lambda: policy.done))


def answer_slots(
    policy: Policy, queries: Sequence[tuple[int, Query]]
) -> tuple[list[Any], EpisodeFault | None]:
    """The answers of a batched ``policy`` to ``(slot, query)`` pairs, in order, and the
    fault of the ``act_batch`` call when the whole call failed (else None).

    An answer is a fault instance where the policy failed that episode. ``Reset`` and
    ``Finish`` are asked slot by slot; the ``Act`` queries of slots that are not done go to
    one ``act_batch`` call (the caller keeps within ``policy.batch_size``).
    """
    out: list[Any] = [None] * len(queries)
    asking: list[tuple[int, int, Act]] = []  # (position, slot, query)
    for i, (slot, query) in enumerate(queries):
        try:
            if isinstance(query, Reset):
                call_policy(
                    policy, "reset_slot()", policy.reset_slot, slot, query.view, query.obs,
                    query.info,
                )  # fmt: skip
                if query.features:
                    out[i] = call_policy(policy, "features", lambda: bool(policy.offers_features))
            elif isinstance(query, Finish):
                out[i] = Ending(
                    _status(lambda s=slot: policy.slot_status(s)),
                    _done(lambda s=slot: policy.slot_done(s)),
                )
            elif call_policy(policy, "done", lambda s=slot: bool(policy.slot_done(s))):
                out[i] = DONE
            else:
                asking.append((i, slot, query))
        except EpisodeFault as exc:
            out[i] = exc
    if not asking:
        return out, None
    slots = [slot for _, slot, _ in asking]
    observations = [query.obs for *_, query in asking]
    try:
        actions = call_policy(
            policy, "act_batch()", lambda: list(policy.act_batch(observations, slots))
        )
        if len(actions) != len(asking):
            raise PolicyError(
                f"policy {policy.name}: act_batch() returned {len(actions)} actions for "
                f"{len(asking)} observations"
            )
    except EpisodeFault as exc:
        for i, _, _ in asking:
            out[i] = exc
        return out, exc
    for (i, slot, _), action in zip(asking, actions, strict=True):
        if isinstance(action, EpisodeFault):
            out[i] = action
        elif isinstance(action, BaseException):
            out[i] = PolicyError(
                f"policy {policy.name}: act_batch() failed this episode: {describe(action)}"
            )
        else:
            try:
                text = call_policy(policy, "text", lambda s=slot: policy.slot_text(s))
            except EpisodeFault as exc:
                out[i] = exc
            else:
                out[i] = Answer(action, text)
    for i, slot, query in asking:  # after the whole batch's texts, as text after act
        if query.features and isinstance(out[i], Answer):
            read = _features(lambda s=slot: policy.slot_features(s))
            out[i] = Answer(out[i].action, out[i].text, *read)
    return out, None
