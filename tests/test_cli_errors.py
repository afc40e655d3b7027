"""Bounds and clear errors: every bad request of ``rsb eval``, ``rsb demos``, ``rsb render``
and ``rsb expert-check`` gets one line naming the flag or path and the cause, exit 2, and
no work (nothing built, nothing written)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.lock import LOCK_FILE, FolderLock

EVAL = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--no-progress", "--workers", "1"]


def _err(capsys) -> str:
    return capsys.readouterr().err


@pytest.fixture
def read_only(tmp_path) -> Path:
    """An existing folder this process cannot write into (root ignores file modes, so for
    root a folder of the read-only sysfs)."""
    if os.geteuid() == 0:
        return Path("/sys/kernel")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


def test_episodes_beyond_the_table_are_refused_at_once(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*EVAL, "--episodes", "100000000000", "--out", str(out)]) == 2  # no 1e11 jobs
    assert _err(capsys) == (
        "rsb eval: error: --start 0 --episodes 100000000000: the RSB-Math-4 eval table has "
        "500 rows (valid: --start + --episodes <= 500)\n"
    )
    assert not out.exists()
    assert main([*EVAL, "--start", "499", "--episodes", "2", "--out", str(out)]) == 2
    assert "--start 499 --episodes 2: the RSB-Math-4 eval table has 500 rows" in _err(capsys)


def test_a_video_index_outside_the_run_is_refused(tmp_path, capsys):
    assert main([*EVAL, "--episodes", "2", "--video", "-1", "--out", str(tmp_path / "r")]) == 2
    assert _err(capsys) == (
        "rsb eval: error: --video -1: not an episode of this run (valid: 0..1, from --start "
        "and --episodes)\n"
    )


def test_a_video_path_that_is_a_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    video = out / "videos" / "RSB-Math-4_noop_eval_0000.mp4"
    video.mkdir(parents=True)
    assert main([*EVAL, "--episodes", "1", "--video", "0", "--out", str(out)]) == 2
    assert _err(capsys) == (
        f"rsb eval: error: {video}: is a folder; the video of this episode goes there\n"
    )
    assert not (out / RECORDS_FILE).exists()


def test_out_that_is_a_file_or_under_a_file(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main([*EVAL, "--episodes", "1", "--out", str(blocker)]) == 2
    assert _err(capsys) == f"rsb eval: error: {blocker}: exists and is not a folder\n"
    assert main([*EVAL, "--episodes", "1", "--out", str(blocker / "run")]) == 2
    assert _err(capsys) == (
        f"rsb eval: error: {blocker / 'run'}: cannot create the folder ({blocker} is not a "
        "folder)\n"
    )


def test_a_read_only_out(read_only, capsys):
    assert main([*EVAL, "--episodes", "1", "--out", str(read_only)]) == 2
    assert _err(capsys) == f"rsb eval: error: {read_only}: cannot write (Permission denied)\n"


def test_a_corrupt_run_description_names_file_line_and_column(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text('{"split": "eval",\n  versions: 1}\n')
    assert main([*EVAL, "--episodes", "1", "--out", str(out)]) == 2
    assert _err(capsys) == (
        f"rsb eval: error: {out / 'run.json'}:2:3: not a valid run description (Expecting "
        "property name enclosed in double quotes); fix or remove it, or use another --out\n"
    )
    (out / "run.json").write_text("[1, 2]")
    assert main([*EVAL, "--episodes", "1", "--out", str(out)]) == 2
    assert "not a valid run description (expected an object with a 'split'" in _err(capsys)


def test_a_hand_edited_record_with_a_wrong_type_is_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*EVAL, "--episodes", "1", "--max-steps", "2", "--out", str(out)]) == 0
    path = out / RECORDS_FILE
    row = json.loads(path.read_text())
    row["index"] = "0"
    path.write_text(json.dumps(row) + "\n")
    capsys.readouterr()
    assert main([*EVAL, "--episodes", "1", "--max-steps", "2", "--out", str(out)]) == 2
    assert _err(capsys) == f"rsb eval: error: {path}:1: field 'index' is \"0\"; it must be int\n"


def test_a_second_writer_is_refused_naming_the_first(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    with FolderLock(out, "rsb eval"):
        assert main([*EVAL, "--episodes", "1", "--out", str(out)]) == 2
        err = _err(capsys)
        assert main(["demos", "RSB-Math-4", "-n", "1", "-o", str(out), "--no-progress"]) == 2
        err_demos = _err(capsys)
    host = os.uname().nodename
    holder = f"in use by rsb eval (pid {os.getpid()} on {host}, started "
    assert err.startswith(f"rsb eval: error: {out}: {holder}"), err
    assert err.endswith(" UTC); wait for it to finish or use another output folder\n")
    assert err_demos.startswith(f"rsb demos: error: {out}: {holder}")
    assert not (out / RECORDS_FILE).exists()


def test_a_stale_lock_of_a_killed_run_is_taken_over(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    stale = {"pid": 999999, "host": "gone", "started": 0, "command": "rsb eval", "argv": []}
    (out / LOCK_FILE).write_text(json.dumps(stale))  # left by a killed run: nobody holds it
    assert main([*EVAL, "--episodes", "1", "--max-steps", "2", "--out", str(out)]) == 0
    assert json.loads((out / LOCK_FILE).read_text())["pid"] == os.getpid()


def test_demos_rows_outside_the_frozen_table_are_refused(tmp_path, capsys):
    args = ["demos", "RSB-Math-4", "--split", "eval", "--start", "499", "-n", "3"]
    assert main([*args, "-o", str(tmp_path / "d")]) == 2
    assert _err(capsys) == (
        "rsb demos: error: --start 499 -n 3: the RSB-Math-4 eval table has 500 rows "
        "(valid: --start + -n <= 500)\n"
    )
    assert not (tmp_path / "d").exists()


def test_expert_check_rows_outside_the_frozen_table_are_refused(capsys):
    assert main(["expert-check", "RSB-Math-10", "--start", "490", "-n", "20"]) == 2
    assert _err(capsys) == (
        "rsb expert-check: error: --start 490 -n 20: the RSB-Math-10 eval table has 500 rows "
        "(valid: --start + -n <= 500)\n"
    )


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--seed", "-1"], "--seed -1: must be a non-negative integer"),
        (["--width", "100000", "--height", "100000"], "--width 100000: must be 1..4096 pixels"),
        (["--height", "0"], "--height 0: must be 1..4096 pixels"),
    ],
)
def test_render_bounds(tmp_path, capsys, extra, message):
    assert main(["render", "RSB-Math-4", "-o", str(tmp_path / "x.png"), *extra]) == 2
    assert _err(capsys) == f"rsb render: error: {message}\n"


def test_render_to_a_text_file_is_refused(tmp_path, capsys):
    out = tmp_path / "x.txt"
    assert main(["render", "RSB-Math-4", "-o", str(out)]) == 2
    assert _err(capsys) == (
        f"rsb render: error: {out}: unsupported image type '.txt'; valid choices: .png, .jpg, "
        ".jpeg, .bmp, .webp\n"
    )
    assert not out.exists()


@pytest.fixture
def fresh_cache_root(monkeypatch):
    from rsb_mj.scene import cache

    monkeypatch.delenv("RSB_MJ_CACHE", raising=False)  # restored (unset) after the test
    cache.cache_root.cache_clear()
    yield cache
    cache.cache_root.cache_clear()


def test_the_cache_falls_back_when_home_cannot_be_written(
    tmp_path, monkeypatch, capsys, read_only, fresh_cache_root
):
    import tempfile

    monkeypatch.setenv("HOME", str(read_only / "home"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    root = fresh_cache_root.cache_root()
    assert root == tmp_path / f"rsb_mj-cache-{os.getuid()}"
    home = read_only / "home" / ".cache" / "rsb_mj"
    cause = "Operation not permitted" if os.geteuid() == 0 else "Permission denied"
    assert _err(capsys) == (
        f"rsb_mj: {home} cannot be written ({cause}); caching in {root} "
        "(set RSB_MJ_CACHE to choose)\n"
    )
    assert os.environ["RSB_MJ_CACHE"] == str(root)  # workers inherit it without a message
    assert fresh_cache_root.cache_dir().parent == root


def test_an_unwritable_rsb_mj_cache_is_an_error(read_only, monkeypatch, fresh_cache_root):
    from rsb_mj.errors import RsbError

    monkeypatch.setenv("RSB_MJ_CACHE", str(read_only))
    with pytest.raises(RsbError, match=rf"^RSB_MJ_CACHE={read_only}: cannot write the cache "):
        fresh_cache_root.cache_root()


@pytest.mark.parametrize("flag", ["--connect-timeout", "--request-timeout", "--episode-timeout"])
def test_an_infinite_timeout_is_refused(flag, tmp_path, capsys):
    # 'inf' was accepted: a network call without a timeout
    out = tmp_path / "run"
    assert main([*EVAL, "--episodes", "1", flag, "inf", "--out", str(out)]) == 2
    assert _err(capsys) == f"rsb eval: error: {flag} inf: must be a positive number of seconds\n"
    assert not out.exists()


@pytest.mark.parametrize("kind", ["file", "read-only folder", "under a file"])
def test_an_unusable_rsb_mj_cache_stops_eval_before_the_first_episode(
    kind, tmp_path, monkeypatch, capsys, read_only, fresh_cache_root
):
    # it was one error record per episode, exit 3 and "rerun the same command to retry them"
    fix = "set RSB_MJ_CACHE to a writable folder, or unset it to cache in ~/.cache/rsb_mj"
    a_file = tmp_path / "cache.txt"
    a_file.write_text("")
    cause = "Operation not permitted" if os.geteuid() == 0 else "Permission denied"
    named, why = {
        "file": (a_file, "a file, not a folder"),
        "read-only folder": (read_only / "cache", f"cannot write the cache folder ({cause})"),
        "under a file": (a_file / "cache", "cannot write the cache folder (Not a directory)"),
    }[kind]
    monkeypatch.setenv("RSB_MJ_CACHE", str(named))
    out = tmp_path / "run"
    assert main([*EVAL, "--episodes", "2", "--out", str(out)]) == 2
    assert _err(capsys) == f"rsb eval: error: RSB_MJ_CACHE={named}: {why}; {fix}\n"
    assert not out.exists()


def test_doctor_names_an_unusable_rsb_mj_cache_not_the_gl_backend(
    tmp_path, monkeypatch, capsys, fresh_cache_root
):
    a_file = tmp_path / "cache.txt"
    a_file.write_text("")
    monkeypatch.setenv("RSB_MJ_CACHE", str(a_file))
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    problem = (
        f"RSB_MJ_CACHE={a_file}: a file, not a folder; set RSB_MJ_CACHE to a writable folder, "
        "or unset it to cache in ~/.cache/rsb_mj"
    )
    assert f"  cache        none: {problem}\n\nverdict: fails\n" in out
    assert " ".join(out.split("verdict: fails\n")[1].split()) == (
        f"fails: rsb_mj cannot write its cache folder ({problem}), so no reference frame was "
        "drawn and the GL backend was not checked. Fix the cache, then run rsb doctor again."
    )
    assert "GL backend (MUJOCO_GL" not in out and "Reference frames" not in out


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("a" * 300, "--name 'aaaaaaaaaaaaaaaaaaaa...': 300 characters; "),
        ("", "--name '': "),
        ("two\nlines", "--name 'two\\nlines': "),
        (" padded", "--name ' padded': "),
    ],
)
def test_a_bad_name_is_refused_before_the_run(name, why, tmp_path, capsys):
    # 300 characters ran, then rsb report failed "File name too long" for the whole folder
    out = tmp_path / "run"
    assert main([*EVAL, "--episodes", "1", "--name", name, "--out", str(out)]) == 2
    assert _err(capsys) == (
        f"rsb eval: error: {why}a name is 1 to 64 printable characters (letters, digits, "
        "spaces, punctuation), without spaces around it\n"
    )
    assert not out.exists()
