"""Goal tasks as a vla-eval benchmark: a goal suite's or your own LIBERO / VLA-Arena files.

``benchmark: "rsb_mj.integrations.vla_eval_goal:GoalBenchmark"`` with ``params`` naming a
shipped goal suite (``suite: vla-arena-l0``, :data:`rsb_mj.suites.GOAL_SUITES`) or task files
(``files: [path/to/x.bddl, ...]``); shipped configs: ``rsb_mj/integrations/configs/
vla_arena_l0.yaml`` and friends (:func:`goal_config_path`).

Tasks: one per task file (``name``: its path under ``tasks/``, else as given; ``suite``: the
goal suite or ``"files"``). Episodes, as ``rsb eval`` runs them:

* a suite's file: episode ``k`` is row ``start + k`` of the file's rows in the suite's
  **frozen table** (``split: eval``, the default, or ``train``; :mod:`rsb_mj.tables.goal`):
  its seed and frozen layout, the episode ``rsb eval --suite SUITE --split S --start
  start`` runs as its row ``start + k`` (``episodes_per_task`` at most
  ``max_episodes_per_task``, the table's 5 eval or 20 train rows per file less ``start``);
* a file given in ``files`` (your own, or a shipped one named by path): episode ``k`` is
  the bare seed ``start + k``, which draws the layout, exactly as ``rsb eval FILE.bddl
  --start start`` runs it.

So a vla-eval episode and an ``rsb eval`` record of the same row or seed start from the same
scene. A suite's file that rsb_mj cannot build, or whose frozen table is short (the
manifest's ``short``: seeds without a valid layout were skipped), is left out (named in
:attr:`GoalBenchmark.skipped`, as ``rsb eval --suite`` names it); a file named in ``files``
that cannot be built is refused with its itemised list and tier.

Observation, action, grippers' convention, modes and recording: as
:class:`rsb_mj.integrations.vla_eval.RsbBenchmark` (ALOHA camera names, 14-D joint
positions, 20 Hz). The environment is :class:`rsb_mj.env.goal_env.GoalEnv` on the shipped
stand-ins (``assets: DIR`` for your own originals), at ``visual_level`` / ``language_level``.

Episode result (``metrics``): ``success`` (the ``:goal`` held for 10 control steps; the
episode ends then) and, for a file with a ``:cost`` rsb_mj evaluates, ``cost`` (the
episode's cumulative cost: 1 per control step a step term holds, 10 per end term holding at
the end). vla-eval aggregates their means per task. A goal task has no hidden answer, so
there is no sealed mode. Results are "LIBERO/VLA-Arena layouts on Aloha": not comparable with
published LIBERO / VLA-Arena numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from vla_eval.benchmarks.base import StepBenchmark, StepResult
from vla_eval.recording import NullEpisodeRecorder
from vla_eval.types import Action, EpisodeResult, Task

from rsb_mj.datasets.lerobot import CONVENTION
from rsb_mj.episodes.goal_episode import GoalEpisode
from rsb_mj.errors import EnvError, RsbError, TaskError
from rsb_mj.integrations.vla_eval import CONFIGS_DIR, VIDEO_CAMERA, RsbBenchmark
from rsb_mj.lang.goal_task import load_goal_task
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.resources import tasks_dir
from rsb_mj.splits import SPLITS
from rsb_mj.suites import GOAL_MAX_STEPS, GOAL_SUITES, goal_suite
from rsb_mj.tables.goal import GOAL_ROWS, file_rows, short_files, task_key
from rsb_mj.workspace import ALOHA_CAMERA_NAMES as CAMERA_NAMES

#: The task dict's ``suite`` for files given by path.
USER_FILES = "files"


def goal_config_path(suite: str) -> Path:
    """The shipped vla-eval config of a goal suite, e.g. ``configs/vla_arena_l0.yaml``.

    Raises:
        RsbError: for a name that is no goal suite (naming the valid ones).
    """
    found = goal_suite(suite)
    if found is None:
        raise RsbError(f"unknown goal suite {suite!r}; valid choices: {', '.join(GOAL_SUITES)}")
    return CONFIGS_DIR / f"{found.name.replace('-', '_')}.yaml"


def _task_name(path: Path) -> str:
    """A file's task name: its path under ``tasks/`` (POSIX), else the path as given."""
    resolved = path.resolve()
    root = tasks_dir().resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


