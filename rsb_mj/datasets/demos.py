"""Write expert demonstrations: ``rsb demos SUITE --split train -n N -o DIR``.

One HDF5 file per episode (format in :mod:`rsb_mj.datasets.demo_file`), named by the episode
(a question task's by its row index, a goal task's by file and seed: see below), so the set is
resumable: a rerun re-verifies every finished file, keeps the good
ones and writes the missing and damaged ones; a killed run leaves at most hidden temporary
files, which are removed. One writer per folder: the folder is locked (:mod:`rsb_mj.lock`)
while demos are written, and a second ``rsb demos`` on it is refused. Rows of a suite must
lie in its frozen table.

Each demonstration is an ``rsb eval --policy expert`` job (:class:`~rsb_mj.evaluation.jobs.Job`)
run on the evaluation stack: the same episode lookup
(:mod:`rsb_mj.tables.episode_source`), worker caches and rollout loop
(:func:`rsb_mj.evaluation.worker.run_job`, recording through the rollout's ``on_step`` and
``on_reset`` hooks), the same policy seed, and the same process pool (:mod:`rsb_mj.evaluation.pool`:
this process, spawned workers or Ray tasks). Only the writer is the demos' own: each worker
writes its episode's file. An episode that ends in an error (the record's ``error``) writes
nothing and is retried by the next run, as ``rsb eval`` retries error records.

**Question and goal tasks through the same code.** A source's rows come from
:mod:`rsb_mj.tables.episode_source` whatever the task: a question suite's or task file's
rows, a goal task file's bare seeds (row ``i`` is seed ``i``), a goal suite's file's frozen
rows (``"vla-arena::vla_arena/.../x.bddl"``, :func:`~rsb_mj.tables.episode_source.
goal_row_source`). What differs comes from the episode: an episode with a binding (a
question task) is named by its row (:func:`~rsb_mj.datasets.demo_file.episode_filename`) and
stores its question (:func:`~rsb_mj.datasets.demo_file.write_demo`); an episode without one
(a goal task) is named :func:`~rsb_mj.datasets.demo_file.goal_demo_filename` (the task's
stem, the first 8 hex digits of its file's sha256 and the seed), so a folder can hold goal and
question demonstrations side by side and be exported together (``rsb export-lerobot``), and
stores instead (:func:`goal_attrs`): ``kind`` (``"goal"``), ``suite`` (the goal suites named,
``""`` for task files), ``split`` (a frozen row's; ``""`` for a bare seed), ``index``,
``seed``, ``task``, ``episode`` (the goal episode as JSON: ``{"kind": "goal", "task",
"task_sha256", "suite", "seed", "tier", "source", "objects", "objects_fingerprint", "layout",
"visual_level", "language_level", "perturbation", "head_camera"}``, and in a tier-B scene
that moved a fixture ``layout_changes``; ``layout``: object -> x, y, z [m, world frame], yaw
[rad] after the draw, before settling, and each drawn ``:init`` fixture joint -> [qpos];
``head_camera``: the head camera's pose framed for the task, :mod:`rsb_mj.scene.framing`;
the LeRobot export carries this JSON as each episode's ``rsb_episode``), ``failure_class``
(:func:`rsb_mj.evaluation.failure.goal_failure_class`), ``cost`` (the summed ``:cost``),
``objects``, and ``grasped`` (the episode did not end in a grasp or reset failure: goal
episodes do not track the grasp itself); a scene with articulated fixture joints (tier B)
adds their positions before each action (``/observations/fixture_joints``, named by the
``fixture_joints`` attribute: :func:`~rsb_mj.datasets.demo_file.write_demo`). A goal
episode's instruction is the task's ``:language`` as the env gave it (perturbed at
``language_level`` > 0, :func:`rsb_mj.perturb.language.perturb_goal_instruction`); it has
no rationale. A goal episode whose seed draws no layout is an error (nothing written,
retried), as one that ended in an error. Each kind of demonstration keeps its own settings
in a folder (:mod:`rsb_mj.datasets.demo_folder`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from rsb_mj.datasets.demo_file import (
    EncodedFrames,
    FrameEncoder,
    episode_filename,
    file_sha256,
    goal_demo_filename,
    verify_demo,
    write_demo,
)
from rsb_mj.datasets.demo_folder import hold_settings
from rsb_mj.env.cameras import check_cameras
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.rationale import rationale
from rsb_mj.errors import EpisodeError, ExpertError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.pool import run_jobs
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.worker import SettingsEnvFactory, run_job
from rsb_mj.lang.ast import Problem
from rsb_mj.lock import lock_folder, make_folder
from rsb_mj.perturb.language import check_level as check_language
from rsb_mj.perturb.visual import check_level as check_visual
from rsb_mj.progress import progress as show_progress
from rsb_mj.scene.assets import check_objects
from rsb_mj.scene.cache import cache_root
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import (
    check_rows,
    goal_task,
    is_task_file,
    label,
    load_episode,
    load_problem,
    split_goal_row_source,
    step_limit,
    task_path,
)
from rsb_mj.version import mujoco_version, rsb_mj_version

#: The policy spec that demonstrates (the built-in privileged expert).
EXPERT = "expert"


@dataclass(frozen=True)
class DemoJob:
    """What one worker needs to write one episode.

    Attributes:
        job: the episode as ``rsb eval --policy expert`` runs it; ``job.cameras`` are the
            cameras recorded.
        out_dir: the folder the file goes to.
        env_factory: the environment with the recorded image size (and a goal task's
            object folder).
        cot: the training prompt carries the rationale (``--cot``).
        name: the file's name (:func:`demo_filename`).
        suite: a goal episode's ``suite`` attribute: the goal suites the run named (``""``
            for task files).
    """

    job: Job
    out_dir: str
    env_factory: SettingsEnvFactory
    cot: bool = False
    name: str = ""
    suite: str = ""


@dataclass(frozen=True)
class DemoResult:
    """What one demonstration came to.

    Attributes:
        index: the episode's row.
        name: its file's name.
        success: the expert succeeded.
        failure: the record's ``failure_reason`` (``""`` on success).
        error: the episode ended in an error (``"Type: message"``; nothing was written),
            else None.
    """

    index: int
    name: str = ""
    success: bool = False
    failure: str = ""
    error: str | None = None


class Recorder:
    """Collects what a demonstration stores, from the rollout's ``on_step`` hook: the
    observation before each action (state and camera frames) and the action. Camera frames
    are JPEG-encoded in a background thread as they arrive (:class:`FrameEncoder`); close
    the recorder (or use it as a context manager) to stop that thread.

    It is also the rollout's ``on_reset`` hook (:meth:`reset`): it keeps the layout the
    environment started from (a goal task's seed draws it at reset), the scene's layout
    changes (a tier-B fixture the placement rule moved) and which articulated fixture
    joints it has, whose positions it then keeps before each action (``fixture_joints``).

    Args:
        cameras: the cameras whose frames are kept, in this order; None keeps every camera
            of the observation.
    """

    def __init__(self, cameras: tuple[str, ...] | None = None) -> None:
        self.cameras = cameras
        self.states: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        #: The environment's ``layout`` after its reset (object -> x, y, z [m, world],
        #: yaw [rad]; ``{}`` for an environment without one).
        self.layout: dict[str, tuple[float, ...]] = {}
        #: A goal scene's layout changes (``GoalLayout.layout_changes``; () for none).
        self.layout_changes: tuple[str, ...] = ()
        #: The goal scene's articulated fixture joints (names, build order) and, per
        #: recorded step, their positions [m or rad] before the action.
        self.joint_names: tuple[str, ...] = ()
        self.joints: list[np.ndarray] = []
        self._qpos_adr: np.ndarray = np.zeros(0, dtype=int)
        self._data: Any = None
        self._frames = FrameEncoder()

    def reset(self, env: Any) -> None:
        """Keep the layout ``env`` (unwrapped) has just reset to, its layout changes and
        its articulated fixture joints (a goal scene's: ``:init``'s drawers, door, knob)."""
        from rsb_mj.scene.compiler import state_joints  # deferred: only goal scenes need it

        self.layout = {k: tuple(v) for k, v in (getattr(env, "layout", None) or {}).items()}
        task, layout = env.task, env.scene.layout  # every task's (a question task: no layout)
        self.layout_changes = tuple(layout.layout_changes) if layout is not None else ()
        ids = sorted({j for f in task.fixtures for j in state_joints(env.model, task, f)})
        self.joint_names = tuple(env.model.joint(j).name for j in ids)
        self._qpos_adr = np.asarray([env.model.jnt_qposadr[j] for j in ids], dtype=int)
        self._data = env.data if ids else None

    def __call__(self, obs: dict[str, Any], action: np.ndarray) -> None:
        self.states.append(np.asarray(obs["state"], dtype=np.float64).copy())
        self.actions.append(np.asarray(action, dtype=np.float64).copy())
        if self._data is not None:
            self.joints.append(self._data.qpos[self._qpos_adr].copy())
        frames = obs.get("images", {})
        for name in frames if self.cameras is None else self.cameras:
            self._frames.add(name, frames[name])

    def frames(self) -> EncodedFrames:
        """The frames recorded so far, JPEG-encoded (waits for the encoder)."""
        return self._frames.result()

    def close(self) -> None:
        """Stop the encoder thread (frames still queued are dropped)."""
        self._frames.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def demo_filename(source: str, episode: Episode) -> str:
    """The file of ``episode`` of ``source``: by its row for a question task's (an episode
    with a binding), by task file and seed for a goal task's (module docstring)."""
    if episode.binding is None:
        return goal_demo_filename(task_path(source), episode.seed)
    return episode_filename(episode.index)


