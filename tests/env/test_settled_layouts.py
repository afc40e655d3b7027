"""Settled layouts: a goal table frozen through the one entry point (the env draws a shipped
VLA-Arena file's rows from real resets), checked by re-drawing."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.env.settled_layouts import freeze_file, redraw_file
from rsb_mj.errors import EnvError, LayoutError, SceneError
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.region_layout import GoalLayout
from rsb_mj.tables.files import read_manifest, read_table
from rsb_mj.tables.freeze import freeze_tables
from rsb_mj.tables.layouts import check_layout_tables, code_digest, task_key
from rsb_mj.version import mujoco_version
from rsb_mj.workspace import TABLE_TOP_Z

APPLE = (
    tasks_dir()
    / "vla_arena/robustness_static_distractors/level_0"
    / "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl"
)
KEY = task_key(APPLE)


def freeze_layouts(names: list[str], **kwargs) -> None:
    """``rsb episodes build`` of goal suites: the one entry point, the env's draw passed in."""
    freeze_tables(names, draw_layouts=freeze_file, log=lambda _: None, **kwargs)


@pytest.fixture(scope="module")
def frozen(tmp_path_factory) -> Path:
    """A table folder of the apple file alone: 2 eval rows and 1 train row."""
    out = tmp_path_factory.mktemp("layout_tables")
    freeze_layouts(["vla-arena-l0"], out_dir=out, rows=2, files=[APPLE], splits=("eval",))
    freeze_layouts(["vla-arena"], out_dir=out, rows=1, files=[APPLE], splits=("train",))
    return out


@pytest.fixture(scope="module")
def env():
    e = GoalEnv(APPLE, cameras=())
    yield e
    e.close()


def test_rows_are_seeds_and_the_layouts_drawn_from_them(frozen):
    rows = read_table(frozen / "vla-arena.eval.jsonl", goal=True)
    assert [(r.suite, r.split, r.task, r.index, r.seed) for r in rows] == [
        ("vla-arena", "eval", KEY, 0, 0),
        ("vla-arena", "eval", KEY, 1, 1),
    ]
    assert sorted(rows[0].layout) == ["apple_1", "plate_1"]
    (train,) = read_table(frozen / "vla-arena.train.jsonl", goal=True)
    assert (train.split, train.index, train.seed) == ("train", 0, 100_000)
    entry = read_manifest(frozen)["vla-arena.eval.jsonl"]
    assert (entry["family"], entry["rows"], entry["rows_per_file"], entry["first_seed"]) == (
        "goal",
        2,
        2,
        0,
    )
    assert (entry["mujoco"], entry["code"], entry["short"]) == (mujoco_version(), code_digest(), {})


def test_a_frozen_row_resets_to_the_very_state_of_its_seed(frozen, env):
    row = read_table(frozen / "vla-arena.eval.jsonl", goal=True)[1]
    env.reset(seed=row.seed)
    by_seed = (env.data.qpos.copy(), env.data.qvel.copy(), dict(env.layout))
    _, info = env.reset(options={"episode": row})
    assert info["episode"] == row and env.seed == 1
    assert by_seed[2] == row.layout == env.layout
    assert by_seed[0].tobytes() == env.data.qpos.tobytes()
    assert by_seed[1].tobytes() == env.data.qvel.tobytes()


def test_freezing_again_gives_the_same_bytes_and_the_shipped_rows(frozen, tmp_path):
    freeze_layouts(["vla-arena"], out_dir=tmp_path, rows=2, files=[APPLE], splits=("eval",))
    again = (tmp_path / "vla-arena.eval.jsonl").read_bytes()
    assert again == (frozen / "vla-arena.eval.jsonl").read_bytes()
    from rsb_mj.tables.layouts import file_rows

    shipped = file_rows("vla-arena", "eval", APPLE)
    assert [r.dumps() for r in shipped[:2]] == again.decode().splitlines()


def test_a_layout_that_is_not_a_valid_start_is_refused_naming_the_row(frozen, env):
    row = read_table(frozen / "vla-arena.eval.jsonl", goal=True)[0]
    x, y, _, yaw = row.layout["apple_1"]
    sunk = dataclasses.replace(
        row, layout={**row.layout, "apple_1": (x, y, TABLE_TOP_Z - 0.1, yaw)}
    )
    with pytest.raises(LayoutError) as info:
        env.reset(options={"episode": sunk})
    assert str(info.value) == (
        f"vla-arena eval table, {KEY} row 0 (seed 0): the frozen layout is not a valid start "
        "(apple_1 is off the table); refreeze it: rsb episodes build vla-arena"
    )


def test_a_row_of_another_file_is_refused(frozen):
    row = read_table(frozen / "vla-arena.eval.jsonl", goal=True)[0]
    other = APPLE.parents[1] / "level_1" / APPLE.name
    other_env = GoalEnv(other, cameras=())
    try:
        with pytest.raises(EnvError) as info:
            other_env.reset(options={"episode": row})
    finally:
        other_env.close()
    assert str(info.value) == (
        f"the episode is a row of {KEY}, not of this environment's task {other_env.task.path}"
    )


