"""tasks/README.md, the authoring guide: its commands run as written and do what it says."""

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
GUIDE = REPO / "tasks" / "README.md"
_BLOCK = re.compile(r"^```bash( slow)?\n(.*?)^```", re.M | re.S)


def commands(slow: bool) -> list[str]:
    """The command lines of the guide's ``bash`` blocks (``bash slow`` ones when ``slow``)."""
    out = []
    for match in _BLOCK.finditer(GUIDE.read_text(encoding="utf-8")):
        if bool(match.group(1)) == slow:
            out += [line for line in match.group(2).splitlines() if line.strip()]
    return out


def run(line: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run one guide line with ``rsb`` as ``python -m rsb_mj`` of this checkout."""
    words = shlex.split(line)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    while "=" in words[0]:
        key, value = words.pop(0).split("=", 1)
        env[key] = value
    assert words[0] == "rsb", line
    return subprocess.run(
        [sys.executable, "-m", "rsb_mj", *words[1:]],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.fixture
def workdir(tmp_path):
    """A folder with the example files where the guide has them (and nothing else)."""
    shutil.copytree(REPO / "tasks" / "examples", tmp_path / "tasks" / "examples")
    (tmp_path / "runs").mkdir()
    return tmp_path


def test_the_guide_has_its_steps():
    lines = commands(slow=False)
    words = [[w for w in shlex.split(x) if "=" not in w] for x in lines]
    assert [w[1] for w in words] == [
        "lint",
        "fmt",
        "render",
        "eval",
        "episodes",
    ]
    assert commands(slow=True) == [
        "rsb eval tasks/examples/geography_6.bddl --policy expert --episodes 100 "
        "--out runs/geography_6_100"
    ]


def test_every_command_of_the_guide_runs_as_written(workdir):
    for line in commands(slow=False):
        result = run(line, workdir)
        assert result.returncode == 0, f"{line}\n{result.stdout}\n{result.stderr}"
        if " lint " in f" {line} ":
            assert "0 errors, 0 warnings" in result.stdout
    png = workdir / "runs" / "geography_6.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = [
        json.loads(x)
        for x in (workdir / "runs" / "geography_6" / RECORDS_FILE).read_text().splitlines()
    ]
    expert = [r for r in records if r["policy"].startswith("expert")]
    assert len(records) == 4 and [r["success"] for r in expert] == [True, True]
    assert {r["choices"] for r in records} == {6}
    tables = workdir / "runs" / "geography_6" / "tables"
    rows = (tables / "geography_6.eval.jsonl").read_text().splitlines()
    assert len(rows) == 20
    first = next(r for r in records if r["index"] == 0)
    assert json.loads(rows[0])["question_id"] == first["question_id"]  # the rows eval runs


@pytest.mark.slow
def test_the_expert_figure_of_the_guide(workdir):
    (line,) = commands(slow=True)
    result = run(line, workdir)
    assert result.returncode == 0, result.stdout + result.stderr
    records = (workdir / "runs" / "geography_6_100" / RECORDS_FILE).read_text().splitlines()
    successes = sum(json.loads(x)["success"] for x in records)
    assert len(records) == 100 and successes >= 99
