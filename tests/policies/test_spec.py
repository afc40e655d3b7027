"""Policy specs: built-ins, openpi, module:factory and inprocess: forms, and their errors."""

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
from rsb_mj.policies.child import ChildPolicy
from rsb_mj.policies.spec import PREFIXES, check_spec, policy_cameras
from rsb_mj.policies.user import UserPolicy


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
        ("inprocess:no_such_mod:make", r"cannot import 'no_such_mod'"),
        ("inprocess:policies.toy:missing", r"policies.toy has no callable 'missing'"),
        (
            "inprocess:policies.toy:not_a_policy",
            r"not_a_policy\(\) returned an object without act\(obs\)",
        ),
        ("inprocess:toy", r"expected inprocess:module:factory or inprocess:path/to/file.py"),
        # in a policy process: the same causes, as a failed build
        (
            "policies.toy:missing",
            r"^policy policies.toy:missing: building it failed: EvalError: policy "
            r"'policies.toy:missing': policies.toy has no callable 'missing'$",
        ),
    ],
)
def test_bad_specs_are_explained(spec, message):
    with pytest.raises(EvalError, match=message):
        make_policy(spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_mod:make", r"cannot import 'no_such_mod': no such module on the Python path"),
        ("inprocess:no_such_mod:make", r"cannot import 'no_such_mod': no such module"),
        ("missing/dir/policy.py:make", r"missing/dir/policy.py: no such file \(relative to "),
        ("openpi:host", r"expected openpi:HOST:PORT\[:HORIZON\]"),
        ("greedy", r"unknown policy 'greedy'; valid choices: noop, expert, random-grasp"),
    ],
)
def test_specs_are_checked_without_running_user_code(spec, message):
    with pytest.raises(EvalError, match=message):
        check_spec(spec)


def test_the_forms_are_a_registry_and_the_error_lists_every_one():
    assert list(PREFIXES) == ["openpi:", "lerobot:", "inprocess:"]
    with pytest.raises(EvalError) as err:
        make_policy("greedy")
    assert str(err.value) == (
        "unknown policy 'greedy'; valid choices: noop, expert, random-grasp, nearest, try-all, "
        "nearest-to-zone, fixed-letter, fixed-position, openpi:HOST:PORT[:HORIZON][,KEY=VALUE...], "
        "lerobot:PATH[,KEY=VALUE...], inprocess:module:factory, module:factory, "
        "path/to/file.py:factory"
    )


def test_user_factory_objects_are_adapted_in_process_and_marked():
    p = make_policy("inprocess:policies.toy:make")
    assert isinstance(p, UserPolicy) and p.name == "inprocess:policies.toy:make"
    assert p.cameras == ("head",) and p.marked and not p.privileged
    p.reset(None, {"state": np.ones(14)}, {"instruction": "x"})
    np.testing.assert_array_equal(p.act({"state": np.ones(14)}), np.full(14, 2.0))
    assert p.done is False


def test_user_factory_returning_a_policy_keeps_it_renames_and_marks_it():
    p = make_policy("inprocess:policies.toy:make_noop")
    assert isinstance(p, NoopPolicy) and p.name == "inprocess:policies.toy:make_noop"
    assert p.marked and not NoopPolicy().marked


def test_a_user_spec_runs_in_a_policy_process():
    p = make_policy("policies.toy:make")
    try:
        assert isinstance(p, ChildPolicy) and p.name == "policies.toy:make"
        assert p.cameras == ("head",) and not p.marked
    finally:
        p.close()
