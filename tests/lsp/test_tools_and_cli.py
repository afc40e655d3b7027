"""tools/bench_lsp.py runs (a tiny real run over stdio) and ``rsb lsp`` refuses bad options."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import ROOT, server_env


def _run(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=server_env(),
        timeout=timeout,
    )


def test_bench_lsp_help():
    run = _run("tools/bench_lsp.py", "--help")
    assert run.returncode == 0
    assert "--changes" in run.stdout and "--debounce-ms" in run.stdout


def test_bench_lsp_tiny_run():
    run = _run("tools/bench_lsp.py", "--changes", "4", "--settle", "0", "--pause", "0.05")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert re.fullmatch(r"task: rsb_math_4\.bddl; first diagnostics after open: \d+ ms", lines[0])
    assert re.fullmatch(
        r"diagnostics after a change \(4 edits\): median [\d.]+ ms, p90 [\d.]+ ms, max [\d.]+ ms",
        lines[1],
    )


def test_rsb_lsp_refuses_a_negative_debounce():
    run = _run("-m", "rsb_mj", "lsp", "--debounce-ms", "-5", timeout=60)
    assert run.returncode == 2
    assert run.stderr == "rsb lsp: error: --debounce-ms must be >= 0, got -5.0\n"


def test_rsb_lsp_exits_when_the_editor_closes_its_input():
    """No client at all (stdin at end of file): the server stops at once, status 0."""
    run = subprocess.run(
        [sys.executable, "-m", "rsb_mj", "lsp"],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=server_env(),
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
