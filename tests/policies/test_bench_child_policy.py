"""``tools/bench_child_policy.py`` runs end to end (a tiny run: 16x16 images, 20 calls)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bench_child_policy.py"


def test_a_tiny_benchmark_run_reports_both_sides_and_the_overhead(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--steps", "20", "--blocks", "1", "--size", "16", "--cameras", "4", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(TOOL), *args], cwd=tmp_path, capture_output=True, text=True,
        timeout=300, env={**os.environ},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("observation: 4 x 16x16 RGB + state (3,184 bytes); ")
    assert lines[1].startswith("policy process: act ") and lines[2].startswith("    in process:")
    assert lines[3].endswith(" ms median (the < 1 ms target is set for 3 x 224x224)")
    result = json.loads(out.read_text())
    assert (result["steps"], result["cameras"], result["size"]) == (20, 4, 16)
    assert result["observation_bytes"] == 4 * 16 * 16 * 3 + 14 * 8
    assert result["policy_process"]["median_ms"] > result["in_process"]["median_ms"] > 0
    assert result["overhead_median_ms"] == (
        result["policy_process"]["median_ms"] - result["in_process"]["median_ms"]
    )


def test_help_and_bad_arguments():
    run = [sys.executable, str(TOOL)]
    done = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--cameras" in done.stdout
    done = subprocess.run([*run, "--steps", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "error: --steps, --size, --cameras and --blocks must be at least 1\n"
    )
