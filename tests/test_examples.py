"""examples/: every command of examples/README.md runs as written and does what it says; the
policy file also runs from another folder and in its module form; the links resolve."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.evaluation.run_folder import RECORDS_FILE

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "examples" / "README.md"
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def commands() -> list[str]:
    """The command lines of the guide's ``bash`` blocks."""
    return [
        line
        for match in _BLOCK.finditer(GUIDE.read_text(encoding="utf-8"))
        for line in match.group(1).splitlines()
        if line.strip()
    ]


def run(words: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``rsb WORDS...`` as ``python -m rsb_mj`` of this checkout, in ``cwd``. Only rsb_mj
    itself is put on the path (as an install would): never the examples' folder."""
    assert words[0] == "rsb"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [sys.executable, "-m", "rsb_mj", *words[1:]],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


def records(path: Path) -> list[dict]:
    return [json.loads(x) for x in (path / RECORDS_FILE).read_text().splitlines()]


@pytest.fixture
def checkout(tmp_path):
    """A folder laid out like a fresh checkout for the examples: examples/ and nothing else."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    return tmp_path


def test_the_guide_shows_the_commands():
    assert commands() == [
        "rsb eval --suite RSB-Math-4 --policy examples/my_policy.py:make --episodes 2 "
        "--out runs/my_policy",
        "rsb report runs/my_policy --html",
        "rsb lint examples/my_task/units_4.bddl",
        "rsb eval examples/my_task/units_4.bddl --policy expert --policy "
        "examples/my_policy.py:make --episodes 1 --out runs/units_4",
    ]


def test_every_command_of_the_guide_runs_as_written(checkout):
    for line in commands():
        result = run(shlex.split(line), checkout)
        assert result.returncode == 0, f"{line}\n{result.stdout}\n{result.stderr}"
        if " lint " in f" {line} ":
            assert result.stdout == "1 file checked: 0 errors, 0 warnings\n"
    mine = sorted(records(checkout / "runs" / "my_policy"), key=lambda r: r["index"])
    assert [(r["policy"], r["index"], r["termination"], r["failure_reason"], r["privileged"])
            for r in mine] == [
        ("examples/my_policy.py:make", i, "policy_done", "no grasp detected", False)
        for i in (0, 1)
    ]  # fmt: skip
    assert all(r["instruction"] and r["steps"] > 40 for r in mine)
    page = checkout / "runs" / "my_policy" / "report" / "report.html"
    assert page.read_text().startswith("<!doctype html>")
    task = records(checkout / "runs" / "units_4")
    assert {(r["policy"], r["success"]) for r in task} == {
        ("expert", True),
        ("examples/my_policy.py:make", False),
    }
    assert {r["suite"] for r in task} == {"examples/my_task/units_4.bddl"}
    questions = [json.loads(x) for x in (checkout / "examples" / "my_task" / "units.jsonl")
                 .read_text().splitlines() if x.startswith("{")]  # fmt: skip
    eval_questions = {q["question"] for q in questions if q["split"] == "eval"}
    assert len(questions) == 16 and len(eval_questions) == 6
    assert any(q in task[0]["instruction"] for q in eval_questions)


def test_the_policy_file_runs_from_another_folder_and_as_a_module(checkout):
    elsewhere = checkout / "elsewhere"
    elsewhere.mkdir()
    path = checkout / "examples" / "my_policy.py"
    for cwd, spec in ((elsewhere, f"{path}:make"), (checkout / "examples", "my_policy:make")):
        result = run(["rsb", "eval", "--suite", "RSB-Math-4", "--policy", spec, "--episodes",
                      "1", "--max-steps", "5", "-j", "1", "--out", "run", "--no-progress"],
                     cwd)  # fmt: skip
        assert result.returncode == 0, result.stderr
        (rec,) = records(cwd / "run")
        assert (rec["policy"], rec["termination"], rec["steps"]) == (spec, "step_limit", 5)
    result = run(["rsb", "eval", "--suite", "RSB-Math-4", "--policy", "my_policy:make", "--out",
                  "other"], elsewhere)  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "rsb eval: error: policy 'my_policy:make': cannot import 'my_policy': no such module "
        f"on the Python path or in the current folder ({elsewhere})\n"
    )


@pytest.mark.parametrize("doc", ["examples/README.md", "docs/html_report.md"])
def test_the_links_of_the_docs_resolve(doc):
    source = REPO / doc
    text = source.read_text(encoding="utf-8")
    links = [x for x in _LINK.findall(text) if not x.startswith(("http://", "https://"))]
    assert links
    for link in links:
        target, _, anchor = link.partition("#")
        path = (source.parent / target).resolve() if target else source
        assert path.exists(), f"{doc}: {link}"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{doc}: {link}"
