"""Whose fault an episode's error was: the policy's own faults are scored failures, every
other fault is an error (excluded from the rates, retried).

An episode that ends in a fault (:class:`~rsb_mj.errors.EpisodeFault`) leaves an error record
(``termination == "error"``, its ``error_kind`` saying whose fault it was). ``rsb eval``
passes every record through :func:`policy_fault` before writing it, in every run:

* **the policy's faults are its failures**: it raised (``SystemExit`` included), returned
  something that is not an action (wrong shape, NaN, non-physical), did not answer a request
  within ``--request-timeout``, kept the episode past ``--episode-timeout`` while rsb waited
  for its answer, its process died, or its factory failed (``error_kind == "policy"``). The
  record becomes a scored failure: ``termination`` :data:`POLICY_FAULT`, counted in GSR and
  TSR as a failure, reported in its own column and never rerun; so a policy cannot have the
  episodes it is about to fail excluded by raising or stalling on them.
* **a policy server's own faults** are the same: what it says is its own (a traceback, a
  reply that is not msgpack or not a map, no ``actions``, actions of the wrong shape, NaN or
  non-physical; :class:`~rsb_mj.errors.PolicyError` from :mod:`rsb_mj.policies.openpi`).
  What happens to the connection is the network's in an ordinary run: no connection, a
  connection refused, reset or closed before the answer (each retried ``--retries`` times
  with backoff within the query before it counts), or no answer within
  ``--request-timeout``: an infrastructure error, excluded and rerun by the next run. In a
  **sealed** run these count as the server's too (:func:`server_fault`): the operator runs
  the server next to rsb, and a server must not be able to drop the episodes it is unsure of
  to have them rerun.
* **everything else is infrastructure**: a simulator exception (``env.reset``/``env.step``
  failed), a worker process killed by the system, a disk error, an episode over its
  wall-clock limit while rsb was stepping the simulator: an error record, excluded from every
  rate and rerun when the same command runs again. A sealed run is complete only with none
  left.
"""

from __future__ import annotations

import dataclasses

from rsb_mj.evaluation.records import EpisodeRecord

#: ``termination`` of an episode that the policy's own fault ended (a scored failure).
POLICY_FAULT = "policy_fault"
#: How an infrastructure error of an openpi policy server starts (``Type: message``).
SERVER_ERROR = "InfraError: openpi server "


def server_fault(record: EpisodeRecord, *, sealed: bool) -> bool:
    """Whether an infrastructure error is a policy server's own: in a sealed run, any fault
    of an openpi server during an episode (no answer in time, a connection refused, dropped
    or reset after the client's retries); never in an ordinary run (the network's, rerun).
    A server that is down at the start stops either run before any episode."""
    return (
        sealed
        and record.termination == "error"
        and record.error_kind == "infra"
        and record.policy.startswith("openpi:")
        and (record.error or "").startswith(SERVER_ERROR)
    )


def policy_fault(record: EpisodeRecord, *, sealed: bool = False) -> EpisodeRecord:
    """The record as it is scored: an error the policy caused (``error_kind == "policy"``,
    or in a sealed run a :func:`server_fault`) becomes a scored failure (``termination``
    :data:`POLICY_FAULT`, ``error_kind`` ``"policy"``, the cause kept in ``error``); any
    other record is returned unchanged.

    Args:
        record: an episode's record as the worker returned it.
        sealed: a sealed run (``rsb eval --sealed``, private tables).
    """
    if record.termination != "error":
        return record
    if record.error_kind != "policy" and not server_fault(record, sealed=sealed):
        return record
    return dataclasses.replace(
        record,
        error_kind="policy",
        termination=POLICY_FAULT,
        success=False,
        success_step=None,
        failure_reason=f"the policy failed: {record.error}"[:500],
        failure_class="policy" if record.is_goal else record.failure_class,
    )


__all__ = ["POLICY_FAULT", "SERVER_ERROR", "policy_fault", "server_fault"]
