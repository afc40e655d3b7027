"""The RSB suites as a vla-eval benchmark (``vla-eval run --no-docker -c CONFIG``).

vla-eval (``pip install 'rsb_mj[vla-eval]'``) resolves the config's
``benchmark: "rsb_mj.integrations.vla_eval:RsbBenchmark"`` import string, builds the
benchmark with ``params`` and steps it against a model server over its websocket protocol.
Shipped configs, one per suite: ``rsb_mj/integrations/configs/rsb_<suite>.yaml``
(:func:`config_path`).

Tasks: one per suite (``name`` = suite name); episode ``k`` of a task is row
``start + k`` of the suite's frozen table (``episodes_per_task`` in the config, at most the
table's size). vla-eval sends the task dict, including ``episode_idx``, to the model
server; the frozen tables are public, so an evaluation that must not trust its server
should set ``shuffle_seed`` (kept in the config, never sent) to draw the rows in a secret
order.

Observation sent to the server (ALOHA names, as rsb_mj's openpi client sends them):
``images`` ``{"cam_high", "cam_left_wrist", "cam_right_wrist"}`` uint8 (H, W, 3) from the
``head``, ``left_wrist``, ``right_wrist`` cameras; ``state`` float32 (14,) measured joints
``[left 6 (rad), left gripper, right 6, right gripper]`` (grippers 0 closed .. 1 open);
``task_description`` the instruction. Action expected: ``{"actions": (14,)}`` joint-position
targets in the same layout (an ``(H, 14)`` chunk from a server without chunk handling is
refused: use vla-eval's ``chunk_size`` on the server side). 20 Hz control.

Episode result (``metrics``): ``success`` (TSR flag, one-attempt scoring), ``grasped``
(GSR flag), ``correct_choice``, ``choice`` (the letter first grasped, ``""`` if none),
``choices`` (4 or 10). vla-eval aggregates means; nSG needs both rates and comes from
:func:`rsb_mj.integrations.vla_eval_results.summarize`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from vla_eval.benchmarks.base import StepBenchmark, StepResult
from vla_eval.render import configure_mujoco_render
from vla_eval.specs import IMAGE_RGB, LANGUAGE, DimSpec
from vla_eval.types import Action, EpisodeResult, Observation, Task

from rsb_mj.errors import EnvError, RsbError
from rsb_mj.splits import SPLITS
from rsb_mj.suites import SUITES, get_suite

#: rsb_mj camera -> name in the observation (ALOHA).
CAMERA_NAMES = {
    "head": "cam_high",
    "left_wrist": "cam_left_wrist",
    "right_wrist": "cam_right_wrist",
}
#: The 14-D joint-position convention of action and state (vla-eval has none built in).
JOINTS14 = "aloha_joint_positions_14_gripper_01_open"
ACTION_SPEC = {
    "joint_positions": DimSpec(
        "joint_positions",
        14,
        JOINTS14,
        description="[left waist, shoulder, elbow, forearm_roll, wrist_angle, wrist_rotate "
        "(rad), left gripper (0 closed..1 open), right 6 (rad), right gripper]",
    )
}
STATE_SPEC = DimSpec("state", 14, JOINTS14, description="measured joints, action layout")
CONFIGS_DIR = Path(__file__).parent / "configs"


def config_path(suite: str) -> Path:
    """The shipped vla-eval config of a suite, e.g. ``configs/rsb_math_4.yaml``."""
    name = get_suite(suite).name
    return CONFIGS_DIR / f"{name.lower().replace('rsb-', 'rsb_').replace('-', '_')}.yaml"


class RsbBenchmark(StepBenchmark):
    """One RSB suite as a vla-eval ``StepBenchmark``.

    Args:
        suite: suite name, e.g. ``"RSB-Math-4"``.
        split: ``"eval"`` (default) or ``"train"`` table.
        start: first table row.
        shuffle_seed: if set, episode ``k`` is row ``start + perm[k]`` of a permutation
            of the rows from ``start`` on drawn with this seed (kept from the server).
        width, height: camera image size [px].
        quality: render preset ``"fast"`` or ``"full"``.
    """

    render_backends: ClassVar[frozenset[str]] = frozenset({"gpu", "cpu"})

    @classmethod
    def configure_render(cls, mode: str) -> dict[str, str]:
        """OSMesa for ``render: cpu``; rsb_mj's own choice (EGL) otherwise."""
        return configure_mujoco_render(mode)

    def __init__(
        self,
        suite: str = "RSB-Math-4",
        split: str = "eval",
        start: int = 0,
        shuffle_seed: int | None = None,
        width: int = 320,
        height: int = 240,
        quality: str = "fast",
    ) -> None:
        super().__init__()
        self.suite = get_suite(suite)
        if split not in SPLITS:
            raise RsbError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
        from rsb_mj.episodes.table import load_table

        rows = load_table(self.suite.name, split)
        if not 0 <= start < len(rows):
            raise RsbError(
                f"start {start}: the {self.suite.name} {split} table has rows 0..{len(rows) - 1}"
            )
        self.split, self.start = split, start
        order = np.arange(start, len(rows))
        if shuffle_seed is not None:
            order = np.random.default_rng(shuffle_seed).permutation(order)
        self._rows = [rows[i] for i in order]
        self._env_kwargs = {"width": width, "height": height, "quality": quality}
        self._env: Any = None
        self._instruction = ""

    # ---- vla-eval API ----------------------------------------------------------------------

    def get_tasks(self) -> list[Task]:
        """One task per suite; episodes are table rows."""
        return [{"name": self.suite.name, "suite": self.suite.name}]

    def get_metadata(self) -> dict[str, Any]:
        """Step limit (the suite's) and how many episodes the table holds from ``start``."""
        return {"max_steps": self.suite.max_steps, "max_episodes_per_task": len(self._rows)}

    def get_metric_keys(self) -> dict[str, str]:
        """Means of the TSR, GSR and correct-choice flags."""
        return {"success": "mean", "grasped": "mean", "correct_choice": "mean"}

    def get_action_spec(self) -> dict[str, DimSpec]:
        """14-D joint positions (see the module docstring)."""
        return dict(ACTION_SPEC)

    def get_observation_spec(self) -> dict[str, DimSpec]:
        """Three RGB cameras, the 14-D state and the instruction."""
        return {
            **{name: IMAGE_RGB for name in CAMERA_NAMES.values()},
            "state": STATE_SPEC,
            "language": LANGUAGE,
        }

    def reset(self, task: Task) -> Any:
        """Reset the env on the table row of ``task["episode_idx"]``."""
        k = int(task.get("episode_idx", 0))
        if not 0 <= k < len(self._rows):
            raise RsbError(
                f"episode {k}: {self.suite.name} {self.split} has {len(self._rows)} rows from "
                f"row {self.start} (episodes_per_task <= {len(self._rows)})"
            )
        if self._env is None:
            import gymnasium

            import rsb_mj  # noqa: F401  (registers the ids)

            self._env = gymnasium.make(self.suite.env_id, **self._env_kwargs)
        obs, info = self._env.reset(options={"episode": self._rows[k]})
        self._instruction = info["instruction"]
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
        obs, reward, terminated, truncated, info = self._env.step(arr)
        return StepResult(
            obs=obs, reward=float(reward), done=bool(terminated or truncated), info=info
        )

    def make_obs(self, raw_obs: Any, task: Task) -> Observation:
        """ALOHA-named images, float32 state, the instruction."""
        return {
            "images": {CAMERA_NAMES[c]: img for c, img in raw_obs.get("images", {}).items()},
            "state": np.asarray(raw_obs["state"], np.float32),
            "task_description": self._instruction,
        }

    def get_step_result(self, step_result: StepResult) -> EpisodeResult:
        """The one-attempt outcome of the episode so far."""
        out = self._env.unwrapped.scorer.outcome
        episode = self._env.unwrapped.episode
        letter = {obj: k for k, obj in episode.mapping.items()}.get(out.choice or "", "")
        return {
            "success": bool(step_result.info.get("is_success", out.success)),
            "grasped": bool(out.grasped),
            "correct_choice": bool(out.correct_choice),
            "choice": letter,
            "choices": len(episode.options),
        }

    def cleanup(self) -> None:
        """Close the env (its GL contexts)."""
        if self._env is not None:
            self._env.close()
            self._env = None


__all__ = ["ACTION_SPEC", "CAMERA_NAMES", "SUITES", "RsbBenchmark", "config_path"]