def demo_job(
    source: str,
    split: str,
    index: int,
    out_dir: Path,
    *,
    cameras: tuple[str, ...] = (),
    width: int = 320,
    height: int = 240,
    cot: bool = False,
    visual_level: int = 0,
    language_level: int = 0,
    assets: str | None = None,
    max_steps: int | None = None,
    suite: str = "",
) -> DemoJob:
    """The demonstration of row ``index``: the job ``rsb eval --policy expert`` plans for
    that row (same policy, step limit and episode timeout), rendering ``cameras`` at
    ``width`` x ``height`` px for the recorder, at the perturbation levels given; a goal
    task's objects from ``assets`` (None: the default source), its step limit ``max_steps``
    (None: the source's), its file's ``suite`` attribute ``suite``."""
    limit = max_steps or step_limit(source)
    job = Job(source, split, index, EXPERT, limit, cameras=tuple(cameras))
    factory = SettingsEnvFactory(
        visual_level=visual_level, language_level=language_level, width=width, height=height,
        assets=assets or "",
    )  # fmt: skip
    name = demo_filename(source, load_episode(source, split, index))
    return DemoJob(job, str(out_dir), factory, cot, name, suite)


def write_one(demo: DemoJob) -> DemoResult:
    """Run the expert on one episode (:func:`~rsb_mj.evaluation.worker.run_job`, as ``rsb
    eval --policy expert`` does) and write its file, unless the episode ended in an error
    (or a goal task's seed drew no layout, or no step was taken).

    Raises:
        WriteError, ExpertError: the file cannot be written or does not read back.
    """
    job = demo.job
    with Recorder(job.cameras) as recorder:
        record = run_job(job, demo.env_factory, on_step=recorder, on_reset=recorder.reset)
        failure = record.failure_reason or ""
        if record.is_error or record.termination == "no_layout" or not recorder.actions:
            error = record.error or failure or "no step was taken"
            return DemoResult(job.index, demo.name, error=error)
        frames = recorder.frames()
    episode = load_episode(job.suite, job.split, job.index)
    thought = rationale_of(episode, load_problem(job.suite))
    # the episode's own instruction, unless the env perturbed it at a language level (a
    # goal task's episode has none of its own: the :language the env gave)
    factory = demo.env_factory
    levels = {"visual_level": factory.visual_level, "language_level": factory.language_level}
    perturbed = record.instruction if factory.language_level else None
    instruction = perturbed or episode.instruction or record.instruction or ""
    prompt = f"{instruction} <think>{thought}</think>" if demo.cot else instruction
    if episode.binding is None:
        attrs = goal_attrs(demo, episode, record, recorder.layout, prompt, recorder.layout_changes)
    else:
        attrs = {
            "success": record.success,
            "grasped": record.grasped,
            "failure": failure,
            "task_sha256": file_sha256(task_path(job.suite)),
            "rationale": thought,
            "prompt": prompt,
            "mujoco_version": mujoco_version(),
            "rsb_mj_version": rsb_mj_version(),
            # only perturbed demonstrations name their levels (unperturbed files unchanged)
            **(levels if any(levels.values()) else {}),
        }
    joints = (recorder.joint_names, np.stack(recorder.joints)) if recorder.joints else None
    write_demo(
        Path(demo.out_dir) / demo.name,
        episode=None if episode.binding is None else episode,
        instruction=instruction,
        states=np.stack(recorder.states),
        actions=np.stack(recorder.actions),
        images=frames,
        attrs=attrs,
        fixture_joints=joints,
    )
    return DemoResult(job.index, demo.name, success=record.success, failure=failure)


