"""Run one episode of one policy in one environment and score it (one attempt).

The loop: ``env.reset(options={"episode": ...})``, the policy's reset, then the policy's
next action (one action or a chunk executed row by row) and ``env.step`` until the
one-attempt outcome is decided (:mod:`rsb_mj.scoring.scorer`; in a sealed run at a pace
that does not depend on it, see :class:`Rollout`), the step limit is reached, or the policy
reports ``done`` (then the last action is held for :data:`SETTLE_STEPS` more
steps while the scene settles). The policy is handed a view of the environment, never the
environment (see :mod:`rsb_mj.env.views`).

The episode is a coroutine (:meth:`Rollout.steps`) that never calls its policy: it yields
each query (:mod:`rsb_mj.evaluation.queries`: reset, next action, status at the end) and
goes on with the answer, and yields :data:`STEP` between the rows of a chunk. One episode
runs in this thread (:meth:`Rollout.run`: each query answered by calling the policy at
once; ``rsb eval`` without ``--batch``, the tools and tests), and ``rsb eval --batch`` runs
many in lockstep and answers their queries in one batch (:mod:`rsb_mj.evaluation.lockstep`);
each episode's record is the same either way.

Faults end the episode with ``termination == "error"``, the cause in ``error`` and whose
fault it was in ``error_kind``: ``"policy"`` for anything the policy raises (``SystemExit``
included, not ``KeyboardInterrupt``), an action that is not an action (wrong shape,
non-finite, or non-physical: see :func:`check_physical`), a reply of its server that is not
an answer, or an episode over its wall-clock limit while it waited for the policy's answer;
``"infra"`` for a failing environment, the connection to a policy server, or an episode over
its limit while the simulator ran. ``rsb eval`` scores the policy's own faults as failures
and excludes (and reruns) the others (:mod:`rsb_mj.evaluation.faults`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.env.views import GoalView, PolicyEnv, SimView, policy_seed
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeFault, InfraError, LayoutError, PolicyError
from rsb_mj.evaluation.failure import failure_reason, goal_failure_class
from rsb_mj.evaluation.queries import DONE, Act, Ending, Finish, Query, Reset, answer
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.text_choice import MAX_TEXT_CHARS, text_choice
from rsb_mj.lang.ast import Problem
from rsb_mj.policies.base import ACTION_DIM, Policy
from rsb_mj.policies.chunk import check_chunk
from rsb_mj.probing.capture import FeatureRecorder
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scoring.cost import CostTally
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.scoring.scorer import EpisodeScorer, Pacing, task_scorer
from rsb_mj.suites import GOAL_MAX_STEPS
from rsb_mj.tables.episode_source import goal_task
from rsb_mj.version import versions

#: Control steps the last action is held after the policy reports ``done`` (1 s at 20 Hz),
#: so a block still settling into the zone is scored before the episode ends.
SETTLE_STEPS = 20
#: Default wall-clock limit of one episode [s] (reset, policy and simulation together).
EPISODE_TIMEOUT_S = 600.0
#: How far outside its range an action component may lie, in units of that range (the
#: env's action space: the model's actuator ranges, grippers 0..1). Beyond
#: ``low - PHYSICAL_MARGIN * (high - low)`` or ``high + PHYSICAL_MARGIN * (high - low)`` the
#: action is refused as a policy error (see :func:`check_physical`).
PHYSICAL_MARGIN = 1.0


def as_chunk(action: Any, policy: Policy) -> np.ndarray:
    """The policy's output as a float (H, 14) chunk (:func:`rsb_mj.policies.chunk.check_chunk`).

    Raises:
        PolicyError: for anything that is not one finite action or a non-empty chunk.
    """
    return check_chunk(action, f"policy {policy.name}", "act() returned")


def physical_bounds(action_space: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The (14,) lower and upper bounds of a physical action for ``action_space`` (a Box
    with finite bounds; None without one): each range widened by :data:`PHYSICAL_MARGIN`
    ranges on each side. For the ALOHA arms of ``RsbEnv`` (joint ranges [rad] from the
    model's actuators) the waist at +-pi allows +-3 pi, the grippers (0..1) -1..2."""
    low, high = getattr(action_space, "low", None), getattr(action_space, "high", None)
    if low is None or high is None:
        return None
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if low.shape != (ACTION_DIM,) or not (np.isfinite(low).all() and np.isfinite(high).all()):
        return None
    span = PHYSICAL_MARGIN * (high - low)
    return low - span, high + span


