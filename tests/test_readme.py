"""README.md and docs/: the README stays short, every command it shows is run by a named test,
every ``rsb`` command the docs pages show parses with rsb's own parser, and every relative
link resolves."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from contextlib import redirect_stderr
from pathlib import Path

import h5py
import pytest

from rsb_mj.cli import build_parser
from rsb_mj.policies.aloha_convention import PI_OPEN

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
_BLOCK = re.compile(r"^[ \t]*```bash\n(.*?)^[ \t]*```", re.M | re.S)
_FENCE = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")

#: The README's sections, in order; the reference material lives in docs/ (a new section
#: of reference belongs on a page there, linked from "Reference").
SECTIONS = [
    "Evaluate your policy",
    "Write your own task",
    "Fine-tune on our demos",
    "Read the results",
    "Reference",
]

#: Each command of the README's ``bash`` blocks, exactly as shown, -> the tests that run it
#: (pytest node ids) and the file whose ``bash`` block those tests read that text from.
COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "pip install -e . && rsb eval --suite all --policy expert --policy random-grasp "
    "--episodes 20 --out runs/quick": (
        (
            "tests/evaluation/test_eval_cli.py::"
            "test_readme_main_job_expert_near_perfect_random_grasp_at_chance",  # slow
            "tests/evaluation/test_eval_cli.py::"
            "test_the_readme_main_job_is_the_one_the_slow_test_runs",
        ),
        "README.md",
    ),
    "rsb eval --suite RSB-Math-4 --policy examples/my_policy.py:make --episodes 2 "
    "--out runs/my_policy": (
        (
            "tests/test_examples.py::test_every_command_of_the_guide_runs_as_written",
            "tests/test_examples.py::test_the_policy_file_runs_from_another_folder_and_as_a_module",
        ),
        "examples/README.md",
    ),
    "rsb lint examples/my_task/units_4.bddl": (
        ("tests/test_examples.py::test_every_command_of_the_guide_runs_as_written",),
        "examples/README.md",
    ),
    "rsb eval examples/my_task/units_4.bddl --policy expert --policy "
    "examples/my_policy.py:make --episodes 1 --out runs/units_4": (
        ("tests/test_examples.py::test_every_command_of_the_guide_runs_as_written",),
        "examples/README.md",
    ),
    "rsb demos RSB-Math-4 --split train -n 2 -o demos/math4": (
        ("tests/test_readme.py::test_the_fine_tune_commands_run_as_written",),
        "README.md",
    ),
    "rsb export-lerobot demos/math4 -o datasets/math4": (
        ("tests/test_readme.py::test_the_fine_tune_commands_run_as_written",),
        "README.md",
    ),
    "rsb report runs/my_policy --html": (
        ("tests/test_examples.py::test_every_command_of_the_guide_runs_as_written",),
        "examples/README.md",
    ),
}

#: README commands no pytest test can run (the test command itself): who runs them instead.
RUN_BY_CI = {'pip install -e ".[test]" && python -m pytest -q': ".ci/run"}


def shell_commands(text: str) -> list[str]:
    """The command lines of ``text``'s ``bash`` blocks: continuation lines (``\\``) joined,
    blank lines and whole-line comments dropped."""
    out: list[str] = []
    for block in _BLOCK.findall(text):
        pending = ""
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.endswith("\\"):
                pending += line[:-1].strip() + " "
                continue
            out.append(pending + line.strip())
            pending = ""
    return out


def section(name: str) -> str:
    """The text of the README's ``## name`` section."""
    text = README.read_text(encoding="utf-8")
    return text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_fits_on_a_few_screens():
    lines = README.read_text(encoding="utf-8").splitlines()
    top = lines.index("## Reference")
    assert top < 150, top
    assert len(lines) < 200, len(lines)
    assert re.findall(r"^## (.+)$", "\n".join(lines), re.M) == SECTIONS


def test_the_readme_starts_with_the_two_commands():
    assert shell_commands(README.read_text(encoding="utf-8"))[:2] == [
        "pip install -e . && rsb eval --suite all --policy expert --policy random-grasp "
        "--episodes 20 --out runs/quick",
        *RUN_BY_CI,
    ]


def test_every_readme_command_is_in_the_map():
    shown = shell_commands(README.read_text(encoding="utf-8"))
    assert len(shown) == len(set(shown))
    assert set(shown) == set(COMMANDS) | set(RUN_BY_CI)