def recorded_task(source: str) -> str:
    """The ``task`` a goal demonstration of ``source`` names: a goal suite's file as its
    table names it (relative to ``tasks/``), a task file by its path."""
    row = split_goal_row_source(source)
    return row[1] if row is not None else str(task_path(source))


def goal_attrs(
    demo: DemoJob,
    episode: Episode,
    record: EpisodeRecord,
    layout: dict[str, tuple[float, ...]],
    prompt: str,
    layout_changes: Sequence[str] = (),
) -> dict[str, Any]:
    """The attributes of a goal task's demonstration (module docstring), in the order the
    format has always written them; ``layout``: the one the environment reset to;
    ``layout_changes``: the scene's (a tier-B fixture moved), named in the episode JSON only
    where there are any."""
    job, factory = demo.job, demo.env_factory
    sha = file_sha256(task_path(job.suite))
    task = recorded_task(job.suite)
    sim = record.sim
    goal = {
        "kind": "goal",
        "task": task,
        "task_sha256": sha,
        "suite": demo.suite,
        "seed": episode.seed,
        "tier": record.tier,
        "source": record.semantics,
        "objects": record.objects,
        "objects_fingerprint": record.objects_fingerprint,
        "layout": {k: [round(float(x), 6) for x in v] for k, v in layout.items()},
        "visual_level": factory.visual_level,
        "language_level": factory.language_level,
        "perturbation": sim.get("perturbation"),
        "head_camera": sim.get("head_camera"),
        **({"layout_changes": list(layout_changes)} if layout_changes else {}),
    }
    return {
        "kind": "goal",
        "suite": demo.suite,
        "split": episode.split if episode.frozen else "",
        "index": episode.index,
        "seed": episode.seed,
        "task": task,
        "episode": json.dumps(goal, sort_keys=True),
        "success": record.success,
        "grasped": record.failure_class not in ("grasp", "reset"),
        "failure": record.failure_reason or "",
        "failure_class": record.failure_class,
        "cost": record.cost or 0.0,
        "task_sha256": sha,
        "objects": record.objects,
        "rationale": "",
        "prompt": prompt,
        "mujoco_version": mujoco_version(),
        "rsb_mj_version": rsb_mj_version(),
    }


