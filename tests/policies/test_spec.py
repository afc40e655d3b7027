"""Policy specs: built-ins, openpi, module:factory and inprocess: forms, and their errors."""

from pathlib import Path

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
        "nearest-to-zone, fixed-letter, fixed-position, random, "
        "openpi:HOST:PORT[:HORIZON][,KEY=VALUE...], "
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


def test_a_factory_typo_is_caught_at_start_up_listing_the_factories(monkeypatch):
    # issue 36: examples/my_policy.py:mak ran 4 episodes into error records, exit 3
    monkeypatch.chdir(Path(__file__).parents[2])
    with pytest.raises(EvalError) as err:
        check_spec("examples/my_policy.py:mak")
    assert str(err.value) == (
        "policy 'examples/my_policy.py:mak': examples/my_policy.py defines no 'mak'; "
        "callables that look like factories: make, MyPolicy"
    )
    with pytest.raises(EvalError, match=r"policies.toy defines no 'missing'; callables that"):
        check_spec("policies.toy:missing")  # the module form, found on the path
    check_spec("examples/my_policy.py:make")
    check_spec("examples/my_policy.py:MyPolicy")


@pytest.mark.parametrize("spec", ["examples/my_policy.py", "examples/my_policy.py:"])
def test_a_policy_file_without_a_factory_says_how_to_name_one(spec, monkeypatch):
    monkeypatch.chdir(Path(__file__).parents[2])
    with pytest.raises(EvalError) as err:
        check_spec(spec)
    assert str(err.value) == (
        f"policy {spec!r}: name the function that builds the policy after a colon, e.g. "
        "examples/my_policy.py:make (callables that look like factories: make, MyPolicy)"
    )


def test_the_static_check_reads_the_source_and_leaves_dynamic_modules_alone(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def make(:\n    pass\n")
    with pytest.raises(EvalError, match=r"bad.py:1:10: syntax error: "):
        check_spec(f"{bad}:make")
    made = tmp_path / "made.py"
    made.write_text(
        "import json as make_json\nif True:\n    make = lambda: None\n"
        "try:\n    import x\nexcept ImportError:\n    other = 1\n"
    )
    for name in ("make", "make_json", "other", "x"):
        check_spec(f"{made}:{name}")  # bound at the top level in some branch
    with pytest.raises(EvalError, match=r"defines no 'y'; no callable of .* looks like a "):
        check_spec(f"{made}:y")
    star = tmp_path / "star.py"
    star.write_text("from os.path import *\n")
    check_spec(f"{star}:join")  # a star import: judged when the policy process imports it
