"""``lerobot:PATH`` without lerobot: the spec, the checkpoint's config, the convention of its
training data, and the error that names the extra (the venv tests in tests/lerobot_venv run
a real checkpoint)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.policies.lerobot import (
    FORM,
    LeRobotPolicy,
    Spec,
    check_spec,
    episode_seed,
    parse_spec,
    read_checkpoint,
)
from rsb_mj.policies.spec import make_policy

IMAGE = {"type": "VISUAL", "shape": [3, 48, 64]}
VECTOR = {"type": "STATE", "shape": [14]}


def write_checkpoint(folder, *, inputs=None, action_shape=(14,), dataset=None, info=None):
    """A ``pretrained_model`` folder with a config.json (and a train_config.json naming a
    dataset whose meta/info.json is ``info``)."""
    folder.mkdir(parents=True)
    inputs = inputs or {
        "observation.images.cam_high": IMAGE,
        "observation.images.cam_right_wrist": IMAGE,
        "observation.state": VECTOR,
    }
    config = {
        "type": "act",
        "input_features": inputs,
        "output_features": {"action": {"type": "ACTION", "shape": list(action_shape)}},
    }
    (folder / "config.json").write_text(json.dumps(config))
    if dataset is not None:
        (folder / "train_config.json").write_text(json.dumps({"dataset": {"root": str(dataset)}}))
        if info is not None:
            (dataset / "meta").mkdir(parents=True)
            (dataset / "meta" / "info.json").write_text(json.dumps(info))
    return folder


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("lerobot:ckpt", Spec(Path("ckpt"))),
        ("lerobot:/a/b,device=cuda", Spec(Path("/a/b"), "cuda")),
        (
            "lerobot:c,device=cuda:1,convention=rsb",
            Spec(Path("c"), "cuda:1", "rsb"),
        ),
    ],
)
def test_spec_forms(spec, parsed):
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("lerobot:", r"no checkpoint path \(lerobot:PATH\[,device=cuda\]"),
        ("lerobot:c,gpu=1", r"unknown option 'gpu=1' .*; valid keys: device, convention"),
        ("lerobot:c,device=tpu", r"device 'tpu'; valid choices: cpu, cuda, cuda:N"),
        ("lerobot:c,convention=pi", r"convention 'pi'; valid choices: aloha, rsb"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(EvalError, match=message):
        parse_spec(spec)
    with pytest.raises(EvalError, match=message):
        make_policy(spec)


def test_the_checkpoint_folder_or_its_pretrained_model(tmp_path):
    ckpt = write_checkpoint(tmp_path / "last" / "pretrained_model")
    for path in (ckpt, ckpt.parent):
        found = read_checkpoint(f"lerobot:{path}")
        assert found.path == ckpt and found.policy_type == "act"
        assert found.cameras == ("head", "right_wrist")  # only what the policy reads
        assert found.image_hw == {"head": (48, 64), "right_wrist": (48, 64)}
    with pytest.raises(EvalError, match=r"holds no LeRobot checkpoint \(no config\.json\)"):
        read_checkpoint(f"lerobot:{tmp_path}")


def test_an_instruction_vector_input_is_read_with_its_length(tmp_path):
    inputs = {
        "observation.images.cam_high": IMAGE,
        "observation.state": VECTOR,
        "observation.environment_state": {"type": "ENV", "shape": [64]},
    }
    found = read_checkpoint(f"lerobot:{write_checkpoint(tmp_path / 'c', inputs=inputs)}")
    assert (found.cameras, found.instruction_dim) == (("head",), 64)
    plain = read_checkpoint(f"lerobot:{write_checkpoint(tmp_path / 'p')}")
    assert plain.instruction_dim == 0


def test_a_checkpoint_trained_on_fixture_joints_is_refused(tmp_path):
    """An ENV input learnt from an export whose ``observation.environment_state`` holds a
    tier-B scene's fixture joints (its ``meta/info.json`` says so) is not fed the instruction
    vector of the same length; the same input from an instruction-features export is."""
    inputs = {"observation.state": VECTOR, "observation.environment_state": {"type": "ENV",
              "shape": [2]}}  # fmt: skip
    held = {"holds": "fixture_joints", "names": ["cabinet/top", "stove/knob"]}
    ckpt = write_checkpoint(
        tmp_path / "c", inputs=inputs, dataset=tmp_path / "ds",
        info={"rsb_environment_state": held},
    )  # fmt: skip
    with pytest.raises(EvalError) as exc:
        read_checkpoint(f"lerobot:{ckpt}")
    assert str(exc.value) == (
        f"{ckpt / 'config.json'}: its observation.environment_state input was trained on "
        "fixture joint positions (cabinet/top, stove/knob), privileged state rsb eval does not "
        "give a policy; train on an export made with rsb export-lerobot --no-fixture-joints"
    )
    plain = write_checkpoint(tmp_path / "p", inputs=inputs, dataset=tmp_path / "ds2", info={})
    assert read_checkpoint(f"lerobot:{plain}").instruction_dim == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"inputs": {"observation.images.top": IMAGE}},
            r"image feature 'observation.images.top' is not an rsb_mj camera; valid choices: "
            r"observation.images.cam_high, observation.images.cam_left_wrist, "
            r"observation.images.cam_right_wrist",
        ),
        (
            {"inputs": {"observation.state": {"type": "STATE", "shape": [7]}}},
            r"observation.state has shape \[7\]; rsb_mj's is \[14\]",
        ),
        (
            {"inputs": {"observation.velocity": {"type": "STATE", "shape": [9]}}},
            r"input feature 'observation.velocity' is not one rsb_mj provides; valid choices: "
            r".*observation.state, observation.environment_state",
        ),
        (
            {"inputs": {"observation.environment_state": {"type": "ENV", "shape": [2, 3]}}},
            r"observation.environment_state has shape \[2, 3\]; rsb_mj's is \[DIM\] "
            r"\(rsb export-lerobot --instruction-features DIM\)",
        ),
        ({"action_shape": (7,)}, r"output 'action' has shape \[7\]; rsb_mj's action is \[14\]"),
    ],
)
def test_checkpoints_rsb_mj_cannot_feed_are_refused(tmp_path, kwargs, message):
    ckpt = write_checkpoint(tmp_path / "ckpt", **kwargs)
    with pytest.raises(EvalError, match=message):
        read_checkpoint(f"lerobot:{ckpt}")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            '{"type": "act", "input_features": {"observation.state": 14}, '
            '"output_features": {"action": {"shape": [14]}}}',
            r"config\.json: input_features\.observation\.state is 14; a feature is an object "
            r'with "type" and "shape", e\.g\. \{"type": "STATE", "shape": \[14\]\}$',
        ),
        (
            '{"type": "act", "input_features": {"observation.state": {"shape": "a"}}, '
            '"output_features": {"action": {"shape": [14]}}}',
            r'config\.json: input_features\.observation\.state: shape is "a"; expected a list '
            r"of non-negative integers, e\.g\. \[14\]$",
        ),
        (
            '{"type": "act", "input_features": {"observation.state": {"shape": [1e400]}}, '
            '"output_features": {"action": {"shape": [14]}}}',
            r"input_features\.observation\.state: shape is \[Infinity\]; expected a list",
        ),
        (
            '{"type": "act", "input_features": {"observation.state": {"shape": ["a"]}}, '
            '"output_features": {"action": {"shape": [14]}}}',
            r'input_features\.observation\.state: shape is \["a"\]; expected a list',
        ),
        (
            '{"type": "act", "input_features": {}, "output_features": {"action": 1e400}}',
            r"config\.json: output_features\.action is Infinity; a feature is an object",
        ),
        (
            '{"type": "act", "input_features": {}, '
            '"output_features": {"action": {"type": 3, "shape": [14]}}}',
            r'output_features\.action: type is 3; expected a string such as "STATE"',
        ),
    ],
)
def test_malformed_features_are_named_not_a_traceback(tmp_path, config, message):
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "config.json").write_text(config)
    with pytest.raises(EvalError, match=message):
        read_checkpoint(f"lerobot:{ckpt}")
    with pytest.raises(EvalError, match=message):
        make_policy(f"lerobot:{ckpt}")


def test_a_dataset_info_that_is_not_an_object_reads_as_unnamed(tmp_path):
    ckpt = write_checkpoint(tmp_path / "a", dataset=tmp_path / "ds", info=[1, 2])
    assert read_checkpoint(f"lerobot:{ckpt}").convention == "rsb"


def test_the_convention_comes_from_the_training_dataset(tmp_path):
    named = write_checkpoint(
        tmp_path / "a", dataset=tmp_path / "ds_a", info={"rsb_convention": {"name": "aloha"}}
    )
    assert read_checkpoint(f"lerobot:{named}").convention == "aloha"
    assert read_checkpoint(f"lerobot:{named},convention=rsb").convention == "rsb"
    unnamed = write_checkpoint(tmp_path / "b", dataset=tmp_path / "ds_b", info={"fps": 20})
    assert read_checkpoint(f"lerobot:{unnamed}").convention == "rsb"  # exported before names
    gone = write_checkpoint(tmp_path / "c", dataset=tmp_path / "missing")
    assert read_checkpoint(f"lerobot:{gone}").convention == "aloha"  # the export's own
    odd = write_checkpoint(
        tmp_path / "d", dataset=tmp_path / "ds_d", info={"rsb_convention": {"name": "libero"}}
    )
    with pytest.raises(EvalError, match=r"convention 'libero', which rsb_mj does not know"):
        read_checkpoint(f"lerobot:{odd}")


def test_without_lerobot_the_error_names_the_extra(tmp_path, monkeypatch):
    ckpt = write_checkpoint(tmp_path / "ckpt")
    monkeypatch.setitem(sys.modules, "lerobot", None)  # as if it were not installed
    expected = r"lerobot is not installed in this Python .*pip install 'rsb_mj\[lerobot-policy\]'"
    with pytest.raises(EvalError, match=expected):
        LeRobotPolicy(f"lerobot:{ckpt}")
    with pytest.raises(EvalError, match=expected):
        make_policy(f"lerobot:{ckpt}")
    with pytest.raises(EvalError, match=expected):
        check_spec(f"lerobot:{ckpt}")


def test_rsb_eval_checks_the_spec_before_any_episode(tmp_path, monkeypatch, capsys):
    from rsb_mj.cli import main

    ckpt = write_checkpoint(tmp_path / "ckpt")
    monkeypatch.setitem(sys.modules, "lerobot", None)
    argv = ["eval", "--suite", "RSB-Math-4", "--episodes", "1", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--policy", f"lerobot:{tmp_path}"]) == 2
    assert f"{tmp_path} holds no LeRobot checkpoint (no config.json)" in capsys.readouterr().err
    assert main([*argv, "--out", str(tmp_path / "b"), "--policy", f"lerobot:{ckpt}"]) == 2
    assert "pip install 'rsb_mj[lerobot-policy]'" in capsys.readouterr().err
    assert not (tmp_path / "b" / "episodes.jsonl").exists()


def test_the_form_is_listed_among_the_valid_policies():
    with pytest.raises(EvalError, match=r"lerobot:PATH\[,KEY=VALUE\.\.\.\]"):
        make_policy("lerobot-ish")
    assert FORM == "lerobot:PATH[,device=cuda][,convention=aloha|rsb]"


def test_episode_seed_depends_on_instruction_and_candidates():
    a = episode_seed("pick 3", ("block_a", "block_b"))
    assert a == episode_seed("pick 3", ("block_a", "block_b"))
    assert a != episode_seed("pick 4", ("block_a", "block_b"))
    assert a != episode_seed("pick 3", ("block_b", "block_a"))
    assert 0 <= a < 2**63
