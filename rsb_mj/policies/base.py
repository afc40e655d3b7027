"""The policy interface every evaluated policy implements.

The runner calls ``reset(env, obs, info)`` once per episode (``info["instruction"]`` is the
instruction; built-in oracle policies may read ``info["episode"]`` and the privileged
``env.unwrapped``; learned policies must not), then ``act(obs)`` until the episode ends.
``act`` returns one action, float (14,) joint positions ``[left 6 (rad), left gripper,
right 6 (rad), right gripper]`` with grippers 0 closed .. 1 open, or a chunk (H, 14) that
the runner executes row by row before asking again.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

#: Dimension of one action (and of the state).
ACTION_DIM = 14


class Policy(ABC):
    """A policy evaluated by ``rsb eval``.

    Attributes:
        name: the spec it was built from (recorded in every episode record).
        cameras: cameras the policy reads (``()`` renders nothing: much faster).
    """

    name: str = "policy"
    cameras: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Start an episode: ``obs``/``info`` as returned by ``env.reset``."""

    @abstractmethod
    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """Next action (14,) or chunk (H, 14) for observation ``obs``."""

    @property
    def done(self) -> bool:
        """True when the policy has nothing left to do (the runner may end the episode)."""
        return False

    def close(self) -> None:  # noqa: B027 - most policies hold nothing
        """Release resources (connections) when the run ends."""


def episode_rng(info: dict[str, Any], name: str) -> np.random.Generator:
    """The policy's generator for this episode: seeded by the episode seed and ``name``.

    Same episode and policy, same draws, whichever worker runs it and in whatever order.
    """
    seed = int(info["episode"]["seed"])
    return np.random.default_rng([seed, zlib.crc32(name.encode())])
