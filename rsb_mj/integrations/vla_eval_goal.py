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
the end). vla-eval aggregates their means per task. Results are "LIBERO/VLA-Arena layouts on
Aloha": not comparable with published LIBERO / VLA-Arena numbers.

What reaches the model server: vla-eval sends the episode result to the server in its
``episode_end`` message, and an ordinary run ends an episode at its success, so the server
learns each outcome. A **sealed** run (``sealed: true``, with ``outcomes`` and
``secret_file`` as :class:`~rsb_mj.integrations.vla_eval.RsbBenchmark`'s; goal tasks have no
private ``tables``) sends ``{"sealed": true}`` only, records no ``reward`` or ``success`` in
vla-eval's step rows, and runs every episode to ``max_steps`` as ``rsb eval --sealed`` does
(:class:`rsb_mj.evaluation.rollout.Rollout`): the success is decided, and the cost summed, at
the step the goal has held, as in an ordinary run, and the steps after it score nothing. The
outcomes (``task``, ``suite``, ``row``: the table row of a suite's file or the seed of a
given file, ``success``, ``cost``, None without a ``:cost``, ``policy_fault``) go to
``outcomes``, signed, at cleanup; ``python -m rsb_mj.integrations.vla_eval_results --outcomes
FILE --secret-file SECRET`` verifies and reports them. An action that is not one ends the
episode as the server's own failure (``policy_fault``; after the success it changes
nothing). The episodes of a task run in vla-eval's order (``episode_idx``): a goal row holds
no answer and no pair partner, so its order tells nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from vla_eval.benchmarks.base import StepBenchmark, StepResult
from vla_eval.recording import NullEpisodeRecorder
from vla_eval.types import Action, EpisodeResult, Task

from rsb_mj.datasets.lerobot import CONVENTION
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EnvError, RsbError, TaskError
from rsb_mj.integrations.vla_eval import (
    CONFIGS_DIR,
    VIDEO_CAMERA,
    RsbBenchmark,
    action_fault,
    check_images,
    sealed_params,
)
from rsb_mj.lang.linter import load_goal_task
from rsb_mj.perturb.language import check_level as check_language_level
from rsb_mj.perturb.visual import check_level as check_visual_level
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.assets import resolve_object_source
from rsb_mj.splits import SPLITS
from rsb_mj.suites import GOAL_MAX_STEPS, GOAL_SUITES, goal_suite
from rsb_mj.tables.goal import GOAL_ROWS, file_rows, short_files, task_key
from rsb_mj.workspace import ALOHA_CAMERA_NAMES as CAMERA_NAMES

#: The task dict's ``suite`` for files given by path.
USER_FILES = "files"


@dataclass(frozen=True)
class EpisodeState:
    """What a goal episode's outcome line names, set at reset.

    Attributes:
        task: the task's name (its path under ``tasks/``, else as given).
        row: the table row of a suite's file, the seed of a given file.
        has_cost: the file has a ``:cost`` rsb_mj evaluates.
    """

    task: str
    row: int
    has_cost: bool


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
        sealed: send the server no outcome and run every episode to ``max_steps`` (module
            docstring); needs ``outcomes`` and ``secret_file``.
        outcomes: the JSON Lines file a sealed run writes its signed outcomes to at cleanup.
        secret_file: the secret that signs a sealed run's outcomes; never sent.

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
        sealed: bool = False,
        outcomes: str | None = None,
        secret_file: str | None = None,
    ) -> None:
        StepBenchmark.__init__(self)
        self._seal = sealed_params(bool(sealed), outcomes, secret_file)
        if suite is None and not files:
            raise RsbError("name a goal suite (suite: vla-arena-l0) or task files (files: [...])")
        if start < 0 or max_steps < 1:
            raise RsbError(f"start {start}, max_steps {max_steps}: need start >= 0, max_steps >= 1")
        check_images(width, height, quality)
        check_visual_level(visual_level)
        check_language_level(language_level)
        resolve_object_source(assets)  # a missing folder stops here, not at every episode
        if split not in SPLITS:
            raise RsbError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
        self.skipped: list[str] = []
        # task name -> (task file, its frozen rows from ``start`` on; None: bare seeds)
        tasks: dict[str, tuple[Path, tuple[Episode, ...] | None]] = {}
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
        self.sealed = bool(sealed)
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
        self._cost = self._end_cost = 0.0  # summed up to the success; end terms then
        self._success = False
        self._steps = 0
        self._episode = EpisodeState("", -1, False)
        self._last_obs: Any = None
        self._fault: str | None = None  # the server's own fault that ended the episode
        self._recorder = NullEpisodeRecorder()
        self._outcomes_path = Path(outcomes) if outcomes else None
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
        """Means of the success flag and of the cumulative cost (files with a ``:cost``);
        none in a sealed run."""
        if self.sealed:
            return {}
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
        self._cost, self._success, self._end_cost = 0.0, False, 0.0
        self._episode = EpisodeState(name, self.start + k, "cost_terms" in info)
        self._steps, self._fault, self._last_obs = 0, None, obs
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        return obs

    def step(self, action: Action) -> StepResult:
        """One 20 Hz control step with the ``actions`` of the server's reply; once the
        goal has held, the success and the cost stay as they were then (an ordinary run's
        episode ends there, a sealed one runs on to ``max_steps``)."""
        fault = action_fault(action)
        if fault is not None:
            if not self.sealed:
                raise EnvError(fault)
            return self._policy_fault(fault)
        arr = np.asarray(action["actions"], dtype=np.float64)
        arr = self.convention.actions_from_server(arr[None])[0]
        obs, reward, terminated, truncated, info = self._env.step(arr)
        self._steps, self._last_obs = self._steps + 1, obs
        if not self._success:
            self._cost += float(info.get("cost", 0.0))
            self._success = bool(terminated)
            if self._success:
                self._end_cost = float(self._env.end_cost())
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        if self.sealed:
            done = self._steps >= self.max_steps
            self._recorder.record_step(
                done=done, action=arr.astype(np.float32), state=np.asarray(obs["state"], np.float32)
            )
            return StepResult(obs=obs, reward=0.0, done=done, info={})
        done = bool(terminated or truncated)
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
        (its step terms up to the success, else so far, plus the end terms holding then);
        in a sealed run kept for ``outcomes`` and ``{"sealed": True}`` returned (vla-eval
        sends it to the server)."""
        has_cost = self._episode.has_cost
        end = self._end_cost if self._success else float(self._env.end_cost())
        result: dict[str, Any] = {"success": self._success}
        if has_cost:
            result["cost"] = self._cost + end
        if not self.sealed:
            return result
        outcome = {
            "task": self._episode.task,
            "suite": self.suite_name,
            "row": self._episode.row,
            "success": self._success,
            "cost": result.get("cost"),
            "policy_fault": self._fault is not None and not self._success,
        }
        self._outcomes.append(outcome)
        return {"sealed": True}


__all__ = ["GoalBenchmark", "goal_config_path"]
