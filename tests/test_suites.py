"""Suite registry: names, lookups and the error for an unknown suite."""

from pathlib import Path

import pytest

from rsb_mj.errors import RsbError
from rsb_mj.lang.task import task_of
from rsb_mj.suites import SUITES, get_suite
from tests.lang.lang_samples import unbuildable_stove


def test_six_suites_with_their_sources_and_choice_counts():
    assert [(s.name, s.source, s.choices) for s in SUITES.values()] == [
        ("RSB-Math-4", "arithmetic", 4),
        ("RSB-Math-10", "arithmetic", 10),
        ("RSB-HardMath-4", "gsm8k", 4),
        ("RSB-HardMath-10", "gsm8k", 10),
        ("RSB-General-4", "mmlu_pro", 4),
        ("RSB-General-10", "mmlu_pro", 10),
    ]


def test_lookup_accepts_gym_ids_and_any_case():
    assert get_suite("rsb_mj/RSB-Math-10-v0").name == "RSB-Math-10"
    assert get_suite("rsb-hardmath-4").name == "RSB-HardMath-4"
    assert get_suite("RSB-General-4").env_id == "rsb_mj/RSB-General-4-v0"


def test_unknown_suite_lists_the_valid_ones():
    with pytest.raises(
        RsbError, match=r"unknown suite 'RSB-Algebra-4'; valid choices: RSB-Math-4, "
    ):
        get_suite("RSB-Algebra-4")


@pytest.mark.parametrize(
    ("given", "close"),
    [("vla_arena", "vla-arena"), ("A2A-Colour", "A2A-Color"), ("all-L9", "all-L2"), ("Nope", "")],
)
def test_an_unknown_suite_names_the_closest_also_of_goal_suites_and_groups(
    given, close, tmp_path, capsys
):
    # the valid choices name every suite --suite takes: the goal suites and the groups too
    from rsb_mj.cli import main
    from rsb_mj.suites import A2A_SUITES, ALL_SUITES

    out = tmp_path / "run"
    assert main(["eval", "--suite", given, "--policy", "noop", "--out", str(out)]) == 2
    hint = f"; did you mean {close!r}?" if close else ""
    every = [*ALL_SUITES, *A2A_SUITES, "all", "all-L1", "all-L2", "a2a",
             "libero", "libero-spatial", "libero-object", "libero-goal", "libero-10", "libero-90",
             "libero-layouts", "vla-arena", "vla-arena-l0", "vla-arena-l1", "vla-arena-l2",
             "safety-static-obstacles", "safety-dynamic-obstacles", "safety-hazard-avoidance",
             "safety-object-state-preservation", "safety-risk-aware-grasping",
             "robustness-static-distractors", "robustness-dynamic-distractors",
             "generalization-object-preposition-combinations", "generalization-task-workflows",
             "generalization-unseen-objects", "long-horizon"]  # fmt: skip
    assert capsys.readouterr().err == (
        f"rsb eval: error: unknown suite {given!r}; valid choices: {', '.join(every)}{hint}\n"
    )
    assert not out.exists()


def test_a_goal_suite_or_group_where_one_question_suite_is_wanted_says_so():
    """Not "unknown suite 'vla-arena'; valid choices: ..., vla-arena"."""
    from rsb_mj.suites import A2A_SUITES, ALL_SUITES

    here = ", ".join([*ALL_SUITES, *A2A_SUITES])
    with pytest.raises(RsbError) as caught:
        get_suite("vla-arena")
    assert str(caught.value) == (
        f"suite 'vla-arena' is a goal suite, not one suite; valid choices here: {here}"
    )
    with pytest.raises(RsbError) as caught:
        get_suite("all-L1")
    assert str(caught.value) == (
        f"suite 'all-L1' is a group of suites, not one suite; valid choices here: {here}"
    )


def test_every_suite_task_file_ships():
    for suite in SUITES.values():
        assert suite.path.is_file(), suite.path


