"""User policies (``module:factory`` specs) that fail in every way a user's code can.

Each factory is a ``--policy evaluation.user_policies:NAME`` entry. ``ok`` holds the grippers
open and never grasps (so it ends at the step limit); the others fail in one place. The
``*_if_flagged`` ones fail only while the file named by ``RSB_TEST_FLAG`` exists, so a test
can make a run fail and its resume succeed; ``crash_once_if_flagged`` removes the file as it
crashes, so exactly one worker dies.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np


def _flagged() -> bool:
    flag = os.environ.get("RSB_TEST_FLAG", "")
    return bool(flag) and Path(flag).exists()


class Open:
    """Grippers open, arms at zero: never grasps."""

    cameras = ()

    def reset(self, env, obs, info) -> None:
        pass

    def act(self, obs) -> np.ndarray:
        return np.ones(14)


class RaisesInAct(Open):
    def act(self, obs):
        raise ValueError("no action today")


class RaisesInReset(Open):
    def reset(self, env, obs, info) -> None:
        raise KeyError("weights")


class ReturnsString(Open):
    def act(self, obs):
        return "left"


class Ragged(Open):
    def act(self, obs):
        return [[0.0] * 14, [0.0] * 3]


class Exits(Open):
    def act(self, obs):
        raise SystemExit(4)


class Hangs(Open):
    def act(self, obs):
        time.sleep(30)  # a policy that never answers in time
        return super().act(obs)


class CrashIfFlagged(Open):
    def act(self, obs):
        if _flagged():
            os._exit(9)  # the worker process dies (as if killed or crashed in native code)
        return super().act(obs)


class CrashOnceIfFlagged(Open):
    def act(self, obs):
        flag = os.environ.get("RSB_TEST_FLAG", "")
        if flag:
            try:
                Path(flag).unlink()  # only one process gets to remove it: one crash
            except FileNotFoundError:
                pass
            else:
                os._exit(9)
        return super().act(obs)


class FailIfFlagged(Open):
    def act(self, obs):
        if _flagged():
            raise ConnectionError("lost the GPU")
        return super().act(obs)


def ok() -> Open:
    return Open()


def raises_in_act() -> Open:
    return RaisesInAct()


def raises_in_reset() -> Open:
    return RaisesInReset()


def returns_string() -> Open:
    return ReturnsString()


def ragged() -> Open:
    return Ragged()


def system_exit() -> Open:
    return Exits()


def factory_raises() -> Open:
    raise RuntimeError("weights not found")


def factory_exits() -> Open:
    raise SystemExit(1)


def hangs() -> Open:
    return Hangs()


def crash_if_flagged() -> Open:
    return CrashIfFlagged()


def crash_once_if_flagged() -> Open:
    return CrashOnceIfFlagged()


def fail_if_flagged() -> Open:
    return FailIfFlagged()
