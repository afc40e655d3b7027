"""Run jobs inside a worker process, keeping environments and policies between episodes.

Each process (the parent with ``--workers 1``, else each pool worker) caches its
environments per (suite, split, cameras), its policies per spec (:class:`~rsb_mj.
evaluation.lockstep.Ports`) and one parsed task per suite, so building them is paid once
per process, not per episode. :func:`run_job` runs one episode in this thread
(:meth:`~rsb_mj.evaluation.rollout.Rollout.run`: the policy called at once, no policy
thread; in the main thread ``SIGALRM`` ends a call past the episode's wall-clock limit);
:func:`run_batch` runs up to B at once in lockstep (``rsb eval --batch B``,
:func:`~rsb_mj.evaluation.lockstep.run_lockstep`), with one environment per slot and a
policy per slot, or one shared by all slots when it is batched.

:func:`run_job` always returns a record: whatever goes wrong in an episode (a user policy
that raises, even ``SystemExit``, in its factory, ``reset`` or ``act``; a policy server
that went away; an environment that fails) becomes an *error record*
(``termination == "error"``) naming the cause, which the metrics leave out and a resumed
run retries; in a batch it is that episode's alone. Only ``KeyboardInterrupt`` propagates:
a user's policy runs in a policy process of its own (:mod:`rsb_mj.policies.child`), so a
``KeyboardInterrupt`` it raises, an exit or a fork there is an error record too; only
``inprocess:`` policies share this process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeFault, InfraError, PolicyError, describe
from rsb_mj.evaluation.ablations import COUNTERFACTUAL, ablate, counterfactual_twin
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.lockstep import Ports, Seat, run_lockstep
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import Rollout, episode_record
from rsb_mj.evaluation.video import VIDEO_CAMERA, VideoWriter
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.files import allow_roots
from rsb_mj.policies.base import Policy
from rsb_mj.policies.spec import make_policy
from rsb_mj.probing.capture import FeatureMode, FeatureRecorder
from rsb_mj.probing.store import feature_name, missing_entry, write_features
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.tables.episode_source import Source

#: ``factory(source, split, cameras) -> env``: ``source`` is the job's resolved
#: :class:`~rsb_mj.tables.episode_source.Source` (``source.name`` the suite or task file
#: its records carry); the default: :func:`default_env_factory`.
EnvFactory = Callable[[Source, str, tuple[str, ...]], Any]
#: What identifies the environment an episode needs.
EnvKey = tuple[str, str, tuple[str, ...]]
#: Fewest unused environments a process keeps for later episodes (see :class:`EnvPool`).
SPARE_ENVS = 4


class EnvPool:
    """The environments of this process, per key; an episode holds one, then gives it back.

    At most ``spare`` environments wait unused (at least :data:`SPARE_ENVS`; ``rsb eval
    --batch B`` sets B, one per slot); past that, the one unused longest is closed, so a run
    over several suites keeps at most two suites' B environments, not every suite's.
    """

    def __init__(self) -> None:
        self.spare = SPARE_ENVS
        self._free: dict[EnvKey, list[Any]] = {}
        self._order: list[tuple[EnvKey, Any]] = []  # free environments, least recent first

    def take(self, key: EnvKey, build: Callable[[], Any]) -> Any:
        """A free environment of ``key``, built with ``build()`` if there is none."""
        free = self._free.get(key)
        if not free:
            return build()
        env = free.pop()
        self._order.remove((key, env))
        return env

    def give(self, key: EnvKey, env: Any) -> None:
        """``env`` is free again (for the next episode of ``key``)."""
        self._free.setdefault(key, []).append(env)
        self._order.append((key, env))
        while len(self._order) > self.spare:
            old_key, old = self._order.pop(0)
            self._free[old_key].remove(old)
            _close(old)

    def close_all(self) -> None:
        """Close every free environment."""
        for envs in self._free.values():
            for env in envs:
                _close(env)
        self._free.clear()
        self._order.clear()


def _close(env: Any) -> None:
    with contextlib.suppress(Exception):  # a broken environment may fail to close
        env.close()


_ENVS = EnvPool()
_PORTS = Ports()


def default_env_factory(suite: str | Source, split: str, cameras: tuple[str, ...]) -> Any:
    """The environment of the source ``suite`` (a job's resolved source, or its name) at the
    default settings, rendering only ``cameras`` (:func:`rsb_mj.env.task_env.task_env`: the
    task declares which)."""
    # deferred: MuJoCo is imported when a process builds its first environment
    from rsb_mj.env.task_env import task_env

    return task_env(suite, split=split, cameras=cameras)


@dataclass(frozen=True)
class SettingsEnvFactory:
    """A picklable ``env_factory``: the source's environment (:func:`rsb_mj.env.task_env.
    task_env`) with the given settings (``rsb eval --visual-level``, ``--language-level``,
    ``--control-hz``, ``--a2a-start``, ``--assets``; ``rsb demos --width``, ``--height``).

    Attributes:
        visual_level, language_level: VLA-Arena's perturbation levels (0-4).
        control_hz: control rate [Hz] (20 or 50; see ``RsbEnv``).
        width, height: camera image size [px].
        start_held: a question task holding an object at reset starts with it in the
            gripper (``rsb eval --a2a-start held|table``).
        assets: a goal task's object folder (``rsb eval --assets DIR``), ``""`` for the
            default source.
    """

    visual_level: int = 0
    language_level: int = 0
    control_hz: int = 20
    width: int = 320
    height: int = 240
    start_held: bool = True
    assets: str = ""

    def __call__(self, suite: str | Source, split: str, cameras: tuple[str, ...]) -> Any:
        """The environment of the source ``suite`` (resolved, or its name) rendering
        ``cameras``."""
        # deferred: MuJoCo is imported when a process builds its first environment
        from rsb_mj.env.task_env import task_env

        return task_env(
            suite, split=split, cameras=cameras, width=self.width, height=self.height,
            control_hz=self.control_hz, visual_level=self.visual_level,
            language_level=self.language_level, start_held=self.start_held,
            assets=self.assets,
        )  # fmt: skip


def build_policy(job: Job) -> Policy:
    """The policy of ``job.policy`` with the job's server timeouts and sandbox settings.

    A policy that talks to a server (``OpenPiPolicy``) has ``connect_timeout_s`` and
    ``request_timeout_s`` attributes; they are set to the job's (``--connect-timeout``,
    ``--request-timeout``) before any connection opens. A policy with a
    ``feature_modules`` attribute gets the job's ``--feature-modules``.

    Raises:
        PolicyError: for ``--feature-modules`` with a policy that has no such attribute.
    """
    policy = make_policy(job.policy, job.sandbox)
    for name in ("connect_timeout_s", "request_timeout_s"):
        if hasattr(policy, name):
            setattr(policy, name, float(getattr(job, name)))
    if job.feature_modules:
        if not hasattr(policy, "feature_modules"):
            policy.close()
            raise PolicyError(
                f"policy {job.policy}: takes no --feature-modules (only policies built on "
                "torch modules hook them, e.g. lerobot:); a Python policy hands over its "
                "features itself (see rsb_mj.policies.features)"
            )
        policy.feature_modules = tuple(job.feature_modules)
    return policy


def _make_policy(job: Job) -> Policy:
    """The job's policy, named as the user wrote its spec; a factory's failure is a
    :class:`PolicyError`."""
    try:
        policy = build_policy(job)
    except KeyboardInterrupt:
        raise
    except EpisodeFault:
        raise
    except BaseException as exc:  # a user factory that raises (SystemExit included)
        raise PolicyError(f"policy {job.policy}: building it failed: {describe(exc)}") from exc
    policy.name = job.name  # records are keyed by the label, else the spec as written
    return policy


def begin(
    job: Job,
    slot: int,
    env_factory: EnvFactory | None = None,
    on_step: Callable[[dict[str, Any], np.ndarray], None] | None = None,
    on_reset: Callable[[Any], None] | None = None,
) -> Seat | EpisodeRecord:
    """The episode of ``job`` in ``slot``, ready to run (its policy and an environment
    taken from this process's caches), or the job's error record when it cannot start."""
    try:
        port = _PORTS.take(job.name, slot, lambda: _make_policy(job))
    except KeyboardInterrupt:
        raise
    except EpisodeFault as exc:
        return error_record(job, exc.kind, describe(exc))
    except BaseException as exc:  # our own code failed
        return error_record(job, InfraError.kind, describe(exc))
    env, writer = None, None
    try:
        policy = port.policy
        cameras = tuple(dict.fromkeys((*policy.cameras, *job.cameras)))
        if job.video and VIDEO_CAMERA not in cameras:
            cameras = (*cameras, VIDEO_CAMERA)
        key = (job.suite, job.split, cameras)
        build = env_factory or default_env_factory
        with allow_roots(job.allow_roots):  # the run's --allow-root, in whichever process
            env = _ENVS.take(key, lambda: build(job.source, job.split, cameras))
            problem = job.source.problem
            episode = job_episode(job, problem)
        writer = VideoWriter(Path(job.video)) if job.video else None
        recorder = None
        if job.features:
            recorder = FeatureRecorder(FeatureMode.parse(job.features), f"policy {job.policy}")
        rollout = Rollout(
            env, policy, episode, problem, max_steps=job.max_steps, on_frame=writer,
            on_step=on_step, episode_timeout_s=job.episode_timeout_s, features=recorder,
            sealed=job.sealed, on_reset=on_reset,
        )  # fmt: skip
    except BaseException as exc:
        _PORTS.give(port)
        if env is not None:
            _close(env)
        if isinstance(exc, KeyboardInterrupt):
            raise
        if not port.batched:
            _PORTS.retire(port)  # rebuilt for the next episode, as after any error
        kind = exc.kind if isinstance(exc, EpisodeFault) else InfraError.kind
        return error_record(job, kind, describe(exc))

    def close(record: EpisodeRecord | None, exc: BaseException | None) -> EpisodeRecord:
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()
        if exc is None and record is not None:
            _ENVS.give(key, env)
            if recorder is None or record.is_error:
                return record
            try:  # the archive is written before the record is appended
                return replace(record, features=_features_entry(job, recorder))
            except KeyboardInterrupt:
                raise
            except BaseException as exc_:
                return error_record(job, InfraError.kind, describe(exc_))
        _close(env)  # it raised out of the rollout: not reused
        return error_record(job, InfraError.kind, describe(exc or InfraError("no record")))

    return Seat(job, slot, port, rollout, rollout.steps(), close)


def _features_entry(job: Job, recorder: FeatureRecorder) -> dict[str, Any]:
    """Write the episode's features (if it kept any) and return its record entry."""
    captured = recorder.captured()
    if captured is not None:
        name = feature_name(job.suite, job.split, job.index, job.name, job.variant)
        return write_features(Path(job.features_dir), name, captured)
    if recorder.error is not None:
        why = recorder.error
    elif not recorder.offered:
        why = "the policy offers no features (no features attribute or method)"
    else:
        why = "the policy handed over no features (features was None at every query read)"
    return missing_entry(job.features, why)


def job_episode(job: Job, problem: Problem) -> Episode:
    """The episode ``job`` runs: its row (:meth:`~rsb_mj.tables.episode_source.Source.
    episode` of the job's resolved source; a goal task's names the job's source as its
    ``task``), with the instruction ablated or the question swapped for its counterfactual
    twin as ``job.variant`` says (a goal task runs ``original``, ``blank`` and ``tokens``:
    the runner refuses the others, :func:`rsb_mj.evaluation.runner.plan`)."""
    episode = job.source.episode(job.index)
    if job.variant == COUNTERFACTUAL:
        return counterfactual_twin(episode, problem, job.source.table())
    return ablate(episode, problem, job.variant)


def error_record(job: Job, kind: str, message: str) -> EpisodeRecord:
    """The error record of ``job`` when no episode could be rolled out (nothing scored):
    its row as the table stores it, named with the job's variant.

    Args:
        job: the job.
        kind: ``"infra"`` or ``"policy"`` (stored as ``error_kind``).
        message: the cause, ``"Type: message"`` (as the rollout writes it); also the
            failure reason.
    """
    with allow_roots(job.allow_roots):
        episode = job.source.episode(job.index)
    record = episode_record(
        episode, job.name, Outcome(), "error", 0, job.max_steps, error=message,
        error_kind=kind, reason=message,
    )  # fmt: skip
    return replace(record, variant=job.variant)


def run_batch(
    take: Callable[[int], Sequence[Job]],
    emit: Callable[[Job, EpisodeRecord], None],
    *,
    batch: int,
    env_factory: EnvFactory | None = None,
    on_step: Callable[[dict[str, Any], np.ndarray], None] | None = None,
) -> None:
    """Run the jobs ``take`` hands out, up to ``batch`` episodes at once in lockstep
    (:func:`~rsb_mj.evaluation.lockstep.run_lockstep`), and ``emit`` each record as its
    episode ends. Never raises except ``KeyboardInterrupt``; the caches stay for the next
    call (:func:`close_all` closes them)."""
    _ENVS.spare = max(SPARE_ENVS, batch)
    run_lockstep(
        take,
        lambda job, slot: begin(job, slot, env_factory, on_step),
        emit,
        batch=batch,
        ports=_PORTS,
    )


def run_job(
    job: Job,
    env_factory: EnvFactory | None = None,
    *,
    on_step: Callable[[dict[str, Any], np.ndarray], None] | None = None,
    on_reset: Callable[[Any], None] | None = None,
) -> EpisodeRecord:
    """Run one job in this process and return its record (written by the caller).

    ``on_step`` and ``on_reset`` are the rollout's hooks
    (:class:`~rsb_mj.evaluation.rollout.Rollout`): ``on_step`` sees the observation before
    each action (with the cameras of the policy and of ``job.cameras``) and the action, e.g.
    to record a demonstration; ``on_reset`` the environment once it has reset (a goal
    task's drawn layout is read there).

    Never raises except ``KeyboardInterrupt``: a failure becomes an error record (see the
    module docstring). After an error the job's policy is rebuilt for the next episode,
    and after an error outside the policy the environment too.
    """
    if _PORTS.share:
        _PORTS.close_all()  # built for lockstep batches
        _PORTS.share = False
    seat = begin(job, 0, env_factory, on_step, on_reset)
    if isinstance(seat, EpisodeRecord):
        return seat
    record, error = None, None
    try:
        record = seat.rollout.run(seat.steps)
    except KeyboardInterrupt:
        _PORTS.give(seat.port)
        raise
    except BaseException as exc:  # our code or the environment raised out of the rollout
        error = exc
    out = seat.close(record, error)
    if out.termination == "error" and not seat.port.retired:
        _PORTS.retire(seat.port)  # rebuilt for the next episode, as after any error
    _PORTS.give(seat.port)
    return out


def close_all() -> None:
    """Close cached policies and environments (end of a run in this process)."""
    _PORTS.close_all()
    _ENVS.close_all()
