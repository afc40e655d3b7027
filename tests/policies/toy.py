"""User policies for module:factory tests (importable as ``policies.toy``)."""

import numpy as np

from rsb_mj.policies import NoopPolicy


class Doubler:
    """Commands twice the state; reads the head camera only."""

    cameras = ("head",)

    def reset(self, env, obs, info):
        self.instruction = info["instruction"]

    def act(self, obs):
        return 2 * np.asarray(obs["state"])


def make():
    """A plain object with act/reset."""
    return Doubler()


def make_noop():
    """A real Policy subclass."""
    return NoopPolicy()


def not_a_policy():
    """Returns something that cannot act."""
    return 42
