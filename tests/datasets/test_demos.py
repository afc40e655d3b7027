from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import h5py
import pytest

from rsb_mj.cli import main
from rsb_mj.datasets.demo_file import episode_filename, read_demo
from rsb_mj.datasets.demo_folder import SETTINGS_FILE
from rsb_mj.datasets.demos import missing_indices, write_demos
from rsb_mj.lock import LOCK_FILE
from rsb_mj.tables.episode_source import load_episode


def _names(folder):
    """Files of ``folder`` other than its lock file and its settings (``demos.json``)."""
    return sorted(p.name for p in folder.iterdir() if p.name not in (LOCK_FILE, SETTINGS_FILE))


def test_missing_indices_skip_good_files_redo_damaged_ones_and_remove_leftovers(tmp_path):
    write_demos("RSB-Math-4", "train", 1, tmp_path, start=1, cameras=(), progress=False)
    good = (tmp_path / episode_filename(1)).read_bytes()
    (tmp_path / f".{episode_filename(2)}.123.tmp").write_bytes(b"half")
    assert missing_indices(tmp_path, 4) == [0, 2, 3]
    assert missing_indices(tmp_path, 2, start=3) == [3, 4]
    assert _names(tmp_path) == [episode_filename(1)]
    # a hand-truncated file does not count as done: it is removed and its row redone
    (tmp_path / episode_filename(1)).write_bytes(good[: len(good) // 2])
    damaged = []
    assert missing_indices(tmp_path, 2, damaged=damaged) == [0, 1]
    path = tmp_path / episode_filename(1)
    assert len(damaged) == 1 and damaged[0].startswith(f"{path}: unreadable demonstration (")
    assert _names(tmp_path) == []


def test_perturbed_demos_store_the_instruction_the_env_gave_and_their_levels(tmp_path):
    """W2/V1 on train row 0: two command words substituted (the question, options and
    mapping kept), the levels stored; unperturbed files have no level attributes."""
    write_demos("RSB-Math-4", "train", 1, tmp_path / "w2", cameras=(), progress=False,
                visual_level=1, language_level=2)  # fmt: skip
    demo = read_demo(tmp_path / "w2" / episode_filename(0), images=False)
    plain = load_episode("RSB-Math-4", "train", 0).instruction
    assert (
        demo.attrs["instruction"]
        == demo.attrs["prompt"]
        == plain.replace("note that", "notice that").replace("gray zone", "gray spot")
    )
    assert (demo.attrs["visual_level"], demo.attrs["language_level"]) == (1, 2)
    assert demo.episode.instruction == plain and demo.attrs["success"]
    write_demos("RSB-Math-4", "train", 1, tmp_path / "w0", cameras=(), progress=False)
    attrs = read_demo(tmp_path / "w0" / episode_filename(0), images=False).attrs
    assert attrs["instruction"] == plain and "language_level" not in attrs


def test_writes_readable_episodes_and_resumes(tmp_path):
    res = write_demos(
        "RSB-Math-4",
        "train",
        2,
        tmp_path,
        cameras=("head",),
        width=64,
        height=48,
        progress=False,
    )
    assert (res["written"], res["existing"], res["failed"]) == (2, 0, 0)
    demo = read_demo(tmp_path / episode_filename(1))
    assert demo.episode == load_episode("RSB-Math-4", "train", 1)
    assert demo.attrs["success"]
    assert demo.states.shape == demo.actions.shape == (demo.attrs["num_frames"], 14)
    assert demo.states.shape[0] <= 400
    assert demo.images["head"][0].shape == (48, 64, 3)
    assert len(demo.attrs["task_sha256"]) == 64
    assert demo.attrs["mujoco_version"] == "3.8.1"
    # a resumed run writes only what is missing
    (tmp_path / episode_filename(0)).unlink()
    res = write_demos(
        "RSB-Math-4",
        "train",
        3,
        tmp_path,
        cameras=("head",),
        width=64,
        height=48,
        progress=False,
    )
    assert (res["written"], res["existing"]) == (2, 1)
    assert _names(tmp_path) == [episode_filename(i) for i in range(3)]


def test_two_worker_processes_write_the_same_bytes_as_this_process(tmp_path):
    options = {"cameras": ("head",), "width": 64, "height": 48, "progress": False}
    write_demos("RSB-Math-4", "train", 2, tmp_path / "one", start=5, **options)
    res = write_demos("RSB-Math-4", "train", 2, tmp_path / "two", start=5, jobs=2, **options)
    assert (res["written"], res["failed"], res["errors"]) == (2, 0, [])
    names = [episode_filename(5), episode_filename(6)]
    assert _names(tmp_path / "one") == _names(tmp_path / "two") == names
    for name in names:
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_cli_prints_one_summary_line(tmp_path, capsys):
    out = tmp_path / "demos"
    code = main(["demos", "RSB-Math-10", "-n", "1", "-o", str(out), "--cameras", ""])
    assert code == 0
    printed = capsys.readouterr()
    # stderr is not a terminal: a progress line, not a bar
    assert printed.err.startswith("rsb demos RSB-Math-10: 1/1 episodes (100%), ")
    assert "\r" not in printed.err
    line = printed.out.strip().splitlines()[-1]
    assert line.startswith(f"rsb demos: RSB-Math-10 train: 1 episodes in {out} (1 written, 0 ")
    with h5py.File(out / episode_filename(0)) as f:
        assert list(f["observations/images"]) == []
        assert f.attrs["suite"] == "RSB-Math-10"
    # a rerun with other settings would keep files recorded with these: refused, named
    assert json.loads((out / "demos.json").read_text())["question"]["--cameras"] == ""
    for argv, message in (
        (["RSB-Math-10", "--visual-level", "2"], "--visual-level 2: {out} holds demonstrations "
         "recorded with --visual-level 0 (demos.json); rerun with that to resume it, or give "
         "another --out"),
        (["A2A-Color"], "suite A2A-Color: {out} holds demonstrations recorded with suite "
         "RSB-Math-10 (demos.json); rerun with that to resume it, or give another --out"),
    ):  # fmt: skip
        assert main(["demos", *argv, "-n", "1", "-o", str(out), "--cameras", ""]) == 2
        assert capsys.readouterr().err == f"rsb demos: error: {message.format(out=out)}\n"
    assert main(["demos", "RSB-Math-10", "-n", "2", "-o", str(out), "--cameras", ""]) == 0
    assert "(1 written, 1 already there" in capsys.readouterr().out


def test_an_episode_in_error_writes_nothing_the_others_are_written_and_a_rerun_retries_it(
    tmp_path, capsys, monkeypatch
):
    from rsb_mj.policies.scripted import ExpertPolicy

    calls = []
    choose = ExpertPolicy.choose

    def fails_first(self, env, info, rng):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("planner lost")
        return choose(self, env, info, rng)

    monkeypatch.setattr(ExpertPolicy, "choose", fails_first)
    argv = ["demos", "RSB-Math-4", "-n", "2", "-o", str(tmp_path), "--cameras", ""]
    assert main([*argv, "--no-progress"]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "  episode 0: error (not written): PolicyError: policy expert: reset() raised "
        "RuntimeError: planner lost"
    )
    assert out[1].startswith(
        f"rsb demos: RSB-Math-4 train: 2 episodes in {tmp_path} (1 written, 0 already there, "
        "0 with expert failures, 1 errors: rerun to retry) in "
    )
    assert _names(tmp_path) == [episode_filename(1)]
    assert main([*argv, "--no-progress"]) == 0  # the error is retried, the file kept
    assert capsys.readouterr().out.startswith(
        f"rsb demos: RSB-Math-4 train: 2 episodes in {tmp_path} (1 written, 1 already there, "
    )
    assert _names(tmp_path) == [episode_filename(0), episode_filename(1)]


def test_unknown_cameras_are_refused_before_any_episode(tmp_path, capsys):
    argv = ["demos", "RSB-Math-4", "-n", "1", "-o", str(tmp_path / "d"), "--cameras", "top"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "rsb demos: error: unknown cameras ['top']; valid choices: head, left_wrist, right_wrist\n"
    )
    assert not (tmp_path / "d").exists()


def test_cli_rejects_an_unknown_suite(capsys):
    assert main(["demos", "RSB-Nope-4", "-o", "x"]) == 2
    assert "unknown suite 'RSB-Nope-4'; valid choices: RSB-Math-4" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_run_completes_with_exactly_n_files(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "rsb_mj",
        "demos",
        "RSB-Math-4",
        "-n",
        "6",
        "-o",
        str(tmp_path),
        "--cameras",
        "head",
        "--width",
        "64",
        "--height",
        "48",
        "--no-progress",
    ]
    proc = subprocess.Popen(cmd, start_new_session=True)
    deadline = time.time() + 300
    while not list(tmp_path.glob("episode_*.hdf5")) and time.time() < deadline:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done = len(list(tmp_path.glob("episode_*.hdf5")))
    # killed after the first file landed and before the last: how many depends on timing
    assert 1 <= done < 6
    subprocess.run(cmd, check=True)
    names = _names(tmp_path)
    assert names == [episode_filename(i) for i in range(6)]
    for name in names:
        assert read_demo(tmp_path / name, images=False).attrs["success"]
