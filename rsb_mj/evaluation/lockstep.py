"""Episodes in lockstep: one worker holds up to B episodes and batches their policy queries.

:func:`run_lockstep` keeps up to ``batch`` episodes (:class:`~rsb_mj.evaluation.rollout.
Rollout` coroutines) in *slots* 0..B-1. Each round it advances every episode that can go
on by one control step (or to its next query), sends the queries of all episodes waiting
for their policy, and refills a finished episode's slot from the job source at once. A
policy's code never runs in the loop's thread: each policy has a thread of its own
(:class:`PolicyThread`), so the loop steps the episodes that have actions while the others
wait for theirs.

Policies (:class:`Ports`): with more than one slot, a batched policy
(:attr:`~rsb_mj.policies.base.Policy.batched`) is built once and shared by the worker's
slots; the ``Act`` queries waiting on it go out as ``act_batch`` calls of at most
``batch_size`` observations. A policy that is not batched (or any policy, with one slot) is
built once per slot and asked one episode at a time through ``reset``/``act``. When
stepping the waiting episodes takes longer than the policy's answers do (a latency of at
least :data:`SPLIT_MIN_LATENCY_S`) and no other call is in flight, the waiting queries go
out in two halves, so one half's query is answered while the other half steps (the halves
then stay out of phase).

Faults are per episode: a query that fails fails the episodes it was asked for (an
``act_batch`` that raises: every episode of the call; a failing item: its own), and the
others go on. A policy that is not batched is rebuilt for the slot's next episode after an
error record, as :func:`rsb_mj.evaluation.worker.run_job` always did; a batched one is
*retired* after a whole call failed or outlived an episode's wall-clock limit: the episodes
still using it go on with it, new ones get a freshly built one, and it is closed when its
last episode ends. An episode waiting for its policy past its own wall-clock limit is ended
there with the policy's fault (:meth:`~rsb_mj.evaluation.rollout.Rollout.stalled`; the call
it waited on is left to finish or fail on its own).
"""

from __future__ import annotations

import contextlib
import math
import queue
import threading
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rsb_mj.errors import EpisodeFault, InfraError, describe
from rsb_mj.evaluation.queries import Act, Finish, Query, answer, answer_slots
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import STEP, Rollout, Yielded
from rsb_mj.policies.base import Policy

J = TypeVar("J")

#: Seconds a finished episode waits for its policy's status beyond its wall-clock limit
#: (then its failure reason is written without it).
FINISH_GRACE_S = 10.0
#: Weight of the newest measurement in the step-time and latency averages.
EMA_WEIGHT = 0.3
#: Shortest policy latency [s] worth hiding behind stepping (below it, halving the batch
#: costs more in extra calls than it hides).
SPLIT_MIN_LATENCY_S = 0.01


