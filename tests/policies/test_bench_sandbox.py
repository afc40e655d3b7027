"""``tools/bench_sandbox.py`` runs end to end (a tiny run: 2 starts, 10 calls at 16x16, one
episode of 3 steps, one block)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.policies.sandbox import available

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bench_sandbox.py"


@pytest.mark.slow  # about 30 s: eight policy processes and two runs
@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_a_tiny_benchmark_run_reports_both_sides_and_the_overhead(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--starts", "2", "--steps", "10", "--size", "16", "--episodes", "1",
            "--max-steps", "3", "--blocks", "1", "--json", str(out)]  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(TOOL), *args], cwd=tmp_path, capture_output=True, text=True,
        timeout=600, env={**os.environ},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("start + reset + close: ") and lines[0].endswith(" ms plain")
    assert lines[1].startswith("act (3 x 16x16 RGB): ")
    assert lines[2].startswith("rsb eval, 1 episodes of 3 steps: ")
    r = json.loads(out.read_text())
    assert (r["starts"], r["steps"], r["size"], r["episodes"], r["max_steps"]) == (2, 10, 16, 1, 3)
    for key in ("start", "act", "episode"):
        assert r[f"{key}_sandbox_ms"] > 0 and r[f"{key}_plain_ms"] > 0
    assert r["episode_overhead_ms"] == r["episode_sandbox_ms"] - r["episode_plain_ms"]
    assert r["episode_ratio"] == r["episode_sandbox_ms"] / r["episode_plain_ms"]


def test_bad_arguments_are_refused():
    done = subprocess.run(
        [sys.executable, str(TOOL), "--episodes", "0"], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.endswith(
        "error: --starts, --steps, --size, --episodes, --max-steps and --blocks must be at "
        "least 1\n"
    )
