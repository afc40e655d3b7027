"""Perturbations through the public entry points: gym.make, rsb render, rsb eval, the expert."""

from __future__ import annotations

import json

import cv2
import gymnasium as gym
import pytest

import rsb_mj  # noqa: F401  (registers the envs)
from rsb_mj.cli import main
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.evaluation.worker import SettingsEnvFactory


def test_gym_make_levels_perturb_the_reported_instruction_not_the_episode():
    env = gym.make(
        "rsb_mj/RSB-Math-4-v0",
        visual_level=1,
        language_level=3,
        cameras=(),
        disable_env_checker=True,
    )
    try:
        _, info = env.reset(seed=3)
        episode = env.unwrapped.episode
        p = info["sim"]["perturbation"]
        assert p["visual_level"] == 1 and p["language_level"] == 3
        assert p["language"]["substituted"] == 3
        assert info["instruction"] != episode.instruction
        for sub in p["language"]["substitutions"]:
            assert sub["substitute"] in info["instruction"]
        # the episode (table row) keeps its text; the question part is shared
        assert episode.question in info["instruction"]
        _, _, _, _, step_info = env.step(env.unwrapped.state())
        assert step_info["instruction"] == info["instruction"]
        json.dumps(p)  # records are JSON
    finally:
        env.close()


def test_render_cli_draws_one_level(tmp_path, capsys):
    out = tmp_path / "v4.png"
    args = ["render", "RSB-Math-4", "--seed", "2", "-o", str(out), "--width", "80"]
    assert main([*args, "--height", "60", "--visual-level", "4", "--language-level", "2"]) == 0
    assert cv2.imread(str(out)).shape == (60, 240, 3)
    assert f"wrote {out} (240x60, head | left | right wrist)" in capsys.readouterr().out


def test_render_cli_refuses_unknown_level(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["render", "RSB-Math-4", "-o", str(tmp_path / "x.png"), "--visual-level", "5"])
    assert "invalid choice: '5'" in capsys.readouterr().err


@pytest.mark.slow
def test_render_cli_all_levels_are_five_rows(tmp_path, capsys):
    out = tmp_path / "levels.png"
    args = ["render", "RSB-Math-4", "--seed", "2", "-o", str(out), "--width", "80"]
    assert main([*args, "--height", "60", "--visual-level", "all"]) == 0
    image = cv2.imread(str(out))
    assert image.shape == (300, 240, 3)
    rows = [image[60 * k : 60 * (k + 1)] for k in range(5)]
    assert len({r.tobytes() for r in rows}) == 5
    assert "rows V0..V4" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["RSB-Math-4", "RSB-Math-10"])
def test_expert_succeeds_at_v4_w4(tmp_path, suite):
    config = EvalConfig(
        suites=(suite,), policies=("expert",), episodes=3, out=tmp_path / "run",
        progress=False, workers=1,
    )  # fmt: skip
    records = run_eval(config, env_factory=SettingsEnvFactory(4, 4))
    assert all(r.success for r in records), [(r.index, r.termination) for r in records]
    for r in records:
        p = r.sim["perturbation"]
        assert p["visual_level"] == 4 and p["language_level"] == 4
        assert p["noise"]["gaussian_sigma"] > 0 and p["language"]["substituted"] == 4


def test_eval_cli_runs_the_expert_at_v4_w4_and_records_the_levels(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "--suite", "RSB-Math-4", "--policy", "expert", "--episodes", "2"]
    args += ["--out", str(out), "--workers", "1", "--no-progress"]
    assert main([*args, "--visual-level", "4", "--language-level", "4"]) == 0
    records = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert [r["success"] for r in records] == [True, True]
    for r in records:
        p = r["sim"]["perturbation"]
        assert (p["visual_level"], p["language_level"]) == (4, 4)
        assert p["language"]["substituted"] == 4 and p["noise"]["salt_pepper"] > 0