def test_check_passes_then_names_the_edited_row(frozen, tmp_path, capsys):
    assert check_layout_tables(["vla-arena"], redraw_file, frozen, complete=False) == []
    folder = tmp_path / "edited"
    shutil.copytree(frozen, folder)
    path = folder / "vla-arena.eval.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[1])
    row["layout"]["apple_1"][0] += 0.01
    lines[1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    from rsb_mj.cli import main

    assert main(["episodes", "check", "vla-arena-l0", "--dir", str(folder)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("vla-arena.eval.jsonl: sha256 ")
    assert out[1] == (
        f"vla-arena.eval.jsonl:2: {KEY} row 1 (seed 1, draw 0): the layout differs from its "
        "seed's draw in apple_1"
    )
    assert out[2].startswith("FAILED: 2 problems in the goal tables (")


def test_a_seed_without_a_valid_layout_is_skipped_and_recorded(monkeypatch):
    real = GoalLayout.reset_draw

    def fail_seed_1(self, data, seed, goal=None):
        if seed == 1:
            raise SceneError(
                "x.bddl: seed 1: no valid layout in 10 draws (apple_1 is off the table)"
            )
        return real(self, data, seed, goal)

    monkeypatch.setattr(GoalLayout, "reset_draw", fail_seed_1)
    got = freeze_file(APPLE, "vla-arena", ("eval",), {"eval": 2})
    assert [(r.index, r.seed, r.skipped) for r in got.rows["eval"]] == [(0, 0, ()), (1, 2, (1,))]
    assert got.short == {}


def test_a_file_that_never_resets_has_a_short_table_saying_why(monkeypatch):
    def never(self, data, seed, goal=None):
        raise SceneError(f"x.bddl: seed {seed}: no valid layout in 10 draws (plate_1 tipped)")

    monkeypatch.setattr(GoalLayout, "reset_draw", never)
    got = freeze_file(APPLE, "vla-arena", ("eval", "train"), {"eval": 2, "train": 3})
    assert got.rows == {"eval": [], "train": []}
    assert got.short["eval"] == (
        "0 of 2 rows: seeds 0, 1, 2, 3, 4 gave no valid layout in 10 draws (last: plate_1 tipped)"
    )
    assert got.short["train"] == f"0 of 3 rows: not tried (eval: {got.short['eval']})"


def test_an_episode_of_a_row_is_recorded_with_its_row(frozen, env):
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.policies.spec import make_policy

    row = read_table(frozen / "vla-arena.eval.jsonl", goal=True)[1]
    rec = Rollout(
        env, make_policy("expert"), row, env.task.problem, max_steps=3, episode_timeout_s=None
    ).run()
    assert (rec.suite, rec.split, rec.index, rec.seed, rec.steps) == (KEY, "eval", 1, 1, 3)
    assert not rec.success and rec.termination == "step_limit"


def test_refreezing_some_files_keeps_the_others_rows(tmp_path):
    banana = APPLE.with_name("pick_the_banana_on_the_table_and_place_it_on_the_plate.bddl")
    both = dict(out_dir=tmp_path, rows=1, splits=("eval",))
    freeze_layouts(["vla-arena"], files=[APPLE, banana], **both)
    whole = (tmp_path / "vla-arena.eval.jsonl").read_bytes()
    entry = read_manifest(tmp_path)["vla-arena.eval.jsonl"]
    (tmp_path / "vla-arena.eval.jsonl").write_bytes(whole.splitlines(keepends=True)[0])
    freeze_layouts(["vla-arena"], files=[banana], **both)  # the apple's row is kept
    assert (tmp_path / "vla-arena.eval.jsonl").read_bytes() == whole
    assert read_manifest(tmp_path)["vla-arena.eval.jsonl"] == entry and entry["files"] == 2


def test_a_seed_whose_named_objects_the_head_camera_does_not_show_is_skipped(monkeypatch):
    """Rule 1 gates the build: the same seeds as the shipped rows while it holds; a row that
    fails it (here: 10^6 px asked of each named object) is skipped with the reason."""
    import rsb_mj.env.visibility as visibility

    got = freeze_file(APPLE, "vla-arena", ("eval",), {"eval": 2})
    shipped = read_table(tasks_dir() / "episodes/vla-arena.eval.jsonl", goal=True)
    mine = [r for r in shipped if r.task == KEY][:2]
    assert [r.to_dict() for r in got.rows["eval"]] == [r.to_dict() for r in mine]
    monkeypatch.setattr(visibility, "MIN_PIXELS", 10**6)
    got = freeze_file(APPLE, "vla-arena", ("eval",), {"eval": 2})
    assert got.rows == {"eval": []}
    assert got.short["eval"].startswith(
        "0 of 2 rows: seeds 0, 1, 2, 3, 4 gave no valid layout in 10 draws (last: rule 1: apple_1: "
    )
    assert got.short["eval"].endswith(" px < 1000000)")
