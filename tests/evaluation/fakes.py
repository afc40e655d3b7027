"""A deterministic stand-in for ``RsbEnv`` and a toy policy, for runner tests without MuJoCo.

The fake "physics": when action[6] (left gripper) < 0.5 the left gripper holds candidate
``int(action[0])`` (pinched, lifted 5 cm); opening it with action[1] > 0.5 drops the held
candidate into the answer zone. Signals have the shapes of contract 5.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.lang.layout import Pose2D
from rsb_mj.policies.base import Policy
from rsb_mj.tables.episode_source import Source

S = 25


def make_episode(
    suite: str = "RSB-Math-4", split: str = "eval", index: int = 0, tables: object = None
) -> Episode:
    """A valid 4-choice episode; the correct option rotates with the index (``tables``, the
    private tables load_episode takes, is ignored: the fake has none)."""
    letters = ("A", "B", "C", "D")
    blocks = ("block_a", "block_b", "block_c", "block_d")
    return Episode.bound(
        suite=suite,
        split=split,
        index=index,
        seed=1000 + index,
        task="rsb_math_4.bddl",
        question_id=f"arith-eval-{index}",
        question=f"what is {index} plus 1?",
        options=tuple(str(index + k) for k in range(4)),
        correct=letters[index % 4],
        mapping=dict(zip(letters, blocks[::-1], strict=True)),
        colors=dict(zip(blocks, ("red", "green", "blue", "yellow"), strict=True)),
        layout={b: Pose2D(-0.15 + 0.1 * i, -0.05, 0.0) for i, b in enumerate(blocks)},
        template_id="unseen-4-00",
        instruction=f"what is {index} plus 1? place the correct block in the gray zone",
    )


class FakeEnv:
    """Signals-only environment (see the module docstring)."""

    def __init__(self, suite: str = "", split: str = "eval", cameras: tuple[str, ...] = ()):
        self.cameras = cameras
        self.closed = False

    def _obs(self) -> dict[str, Any]:
        images = {c: np.full((24, 32, 3), 7, dtype=np.uint8) for c in self.cameras}
        return {"state": np.zeros(14), "images": images}

    def _signals(self, s: int) -> dict[str, np.ndarray]:
        n = len(self.candidates)
        sig = {
            "contact": np.zeros((s, n, 2), dtype=bool),
            "pinch": np.zeros((s, n, 2), dtype=bool),
            "table_contact": np.ones((s, n), dtype=bool),
            "gripper_cmd": np.full((s, 2), 1.0),
            "gripper_open": np.full((s, 2), 1.0),
            "lift": np.zeros((s, n)),
            "in_zone": np.zeros((s, n), dtype=bool),
        }
        sig["in_zone"][:, list(self.placed)] = True
        if self.held is not None:
            sig["contact"][:, self.held, 0] = sig["pinch"][:, self.held, 0] = True
            sig["table_contact"][:, self.held] = False
            sig["lift"][:, self.held] = 0.05
            sig["gripper_cmd"][:, 0] = 0.0
            sig["gripper_open"][:, 0] = 0.5
        return sig

    def _info(self, s: int) -> dict[str, Any]:
        return {
            "instruction": self.episode.instruction,
            "candidates": self.candidates,
            "step": self.steps,
            "signals": self._signals(s),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.episode = options["episode"]
        self.candidates = tuple(sorted(self.episode.layout))
        self.held, self.placed, self.steps = None, set(), 0
        return self._obs(), self._info(1)

    def step(self, action: np.ndarray):
        self.steps += 1
        if action[6] < 0.5:
            self.held = int(action[0])
        elif self.held is not None:
            if action[1] > 0.5:
                self.placed.add(self.held)
            self.held = None
        return self._obs(), 0.0, False, False, self._info(S)

    @property
    def unwrapped(self) -> FakeEnv:
        return self

    # What a SimView reads (a fake has no MuJoCo model).
    model = data = scene = None
    metadata: dict[str, Any] = {"render_fps": 20}  # noqa: RUF012

    def close(self) -> None:
        self.closed = True


def fake_env_factory(suite: str, split: str, cameras: tuple[str, ...]) -> FakeEnv:
    """Module-level factory (picklable) for ``run_eval(env_factory=...)``."""
    return FakeEnv(suite, split, cameras)


class FlakyEnv(FakeEnv):
    """A :class:`FakeEnv` whose simulator fails (``env.step`` raises) while the file named by
    ``RSB_TEST_FLAG`` exists, and each step sleeps while
    ``RSB_TEST_SLOW`` holds a delay [s]: faults outside the policy."""

    def step(self, action: np.ndarray):
        flag = os.environ.get("RSB_TEST_FLAG", "")
        if flag and Path(flag).exists():
            raise RuntimeError("the simulator went unstable")
        if os.environ.get("RSB_TEST_SLOW"):
            time.sleep(float(os.environ["RSB_TEST_SLOW"]))
        return super().step(action)


def flaky_env_factory(suite: str, split: str, cameras: tuple[str, ...]) -> FlakyEnv:
    """Module-level factory of :class:`FlakyEnv` (picklable)."""
    return FlakyEnv(suite, split, cameras)


class ToyPickPolicy(Policy):
    """Picks the candidate of option ``letter`` (None: the correct one, read through the
    privileged channel) and places it."""

    cameras = ()
    simulator = True

    def __init__(self, letter: str | None = None) -> None:
        self.letter = letter
        self.t = 0

    def reset(self, env, obs, info) -> None:
        if self.letter is None:
            target = env.answer
        else:
            target = {letter: cand for cand, letter in env.letters.items()}[self.letter]
        self.k = list(info["candidates"]).index(target)
        self.t = 0

    def act(self, obs) -> np.ndarray:
        self.t += 1
        a = np.zeros(14)
        a[0] = self.k
        a[6] = 0.0 if self.t <= 2 else 1.0
        a[1] = 1.0
        return a

    @property
    def done(self) -> bool:
        return self.t >= 4


class ToyOracle(ToyPickPolicy):
    """The toy policy on the correct option: privileged."""

    privileged = True


class TextPolicy(ToyPickPolicy):
    """Writes ``text`` with every action and picks option ``letter`` (None: the correct
    one), placing it unless ``place`` is False. Privileged only to be able to pick the
    correct one; the records it makes are what Table 5 reads."""

    privileged = True

    def __init__(self, letter: str | None, text: str, *, place: bool = True) -> None:
        super().__init__(letter)
        self._text, self.place = text, place

    @property
    def text(self) -> str | None:
        return self._text if self.t else None

    def act(self, obs) -> np.ndarray:
        a = super().act(obs)
        a[1] = 1.0 if self.place else 0.0
        return a


def oracle() -> ToyPickPolicy:
    """``module:factory`` entry: the toy oracle."""
    return ToyOracle()


def always_a() -> ToyPickPolicy:
    """``module:factory`` entry: always option A."""
    return ToyPickPolicy("A")


def fake_source_episode(source: Source, index: int) -> Episode:
    """:meth:`Source.episode` against the fakes (patch it in, the worker's one row lookup):
    :func:`make_episode` of the source's name and split."""
    return make_episode(source.name, source.split, index)
