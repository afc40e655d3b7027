"""noop holds the joint positions observed at reset."""

import numpy as np

from rsb_mj.policies import NoopPolicy


def test_noop_holds_the_reset_state():
    policy = NoopPolicy()
    start = np.arange(14.0)
    policy.reset(None, {"state": start}, {})
    start[0] = 99.0  # the caller's array may change; the hold does not
    out = policy.act({"state": np.zeros(14)})
    assert out.shape == (14,) and out[0] == 0.0 and out[13] == 13.0
    assert policy.done is False