class PolicyThread:
    """Runs one policy's calls in order, on a daemon thread of its own.

    A call that never returns holds only this thread (daemon: it does not keep the process
    alive). Each future gets ``elapsed`` [s], the time its call ran.
    """

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._serve, name=f"rsb-policy {name}"[:60], daemon=True
        )
        self._thread.start()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Queue ``fn(*args)``; its future holds the result or what it raised."""
        future: Future = Future()
        self._queue.put((future, fn, args))
        return future

    def _serve(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn, args = item
            future.set_running_or_notify_cancel()
            start = time.monotonic()
            try:
                result = fn(*args)
            except BaseException as exc:  # handed to the loop, which decides
                future.elapsed = time.monotonic() - start
                future.set_exception(exc)
            else:
                future.elapsed = time.monotonic() - start
                future.set_result(result)

    def stop(self) -> None:
        """End the thread after the calls queued so far."""
        self._queue.put(None)


class Port:
    """One built policy, its thread, and the episodes using it.

    Attributes:
        policy: the policy.
        seats: episodes holding it now.
        retired: new episodes get another port; closed when ``seats`` drops to 0.
        in_flight: calls submitted and not yet collected.
        latency: average seconds an ``Act`` call ran (0 before the first).
    """

    def __init__(self, policy: Policy, *, share: bool = True) -> None:
        self.policy = policy
        self.batched = bool(share and policy.batched)
        self._thread: PolicyThread | None = None
        self.seats = 0
        self.retired = False
        self.in_flight = 0
        self.latency = 0.0

    @property
    def thread(self) -> PolicyThread:
        """The policy's thread, started on first use (an episode run in the caller's thread,
        :func:`rsb_mj.evaluation.worker.run_job`, never starts it)."""
        if self._thread is None:
            self._thread = PolicyThread(self.policy.name)
        return self._thread

    def close(self) -> None:
        """Close the policy (from this thread: its own may be stuck in a call that a close
        interrupts, e.g. a policy process killed) and end its thread."""
        with contextlib.suppress(Exception):  # closing a broken policy may fail again
            self.policy.close()
        if self._thread is not None:
            self._thread.stop()


class Ports:
    """The policies of one worker: per spec one shared port for a batched policy, else one
    port per (spec, slot), each built on first use.

    Attributes:
        share: share batched policies between slots (``batch > 1``); with one slot every
            policy is asked one episode at a time (``reset``/``act``), as without batching.
    """

    def __init__(self) -> None:
        self.share = True
        self._ports: dict[tuple[str, int], Port] = {}  # slot -1: a spec's shared port
        self._shared: dict[str, bool] = {}  # spec -> its policy is batched
        self._retired: list[Port] = []  # retired, still used by episodes in flight

    def take(self, spec: str, slot: int, build: Callable[[], Policy]) -> Port:
        """The port for an episode of ``spec`` in ``slot``, built with ``build()`` if need be.

        Raises:
            whatever ``build`` raises (the episode gets an error record).
        """
        key = (spec, -1 if self._shared.get(spec) else slot)
        port = self._ports.get(key)
        if port is None:
            port = Port(build(), share=self.share)
            self._shared[spec] = port.batched
            key = (spec, -1 if port.batched else slot)
            self._ports[key] = port
        port.seats += 1
        return port

    def retire(self, port: Port) -> None:
        """New episodes of its spec get a fresh port (this one closes when unused)."""
        port.retired = True
        for key, held in list(self._ports.items()):
            if held is port:
                del self._ports[key]
        if port.seats == 0:
            port.close()
        else:
            self._retired.append(port)

    def give(self, port: Port) -> None:
        """An episode stopped using ``port``."""
        port.seats -= 1
        if port.retired and port.seats == 0:
            if port in self._retired:
                self._retired.remove(port)
            port.close()

    def close_all(self) -> None:
        """Close every port (end of the run in this process, or a run stopped midway)."""
        for port in [*self._ports.values(), *self._retired]:
            port.seats = 0
            port.close()
        self._ports.clear()
        self._retired.clear()
        self._shared.clear()


@dataclass(eq=False)
class Seat:
    """One episode in flight in a slot.

    Attributes:
        job: what it runs (handed back to ``emit``).
        slot: its slot, 0..B-1.
        port: its policy.
        rollout: the episode (its deadline); steps: its coroutine.
        close: the worker's cleanup, called once with the record (or None when the
            coroutine raised; then it returns the error record to emit).
    """

    job: Any
    slot: int
    port: Port
    rollout: Rollout
    steps: Generator[Yielded, Any, EpisodeRecord]
    close: Callable[[EpisodeRecord | None, BaseException | None], EpisodeRecord]
    reply: Any = None
    fault: BaseException | None = None
    query: Yielded | None = None  # what it yielded last (the query it waits on, or STEP)
    asked_at: float = 0.0

    @property
    def deadline(self) -> float:
        """When waiting for its policy ends the episode (monotonic seconds)."""
        if isinstance(self.query, Finish):
            return max(self.rollout.deadline, self.asked_at + FINISH_GRACE_S)
        return self.rollout.deadline


@dataclass(eq=False)
class _Call:
    port: Port
    seats: list[Seat | None]
    acts: bool
    batched: bool


@dataclass
class _Loop:
    """The state of one :func:`run_lockstep`."""

    ports: Ports
    emit: Callable[[Any, EpisodeRecord], None]
    seats: list[Seat | None]
    ready: list[Seat] = field(default_factory=list)
    calls: dict[Future, _Call] = field(default_factory=dict)
    step_s: float = 0.0  # average seconds an episode's advance took when it stepped

    # ---- advancing episodes -------------------------------------------------------------

    def advance(self, seat: Seat, asking: list[tuple[Seat, Query]]) -> None:
        """Run ``seat``'s episode to its next yield (one control step at most)."""
        start = time.perf_counter()
        stepped = seat.fault is None and (seat.query is STEP or isinstance(seat.query, Act))
        try:
            if seat.fault is not None:
                got = seat.steps.throw(seat.fault)
            else:
                got = seat.steps.send(seat.reply)
        except StopIteration as stop:
            self.end(seat, stop.value, None)
            return
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # our code or the environment raised out of the rollout
            self.end(seat, None, exc)
            return
        if stepped:
            took = time.perf_counter() - start
            self.step_s = took if not self.step_s else _ema(self.step_s, took)
        seat.reply, seat.fault, seat.query = None, None, got
        if got is STEP:
            self.ready.append(seat)
            return
        seat.asked_at = time.monotonic()
        asking.append((seat, got))

    def end(self, seat: Seat, record: EpisodeRecord | None, exc: BaseException | None) -> None:
        self.seats[seat.slot] = None
        self.leave(seat)
        out = seat.close(record, exc)
        port = seat.port
        if out.termination == "error" and not port.batched and not port.retired:
            self.ports.retire(port)  # rebuilt for the slot's next episode
        self.ports.give(port)
        self.emit(seat.job, out)

    def leave(self, seat: Seat) -> None:
        """``seat`` waits for no call any more: a late answer finds nobody, and a call
        nobody waits for is forgotten (it may never return)."""
        for future, call in list(self.calls.items()):
            call.seats = [None if s is seat else s for s in call.seats]
            if all(s is None for s in call.seats):
                del self.calls[future]
                call.port.in_flight -= 1

    # ---- asking policies ----------------------------------------------------------------

    def dispatch(self, asking: list[tuple[Seat, Query]]) -> None:
        by_port: dict[int, list[tuple[Seat, Query]]] = {}
        for seat, query in asking:
            by_port.setdefault(id(seat.port), []).append((seat, query))
        for group in by_port.values():
            port = group[0][0].port
            if not port.batched:
                for seat, query in group:
                    self.submit(port, [seat], isinstance(query, Act), answer, port.policy, query)
                continue
            parts = self.split(port, [(s, q) for s, q in group if isinstance(q, Act)])
            others = [(s, q) for s, q in group if not isinstance(q, Act)]
            if others:
                self.submit_slots(port, others, acts=False)
            for part in parts:
                self.submit_slots(port, part, acts=True)

    def split(self, port: Port, acts: list[tuple[Seat, Query]]) -> list[list[Any]]:
        """The ``act_batch`` calls for ``acts``: at most ``batch_size`` each, in halves when
        that hides the policy's latency behind stepping (see the module docstring)."""
        if not acts:
            return []
        cap = max(1, int(port.policy.batch_size))
        n = len(acts)
        if n >= 2 and port.in_flight == 0 and SPLIT_MIN_LATENCY_S <= port.latency < n * self.step_s:
            cap = min(cap, math.ceil(n / 2))
        return [acts[i : i + cap] for i in range(0, n, cap)]

    def submit_slots(self, port: Port, pairs: list[tuple[Seat, Query]], *, acts: bool) -> None:
        queries = [(seat.slot, query) for seat, query in pairs]
        self.submit(port, [s for s, _ in pairs], acts, answer_slots, port.policy, queries)

    def submit(
        self, port: Port, seats: list[Seat], acts: bool, fn: Callable[..., Any], *args: Any
    ) -> None:
        future = port.thread.submit(fn, *args)
        port.in_flight += 1
        self.calls[future] = _Call(port, list(seats), acts, fn is answer_slots)

    def collect(self, future: Future) -> None:
        call = self.calls.pop(future)
        port = call.port
        port.in_flight -= 1
        exc = future.exception()
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        if call.acts and exc is None:
            took = float(getattr(future, "elapsed", 0.0))
            port.latency = took if not port.latency else _ema(port.latency, took)
        if exc is not None:  # answer_slots catches faults per item: this is a bug or a fault
            fault = exc if isinstance(exc, EpisodeFault) else InfraError(describe(exc))
            answers: list[Any] = [fault] * len(call.seats)
            if call.batched and not port.retired:
                self.ports.retire(port)
        elif call.batched:
            answers, call_fault = future.result()
            if call_fault is not None and not port.retired:
                self.ports.retire(port)
        else:
            answers = [future.result()]
        now = time.monotonic()
        for seat, got in zip(call.seats, answers, strict=True):
            if seat is None:
                continue
            if isinstance(got, BaseException):
                seat.fault = got
            elif seat.asked_at <= seat.deadline < now:  # answered, but past the limit
                seat.fault = seat.rollout.stalled()
            else:
                seat.reply = got
            self.ready.append(seat)

    def expire(self, now: float) -> None:
        """End the waiting of every episode past its deadline (see the module docstring)."""
        late = [
            s for c in self.calls.values() for s in c.seats if s is not None and now > s.deadline
        ]
        for seat in late:
            port = seat.port
            self.leave(seat)
            seat.fault = seat.rollout.stalled()
            self.ready.append(seat)
            if not port.retired:
                self.ports.retire(port)

    def next_deadline(self) -> float:
        return min(
            (s.deadline for c in self.calls.values() for s in c.seats if s is not None),
            default=math.inf,
        )