def check_physical(
    chunk: np.ndarray, bounds: tuple[np.ndarray, np.ndarray] | None, policy: Policy
) -> None:
    """Refuse a chunk with a component outside ``bounds`` (see :func:`physical_bounds`):
    an action like 1e30 is no joint position, and clipping it silently would score a
    broken policy as a step-limit failure.

    Raises:
        PolicyError: naming the first (row, index) entries, the value and the bound.
    """
    if bounds is None:
        return
    low, high = bounds
    bad = np.argwhere((chunk < low) | (chunk > high))
    if bad.size:
        row, index = (int(v) for v in bad[0])
        raise PolicyError(
            f"policy {policy.name}: act() returned non-physical values at (row, index) "
            f"{[tuple(map(int, b)) for b in bad[:4]]}: {chunk[row, index]:.6g} at index "
            f"{index}, which allows {low[index]:.6g}..{high[index]:.6g} (its range widened "
            f"by {PHYSICAL_MARGIN:g} range on each side); expected joint positions [rad] "
            "and grippers 0 (closed) .. 1 (open)"
        )


def policy_view(
    env: Any, policy: Policy, episode: Episode, instruction: str
) -> PolicyEnv | SimView | GoalView:
    """What ``policy`` is handed as ``env`` at reset (see :mod:`rsb_mj.env.views`);
    ``instruction`` is the one the env reported (perturbed at language levels W1-W4)."""
    u = env.unwrapped
    candidates = env_candidates(u)
    simulator = policy.simulator or policy.privileged
    if simulator and episode.binding is None:
        return GoalView(
            model=u.model,
            data=u.data,
            scene=u.scene,
            task=u.task,
            candidates=candidates,
            control_hz=float(u.control_hz),
            instruction=instruction,
            seed=int(episode.seed),
        )
    if not simulator:
        return PolicyEnv(
            action_space=getattr(u, "action_space", None),
            observation_space=getattr(u, "observation_space", None),
            candidates=candidates,
            control_hz=float(getattr(u, "metadata", {}).get("render_fps", CONTROL_HZ)),
            instruction=instruction,
        )
    return SimView(
        model=u.model,
        data=u.data,
        scene=u.scene,
        candidates=candidates,
        control_hz=float(u.metadata.get("render_fps", CONTROL_HZ)),
        instruction=instruction,
        seed=policy_seed(episode.seed, policy.name),
        letters={cand: letter for letter, cand in episode.mapping.items()},
        start_hold=dict(getattr(u, "start_hold", None) or {}),
        _answer=episode.target if policy.privileged else None,
    )


def env_candidates(u: Any) -> tuple[str, ...]:
    """Candidate names of an environment (its scene's, or a test double's and a goal
    environment's own: a goal task's objects)."""
    scene = getattr(u, "scene", None)
    if scene is not None and hasattr(scene, "candidates"):
        return tuple(scene.candidates)
    return tuple(u.candidates)