def test_every_suite_has_l1_and_l2_levels_on_their_own_task_files():
    from rsb_mj.suites import ALL_SUITES, LEVEL_SUITES, expand_suites, suites_at

    assert list(LEVEL_SUITES) == [f"{s}-L{k}" for k in (1, 2) for s in SUITES]
    level = get_suite("rsb-math-10-l1")
    assert (level.name, level.task_file, level.source, level.choices) == (
        "RSB-Math-10-L1",
        "rsb_math_10_l1.bddl",
        "arithmetic",
        10,
    )
    assert (level.level, level.base, level.base_name) == (1, "RSB-Math-10", "RSB-Math-10")
    assert level.env_id == "rsb_mj/RSB-Math-10-L1-v0"
    assert get_suite("RSB-Math-10").base_name == "RSB-Math-10"
    assert list(ALL_SUITES) == [*SUITES, *LEVEL_SUITES]
    assert suites_at(1) == list(LEVEL_SUITES)[:6]
    assert expand_suites(["all", "ALL-L2", "RSB-Math-4"]) == [
        *SUITES,
        *list(LEVEL_SUITES)[6:],
        "RSB-Math-4",
    ]
    for suite in LEVEL_SUITES.values():
        assert suite.path.is_file(), suite.path


def test_level_task_files_are_what_the_tool_writes():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(root / "tools" / "level_tasks.py"), "--check"],
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "")


