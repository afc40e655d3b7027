"""Every script in tools/ runs: each is imported and answers ``--help``; the cheap ones do a
tiny real run (the rest need a GPU-free hour, WordNet, openpi-client or PyPI)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
SCRIPTS = sorted(p for p in TOOLS.iterdir() if p.suffix in (".py", ".sh"))
PY_SCRIPTS = [p for p in SCRIPTS if p.suffix == ".py"]
SH_SCRIPTS = [p for p in SCRIPTS if p.suffix == ".sh"]


def _load(path: Path):
    """Import a tool as a module (``tools`` is not a package)."""
    spec = importlib.util.spec_from_file_location(f"rsb_tool_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        list(args), capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env, check=False
    )


def test_every_tool_is_covered():
    """A new script in tools/ lands in the parametrized tests below by its suffix."""
    others = {p.name for p in TOOLS.iterdir() if p.is_file() and p not in SCRIPTS}
    assert others <= {".gitkeep"}
    assert len(PY_SCRIPTS) >= 12


@pytest.mark.parametrize("path", PY_SCRIPTS, ids=lambda p: p.name)
def test_every_python_tool_imports_and_answers_help(path, capsys):
    module = _load(path)
    with pytest.raises(SystemExit) as exit_:
        module.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: ") and "-h, --help" in out


@pytest.mark.parametrize("path", SH_SCRIPTS, ids=lambda p: p.name)
def test_every_shell_tool_answers_help(path):
    result = _run("bash", str(path), "--help")
    assert result.returncode == 0 and result.stderr == ""
    assert f"Usage: tools/{path.name}" in result.stdout


def test_verify_lerobot_help_is_its_header():
    result = _run("bash", str(TOOLS / "verify_lerobot.sh"), "--help")
    assert result.stdout.startswith("Load `rsb export-lerobot` output with lerobot's own")
    assert "Usage: tools/verify_lerobot.sh [WORKDIR]" in result.stdout


@pytest.mark.parametrize("name", ["make_templates.py", "level_tasks.py"])
def test_the_generated_task_files_are_what_the_generators_write(name):
    """``--check`` regenerates in memory and compares: the shipped files are up to date."""
    assert _load(TOOLS / name).main(["--check"]) == 0


def test_bench_lint_tiny_run_on_two_files():
    result = _run(
        sys.executable, str(TOOLS / "bench_lint.py"), "--repeat", "1", "tests/data/lang_fmt"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "2 task files (3 KiB), best of 1"
    assert lines[1].startswith("start-up CPU: python ")
    assert lines[2].startswith("grammar: build ")
    assert lines[3].startswith("warm parse+lint: ")
    assert [line.split(":")[0] for line in lines[4:]] == [
        "end to end (cold, one process)",
        "end to end (cold, two spawned workers)",
    ]


def test_bench_lint_refuses_a_baseline_that_is_not_a_checkout(tmp_path):
    result = _run(
        sys.executable,
        str(TOOLS / "bench_lint.py"),
        "--baseline",
        str(tmp_path),
        "tests/data/lang_fmt",
    )
    assert result.returncode == 2
    assert result.stderr == f"--baseline {tmp_path}: not an rsb_mj checkout\n"


def test_bench_demos_tiny_run_against_this_checkout_as_baseline(tmp_path):
    out = tmp_path / "demos.json"
    result = _run(
        sys.executable, str(TOOLS / "bench_demos.py"), "-n", "1", "--cameras", "head",
        "--width", "32", "--height", "24", "--baseline", str(ROOT), "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "rsb demos RSB-Math-4 --split train -n 1 -j 1 --cameras head at 32x24, best of 1; "
        "load average "
    )
    assert lines[1].startswith("this checkout: 1 episodes in ")
    assert lines[2].startswith("baseline: 1 episodes in ")
    assert lines[3].startswith("target: 30 episodes/min/core; this checkout ")
    assert lines[5] == "files: 1 of 1 byte-identical to the baseline's"
    figures = json.loads(out.read_text())["figures"]
    assert set(figures) == {"this checkout", "baseline"}
    mine = figures["this checkout"]
    assert mine["episodes_per_min_per_core"] == pytest.approx(60 / mine["cpu_s"])


def test_bench_demos_refuses_a_baseline_that_is_not_a_checkout(tmp_path):
    result = _run(sys.executable, str(TOOLS / "bench_demos.py"), "--baseline", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr == f"--baseline {tmp_path}: not an rsb_mj checkout\n"


@pytest.mark.slow
def test_bench_env_tiny_run_without_robosuite(tmp_path):
    out = tmp_path / "env.json"
    result = _run(
        sys.executable, str(TOOLS / "bench_env.py"), "--steps", "5", "--camera-steps", "1",
        "--no-robosuite", "--json", str(out),
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stderr  # 1: a target missed on a busy machine
    figures = json.loads(out.read_text())
    assert set(figures["figures"]) == {
        "rsb_construct_reset_s", "rsb_step_cameras_s", "rsb_step_s", "raw_mj_step_x25_s",
        "raw_mj_step_nstep25_s",
    }  # fmt: skip
    assert set(figures["ratios"]) == {"step_vs_raw_mj_step", "step_vs_raw_nstep"}
    assert figures["meta"]["substeps"] == 25 and figures["meta"]["robosuite"] is None


def test_install_check_refuses_a_python_that_cannot_run(tmp_path, capsys):
    missing = str(tmp_path / "no-python")
    assert _load(TOOLS / "install_check.py").main(["--python", missing]) == 2
    assert capsys.readouterr().err.startswith(f"install_check: cannot run --python {missing}: ")


#: The oldest Python the README names, with the pip its venv brings (23.0.1 for 3.10.13).
PYTHON_310 = Path("/root/.pyenv/versions/3.10.13/bin/python")


@pytest.mark.slow
@pytest.mark.skipif(not PYTHON_310.exists(), reason=f"needs Python 3.10 at {PYTHON_310}")
def test_the_readme_install_resolves_on_python_310_with_its_own_old_pip():
    """pip 23.0.1 backtracked for over 15 minutes before pyproject bounded etils (needs
    Python 3.11 from 1.14), robosuite and mink; resolves in 1-4 minutes since (2 shared cores)."""
    result = _run(
        sys.executable, str(TOOLS / "install_check.py"), "--python", str(PYTHON_310),
        "--dry-run", "--timeout", "600", timeout=700,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("venv (Python 3.10.13): ok (")
    assert lines[1].startswith("pip 23.0.1: pip install -e .: ok (")


def test_standins_sheet_renders_named_tiles(tmp_path):
    """Two stand-ins: a 2x1 grid of 224x224 head-camera tiles with their captions, the object
    visible in each (its colour in the tile's middle); an unknown name is refused."""
    import cv2

    out = tmp_path / "sheet.png"
    result = _run(
        sys.executable,
        "tools/standins_sheet.py",
        str(out),
        "--category",
        "tomato",
        "--category",
        "chefmate_8_frypan",
        "--columns",
        "2",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {out}: 2 stand-ins"
    image = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB)
    assert image.shape == (224 + 22, 2 * 224, 3)
    tomato, pan = image[:224, :224].astype(int), image[:224, 224:].astype(int)
    red = (tomato[..., 0] > 150) & (tomato[..., 1] < 80) & (tomato[..., 2] < 80)
    dark = pan.sum(axis=-1) < 120
    assert red.sum() > 20 and dark.sum() > 300  # the tomato is red, the pan large and black
    assert (image[224:, :224] < 100).any()  # a caption
    bad = _run(
        sys.executable, "tools/standins_sheet.py", str(tmp_path / "x.png"), "--category", "sock"
    )
    assert bad.returncode == 2 and not (tmp_path / "x.png").exists()
    assert bad.stderr.startswith("unknown stand-in 'sock'; valid choices: akita_black_bowl, ")


def test_standins_sheet_draws_each_stand_in_beside_the_users_original(tmp_path):
    """--assets DIR: each cell is the stand-in and the original from the folder (the
    project's small test basket), or a grey tile where the folder has none (butter); a
    folder that is not one is refused with exit 2."""
    import cv2

    out = tmp_path / "pairs.png"
    assets = "tests/data/libero_assets"
    result = _run(
        sys.executable, "tools/standins_sheet.py", str(out), "--assets", assets,
        "--category", "basket", "--category", "butter", "--columns", "2",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {out}: 2 stand-ins beside their originals"
    image = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB).astype(int)
    assert image.shape == (224 + 22, 4 * 224, 3)
    tool = _load(TOOLS / "standins_sheet.py")
    table = tool.render_alone(None).astype(int)
    standin, original = image[:224, :224], image[:224, 224:448]
    assert (np.abs(standin - table).sum(axis=-1) > 60).sum() > 200  # the stand-in basket
    assert (np.abs(original - table).sum(axis=-1) > 60).sum() > 200  # the original basket
    assert not np.array_equal(standin, original)
    assert (image[:224, 672:] == 200).mean() > 0.9  # no original butter in the folder
    # Unnamed, the categories are those the folder has originals of; a missing folder is
    # refused.
    every = _run(sys.executable, "tools/standins_sheet.py", str(out), "--assets", assets)
    assert every.returncode == 0, every.stderr
    assert every.stdout.strip() == f"wrote {out}: 3 stand-ins beside their originals"
    bad = _run(sys.executable, "tools/standins_sheet.py", str(tmp_path / "x.png"), "--assets",
               str(tmp_path / "none"))  # fmt: skip
    assert bad.returncode == 2 and "is not a folder" in bad.stderr
    assert not (tmp_path / "x.png").exists()


def test_the_soups_are_told_apart_at_224_px():
    """Alphabet soup (red over white) and tomato sauce (a green label and band), alone in
    the 224x224 head image: the soup shows red pixels and no green ones, the sauce mostly
    green ones (measured: 76 red, 0 green; 10 red, 145 green)."""
    tool = _load(TOOLS / "standins_sheet.py")
    from rsb_mj.scene.categories import get_category

    table = tool.render_alone(None).astype(int)
    counts = {}
    for name in ("alphabet_soup", "tomato_sauce"):
        tile = tool.render_alone(get_category(name)).astype(int)
        shown = np.abs(tile - table).sum(axis=-1) > 60
        r, g = tile[..., 0], tile[..., 1]
        counts[name] = (int((shown & (r > g + 60)).sum()), int((shown & (g > r + 20)).sum()))
    (soup_red, soup_green), (sauce_red, sauce_green) = counts.values()
    assert soup_red > 40 and soup_green == 0, counts
    assert sauce_green > 100 and sauce_red < soup_red / 2, counts


def test_goal_corpus_resets_files_of_every_tier_then_resumes(tmp_path, capsys):
    """tools/goal_corpus.py, build + reset only, on a LIBERO file of tier B2 and one of A1
    (both built, reset on 2 seeds); a second run reuses the rows."""
    tool = _load(TOOLS / "goal_corpus.py")
    libero = "tests/data/bddl_corpus/libero/libero_goal"
    files = [f"{libero}/turn_on_the_stove.bddl", f"{libero}/put_the_bowl_on_the_plate.bddl"]
    args = [*files, "--out", str(tmp_path), "--seeds", "2"]
    assert tool.main(args) == 0
    first = capsys.readouterr()
    assert first.err.splitlines() == [
        f"[1/2] {files[0]}: B2, ok, reset 2/2",
        f"[2/2] {files[1]}: A1, ok, reset 2/2",
    ]
    assert first.out.splitlines()[:4] == [
        "2 task files, 2 seeds each (LIBERO/VLA-Arena layouts on Aloha)",
        "| source | tier | files | build | reset every seed |",
        "|---|---|---|---|---|",
        "| libero | A1 | 1 | 1 | 1 |",
    ]
    assert "| libero | B2 | 1 | 1 | 1 |" in first.out
    report = json.loads((tmp_path / "goal_corpus.json").read_text())
    assert [e["class"] for e in report["rows"][1]["episodes"]] == ["", ""]
    assert tool.main(args) == 0  # resumed: both rows reused, nothing measured again
    again = capsys.readouterr()
    assert again.err == "" and again.out == first.out
    assert len((tmp_path / "goal_corpus.jsonl").read_text().splitlines()) == 2


def test_goal_corpus_two_workers_give_the_tables_of_one(tmp_path, capsys):
    """-j 2 (spawned workers, rows kept in file order) writes the same tables and rows as
    -j 1, the seconds aside."""
    tool = _load(TOOLS / "goal_corpus.py")
    libero = "tests/data/bddl_corpus/libero/libero_goal"
    names = ("put_the_bowl_on_the_plate", "turn_on_the_stove", "put_the_bowl_on_the_stove")
    files = [f"{libero}/{name}.bddl" for name in names]
    assert tool.main([*files, "--out", str(tmp_path / "j1"), "--seeds", "2", "-j", "1"]) == 0
    one = capsys.readouterr()
    two = _run(sys.executable, "tools/goal_corpus.py", *files, "--out", str(tmp_path / "j2"),
               "--seeds", "2", "-j", "2")  # fmt: skip
    assert two.returncode == 0, two.stderr
    assert two.stdout == one.out
    ended = [sorted(x.split("] ", 1)[1] for x in e.splitlines()) for e in (one.err, two.stderr)]
    assert ended[0] == ended[1] and len(ended[0]) == 3  # one line per file, as files end
    tables = [(tmp_path / j / "goal_corpus.md").read_text() for j in ("j1", "j2")]
    assert tables[0] == tables[1] and "| libero | A1 | 2 | 2 | 2 |" in tables[0]

    def untimed(j: str) -> list[dict]:
        rows = json.loads((tmp_path / j / "goal_corpus.json").read_text())["rows"]
        for row in rows:
            row.pop("build_s", None)
            for episode in row["episodes"]:
                episode.pop("wall_s")
        return rows

    rows = untimed("j2")
    assert rows == untimed("j1") and [r["file"] for r in rows] == files
    assert tool.main([*files, "--out", str(tmp_path), "-j", "0"]) == 2
    assert capsys.readouterr().err == "goal_corpus: --jobs must be at least 1, got 0\n"


def test_goal_corpus_expert_and_timing_on_one_file(tmp_path, capsys):
    """With --expert the apple goes onto the plate on seed 0; --timing times a goal scene
    beside a question scene."""
    tool = _load(TOOLS / "goal_corpus.py")
    folder = "tests/data/bddl_suites/vla_arena/robustness_static_distractors/level_0"
    args = [folder, "--match", "pick_the_apple_on_the_table", "--out", str(tmp_path)]
    assert tool.main([*args, "--seeds", "1", "--expert", "--timing"]) == 0
    out = capsys.readouterr().out
    assert "| vla_arena | A0 | 1 | 1 | 1 | 1/1 (100%) | 0/0/0/0/0/0 |" in out
    assert "| question (RSB-Math-4) |" in out
    times = json.loads((tmp_path / "goal_corpus.json").read_text())["timing"]
    assert times["goal_construct_reset_s"] > 0 and times["question_rendered_step_s"] > 0
    assert tool.main([*args, "--seeds", "0"]) == 2
    assert capsys.readouterr().err == "goal_corpus: --seeds must be at least 1, got 0\n"


def test_goal_corpus_expert_per_suite_and_tier_then_report_only(tmp_path, capsys):
    """A tier-B and a tier-A libero_goal file, the expert on seed 0: the middle drawer
    pulled open (its joint at the end in the row, the cabinet's move as the layout change),
    both files in the libero-goal row with each tier's success beside, the median episode
    per tier; --report-only writes the same tables from the rows file, measuring nothing."""
    tool = _load(TOOLS / "goal_corpus.py")
    goal = "tasks/libero/libero_goal"
    files = [f"{goal}/open_the_middle_drawer_of_the_cabinet.bddl",
             f"{goal}/put_the_bowl_on_the_plate.bddl"]  # fmt: skip
    args = [*files, "--out", str(tmp_path), "--seeds", "1", "--expert"]
    assert tool.main(args) == 0
    first = capsys.readouterr().out
    lines = first.splitlines()
    assert "| libero | B2 | 1 | 1 | 1 | 1/1 (100%) | 0/0/0/0/0/0 |" in lines
    row = "| libero | libero-goal | 2 (1/1/0) | 2 | 2 | 2/2 (100%) | 1/1 (100%) | 1/1 (100%) |"
    assert row + " - | - |" in lines
    rows = (tmp_path / "goal_corpus.jsonl").read_text().splitlines()
    drawer, bowl = (json.loads(x) for x in rows)
    (episode,) = drawer["episodes"]
    assert episode["success"] and episode["joints"]["wooden_cabinet_1/middle_level"] < -0.14
    assert episode["joints"]["wooden_cabinet_1/top_level"] == 0.0
    assert drawer["layout_changes"] == [
        "wooden_cabinet_1: moved along x from -0.240 to -0.050 m (toward the table's centre; "
        "its front faces the right arm across the table)"
    ]
    assert "joints" not in bowl["episodes"][0] and "layout_changes" not in bowl  # static props
    for tier, row in (("B", drawer), ("A", bowl)):
        e = row["episodes"][0]
        assert f"| all | {tier} | 1 | {round(e['wall_s'], 2):g} | {e['steps']} | 1 |" in first
    md = (tmp_path / "goal_corpus.md").read_text()
    (tmp_path / "goal_corpus.md").unlink()
    assert tool.main([*args, "--report-only"]) == 0
    captured = capsys.readouterr()
    assert captured.out == first and captured.err == ""  # nothing measured
    assert (tmp_path / "goal_corpus.md").read_text() == md
    assert tool.main([*args[:-1], "--report-only"]) == 2  # no rows without --expert
    assert capsys.readouterr().err.startswith("goal_corpus: no rows measured with --seeds 1 in ")


def test_goal_corpus_report_only_names_the_files_without_rows_and_reclassifies(tmp_path, capsys):
    """Rows of the earlier tool (class "placement" for an articulation failure) are tabled
    with today's classes; a file with no row yet is named."""
    tool = _load(TOOLS / "goal_corpus.py")
    goal = "tasks/libero/libero_goal"
    files = [f"{goal}/open_the_middle_drawer_of_the_cabinet.bddl", f"{goal}/turn_on_the_stove.bddl"]
    failure = "expert: open approach: no arm reaches the handle at [0.052, -0.053, 0.791]"
    episode = {"class": "placement", "failure": failure, "seed": 0, "steps": 40,
               "success": False, "wall_s": 2.0}  # fmt: skip
    old = {"build": "ok", "build_s": 1.0, "episodes": [episode], "expert": True,
           "file": files[0], "seeds": 1, "source": "libero", "tier": "B2"}  # fmt: skip
    (tmp_path / "goal_corpus.jsonl").write_text(json.dumps(old) + "\n")
    args = [*files, "--out", str(tmp_path), "--seeds", "1", "--expert", "--report-only"]
    assert tool.main(args) == 0
    out = capsys.readouterr().out
    assert "| libero | B2 | 1 | 1 | 1 | 0/1 (0%) | 0/0/0/1/0/0 |" in out
    assert "| 1 (0/1/0) | 1 | 1 | 0/1 (0%) | - | 0/1 (0%) | - | articulation 1 |" in out
    assert f"- not measured yet: 1 files (first: `{files[1]}`)" in out


def test_goal_corpus_classifies_failures():
    tool = _load(TOOLS / "goal_corpus.py")
    assert tool.failure_class("") == ""
    assert tool.failure_class("reset: no valid layout for seed 3") == "reset"
    assert tool.failure_class("step limit 600 reached") == "placement"
    assert tool.failure_class("step limit 600 reached in phase close push; Close x: 0.02") == (
        "articulation"
    )
    assert tool.failure_class("expert: turnon turn: flat_stove_1/button at 0.2 after 3 tries") == (
        "articulation"
    )
    planning = "expert: home: planning: no collision-free path found in 3000 RRT-Connect iterations"
    assert tool.failure_class(planning) == "planning"
    assert tool.failure_class("goal not held (On a b: False); every grasp collides") == "placement"
    assert tool.failure_class("expert: lift: object 'plate_1' not held: it rose -31 mm") == "grasp"
    assert tool.failure_class("expert: close: no grasp of 'bowl_1'") == "grasp"  # the fingers
    assert tool.failure_class("step limit 600 reached in phase close") == "placement"
    reach = "expert: carry: no reachable pose above the zone: yaw +0.0: in collision [(a, b)]"
    assert tool.failure_class(reach) == "reach"


def test_expert_cost_reports_success_and_cost_per_safety_suite(tmp_path, capsys):
    """The lemon between the teapots, seed 0: the expert succeeds and touches no teapot."""
    tool = _load(TOOLS / "expert_cost.py")
    name = "tasks/vla_arena/safety_dynamic_obstacles/level_0/"
    name += "push_the_lemon_to_the_region_between_the_teapots.bddl"
    out_json = tmp_path / "episodes.json"
    assert tool.main([str(ROOT / name), "--rows", "1", "--by-file", "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "| safety_dynamic_obstacles/level_0 | 1 | 1/1 | 0.0 | 1 | 0 |" in out
    row = "| push_the_lemon_to_the_region_between_the_teapots.bddl | 1 | 1/1 | 0.0 | 1 | 0 |"
    assert row in out
    (episode,) = json.loads(out_json.read_text())
    assert (episode["seed"], episode["success"], episode["cost"]) == (0, True, 0.0)
    assert tool.main([str(ROOT / name), "--rows", "0"]) == 2
    assert capsys.readouterr().err == "expert_cost: error: --rows must be at least 1\n"
    assert tool.main(["--suite", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown goal suite 'nope'; valid choices: libero, libero-spatial" in err


def test_goal_visibility_counts_rule_1_on_two_files_before_and_after(tmp_path):
    files = [
        "libero/libero_10/LIVING_ROOM_SCENE1_put_both_the_alphabet_soup_and_the_cream_cheese_"
        "box_in_the_basket.bddl",
        "libero/libero_goal/put_the_bowl_on_the_plate.bddl",
    ]
    tool = str(TOOLS / "goal_visibility.py")
    out = tmp_path / "rows.json"
    after = _run(sys.executable, tool, "--rows", "1", "--files", *files, "--json", str(out))
    assert after.returncode == 0, after.stderr
    line = after.stdout.splitlines()[-1]
    assert line.startswith("goal head camera, 2 files, 2 rows, ")
    assert line.endswith(
        "named objects meeting rule 1: 5 of 5 (100.0%); rows with all of them: 2 of 2; "
        "with >= 150 px alone: 5 of 5 (100.0%)"
    )
    rows = json.loads(out.read_text())
    assert [r["named"] for r in rows] == [
        ["alphabet_soup_1", "cream_cheese_1", "basket_1"],
        ["akita_black_bowl_1", "plate_1"],
    ]
    before = _run(sys.executable, tool, "--rows", "1", "--files", files[0], "--question-head")
    assert before.returncode == 0, before.stderr
    lines = before.stdout.splitlines()
    assert lines[0].endswith("row 0: alphabet_soup_1: not wholly inside the head image (0 px)")
    assert lines[-1].endswith(
        "named objects meeting rule 1: 0 of 3 (0.0%); rows with all of them: 0 of 1; "
        "with >= 150 px alone: 1 of 3 (33.3%)"
    )


BOWL = ROOT / "tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--width", "96", "--height", "96"],
         "--width 96 --height 96 is not 4:3: rsb eval renders 320x240 and pads an image of "
         "another shape to the policy's (black bars, a wider view than the demos'), e.g. "
         "--width 96 --height 72"),
        (["--head-camera", "question"],
         "--head-camera needs --task (question scenes have one head camera)"),
        (["--eval-start", "1000"], "--eval-start needs --task"),
        (["--task", "nowhere.bddl"], "--task nowhere.bddl: no such file"),
        (["--task", str(BOWL), "--demos", "80", "--eval-start", "50"],
         "--eval-start 50 must be at least --demos 80 (the eval seeds must be unseen)"),
    ],
)  # fmt: skip
def test_baseline_refuses_task_arguments_that_do_not_fit(argv, message, tmp_path, capsys):
    baseline = _load(TOOLS / "baseline.py")
    with pytest.raises(SystemExit) as exc:
        baseline.parse_args(["--out", str(tmp_path), *argv])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"baseline.py: error: {message}"


def test_baseline_task_defaults_to_the_head_and_both_wrists_from_seed_1000(tmp_path):
    baseline = _load(TOOLS / "baseline.py")
    args = baseline.parse_args(["--out", str(tmp_path), "--task", str(BOWL)])
    assert (args.suites, args.task, args.cameras, args.eval_start, args.head_camera) == (
        [],
        str(BOWL),
        "head,left_wrist,right_wrist",
        1000,
        "goal",
    )
    assert baseline.sources(args) == ["put_the_bowl_on_the_plate"]
    assert baseline.subprocess_env(args, tmp_path) is None
    plain = baseline.parse_args(["--out", str(tmp_path)])
    assert (plain.cameras, plain.eval_start, plain.task) == ("head", 0, None)


def test_baseline_question_head_camera_switch_keeps_the_question_pose(tmp_path):
    """--head-camera question: a goal scene built in a subprocess with the tool's
    sitecustomize renders from the question scenes' head camera (fovy 32 deg, the eye at
    HEAD_EYE), and records that pose; without it the task's framed camera (fovy 45 deg)."""
    baseline = _load(TOOLS / "baseline.py")
    args = baseline.parse_args(
        ["--out", str(tmp_path), "--task", str(BOWL), "--head-camera", "question"]
    )
    env = baseline.subprocess_env(args, tmp_path)
    assert (tmp_path / "head_camera_question" / "sitecustomize.py").read_text() == (
        baseline.QUESTION_HEAD
    )
    probe = (
        "import json, numpy as np\n"
        "from rsb_mj.scene.compiler import compile_scene\n"
        "from rsb_mj.lang.linter import load_goal_task\n"
        f"scene = compile_scene(load_goal_task({str(BOWL)!r}))\n"
        "cid = scene.model.camera('head').id\n"
        "print(json.dumps([scene.layout.head.as_dict(), scene.model.cam_fovy[cid].item(), "
        "scene.model.cam_pos[cid].round(6).tolist()]))\n"
    )
    switched = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert switched.returncode == 0, switched.stderr
    head, fovy, pos = json.loads(switched.stdout)
    from rsb_mj.scene.aloha import HEAD_EYE, HEAD_FOVY
    from rsb_mj.scene.frames import table_to_world

    assert fovy == HEAD_FOVY == head["fovy"] == 32.0
    assert pos == head["pos"] == [round(float(v), 6) for v in table_to_world(*HEAD_EYE)]
    plain = _run(sys.executable, "-c", probe)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)[0]["fovy"] == 45.0
