"""``.pre-commit-hooks.yaml`` through ``pre-commit try-repo`` on a scratch git repository with
a broken and a clean task: rsb-lint flags the broken one (its finding printed) and passes the
clean one; rsb-fmt rewrites an unformatted task and passes a formatted one.

The ``-system`` hooks run the rsb on PATH (offline, seconds). The plain hooks make
pre-commit build its own virtualenv and ``pip install`` this checkout into it (MuJoCo,
robosuite and the rest from PyPI: about 3 minutes and 1.6 GB): that test is slow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, TASKS, server_env

MATH_4 = (TASKS / "rsb_math_4.bddl").read_text(encoding="utf-8")

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None, reason="pre-commit try-repo needs git, which is not installed"
)


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A git repository holding tasks/clean.bddl and tasks/broken.bddl (staged)."""
    repo = tmp_path / "tasks_repo"
    (repo / "tasks").mkdir(parents=True)
    (repo / "tasks" / "clean.bddl").write_text(MATH_4, encoding="utf-8")
    (repo / "tasks" / "broken.bddl").write_text(
        MATH_4.replace("(:goal", "(:goall"), encoding="utf-8"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, timeout=60)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, timeout=60)
    return repo


def try_repo(
    repo: Path, hook: str, *files: str, python_path: bool = True
) -> subprocess.CompletedProcess:
    env = (
        server_env() if python_path else {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    )
    env["PRE_COMMIT_HOME"] = str(repo.parent / "pre-commit-home")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--files", *files],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=1500,
    )


def _check_lint(repo: Path, hook: str, python_path: bool = True) -> None:
    bad = try_repo(repo, hook, "tasks/broken.bddl", "tasks/clean.bddl", python_path=python_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "rsb lint" in bad.stdout and "Failed" in bad.stdout
    assert "tasks/broken.bddl:27:3: RSB201 unknown-block: unknown block ':goall'" in bad.stdout
    assert "tasks/clean.bddl:" not in bad.stdout
    assert "2 files checked: 2 errors, 0 warnings" in bad.stdout
    good = try_repo(repo, hook, "tasks/clean.bddl", python_path=python_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def test_rsb_lint_hook_flags_the_broken_task(scratch):
    _check_lint(scratch, "rsb-lint-system")


def test_rsb_fmt_hook_rewrites_an_unformatted_task(scratch):
    messy = scratch / "tasks" / "messy.bddl"
    messy.write_text(MATH_4.replace("\n    (On", " (On"), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=scratch, check=True, timeout=60)
    changed = try_repo(scratch, "rsb-fmt-system", "tasks/messy.bddl", "tasks/clean.bddl")
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "reformatted tasks/messy.bddl" in changed.stdout
    assert "files were modified by this hook" in changed.stdout
    assert messy.read_text(encoding="utf-8") == MATH_4
    same = try_repo(scratch, "rsb-fmt-system", "tasks/clean.bddl")
    assert same.returncode == 0 and "Passed" in same.stdout, same.stdout


@pytest.mark.slow
def test_rsb_lint_hook_in_its_own_virtualenv(scratch):
    """pre-commit installs this checkout (not the one on the path) in a new virtualenv."""
    _check_lint(scratch, "rsb-lint", python_path=False)