class GoalBenchmark(RsbBenchmark):
    """Goal task files as a vla-eval ``StepBenchmark`` (module docstring).

    Args:
        suite: a goal suite's name (``vla-arena``, ``vla-arena-l0``, ``libero-layouts``):
            its files run their frozen table's rows.
        files: task files instead of (or besides) a suite: they run bare seeds.
        split: the suite's table, ``"eval"`` (default) or ``"train"``.
        start: the first table row of a suite's file; the first seed of a file in ``files``.
        max_steps: the step limit of an episode (control steps at 20 Hz).
        width, height, quality, send_wrist_image, send_state, convention: as
            :class:`~rsb_mj.integrations.vla_eval.RsbBenchmark`'s.
        assets: a LIBERO / VLA-Arena asset folder (the originals), None for the default
            object source (:func:`rsb_mj.scene.assets.resolve_object_source`).
        visual_level, language_level: the perturbation levels (0-4).

    Attributes:
        files: the task files run, one vla-eval task each.
        skipped: a suite's files not run: the itemised list and tier of one rsb_mj cannot
            build, or the row count and the manifest's reason of one whose table is short.
    """

    #: Step-row fields this benchmark records.
    _ALL_RECORD_FIELDS = frozenset({"reward", "done", "success", "action", "state"})
    render_backends: ClassVar[frozenset[str]] = RsbBenchmark.render_backends

    def __init__(
        self,
        suite: str | None = None,
        files: list[str] | None = None,
        split: str = "eval",
        start: int = 0,
        max_steps: int = GOAL_MAX_STEPS,
        width: int = 320,
        height: int = 240,
        quality: str = "fast",
        send_wrist_image: bool = True,
        send_state: bool = True,
        convention: str = CONVENTION.name,
        assets: str | None = None,
        visual_level: int = 0,
        language_level: int = 0,
    ) -> None:
        StepBenchmark.__init__(self)
        if suite is None and not files:
            raise RsbError("name a goal suite (suite: vla-arena-l0) or task files (files: [...])")
        if start < 0 or max_steps < 1:
            raise RsbError(f"start {start}, max_steps {max_steps}: need start >= 0, max_steps >= 1")
        if split not in SPLITS:
            raise RsbError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
        self.skipped: list[str] = []
        # task name -> (task file, its frozen rows from ``start`` on; None: bare seeds)
        tasks: dict[str, tuple[Path, tuple[GoalEpisode, ...] | None]] = {}
        self.suite_name = USER_FILES
        if suite is not None:
            found = goal_suite(suite)
            if found is None:
                raise RsbError(
                    f"unknown goal suite {suite!r}; valid choices: {', '.join(GOAL_SUITES)}"
                )
            if start >= GOAL_ROWS[split]:
                raise RsbError(
                    f"start {start}: the {found.name} {split} table has rows "
                    f"0..{GOAL_ROWS[split] - 1} per task file"
                )
            self.suite_name = found.name
            reasons = short_files(found.name, split)
            for path in found.files:
                try:
                    load_goal_task(path)
                except TaskError as exc:
                    self.skipped.append(str(exc))
                    continue
                rows = file_rows(found.name, split, path)
                if len(rows) < GOAL_ROWS[split]:
                    why = reasons.get(task_key(path), "no reason in the manifest")
                    self.skipped.append(
                        f"{path}: its frozen {split} table has {len(rows)} rows ({why})"
                    )
                    continue
                tasks[_task_name(path)] = (path, rows[start:])
        for given in files or ():
            load_goal_task(Path(given))  # refused with its itemised list and tier
            tasks.setdefault(_task_name(Path(given)), (Path(given), None))
        self._tasks = tasks
        self.files = [path for path, _ in tasks.values()]
        self.split = split
        self.start, self.max_steps = int(start), int(max_steps)
        self.sealed = False
        self.send_wrist_image = bool(send_wrist_image)
        self.send_state = bool(send_state)
        self.convention = get_convention(convention)
        self.cameras = tuple(CAMERA_NAMES) if self.send_wrist_image else (VIDEO_CAMERA,)
        self._env_kwargs = {
            "width": width,
            "height": height,
            "quality": quality,
            "cameras": self.cameras,
            "visual_level": visual_level,
            "language_level": language_level,
        }
        self._assets = assets
        self._env: Any = None
        self._env_file: Path | None = None
        self._instruction = ""
        self._reset_state: np.ndarray | None = None
        self._cost = 0.0
        self._success = False
        self._recorder = NullEpisodeRecorder()
        self._outcomes_path = None
        self._outcomes: list[dict[str, Any]] = []

    # ---- vla-eval API ----------------------------------------------------------------------

    def get_tasks(self) -> list[Task]:
        """One task per file: ``{"name": its path under tasks/, "suite": ...}``."""
        return [{"name": name, "suite": self.suite_name} for name in self._tasks]

    def get_metadata(self) -> dict[str, Any]:
        """The step limit and, for a suite, the rows each file's table holds from ``start``
        (files given by path run seeds: unbounded)."""
        rows = [len(r) for _, r in self._tasks.values() if r is not None]
        if not rows:
            return {"max_steps": self.max_steps}
        return {"max_steps": self.max_steps, "max_episodes_per_task": min(rows)}

    def get_metric_keys(self) -> dict[str, str]:
        """Means of the success flag and of the cumulative cost (files with a ``:cost``)."""
        return {"success": "mean", "cost": "mean"}

    def reset(self, task: Task) -> Any:
        """Reset the task file's environment on its episode ``task["episode_idx"]``: the
        frozen row ``start + k`` of a suite's file, the seed ``start + k`` of a given file.

        Raises:
            RsbError: for a task name this benchmark does not hold (naming the valid ones),
                or an episode beyond a suite file's table.
            LayoutError: for a frozen row that is no valid start on this build.
        """
        name = str(task.get("name", ""))
        entry = self._tasks.get(name)
        if entry is None:
            valid = ", ".join(list(self._tasks)[:5]) + (", ..." if len(self._tasks) > 5 else "")
            raise RsbError(f"task {name!r} is not one of this benchmark's files ({valid})")
        path, rows = entry
        k = int(task.get("episode_idx", 0))
        if rows is not None and not 0 <= k < len(rows):
            raise RsbError(
                f"episode {k} of {name}: the {self.suite_name} {self.split} table has "
                f"{len(rows)} rows from row {self.start} (episodes_per_task <= {len(rows)})"
            )
        if self._env_file != path:
            from rsb_mj.env.goal_env import GoalEnv  # MuJoCo and the scene: on first use
            from rsb_mj.scene.assets import resolve_object_source

            if self._env is not None:
                self._env.close()
            objects = resolve_object_source(self._assets)
            self._env = GoalEnv(path, max_steps=self.max_steps, objects=objects, **self._env_kwargs)
            self._env_file = path
        if rows is None:
            obs, info = self._env.reset(seed=self.start + k)
        else:
            obs, info = self._env.reset(options={"episode": rows[k]})
        self._instruction = info["instruction"]
        self._reset_state = np.array(obs["state"], dtype=np.float64)
        self._cost, self._success = 0.0, False
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        return obs

    def step(self, action: Action) -> StepResult:
        """One 20 Hz control step with the ``actions`` of the server's reply."""
        raw = action.get("actions") if isinstance(action, dict) else None
        arr = np.asarray(raw, dtype=np.float64) if raw is not None else None
        if arr is None or arr.shape != (14,):
            shape = None if arr is None else arr.shape
            raise EnvError(
                f"model server action {{'actions': shape {shape}}}; expected one (14,) "
                "joint-position target per step (chunks: set chunk_size on the server)"
            )
        arr = self.convention.actions_from_server(arr[None])[0]
        obs, reward, terminated, truncated, info = self._env.step(arr)
        self._cost += float(info.get("cost", 0.0))
        self._success = bool(terminated)
        done = bool(terminated or truncated)
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        self._recorder.record_step(
            reward=float(reward),
            done=done,
            success=self._success,
            action=arr.astype(np.float32),
            state=np.asarray(obs["state"], np.float32),
        )
        return StepResult(obs=obs, reward=float(reward), done=done, info=info)

    def get_step_result(self, step_result: StepResult) -> EpisodeResult:
        """``success`` and, for a file with an evaluated ``:cost``, the episode's ``cost``
        (its step terms so far plus the end terms holding now)."""
        result: dict[str, Any] = {"success": self._success}
        if "cost_violations" in step_result.info:
            result["cost"] = self._cost + float(self._env.end_cost())
        return result


__all__ = ["GoalBenchmark", "goal_config_path"]
