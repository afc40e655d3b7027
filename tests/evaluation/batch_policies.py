"""Deterministic policies for the batching tests, batched (``act_batch``) and not.

Against the fake environment (:mod:`fakes`): each episode picks candidate ``k`` (from the
digits of its instruction), closes the left gripper on it for ``HOLD`` steps in chunks of
two rows, then opens it over the zone and reports ``done`` after ``RELEASE`` more actions; it
writes ``text`` naming its choice. :class:`Picker` is one episode at a time, :class:`BatchPicker`
the same policy batched (per-slot state), so both give the same actions for the same
episode. The other variants fail the episode whose instruction is the ``BATCH_FAIL``
environment variable ("episode 1" below) in a way a batched policy can; ``BATCH_LOG``
names a file each ``reset_slot`` and ``act_batch`` call appends its slots and episodes to.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from rsb_mj.policies.base import PolicyStatus

HOLD = 3
RELEASE = 2


def _choice(info) -> int:
    digits = [int(c) for c in str(info["instruction"]) if c.isdigit()]
    return sum(digits) % len(info["candidates"])


def _log(event: dict) -> None:
    path = os.environ.get("BATCH_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(event) + "\n")


class _Episode:
    def __init__(self, info) -> None:
        self.k, self.t = _choice(info), 0
        self.marked = str(info["instruction"]) == os.environ.get("BATCH_FAIL", "")

    def act(self) -> np.ndarray:
        rows = []
        for _ in range(2 if self.t < HOLD else 1):
            self.t += 1
            a = np.zeros(14)
            a[0] = self.k
            a[6] = 0.0 if self.t <= HOLD else 1.0
            a[1] = 1.0
            rows.append(a)
        return np.array(rows)

    @property
    def done(self) -> bool:
        return self.t >= HOLD + RELEASE

    @property
    def text(self) -> str:
        return f"I pick candidate {self.k} (option {'ABCD'[self.k]})"


class Picker:
    """The policy one episode at a time."""

    cameras = ()

    def reset(self, env, obs, info) -> None:
        self.episode = _Episode(info)

    def act(self, obs) -> np.ndarray:
        return self.episode.act()

    @property
    def done(self) -> bool:
        return self.episode.done

    @property
    def text(self) -> str:
        return self.episode.text

    def status(self) -> PolicyStatus:
        return PolicyStatus(phase=f"t{self.episode.t}")


class BatchPicker:
    """The same policy, batched: one :class:`_Episode` per slot."""

    cameras = ()
    batch_size = 8

    def __init__(self) -> None:
        self.slots: dict[int, _Episode] = {}
        self.instructions: dict[int, str] = {}

    def reset_slot(self, slot, env, obs, info) -> None:
        self.slots[slot] = _Episode(info)
        self.instructions[slot] = str(info["instruction"])
        _log({"reset": slot, "episode": self.instructions[slot]})

    def act_batch(self, obs, slots):
        _log({"act": list(slots), "episodes": [self.instructions[s] for s in slots]})
        return [self.item(slot) for slot in slots]

    def item(self, slot):
        return self.slots[slot].act()

    def slot_done(self, slot) -> bool:
        return self.slots[slot].done

    def slot_text(self, slot) -> str:
        return self.slots[slot].text

    def slot_status(self, slot) -> PolicyStatus:
        return PolicyStatus(phase=f"t{self.slots[slot].t}")


class BatchHolder(BatchPicker):
    """Never done: after its release it keeps asking (one row per call) to the limit."""

    def slot_done(self, slot) -> bool:
        return False


class FailsEpisodeOne(BatchPicker):
    """Episode 1 gets an exception in its place; the others are answered."""

    def item(self, slot):
        if self.slots[slot].marked:
            return RuntimeError("no action for episode 1")
        return super().item(slot)


class NanForEpisodeOne(BatchPicker):
    """Episode 1 gets a NaN action (refused by the runner); the others are answered."""

    def item(self, slot):
        action = super().item(slot)
        if self.slots[slot].marked:
            action[0, 3] = np.nan
        return action


class RaisesWithEpisodeOne(BatchPicker):
    """``act_batch`` raises when episode 1 is in the call: every episode of it fails."""

    def act_batch(self, obs, slots):
        if any(self.slots[s].marked for s in slots):
            raise ValueError("the GPU fell over")
        return super().act_batch(obs, slots)


class HangsWithEpisodeOne(BatchPicker):
    """``act_batch`` never answers in time once episode 1 is in the call."""

    def act_batch(self, obs, slots):
        if any(self.slots[s].marked for s in slots):
            time.sleep(30)
        return super().act_batch(obs, slots)


def picker() -> Picker:
    return Picker()


def batch_picker() -> BatchPicker:
    return BatchPicker()


def batch_holder() -> BatchPicker:
    return BatchHolder()


def fails_episode_one() -> BatchPicker:
    return FailsEpisodeOne()


def nan_for_episode_one() -> BatchPicker:
    return NanForEpisodeOne()


def raises_with_episode_one() -> BatchPicker:
    return RaisesWithEpisodeOne()


def hangs_with_episode_one() -> BatchPicker:
    return HangsWithEpisodeOne()


def no_reset_slot():
    """An object with act_batch but no reset_slot (refused when built)."""

    class Half:
        def act_batch(self, obs, slots):
            return [np.ones(14) for _ in slots]

    return Half()