J = TypeVar("J")  # a job of the pool
R = TypeVar("R")  # its result


def run_with_progress(
    write: Callable[[J], R],
    work: list[J],
    died: Callable[[J, str], R],
    desc: str,
    *,
    jobs: int,
    ray: bool,
    progress: bool,
) -> tuple[list[R], float]:
    """Run ``write`` on every job of ``work`` over the pool back ends (``jobs`` workers, or
    Ray), a progress bar counting episodes; returns the results in finishing order and the
    wall-clock seconds the jobs took."""
    results: list[R] = []
    bar = show_progress(len(work), desc=desc, unit="episodes", enabled=progress)

    def finish(job: J, result: R) -> None:
        results.append(result)
        bar.update()

    t0 = time.perf_counter()
    try:
        run_jobs(write, work, finish, died=died, workers=jobs, ray=ray)
    finally:
        bar.close()
    return results, time.perf_counter() - t0


def _died(demo: DemoJob, cause: str) -> DemoResult:
    """The result of a demonstration whose worker died (nothing was written)."""
    return DemoResult(demo.job.index, demo.name, error=cause)


def rationale_of(episode: Episode, problem: Problem) -> str:
    """The episode's rationale (:mod:`rsb_mj.episodes.rationale`) for a train episode whose
    question source has a rule, else ``""`` (a goal task's episode has no question)."""
    if episode.split != "train" or episode.binding is None:
        return ""
    try:
        return rationale(episode, problem)
    except EpisodeError:
        return ""


