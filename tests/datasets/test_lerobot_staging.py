"""A killed ``rsb export-lerobot`` leaves its hidden build folder; the next export of the
same target removes it (issue 23 item 8), and leaves a live build alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from rsb_mj.datasets.lerobot import export_lerobot
from rsb_mj.datasets.staging import remove_stale, staging_dir


def test_the_export_after_a_killed_one_removes_its_build_folder(synthetic_demos, tmp_path):
    out = tmp_path / "ds"
    script = textwrap.dedent(
        f"""
        import os, signal
        from rsb_mj.datasets.lerobot import export_lerobot
        def die(done, total):
            os.kill(os.getpid(), signal.SIGKILL)  # after the first episode, mid-build
        export_lerobot({str(synthetic_demos)!r}, {str(out)!r}, progress=die)
        """
    )
    killed = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL
    (left,) = tmp_path.glob(".ds.*.tmp")
    assert left.is_dir() and f".{os.getpid()}." not in left.name  # the killed process's
    assert not out.exists()
    summary = export_lerobot(synthetic_demos, out)
    assert summary.episodes == 2 and (out / "meta" / "info.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_only_the_builds_of_dead_processes_and_old_versions_are_removed(tmp_path):
    target = tmp_path / "lerobot"
    live = staging_dir(target)  # this process: running
    probe = [sys.executable, "-c", "import os; print(os.getpid())"]
    dead_pid = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    dead = tmp_path / live.name.replace(f".{os.getpid()}.", f".{dead_pid}.")
    dead.mkdir()
    (dead / "data").mkdir()
    old_dead = tmp_path / dead.name.replace(".tmp", ".old")
    old_dead.mkdir()
    legacy = tmp_path / ".lerobot.k2j4x9_q.tmp"  # rsb_mj before builds named their process
    legacy.mkdir()
    other_host = tmp_path / f".lerobot.elsewhere.{dead_pid}.abcd1234.tmp"
    other_host.mkdir()
    other_target = tmp_path / ".lerobot.v2.k2j4x9_q.tmp"  # a build of target "lerobot.v2"
    other_target.mkdir()
    assert sorted(remove_stale(target)) == sorted([dead, old_dead, legacy])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, other_host.name, other_target.name]
    )
