"""A vla-eval model server that replays recorded demonstrations open loop.

For smoke runs and tests of the vla-eval plugin: it answers each observation with the next
action of the demonstration whose instruction equals the observation's
``task_description`` (an HDF5 folder written by ``rsb demos``), and holds the last action
after the recording ends. Actions go out in ``convention`` (the benchmark's, by default the
export's: ``aloha``), as a model trained on the exported demos would send them. It sees
only what any policy sees (the instruction); it runs no expert and reads no answer.

    python -m rsb_mj.integrations.vla_eval_replay --args.demo_dir DEMOS --port 8765

It batches like a GPU model server of vla-eval: with ``--args.max_batch_size N`` vla-eval's
``PredictModelServer`` gathers the observations of up to N sessions (shards) that wait at
once (``--args.max_wait_time`` seconds at most) into one :meth:`DemoReplayServer.
predict_batch` call, each answered from its own session's cursor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from vla_eval.model_servers.base import SessionContext
from vla_eval.model_servers.predict import PredictModelServer
from vla_eval.specs import IMAGE_RGB, LANGUAGE, DimSpec
from vla_eval.types import Action, Observation

from rsb_mj.datasets.demo_file import read_demo
from rsb_mj.datasets.lerobot import CONVENTION, find_demos
from rsb_mj.integrations.vla_eval import ACTION_SPEC, STATE_SPEC
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.workspace import ALOHA_CAMERA_NAMES as CAMERA_NAMES


class DemoReplayServer(PredictModelServer):
    """Replays the actions of recorded demonstrations, chosen by instruction.

    Args:
        demo_dir: folder of ``episode_*.hdf5`` demonstrations.
        convention: the actions' convention (the benchmark's ``convention``).
        max_batch_size: sessions answered in one ``predict_batch`` call (> 1: vla-eval's
            batched dispatch); max_wait_time: seconds it waits for a full batch.
    """

    def __init__(
        self,
        demo_dir: str = "",
        convention: str = CONVENTION.name,
        max_batch_size: int = 1,
        max_wait_time: float = 0.01,
        **kwargs: Any,
    ) -> None:
        """Read the demonstrations of ``demo_dir`` (see the class docstring)."""
        kwargs.setdefault("chunk_size", 1)
        super().__init__(max_batch_size=max_batch_size, max_wait_time=max_wait_time, **kwargs)

        self._actions: dict[str, np.ndarray] = {}
        for path in find_demos(Path(demo_dir)):
            demo = read_demo(path, images=False)
            actions = get_convention(convention).actions_to_server(np.asarray(demo.actions))
            self._actions[str(demo.attrs["instruction"])] = np.asarray(actions, np.float32)
        self._cursor: dict[tuple[str, str], tuple[str, int]] = {}

    def get_action_spec(self) -> dict[str, DimSpec]:
        """14-D joint positions."""
        return dict(ACTION_SPEC)

    def get_observation_spec(self) -> dict[str, DimSpec]:
        """The instruction (images and state are accepted and ignored)."""
        return {
            **{n: IMAGE_RGB for n in CAMERA_NAMES.values()},
            "state": STATE_SPEC,
            "language": LANGUAGE,
        }

    async def on_episode_end(self, result: dict[str, Any], ctx: SessionContext) -> None:
        """Forget the episode's cursor."""
        self._cursor.pop((ctx.session_id, ctx.episode_id), None)
        await super().on_episode_end(result, ctx)

    def predict_batch(
        self, obs_batch: list[Observation], ctx_batch: list[SessionContext]
    ) -> list[Action]:
        """One answer per session of the batch, each from its own cursor."""
        return [self.predict(obs, ctx) for obs, ctx in zip(obs_batch, ctx_batch, strict=True)]

    def predict(self, obs: Observation, ctx: SessionContext | None = None) -> Action:
        """The next recorded action of the demo with this instruction."""
        key = (ctx.session_id, ctx.episode_id) if ctx is not None else ("", "")
        instruction, step = self._cursor.get(key, (str(obs.get("task_description", "")), 0))
        actions = self._actions.get(instruction)
        if actions is None:
            raise ValueError(f"no recorded demonstration for the instruction {instruction[:80]!r}")
        self._cursor[key] = (instruction, step + 1)
        return {"actions": actions[min(step, len(actions) - 1)].copy()}


if __name__ == "__main__":  # pragma: no cover - a server process
    from vla_eval.model_servers.serve import run_server

    run_server(DemoReplayServer)
