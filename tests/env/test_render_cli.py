"""Tests of ``rsb render`` (rsb_mj/cli/render.py)."""

from __future__ import annotations

import cv2

from rsb_mj.cli import main


def test_render_writes_three_views_side_by_side(tmp_path, capsys):
    out = tmp_path / "views.png"
    args = ["render", "RSB-Math-4", "--seed", "1", "-o", str(out), "--width", "160"]
    assert main([*args, "--height", "120"]) == 0
    image = cv2.imread(str(out))
    assert image.shape == (120, 480, 3)
    printed = capsys.readouterr().out
    assert f"wrote {out} (480x120, head | left | right wrist)" in printed


def test_render_of_an_unknown_task_is_a_usage_error(tmp_path, capsys):
    assert main(["render", "no_such.bddl", "-o", str(tmp_path / "x.png")]) == 2
    assert "no_such.bddl: no such task file, and not a suite name" in capsys.readouterr().err


GOAL_FILE = "libero/libero_goal/put_the_bowl_on_the_plate.bddl"


def test_render_of_a_goal_suite_row_is_the_row_s_first_observation(tmp_path, capsys):
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.resources import tasks_dir
    from rsb_mj.tables.episode_source import goal_row_source, load_episode

    out = tmp_path / "goal.png"
    source = f"libero-layouts::{GOAL_FILE}"
    args = ["render", source, "--row", "2", "-o", str(out), "--width", "224", "--height", "224"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "Put the bowl on the plate"
    assert f"wrote {out} (672x224, head | left | right wrist)" in printed
    image = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
    env = GoalEnv(tasks_dir() / GOAL_FILE, width=224, height=224)
    try:
        row = load_episode(goal_row_source("libero-layouts", tasks_dir() / GOAL_FILE), "eval", 2)
        obs, _ = env.reset(options={"episode": row})
    finally:
        env.close()
    assert (image[:, :224] == obs["images"]["head"]).all()
    assert (image[:, 224:448] == obs["images"]["left_wrist"]).all()
    assert (image[:, 448:] == obs["images"]["right_wrist"]).all()


def test_render_of_a_goal_file_draws_the_seed_s_layout(tmp_path, capsys):
    from rsb_mj.resources import tasks_dir

    path = str(tasks_dir() / GOAL_FILE)
    outs = [tmp_path / f"s{seed}.png" for seed in (0, 1)]
    for seed, out in zip((0, 1), outs, strict=True):
        assert main(["render", path, "--seed", str(seed), "-o", str(out)]) == 0
    a, b = (cv2.imread(str(o)) for o in outs)
    assert a.shape == b.shape == (240, 960, 3)
    assert (a != b).any()  # another seed, another layout


def test_render_refuses_a_row_of_a_question_suite_and_a_seed_of_a_goal_row(tmp_path, capsys):
    out = str(tmp_path / "x.png")
    assert main(["render", "RSB-Math-4", "--row", "1", "-o", out]) == 2
    assert "--row 1: only for a goal suite's file, TASK as SUITE::FILE" in capsys.readouterr().err
    source = f"libero-layouts::{GOAL_FILE}"
    assert main(["render", source, "--seed", "1", "-o", out]) == 2
    assert "--seed 1: a goal suite's row has its seed; use --row" in capsys.readouterr().err
    assert main(["render", f"no-suite::{GOAL_FILE}", "-o", out]) == 2
    err = capsys.readouterr().err
    assert "unknown goal suite 'no-suite'; valid choices: libero, libero-spatial, " in err
