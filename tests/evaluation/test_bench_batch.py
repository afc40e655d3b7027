"""``tools/bench_batch.py`` runs end to end (a tiny run: one worker, B = 1 and 2, 32x32
cameras, 3 steps per episode) against its latency-emulating server in its own process."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "bench_batch.py"


def test_a_tiny_run_reports_the_limit_each_batch_size_and_the_ratios(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--batches", "1,2", "--workers", "1", "--steps", "3", "--obs", "3", "--size", "32",
            "--latency-ms", "20", "--per-item-ms", "1", "--json", str(out)]  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(TOOL), *args], cwd=tmp_path, capture_output=True, text=True,
        timeout=600, env={**os.environ},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("simulator-bound limit (instant policy, B=1): ")
    assert lines[1].startswith("B=1: ") and lines[1].endswith(" 1.00 observations per request")
    assert lines[2].startswith("B=2: ")
    assert lines[3].startswith("B=2: ") and "x B=1 (target >= 3x)" in lines[3]
    result = json.loads(out.read_text())
    assert result["settings"] == {
        "suite": "RSB-Math-4", "cameras": ["head", "left_wrist", "right_wrist"], "size": 32,
        "workers": 1, "steps": 3, "latency_ms": 20.0, "per_item_ms": 1.0,
    }  # fmt: skip
    for key, episodes in (("limit", 1), ("B=1", 1), ("B=2", 2)):  # the steady middle round
        assert result[key]["observations"] == 3 * episodes
        assert math.isfinite(result[key]["obs_per_s"]) and result[key]["obs_per_s"] > 0
    assert result["B=1"]["items_per_request"] == 1.0
    assert result["B=2"]["items_per_request"] > 1.0  # the two episodes asked together
    assert result["ratio"] == result["B=2"]["obs_per_s"] / result["B=1"]["obs_per_s"]
    assert result["machine"]["cpus"] == os.cpu_count()


def test_help_and_bad_arguments():
    run = [sys.executable, str(TOOL)]
    done = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--batches" in done.stdout
    done = subprocess.run([*run, "--steps", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "error: --workers, --steps, --obs, --size and --max-batch must be at least 1\n"
    )
    done = subprocess.run([*run, "--batches", "1,0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "a comma-separated list of batch sizes >= 1" in done.stderr