def _keep_good(path: Path, damaged: list[str] | None) -> bool:
    """Whether ``path`` is a good demonstration; a damaged one is removed and its reason
    appended to ``damaged``."""
    if not path.is_file():
        return False
    try:
        verify_demo(path)
        return True
    except ExpertError as exc:
        path.unlink()
        if damaged is not None:
            damaged.append(str(exc))
        return False


def _clear_leftovers(out_dir: Path) -> Path:
    """Make ``out_dir`` and remove the temporary files of killed runs in it."""
    out_dir = make_folder(out_dir)
    for tmp in out_dir.glob(".episode_*.tmp"):
        tmp.unlink(missing_ok=True)
    return out_dir


def missing_indices(
    out_dir: Path, n: int, start: int = 0, *, damaged: list[str] | None = None
) -> list[int]:
    """Row indices in ``[start, start + n)`` without a good file in ``out_dir`` (question
    demonstrations, named by row).

    Removes leftover temporary files of killed runs, and files that fail
    :func:`~rsb_mj.datasets.demo_file.verify_demo` (truncated, foreign, inconsistent), whose
    reasons are appended to ``damaged``. Call it with the folder locked.
    """
    out_dir = _clear_leftovers(out_dir)
    return [
        i for i in range(start, start + n) if not _keep_good(out_dir / episode_filename(i), damaged)
    ]