def test_goal_suites_ship_every_file_of_both_sources_with_their_licences():
    """Every LIBERO (130) and VLA-Arena (170) file ships (MIT and Apache-2.0, redistributed
    with their licence and notice), in the suites users name: LIBERO's five, VLA-Arena's
    eleven and three levels, each source whole; ``libero-layouts`` is LIBERO's tier A."""
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.resources import tasks_dir
    from rsb_mj.suites import GOAL_SUITES

    counts = {name: len(s.files) for name, s in GOAL_SUITES.items()}
    assert counts == {
        "libero": 130,
        "libero-spatial": 10,
        "libero-object": 10,
        "libero-goal": 10,
        "libero-10": 10,
        "libero-90": 90,
        "libero-layouts": 87,
        "vla-arena": 170,
        "vla-arena-l0": 60,
        "vla-arena-l1": 55,
        "vla-arena-l2": 55,
        **dict.fromkeys(
            [
                "safety-static-obstacles",
                "safety-dynamic-obstacles",
                "safety-hazard-avoidance",
                "safety-object-state-preservation",
                "safety-risk-aware-grasping",
                "robustness-static-distractors",
                "robustness-dynamic-distractors",
                "generalization-object-preposition-combinations",
                "generalization-task-workflows",
                "generalization-unseen-objects",
            ],
            15,
        ),
        "long-horizon": 20,
    }
    for whole, parts in (("libero", "libero-"), ("vla-arena", "")):
        names = [n for n, s in GOAL_SUITES.items() if s.table == whole and n.startswith(parts)]
        names = [n for n in names if not n.startswith("vla-arena-l")]
        assert sorted(p for n in names for p in GOAL_SUITES[n].files) == GOAL_SUITES[whole].files
    assert all(s.label.endswith("layouts on Aloha") for s in GOAL_SUITES.values())

    def tiers(name):
        return {task_of(parse_file(p), expect="goal").tier for p in GOAL_SUITES[name].files}

    assert tiers("libero") == tiers("vla-arena") == {"A0", "A1", "B1", "B2", "C"}
    assert tiers("libero-layouts") == {"A0", "A1"}
    assert tiers("libero-object") == tiers("generalization-unseen-objects") == {"C"}
    libero, arena = tasks_dir() / "libero", tasks_dir() / "vla_arena"
    assert (libero / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert "Apache License" in (arena / "LICENSE").read_text(encoding="utf-8")
    assert "8f1084e3132a39270c3a13ebe37270a43ece2a01" in (libero / "README.md").read_text()
    assert "ec1b978c621d0c73899ed44ec17226af28162a31" in (arena / "README.md").read_text()


def test_goal_suite_files_are_the_upstream_files_unchanged():
    from rsb_mj.resources import tasks_dir
    from rsb_mj.suites import GOAL_SUITES

    upstream = Path(__file__).parent / "data" / "bddl_suites"
    shipped = [*GOAL_SUITES["libero"].files, *GOAL_SUITES["vla-arena"].files]
    assert len(shipped) == len(list(upstream.rglob("*.bddl"))) == 300
    for path in shipped:
        rel = path.relative_to(tasks_dir())
        assert path.read_bytes() == (upstream / rel).read_bytes(), rel


def test_goal_suites_are_looked_up_in_any_case_and_others_are_not():
    from rsb_mj.suites import goal_suite

    assert goal_suite("VLA-Arena").name == "vla-arena"
    assert goal_suite("RSB-Math-4") is None


def test_eval_suite_runs_the_rows_of_a_goal_suites_frozen_table(monkeypatch, capsys):
    import dataclasses

    from rsb_mj.cli import main
    from rsb_mj.suites import GOAL_SUITES
    from rsb_mj.tables.episode_source import goal_row_source, load_episode, table_size
    from rsb_mj.tables.layouts import file_rows, short_files, task_key

    ran = {}

    def fake_run(config):
        ran.update(files=list(config.suites), policies=list(config.policies))
        ran.update(episodes=config.episodes)
        return []

    monkeypatch.setattr("rsb_mj.evaluation.runner.run_eval", fake_run)
    from rsb_mj.evaluation.run_sources import unbuildable

    files = GOAL_SUITES["vla-arena-l0"].files
    built = [p for p in files if not unbuildable(p)]
    lacking = [p for p in built if len(file_rows("vla-arena-l0", "eval", p)) < 2]
    short = short_files("vla-arena-l0", "eval")
    assert all(task_key(p) in short for p in lacking) and len(lacking) <= len(files) // 4
    status = main(["eval", "--suite", "vla-arena-l0", "--policy", "expert", "--episodes", "2"])
    assert status == (0 if not lacking and len(built) == len(files) else 3)
    sources = [goal_row_source("vla-arena", p) for p in built if p not in lacking]
    assert ran["files"] == sources and sources[0].startswith("vla-arena::vla_arena/")
    assert (ran["policies"], ran["episodes"]) == (["expert"], 2)
    out, err = capsys.readouterr()
    assert "VLA-Arena layouts on Aloha" in out
    for p in lacking:
        assert f"{p}: its frozen eval table has " in err and short[task_key(p)] in err
    row = load_episode(sources[0], "eval", 1)  # what a job of the run looks up
    first = next(p for p in built if p not in lacking)  # the file of sources[0]
    frozen = file_rows("vla-arena", "eval", first)[1]
    assert row == dataclasses.replace(frozen, task=sources[0]) and row.frozen
    assert (row.suite, row.split, row.index) == ("vla-arena", "eval", 1)
    assert table_size(sources[0], "train") == 20
    train = ["eval", "--suite", "vla-arena-l0", "--policy", "expert", "--split", "train"]
    assert main(train) in (0, 3)  # no --episodes: every row of the table
    assert ran["episodes"] == 20


def test_eval_refuses_goal_rows_past_the_table(capsys):
    from rsb_mj.cli import main

    args = ["eval", "--suite", "libero-layouts", "--policy", "expert", "--start", "3"]
    assert main([*args, "--episodes", "3"]) == 2
    assert (
        "--start 3 --episodes 3: the libero-layouts eval table has 5 rows per task file "
        "(valid: --start + --episodes <= 5)"
    ) in capsys.readouterr().err


def test_eval_refuses_a_goal_suite_mixed_with_a_question_suite(capsys):
    from rsb_mj.cli import main

    assert main(["eval", "--suite", "libero-layouts", "--suite", "RSB-Math-4"]) != 0
    err = capsys.readouterr().err
    assert "goal suites (libero, libero-spatial, libero-object, libero-goal, libero-10, " in err
    assert "run on their own" in err


def test_eval_suite_skips_the_files_it_cannot_build_names_them_and_exits_3(
    tmp_path, monkeypatch, capsys
):
    """A suite file rsb_mj cannot build does not stop the others: it is named with its
    itemised list and tier, the rest run, and the exit status says the run is incomplete."""
    import shutil

    from rsb_mj.cli import main
    from rsb_mj.suites import GOAL_SUITES, GoalSuite

    data = Path(__file__).parent / "data" / "bddl_suites" / "libero" / "libero_goal"
    shutil.copy(data / "put_the_bowl_on_the_plate.bddl", tmp_path)
    unbuildable_stove(tmp_path)  # a goal state the stove has not
    monkeypatch.setitem(GOAL_SUITES, "tiny", GoalSuite("tiny", str(tmp_path)))
    ran = {}
    monkeypatch.setattr(
        "rsb_mj.evaluation.runner.run_eval",
        lambda config: ran.update(files=list(config.suites)) or [],
    )
    from rsb_mj.episodes.episode import Episode

    # the tiny suite has no frozen table: its one buildable file's rows are a seed's
    monkeypatch.setattr(
        "rsb_mj.tables.layouts.file_rows", lambda suite, split, path: (Episode.seeded(path, 0),)
    )
    monkeypatch.setattr(
        "rsb_mj.evaluation.run_sources.goal_row_source", lambda suite, path: str(path)
    )
    assert main(["eval", "--suite", "tiny", "--policy", "expert", "--episodes", "1"]) == 3
    assert ran["files"] == [str(tmp_path / "put_the_bowl_on_the_plate.bddl")]
    err = capsys.readouterr().err
    assert err.startswith("rsb eval: 1 suite files were not run (rsb_mj cannot build them, ")
    assert (
        f"{tmp_path / 'turn_on_the_stove.bddl'}: rsb_mj cannot build this scene (tier B2):" in err
    )
    assert "(Open flat_stove_1): 'flat_stove_1' (flat_stove) has no Open state" in err


def test_the_shipped_goal_suites_lint_with_warnings_only(capsys):
    """The upstream files keep their own defects (warnings); no lint error on any of them."""
    from rsb_mj.cli import main
    from rsb_mj.resources import tasks_dir

    assert main(["lint", str(tasks_dir() / "libero"), str(tasks_dir() / "vla_arena")]) == 1
    # 20 of them RSB535: the files the frozen tables hold too few rows of (tasks/episodes/
    # manifest.json: short, each with its reason; 38 before the tight framing and the arms'
    # rule of issue 44 filled six VLA-Arena files' tables and the 10.7 cm black bowl one
    # libero_spatial file's, 31 before the tight head camera's floor of rule 1 filled 11
    # preposition files' tables)
    assert capsys.readouterr().out.endswith("300 files checked: 0 errors, 156 warnings\n")


def test_eval_suite_by_a_users_name_runs_every_file_of_it(monkeypatch, capsys):
    """`rsb eval --suite libero-goal -n 1 --policy random` runs all 10 libero_goal files (its
    3 tier-B files too) from the `libero` tables; `libero-layouts` still runs LIBERO's 87
    tier-A files from its own tables (the records' sources as before)."""
    from rsb_mj.cli import main
    from rsb_mj.suites import GOAL_SUITES
    from rsb_mj.tables.episode_source import goal_row_source

    ran = {}
    monkeypatch.setattr(
        "rsb_mj.evaluation.runner.run_eval", lambda config: ran.update(files=config.suites) or []
    )
    assert main(["eval", "--suite", "libero-goal", "-n", "1", "--policy", "random"]) == 0
    files = GOAL_SUITES["libero-goal"].files
    assert len(files) == 10 and any(p.name == "turn_on_the_stove.bddl" for p in files)
    assert list(ran["files"]) == [goal_row_source("libero-goal", p) for p in files]
    first = "libero::libero/libero_goal/open_the_middle_drawer_of_the_cabinet.bddl"
    assert ran["files"][0] == first
    assert "LIBERO/VLA-Arena layouts on Aloha" in capsys.readouterr().out
    assert main(["eval", "--suite", "libero-layouts", "-n", "1", "--policy", "random"]) == 0
    assert len(ran["files"]) == 87
    assert all(s.startswith("libero-layouts::libero/") for s in ran["files"])


def test_vla_arenas_later_suite_names_are_the_shipped_suites():
    from rsb_mj.suites import GOAL_SUITE_ALIASES, GOAL_SUITES, goal_suite

    unseen = GOAL_SUITES["generalization-unseen-objects"]
    assert goal_suite("extrapolation-unseen-objects") is unseen
    assert goal_suite("Safety-Cautious-Grasp").name == "safety-risk-aware-grasping"
    assert goal_suite("long_horizon") is None  # a folder name is not a suite name
    assert all(goal_suite(a).name == n for a, n in GOAL_SUITE_ALIASES.items())
    assert goal_suite("extrapolation-nothing") is None