@contextlib.contextmanager
def wall_clock_limit(
    seconds: float | None, what: str, fault: Callable[[], EpisodeFault] | None = None
) -> Iterator[Callable[[], None]]:
    """Limit the block to ``seconds`` of wall time.

    Yields a ``check()`` to call between steps. In the main thread a ``SIGALRM`` timer also
    interrupts a call that never returns (a hung policy); elsewhere only ``check`` applies.

    Args:
        seconds: the limit [s]; None or infinite for none.
        what: what is limited, for the message (``"episode 3"``).
        fault: builds the fault raised when the limit passes (its type says whose fault
            it is; read at that moment); default an :class:`InfraError` naming ``what``.

    Raises:
        EpisodeFault: ``fault()``, when the limit is exceeded.
    """
    if seconds is None or not math.isfinite(seconds):
        yield lambda: None
        return
    deadline = time.monotonic() + seconds
    message = f"{what} exceeded its wall-clock limit of {seconds:g} s (--episode-timeout)"
    make = fault or (lambda: InfraError(message))

    def check() -> None:
        if time.monotonic() > deadline:
            raise make()

    use_alarm = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGALRM")
    if not use_alarm:
        yield check
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise make()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield check
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: What an episode yields between two control steps of one chunk (no query: the driver
#: may step other episodes before it goes on).
STEP = "step"
#: What :meth:`Rollout.steps` yields: a policy query or :data:`STEP`.
Yielded = Query | str


class Rollout:
    """One episode of one policy, as a coroutine (:meth:`steps`, see the module docstring).

    Args:
        env: an ``RsbEnv`` for the episode's task (any cameras the policy needs).
        policy: the policy; read for its name and declarations (``simulator``,
            ``privileged``, ``marked``), never called (its queries are yielded).
        episode: the episode to run.
        problem: the parsed task file (its ``:grasp`` and ``:goal`` are scored).
        max_steps: control steps before the episode is cut (the suite's limit).
        on_frame: called with every observation (e.g. a video writer).
        on_step: called before every ``env.step`` with the observation the action follows
            and the (14,) action (e.g. a demonstration recorder).
        on_reset: called with the unwrapped environment once its reset succeeded (e.g. a
            demonstration recorder reading the layout a goal task's seed drew).
        episode_timeout_s: wall-clock limit of the episode [s]; None for none.
        features: keeps the policy's per-layer features of the queries it wants
            (``rsb eval --features``): an ``Act`` query says whether to read them, the
            policy's thread reads them right after ``act`` (and ``text``) and hands them
            back with the answer; never handed back to the policy, never part of the score
            (:mod:`rsb_mj.probing.capture`).
        sealed: a sealed run (``rsb eval --sealed``): when and how the episode ends does
            not depend on its outcome, so its length tells the policy nothing. The outcome
            is scored as in an ordinary run; only the end moves:

            * a question task: a wrong first grasp is scored at once, but the episode runs
              on as it would had that candidate been the answer (until it rests in the
              zone, released, or the step limit): one *pacing* scorer per candidate, each
              taking it for the answer, and the chosen candidate's ends the episode;
            * a goal task (no ``?answer``): the episode runs to its step limit, its success
              decided at the step the goal has held long enough.

            Either way the outcome and the cost are those of an ordinary run, tallied up to
            the decision; the steps run on after it score nothing (a fault among them
            neither: the record keeps its decided outcome). The record's ``steps`` counts
            the steps run (``grasp_step``/``success_step`` the decision).

            The work per step does not depend on the outcome either: for a question task
            the environment scores nothing (``RsbEnv.reset``'s ``score`` option) and the
            episode's own scorer is the answer's pacing scorer, so which scorers still work
            after a grasp depends on the choice alone (else a wrong choice's steps would be
            faster, and a policy timing its calls could tell).

            In both, a policy that reports ``done`` ends the episode (its own signal, not an
            outcome), and the policy's ``status()`` is read at every episode's end, not only
            at failures.

    Attributes:
        deadline: ``time.monotonic()`` by which the episode must end (infinite without a
            limit); set when :meth:`steps` starts.
    """

    def __init__(
        self,
        env: Any,
        policy: Policy,
        episode: Episode,
        problem: Problem,
        *,
        max_steps: int,
        on_frame: Callable[[dict[str, Any]], None] | None = None,
        on_step: Callable[[dict[str, Any], np.ndarray], None] | None = None,
        episode_timeout_s: float | None = EPISODE_TIMEOUT_S,
        features: FeatureRecorder | None = None,
        sealed: bool = False,
        on_reset: Callable[[Any], None] | None = None,
    ) -> None:
        self.env, self.policy, self.episode, self.problem = env, policy, episode, problem
        self.on_reset = on_reset
        self.sealed = sealed
        self.features = features
        self.max_steps = max_steps
        self.on_frame, self.on_step = on_frame, on_step
        self.timeout_s = episode_timeout_s
        self.deadline = math.inf

    def expired(self) -> InfraError:
        """The fault of an episode past its wall-clock limit while rsb ran the simulator
        (an infrastructure error)."""
        return InfraError(
            f"episode {self.episode.index} exceeded its wall-clock limit of "
            f"{self.timeout_s:g} s (--episode-timeout)"
        )

    def stalled(self) -> PolicyError:
        """The fault of an episode past its wall-clock limit while it waited for its
        policy's answer: the policy's own (a scored failure, :mod:`rsb_mj.evaluation.faults`)."""
        return PolicyError(
            f"policy {self.policy.name}: episode {self.episode.index} exceeded its wall-clock "
            f"limit of {self.timeout_s:g} s (--episode-timeout) waiting for the policy's answer"
        )

    def _check(self) -> None:
        if time.monotonic() > self.deadline:
            raise self.expired()

    def run(self, steps: Generator[Yielded, Any, EpisodeRecord] | None = None) -> EpisodeRecord:
        """Run the episode in this thread and return its record: each query is answered by
        calling the policy at once (:func:`~rsb_mj.evaluation.queries.answer`); in the main
        thread a ``SIGALRM`` timer also interrupts a policy call that never returns.

        Args:
            steps: this rollout's :meth:`steps` coroutine, if already made (not started).
        """
        steps = self.steps() if steps is None else steps
        waiting = [False]  # in a call of the policy: the limit passing there is its fault

        def respond(query: Query) -> Any:
            in_time = time.monotonic() <= self.deadline
            waiting[0] = True
            try:
                reply = answer(self.policy, query)
            finally:
                waiting[0] = False
            if in_time and time.monotonic() > self.deadline:  # off the main thread: no alarm
                raise self.stalled()
            return reply

        def fault() -> EpisodeFault:
            return self.stalled() if waiting[0] else self.expired()

        with wall_clock_limit(self.timeout_s, f"episode {self.episode.index}", fault):
            return drive(steps, respond)

    def steps(self) -> Generator[Yielded, Any, EpisodeRecord]:
        """Run the episode: yields its policy queries (answers sent back, faults thrown in)
        and :data:`STEP` between the rows of a chunk; returns the record."""
        start = time.perf_counter()
        if self.timeout_s is not None and math.isfinite(self.timeout_s):
            self.deadline = time.monotonic() + self.timeout_s
        env, policy, episode, max_steps = self.env, self.policy, self.episode, self.max_steps
        on_frame, on_step = self.on_frame, self.on_step
        termination, error, error_kind, steps = "step_limit", None, None, 0
        text: str | None = None
        instruction: str | None = None
        features = self.features
        sim: dict[str, Any] = {}
        scorer: EpisodeScorer | None = None
        tally: CostTally | None = None
        goal: dict[str, str] = dict(getattr(env.unwrapped, "goal_info", None) or {})
        no_layout: str | None = None
        decided_at: int | None = None  # a sealed goal: the step its success was decided
        paced = self.sealed and bool(episode.target)  # no ?answer bound (a goal): no pace
        options: dict[str, Any] = {"episode": episode}
        if paced:  # scored here alone: the same work per step whatever the answer
            options["score"] = False
        try:
            try:
                obs, info = env.reset(options=options)
            except EpisodeFault:
                raise
            except LayoutError as exc:  # the seed's layout: a scored failure, not a fault
                no_layout = str(exc)
                raise
            except Exception as exc:
                raise InfraError(f"env.reset failed: {type(exc).__name__}: {exc}") from exc
            sim = dict(info.get("sim", {}))
            if self.on_reset is not None:
                self.on_reset(env.unwrapped)
            tally = CostTally.from_info(info)
            if on_frame:
                on_frame(obs)
            candidates = env_candidates(env.unwrapped)
            pacing: Pacing | None = None
            run_on = self.sealed and not episode.target  # a goal: to the step limit
            if paced:  # the answer's pacing scorer is the episode's own
                pacing = Pacing(self.problem, candidates, episode.target)
                scorer = pacing.scorer
            else:
                scorer = task_scorer(self.problem, candidates, episode.target)
            instruction = str(info.get("instruction", ""))
            view = policy_view(env, policy, episode, instruction)
            public = {k: v for k, v in info.items() if k != "episode"}
            offered = yield Reset(view, obs, public, features=features is not None)
            settle, query = 0, 0
            if features is not None:
                features.offered = bool(offered)
            bounds = physical_bounds(getattr(env.unwrapped, "action_space", None))
            last = np.asarray(obs["state"], dtype=np.float64)  # held if done before acting
            while termination == "step_limit":
                self._check()
                wants = features is not None and features.wants(query)
                reply = yield Act(obs, features=wants)
                if reply is DONE:
                    if settle >= SETTLE_STEPS:
                        termination = "policy_done"
                        break
                    chunk, settle = last[None], settle + 1
                else:
                    chunk = as_chunk(reply.action, policy)
                    check_physical(chunk, bounds, policy)
                    if reply.text:
                        text = str(reply.text)[-MAX_TEXT_CHARS:]
                    if wants:
                        features.take(reply.read_features, query, steps)
                    query += 1
                for row, last in enumerate(chunk):
                    if row:
                        yield STEP
                    if on_step:
                        on_step(obs, last)
                    try:
                        obs, _, _, _, info = env.step(last)
                    except EpisodeFault:
                        raise
                    except Exception as exc:
                        raise InfraError(f"env.step failed: {type(exc).__name__}: {exc}") from exc
                    steps += 1
                    if on_frame:
                        on_frame(obs)
                    if pacing is not None:  # the episode's own scorer among them, updated once
                        outcome = pacing.update(info["signals"])
                    else:
                        outcome = scorer.update(info["signals"])
                    if features is not None and outcome.grasped:
                        features.chose()
                    if tally is not None and decided_at is None:
                        tally.update(info)  # the cost of a sealed run-on: frozen once decided
                    if outcome.decided and not run_on and (pacing is None or pacing.ended()):
                        termination = "success" if outcome.success else "wrong_choice"
                        break
                    if outcome.decided and decided_at is None:  # a sealed run-on from here
                        decided_at = steps
                    if steps >= max_steps:
                        break
                if steps >= max_steps:
                    break
            if decided_at is not None:  # decided earlier, then ran on: as if ended there
                termination = "success" if scorer.outcome.success else "wrong_choice"
        except EpisodeFault as exc:
            if decided_at is not None:  # a sealed run-on scores nothing, not even a fault
                termination = "success" if scorer.outcome.success else "wrong_choice"
            else:
                termination, error = "error", f"{type(exc).__name__}: {exc}"
                error_kind = exc.kind
        except LayoutError:
            termination = "no_layout"
        out = scorer.finish() if scorer is not None else Outcome()
        ending = Ending()
        # a sealed run asks every episode's status, so that being asked tells nothing
        if termination not in ("error", "no_layout") and (self.sealed or not out.success):
            with contextlib.suppress(EpisodeFault):  # a status that cannot be read says nothing
                ending = yield Finish()
        reason = failure_reason(
            out,
            termination=termination,
            target=episode.target,
            max_steps=max_steps,
            policy=policy.name,
            status=ending.status,
            policy_done=termination == "policy_done" or ending.done,
            error=error,
        )
        if no_layout is not None:
            reason = f"reset: {no_layout}"
        return episode_record(
            episode, policy.name, out, termination, steps, max_steps, error=error,
            error_kind=error_kind, reason=reason, privileged=policy.marked,
            wall_s=round(time.perf_counter() - start, 3), sim=sim, text=text,
            instruction=instruction, goal=goal, tally=tally,
        )  # fmt: skip


def drive(
    steps: Generator[Yielded, Any, EpisodeRecord], respond: Callable[[Query], Any]
) -> EpisodeRecord:
    """Run one episode's coroutine to its record, answering each query with ``respond``
    (a fault it raises is thrown back into the episode)."""
    reply: Any = None
    fault: EpisodeFault | None = None
    while True:
        try:
            query = steps.throw(fault) if fault is not None else steps.send(reply)
        except StopIteration as stop:
            return stop.value
        reply, fault = None, None
        if query is STEP:
            continue
        try:
            reply = respond(query)
        except EpisodeFault as exc:
            fault = exc


def episode_record(
    episode: Episode,
    policy: str,
    out: Outcome,
    termination: str,
    steps: int,
    max_steps: int,
    *,
    error: str | None = None,
    error_kind: str | None = None,
    reason: str | None = None,
    privileged: bool = False,
    wall_s: float = 0.0,
    sim: dict[str, Any] | None = None,
    text: str | None = None,
    instruction: str | None = None,
    goal: dict[str, str] | None = None,
    tally: CostTally | None = None,
) -> EpisodeRecord:
    """The record of ``episode`` run by ``policy`` (its name): the one builder of every
    record, scored or not.

    The episode names its own identity columns (:func:`_question_columns`,
    :func:`_goal_columns`); the rest is the same for both kinds. An error record of an
    episode that was never rolled out passes ``Outcome()`` (nothing scored), 0 steps and
    the defaults.

    Args:
        episode: the episode as run (ablated: its ``variant`` is the record's).
        policy: the policy's name in records (:attr:`rsb_mj.evaluation.jobs.Job.name`).
        out: the finished outcome (:meth:`EpisodeScorer.finish`), or ``Outcome()``.
        termination, steps, max_steps: how the episode ended, control steps run, the limit.
        error, error_kind: the fault's message and whose fault (``"infra"``, ``"policy"``).
        reason: why it failed (:func:`~rsb_mj.evaluation.failure.failure_reason`).
        privileged: the policy read the answer (``Policy.marked``).
        wall_s: wall time of the episode [s].
        sim: the environment's ``info["sim"]`` at reset (``{}`` before a reset).
        text: the policy's last text; instruction: the one it was given at reset.
        goal: a goal task's ``GoalEnv.goal_info`` (tier, semantics, objects, fingerprint);
            None when no environment was built: the task file's tier and semantics alone.
        tally: the episode's safety cost (:class:`~rsb_mj.scoring.cost.CostTally`), or None
            for a task without ``:cost`` or an episode that never reset.
    """
    if episode.binding is None:
        columns = _goal_columns(episode, goal, reason, policy=policy, termination=termination)
    else:
        columns = _question_columns(episode, out.choice, text)
    return EpisodeRecord(
        split=episode.split,
        index=episode.index,
        seed=episode.seed,
        policy=policy,
        choice=out.choice,
        grasped_candidates=list(out.grasped_candidates),
        in_zone=list(out.in_zone),
        grasp_step=out.grasp_step,
        success_step=out.success_step,
        grasped=out.grasped,
        correct_choice=out.correct_choice,
        success=out.success,
        goal_final=out.goal_final,
        termination=termination,
        steps=steps,
        max_steps=max_steps,
        wall_s=wall_s,
        privileged=privileged,
        variant=episode.variant,
        text=text,
        error=error,
        error_kind=error_kind,
        failure_reason=reason,
        versions=versions(),
        sim=dict(sim or {}),
        cost=None if tally is None else tally.total,
        cost_terms={} if tally is None else tally.summary(),
        cost_implicit_and=tally is not None and tally.implicit_and,
        instruction=instruction,
        **columns,
    )


def _question_columns(episode: Episode, choice: str | None, text: str | None) -> dict[str, Any]:
    """A question task's identity columns: the suite's row and its draws, the chosen
    option's letter, the option ``text`` names, and for Act2Answer (``extra["item"]``) the
    item, plate order, category and the side of the chosen plate."""
    letter_of = {cand: letter for letter, cand in episode.mapping.items()}
    columns: dict[str, Any] = {
        "suite": episode.suite,
        "task": episode.task,
        "question_id": episode.question_id,
        "template_id": episode.template_id,
        "choices": episode.choices,
        "correct": episode.correct,
        "target": episode.target,
        "chosen_option": letter_of.get(choice) if choice else None,
        "text_choice": text_choice(text, episode.options),
    }
    extra = episode.extra
    if "item" in extra:
        side = None
        if choice in episode.layout:
            x = episode.layout[choice].x
            side = "left" if all(x <= p.x for p in episode.layout.values()) else "right"
        columns |= {
            "item": str(extra["item"]),
            "layout": str(extra.get("layout", "")),
            "category": str(extra.get("category", "")),
            "chosen_side": side,
        }
    return columns


def _goal_columns(
    episode: Episode,
    goal: dict[str, str] | None,
    reason: str | None,
    *,
    policy: str,
    termination: str,
) -> dict[str, Any]:
    """A goal task's identity columns: ``suite`` the task file (as the job names it),
    ``task`` the file's name, the question columns empty (no question, no candidate, no
    choice), the goal fields of ``goal`` (see :func:`episode_record`) and the failure's
    class."""
    if goal is None:  # no environment: the objects it would use are unknown
        task = goal_task(episode.task)
        goal = {"tier": task.tier, "semantics": task.semantics}
    return {
        "suite": episode.task,
        "task": Path(episode.task).name,
        "question_id": "",
        "template_id": "",
        "choices": 0,
        "correct": "",
        "target": "",
        "chosen_option": None,
        "tier": goal.get("tier"),
        "semantics": goal.get("semantics"),
        "objects": goal.get("objects"),
        "objects_fingerprint": goal.get("objects_fingerprint"),
        "failure_class": goal_failure_class(reason, policy=policy, termination=termination),
    }


def run_goal_episode(
    env: Any,
    policy: Policy,
    seed: int | Episode,
    *,
    max_steps: int = GOAL_MAX_STEPS,
    split: str = "eval",
    on_frame: Callable[[dict[str, Any]], None] | None = None,
    on_step: Callable[[dict[str, Any], np.ndarray], None] | None = None,
) -> EpisodeRecord:
    """One episode of a goal environment (:class:`rsb_mj.env.rsb_env.RsbEnv`) from
    ``seed`` (a bare seed, or a frozen table row: a :class:`Episode`) with ``policy``
    (e.g. ``make_policy("expert")``), run in this thread by the runner's own
    :class:`Rollout` (no wall-clock limit): the record ``rsb eval`` writes for row ``seed``
    of the task file. For tools and tests that hold an environment."""
    task = env.unwrapped.task
    bare = not isinstance(seed, Episode)
    episode = Episode.seeded(task.path, seed, split) if bare else seed
    rollout = Rollout(
        env, policy, episode, task.problem, max_steps=max_steps, on_frame=on_frame,
        on_step=on_step, episode_timeout_s=None,
    )  # fmt: skip
    return rollout.run()