def write_demos(
    suite: str | Sequence[str],
    split: str,
    n: int,
    out_dir: Path,
    *,
    start: int = 0,
    jobs: int = 1,
    cameras: tuple[str, ...] = ("head", "left_wrist", "right_wrist"),
    width: int = 320,
    height: int = 240,
    progress: bool = True,
    cot: bool = False,
    ray: str | None = None,
    visual_level: int = 0,
    language_level: int = 0,
    assets: str | None = None,
    max_steps: int | None = None,
    goal_suite: str = "",
) -> dict[str, Any]:
    """Write the demonstrations of rows ``start .. start + n - 1`` of ``suite`` (one source,
    or several goal task sources: :mod:`rsb_mj.tables.episode_source`; module docstring)
    that are missing, at the perturbation levels ``visual_level`` and ``language_level``
    (0-4; the instruction stored is the one the env gave).

    Every train demonstration of a question task stores its rationale (``rationale``); with
    ``cot`` the training prompt (``prompt``) is the instruction followed by
    ``<think>rationale</think>`` (ReasoningVLA), else the instruction. The episodes run on
    ``jobs`` worker processes, or with ``ray`` (``""``: a local cluster of ``jobs`` CPUs,
    else a cluster's address) as Ray tasks; the workers write the files, so on a cluster of
    several machines ``out_dir`` must be a shared folder with the same path on every node.

    Goal tasks only: ``assets``, the object source's asset folder (None: the default
    source); ``max_steps``, the step limit (None: the source's); ``goal_suite``, the goal
    suites the sources were named through (each file's ``suite`` attribute).

    Returns:
        Counts: ``{"total", "existing", "written", "failed", "damaged", "seconds",
        "failures", "errors"}``; ``failed`` counts written episodes in which the expert did
        not succeed (their files carry ``success = False`` and the reason; ``failures``
        lists them, ``{"index", "failure"}``); ``errors`` lists the episodes that ended in
        an error, ``{"index", "error"}``, whose files were not written (a rerun retries
        them); ``damaged`` lists the files found damaged and rewritten (one reason each).
        Goal demonstrations list ``{"name", ...}`` by file name instead of ``"index"``.

    Raises:
        ExpertError: rows outside a suite's table, ``cot`` outside the train split or with
        goal tasks, several question sources, or question and goal sources together;
        EvalError: a missing task file; TaskError: a goal task file rsb_mj cannot build
        (itemised, with its tier); EnvError: unknown cameras, an image size below 1x1 or a
        level outside 0..4; SceneError: an ``assets`` folder whose originals the tasks use
        cannot be built (naming the file); RsbError: an ``RSB_MJ_CACHE`` that cannot be
        written (all before ``out_dir`` is made); LockedError: another ``rsb demos`` writes
        to ``out_dir``; WriteError: ``out_dir`` cannot be written; InfraError: worker
        processes kept dying.
    """
    given = [suite] if isinstance(suite, str) else list(suite)
    names = [s if is_task_file(s) else get_suite(s).name for s in given]
    for name in names:
        task_path(name)
    if cot and split != "train":
        raise ExpertError(
            f"--cot with --split {split}: rationales are made for the train split only "
            "(eval answers never reach training data)"
        )
    cameras = tuple(dict.fromkeys(cameras))
    check_cameras(cameras, width, height)
    check_visual(visual_level)
    check_language(language_level, "--language-level")
    for name in names:
        check_rows(name, split, n, start)
    # what differs comes from the episodes: with a binding, a question task's
    goal = [load_episode(name, split, start).binding is None for name in names]
    if any(goal) and not all(goal):
        raise ExpertError("question and goal task sources are recorded on their own")
    if not all(goal) and len(names) != 1:
        raise ExpertError(
            "question demonstrations are named by row: give one suite or task file, not "
            + ", ".join(names)
        )
    if all(goal) and cot:
        raise ExpertError("--cot: goal tasks have no rationale")
    cache_root()  # an RSB_MJ_CACHE that cannot be written stops here, not at every episode
    if all(goal):  # a bad asset folder too, naming the file (every original the tasks use)
        check_objects(assets, [goal_task(name) for name in names])
        kind, desc = "goal", goal_suite or "goal tasks"
        settings = {
            "--cameras": ",".join(cameras), "--width": width, "--height": height,
            "--visual-level": visual_level, "--language-level": language_level,
            "--max-steps": max_steps,
            "--assets": None if assets is None else str(Path(assets).resolve()),
        }  # fmt: skip
    else:
        kind, desc = "question", label(names[0])
        settings = {
            "suite": names[0], "--split": split, "--cameras": ",".join(cameras),
            "--width": width, "--height": height, "--cot": cot,
            "--visual-level": visual_level, "--language-level": language_level,
        }  # fmt: skip
    with lock_folder(Path(out_dir), "rsb demos") as lock:
        out_dir = lock.folder
        hold_settings(out_dir, kind, settings)
        _clear_leftovers(out_dir)
        damaged: list[str] = []
        options: dict[str, Any] = {
            "cameras": cameras, "width": width, "height": height, "cot": cot,
            "visual_level": visual_level, "language_level": language_level, "assets": assets,
            "max_steps": max_steps, "suite": goal_suite,
        }  # fmt: skip
        planned = [
            demo_job(name, split, i, out_dir, **options)
            for name in names
            for i in range(start, start + n)
        ]
        work = [d for d in planned if not _keep_good(out_dir / d.name, damaged)]
        results, seconds = run_with_progress(
            write_one, work, _died, f"rsb demos {desc}", jobs=jobs, ray=ray, progress=progress
        )

    def which(r: DemoResult) -> dict[str, Any]:
        return {"name": r.name} if kind == "goal" else {"index": r.index}

    errors = [{**which(r), "error": r.error} for r in results if r.error is not None]
    failures = [
        {**which(r), "failure": r.failure} for r in results if r.error is None and not r.success
    ]
    return {
        "total": len(planned),
        "existing": len(planned) - len(work),
        "written": len(work) - len(errors),
        "failed": len(failures),
        "damaged": damaged,
        "seconds": seconds,
        "failures": failures,
        "errors": errors,
    }
