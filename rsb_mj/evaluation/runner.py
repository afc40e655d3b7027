"""The resumable evaluation runner behind ``rsb eval``.

A run directory holds ``episodes.jsonl`` (one record per finished episode, see
:mod:`rsb_mj.evaluation.records`) and ``run.json`` (the split and the versions it started
with). Running the same command again resumes: jobs whose record exists are skipped, the
rest run. Only the parent process writes records, one atomic append per finished episode,
so a kill loses at most the episodes in flight (they rerun) and never duplicates one.

Workers: ``workers == 1`` runs in this process; more uses a pool of spawned processes, each
keeping its environments between episodes. Jobs are ordered by suite, then episode, then
policy, so workers reuse environments.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import (
    RECORDS_FILE,
    EpisodeRecord,
    append_record,
    read_records,
    repair,
)
from rsb_mj.evaluation.worker import EnvFactory, close_all, run_job
from rsb_mj.policies.spec import make_policy
from rsb_mj.suites import get_suite

#: Name of the run description inside a run directory.
RUN_FILE = "run.json"
SPLITS = ("eval", "train")


@dataclass(frozen=True)
class EvalConfig:
    """One ``rsb eval`` invocation.

    Attributes:
        suites: suite names.
        policies: policy specs.
        episodes: episodes per suite (table rows ``start .. start + episodes - 1``).
        out: run directory.
        split: ``"eval"`` (default) or ``"train"``.
        start: first table row.
        workers: worker processes (1: run in this process).
        max_steps: control-step limit; None uses each suite's ``max_steps``.
        videos: episode indices whose head camera is written to ``out/videos/``.
        progress: show a progress bar (stderr).
    """

    suites: tuple[str, ...]
    policies: tuple[str, ...]
    episodes: int
    out: Path
    split: str = "eval"
    start: int = 0
    workers: int = 1
    max_steps: int | None = None
    videos: tuple[int, ...] = field(default_factory=tuple)
    progress: bool = True

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise EvalError(f"split {self.split!r}; valid choices: {', '.join(SPLITS)}")
        if self.episodes < 1 or self.start < 0 or self.workers < 1:
            raise EvalError("--episodes and --workers must be at least 1, --start at least 0")
        if self.max_steps is not None and self.max_steps < 1:
            raise EvalError("--max-steps must be at least 1")
        if not self.suites or not self.policies:
            raise EvalError("name at least one --suite and one --policy")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def plan(config: EvalConfig) -> list[Job]:
    """All jobs of ``config``, ordered by suite, episode index, policy.

    Raises:
        EvalError: for an unknown suite or policy spec.
    """
    suites = [get_suite(name) for name in config.suites]
    for spec in dict.fromkeys(config.policies):
        _check_policy(spec)
    jobs = []
    for suite in suites:
        limit = config.max_steps or suite.max_steps
        for index in range(config.start, config.start + config.episodes):
            for spec in config.policies:
                video = ""
                if index in config.videos:
                    name = f"{suite.name}_{_slug(spec)}_{config.split}_{index:04d}.mp4"
                    video = str(config.out / "videos" / name)
                jobs.append(Job(suite.name, config.split, index, spec, limit, video))
    return jobs


def _check_policy(spec: str) -> None:
    """Validate built-in and openpi specs early (user factories are imported by workers)."""
    if spec.startswith("openpi:") or ":" not in spec:
        make_policy(spec)  # connects only at the first reset


def _prepare(config: EvalConfig) -> Path:
    config.out.mkdir(parents=True, exist_ok=True)
    run_file = config.out / RUN_FILE
    if run_file.exists():
        previous = json.loads(run_file.read_text())
        if previous.get("split") != config.split:
            raise EvalError(
                f"{run_file}: this run directory holds split {previous.get('split')!r}; "
                f"use another --out for split {config.split!r}"
            )
    else:
        from rsb_mj.version import versions

        tmp = run_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"split": config.split, "versions": versions()}, indent=2))
        os.replace(tmp, run_file)
    records = config.out / RECORDS_FILE
    repair(records)
    return records


def _postfix(done: dict[tuple[str, str], list[int]]) -> str:
    parts = [f"{p}/{s}: {g}G {t}T of {n}" for (p, s), (n, g, t) in done.items()]
    return "; ".join(parts[-2:])


def run_eval(config: EvalConfig, *, env_factory: EnvFactory | None = None) -> list[EpisodeRecord]:
    """Run (or resume) ``config``; return the records of all its jobs, in plan order.

    Args:
        config: what to run.
        env_factory: builds environments (default ``rsb_mj.env.RsbEnv``); must be a
            module-level function when ``workers > 1``.
    """
    from tqdm import tqdm

    jobs = plan(config)
    path = _prepare(config)
    existing = {r.key: r for r in read_records(path)}
    stale = [j for j in jobs if j.key in existing and existing[j.key].max_steps != j.max_steps]
    if stale:
        old = existing[stale[0].key].max_steps
        raise EvalError(
            f"{path}: {len(stale)} of these episodes were run with a step limit of {old}, "
            f"this command asks {stale[0].max_steps}; use another --out"
        )
    todo = [job for job in jobs if job.key not in existing]
    tally: dict[tuple[str, str], list[int]] = {}
    bar = tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        desc="rsb eval",
        unit="ep",
        disable=not config.progress,
        dynamic_ncols=True,
    )

    def finish(record: EpisodeRecord) -> None:
        append_record(path, record)
        existing[record.key] = record
        n_g_t = tally.setdefault((record.policy, record.suite), [0, 0, 0])
        n_g_t[0] += 1
        n_g_t[1] += record.grasped
        n_g_t[2] += record.success
        bar.set_postfix_str(_postfix(tally), refresh=False)
        bar.update(1)

    try:
        if config.workers == 1 or len(todo) <= 1:
            try:
                for job in todo:
                    finish(run_job(job, env_factory))
            finally:
                close_all()
        else:
            _run_pool(todo, config.workers, env_factory, finish)
    finally:
        bar.close()
    return [existing[job.key] for job in jobs]


def _run_pool(
    todo: list[Job],
    workers: int,
    env_factory: EnvFactory | None,
    finish: Callable[[EpisodeRecord], None],
) -> None:
    """Run ``todo`` on ``workers`` spawned processes, at most two jobs queued per worker."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=ctx) as pool:
        pending: set[Future] = set()
        queue = list(reversed(todo))
        try:
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.add(pool.submit(run_job, queue.pop(), env_factory))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    finish(future.result())
        except BaseException:
            for future in pending:
                future.cancel()
            raise