def _test_names(path: Path) -> set[str]:
    """``name`` and ``Class::name`` of every test function defined in ``path``."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{f.name}" for f in node.body
                      if isinstance(f, ast.FunctionDef) and f.name.startswith("test_")}  # fmt: skip
    return names


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_readme_command_is_run_by_tests_that_exist(command):
    nodes, source = COMMANDS[command]
    assert command in shell_commands((REPO / source).read_text(encoding="utf-8")), source
    for node in nodes:
        path, _, name = node.partition("::")
        assert name in _test_names(REPO / path), node


def test_the_test_command_is_what_ci_runs():
    for command, script in RUN_BY_CI.items():
        ci = (REPO / script).read_text(encoding="utf-8").splitlines()
        install, _, tests = command.partition(" && ")
        assert install == 'pip install -e ".[test]"' and 'pip install -q -e ".[test]"' in ci
        assert tests in ci


def test_the_fine_tune_commands_run_as_written(tmp_path):
    """The README's two fine-tuning commands, in a fresh folder: two expert demonstrations,
    then a LeRobot v3.0 dataset in the gripper convention the README states."""
    lines = shell_commands(section("Fine-tune on our demos"))
    assert [shlex.split(x)[:2] for x in lines] == [["rsb", "demos"], ["rsb", "export-lerobot"]]
    env = {**os.environ, "PYTHONPATH": str(REPO), "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    for line in lines:
        result = subprocess.run(
            [sys.executable, "-m", "rsb_mj", *shlex.split(line)[1:]],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert result.returncode == 0, f"{line}\n{result.stdout}\n{result.stderr}"
    demos = sorted((tmp_path / "demos" / "math4").glob("*.hdf5"))
    assert len(demos) == 2
    with h5py.File(demos[0]) as f:
        assert {"head", "left_wrist", "right_wrist"} <= set(f["observations/images"])
    info = json.loads((tmp_path / "datasets/math4/meta/info.json").read_text())
    assert (info["codebase_version"], info["total_episodes"], info["fps"]) == ("v3.0", 2, 20)
    assert info["rsb_convention"]["name"] == "aloha"
    words = " ".join(section("Fine-tune on our demos").split())
    assert f"`g * {PI_OPEN:.4f}` in pi's space" in words
    assert f"g * {PI_OPEN:.6f}" in info["rsb_convention"]["action_gripper"]


def _strict(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` and its subparsers with abbreviations off, so a renamed flag fails even
    where the old name is a prefix of the new one."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _strict(sub)
    return parser


def _doc_commands() -> list[tuple[str, str]]:
    """(page, command) for every simple command of the bash blocks of README.md and
    docs/*.md (``&&`` splits a line; ``[...]`` marks an optional part, kept)."""
    out = []
    for page in [README, *DOCS]:
        for line in shell_commands(page.read_text(encoding="utf-8")):
            for part in line.split(" && "):
                if part.startswith("rsb "):
                    part = re.sub(r"(?<= )\[(\S.*?)\]", r"\1", part)
                out.append((str(page.relative_to(REPO)), part))
    return out


def test_the_docs_show_rsb_commands():
    pages = {page for page, command in _doc_commands() if command.startswith("rsb ")}
    assert {"README.md", "docs/ecosystem.md", "docs/expert.md", "docs/act2answer.md",
            "docs/diagnosis.md", "docs/html_report.md"} <= pages  # fmt: skip


@pytest.mark.parametrize(("page", "command"), _doc_commands())
def test_every_command_of_the_docs_names_what_exists(page, command):
    """``rsb ...`` parses with rsb's own parser (nothing runs); ``python -m MODULE`` names a
    module of this checkout; ``python tools/...`` and ``tools/...`` name a file of it."""
    words = [w for w in shlex.split(command, comments=True)]
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        words.pop(0)  # an environment assignment before the command
    if words[0] == "rsb":
        stderr = io.StringIO()
        try:
            with redirect_stderr(stderr):
                args = _strict(build_parser()).parse_args(words[1:])
        except SystemExit:
            pytest.fail(f"{page}: {command}\n{stderr.getvalue()}")
        assert args.func, command
    elif words[:2] == ["python", "-m"] and words[2].startswith("rsb_mj"):
        assert importlib.util.find_spec(words[2]) is not None, f"{page}: {command}"
    elif words[0] == "python" and words[1].startswith("tools/"):
        assert (REPO / words[1]).is_file(), f"{page}: {command}"
    elif words[0].startswith("tools/"):
        assert (REPO / words[0]).is_file(), f"{page}: {command}"


def _slugs(path: Path) -> set[str]:
    """GitHub's anchors for the headings of ``path``."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    headings = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page):
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    links = [x for x in _LINK.findall(text) if not x.startswith(("http://", "https://"))]
    for link in links:
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.is_file(), f"{page.name}: {link}"
        if anchor:
            assert anchor in _slugs(path), f"{page.name}: {link}"


def test_every_docs_page_is_linked_from_the_readme():
    text = README.read_text(encoding="utf-8")
    linked = {(REPO / x.partition("#")[0]).resolve() for x in _LINK.findall(text)}
    assert [p.name for p in DOCS if p.resolve() not in linked] == []


def test_head_camera_frames_are_promised_only_with_video():
    # issue 36: the page shows head-camera frames only for episodes recorded with --video
    for page in (README, REPO / "docs" / "cli.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        for hit in re.finditer(r"head-camera frames", text):
            assert "--video" in text[hit.start() : hit.start() + 200], (page, hit.start())


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_plain_install_draws_the_reports_plots_and_every_extra_is_named():
    project = _pyproject()["project"]
    # `rsb report` (the main job's report) plots with matplotlib: a core dependency, not an
    # extra a newcomer has to discover from a warning.
    assert any(re.match(r"matplotlib\b", d) for d in project["dependencies"])
    readme = README.read_text(encoding="utf-8")
    ecosystem = (REPO / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    for extra in project["optional-dependencies"]:
        if extra != "plots":  # the old name of what the plain install now brings
            assert f"`{extra}`" in readme, extra
        assert f"`{extra}`" in ecosystem, extra


def test_the_readme_hard_codes_no_test_count():
    # a count goes stale with the next test added
    assert not re.search(r"\d[\d,]* tests\b", README.read_text(encoding="utf-8"))


def test_the_authoring_guide_says_a_task_files_rows_are_seeded_by_its_name():
    from rsb_mj.tables.episode_source import row_seed

    text = " ".join((REPO / "tasks" / "README.md").read_text(encoding="utf-8").split())
    assert "a seed fixed by the file name (not its folder), the split and `i`" in text
    assert "fixed by the file path" not in text
    assert row_seed("a/x.bddl", "eval", 3) == row_seed("b/c/x.bddl", "eval", 3)
    assert row_seed("a/x.bddl", "eval", 3) != row_seed("a/y.bddl", "eval", 3)


def test_the_lerobot_pip_route_names_its_video_decoder_needs():
    text = " ".join((REPO / "docs" / "ecosystem.md").read_text(encoding="utf-8").split())
    assert 'video_backend="pyav"' in text and "--dataset.video_backend=pyav" in text
    assert "FFmpeg's shared libraries" in text


def test_the_act2answer_page_says_its_numbers_are_not_the_papers():
    text = " ".join((REPO / "docs" / "act2answer.md").read_text(encoding="utf-8").split())
    assert "one WidowX arm in SimplerEnv (80 control steps at 5 Hz per episode)" in text
    assert "a re-embodiment on robosuite's bimanual Aloha" in text
    assert "not comparable with the paper's tables" in text


def test_the_act2answer_page_says_how_an_episode_starts_and_what_gsr_means_then():
    text = " ".join((REPO / "docs" / "act2answer.md").read_text(encoding="utf-8").split())
    assert "`(Grasped cube left_gripper)` in `:init`" in text
    assert "`rsb eval --a2a-start table`" in text
    assert "the cube is still held when the placement starts" in text


#: A figure of the goal expert's success per source and tier ("94% of LIBERO A0", "LIBERO
#: A0 27%", "236/250 (94%)" in a LIBERO / VLA-Arena A0 / A1 row).
_GOAL_EXPERT_FIGURE = re.compile(
    r"\d+% of (?:LIBERO|VLA-Arena) A[01]|(?:LIBERO|VLA-Arena) A[01] \d+%"
    r"|\| (?:LIBERO|VLA-Arena) \| A[01] \|.*\| \d+/\d+ \(\d+%\)"
)


def test_the_goal_experts_success_figures_have_one_place():
    """goal_tasks.md's "Measured: every file of every suite" table holds the expert's success
    per source and tier (what ``tools/goal_corpus.py`` printed); the README and
    goal_suites.md link to it instead of repeating (or contradicting: "LIBERO A0 27%" beside
    "94%") its figures."""
    home = REPO / "docs" / "goal_tasks.md"
    for page in [README, *DOCS]:
        if page == home:
            continue
        found = _GOAL_EXPERT_FIGURE.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))
        assert (page.name, found) == (page.name, [])
    text = home.read_text(encoding="utf-8")
    table = text.split("## Measured: every file of every suite", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (libero|vla_arena) \| (A0|A1|B1|B2|C) \|.*\| (\d+)/(\d+) \((\d+)%\) \|",
                      table, re.M)  # fmt: skip
    tiers = ["A0", "A1", "B1", "B2", "C"]
    assert [(src, tier) for src, tier, *_ in rows] == [
        (src, tier) for src in ("libero", "vla_arena") for tier in tiers
    ]
    assert all(round(100 * int(k) / int(n)) == int(p) for *_, k, n, p in rows)
    link = "docs/goal_tasks.md#measured-every-file-of-every-suite-2026-12-07-5-seeds"
    assert link in README.read_text(encoding="utf-8")
    assert link.removeprefix("docs/") in (REPO / "docs" / "goal_suites.md").read_text()