def _ema(average: float, value: float) -> float:
    return (1.0 - EMA_WEIGHT) * average + EMA_WEIGHT * value


def run_lockstep(
    take: Callable[[int], Sequence[J]],
    begin: Callable[[J, int], Seat | EpisodeRecord],
    emit: Callable[[J, EpisodeRecord], None],
    *,
    batch: int,
    ports: Ports,
) -> None:
    """Run jobs, up to ``batch`` episodes at once in lockstep (see the module docstring).

    Args:
        take: up to ``n`` more jobs; an empty answer means there are none left.
        begin: the episode of a job in a free slot (a :class:`Seat` whose port comes from
            ``ports``), or the job's error record when no episode could start.
        emit: called with each job and its record, in the order they finish.
        batch: slots (episodes at once).
        ports: the worker's policies.

    Raises:
        KeyboardInterrupt: from the policy's code (``inprocess:``) or a Ctrl-C.
    """
    if ports.share != (batch > 1):
        ports.close_all()  # built for another mode
        ports.share = batch > 1
    loop = _Loop(ports, emit, [None] * batch)
    more = True
    while True:
        while more and None in loop.seats:
            free = [i for i, s in enumerate(loop.seats) if s is None]
            jobs = take(len(free))
            if not jobs:
                more = False
            for slot, job in zip(free, jobs, strict=False):
                started = begin(job, slot)
                if isinstance(started, EpisodeRecord):
                    emit(job, started)
                else:
                    loop.seats[slot] = started
                    loop.ready.append(started)
        if not loop.ready and not loop.calls:
            return
        asking: list[tuple[Seat, Query]] = []
        ready, loop.ready = loop.ready, []
        for seat in ready:
            loop.advance(seat, asking)
        loop.dispatch(asking)
        if not loop.ready and loop.calls:  # nothing can step: wait for an answer
            timeout = loop.next_deadline() - time.monotonic()
            done, _ = wait(
                list(loop.calls),
                timeout=None if math.isinf(timeout) else max(0.0, timeout),
                return_when=FIRST_COMPLETED,
            )
        else:
            done = {f for f in loop.calls if f.done()}
        for future in [f for f in loop.calls if f in done]:
            loop.collect(future)
        loop.expire(time.monotonic())
