"""Policy specs: built-ins, openpi and module:factory forms, and their errors."""

import numpy as np
import pytest

from rsb_mj.errors import EvalError
from rsb_mj.policies import (
    ExpertPolicy,
    NearestPolicy,
    NoopPolicy,
    OpenPiPolicy,
    RandomGraspPolicy,
    make_policy,
)
from rsb_mj.policies.spec import UserPolicy, policy_cameras


def test_builtins_by_name():
    assert [type(make_policy(n)) for n in ("noop", "expert", "random-grasp", "nearest")] == [
        NoopPolicy, ExpertPolicy, RandomGraspPolicy, NearestPolicy,
    ]  # fmt: skip
    assert make_policy("random-grasp").name == "random-grasp"
    assert policy_cameras("expert") == () and policy_cameras("openpi:h:1") == (
        "head", "left_wrist", "right_wrist",
    )  # fmt: skip


def test_openpi_spec_parts():
    p = make_policy("openpi:gpu-box:8000:25")
    assert isinstance(p, OpenPiPolicy)
    assert (p.host, p.port, p.horizon, p.name) == ("gpu-box", 8000, 25, "openpi:gpu-box:8000")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openpi:host", r"expected openpi:HOST:PORT\[:HORIZON\]"),
        ("openpi:host:http", r"PORT and HORIZON must be integers"),
        ("openpi:host:70000", r"port must be 1-65535"),
        ("greedy", r"unknown policy 'greedy'; valid choices: noop, expert, random-grasp, nearest"),
        ("no_such_mod:make", r"cannot import 'no_such_mod'"),
        ("policies.toy:missing", r"policies.toy has no callable 'missing'"),
        ("policies.toy:not_a_policy", r"not_a_policy\(\) returned an object without act\(obs\)"),
    ],
)
def test_bad_specs_are_explained(spec, message):
    with pytest.raises(EvalError, match=message):
        make_policy(spec)


def test_user_factory_objects_are_adapted():
    p = make_policy("policies.toy:make")
    assert isinstance(p, UserPolicy) and p.name == "policies.toy:make"
    assert p.cameras == ("head",)
    p.reset(None, {"state": np.ones(14)}, {"instruction": "x"})
    np.testing.assert_array_equal(p.act({"state": np.ones(14)}), np.full(14, 2.0))
    assert p.done is False


def test_user_factory_returning_a_policy_keeps_it_and_renames_it():
    p = make_policy("policies.toy:make_noop")
    assert isinstance(p, NoopPolicy) and p.name == "policies.toy:make_noop"
