"""rsb_mj.atomic: an output folder is checked before anything is written, with a message
naming the folder and the cause."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from rsb_mj.atomic import WriteError, atomic_write_text, writable_folder


def test_a_new_folder_is_made_with_its_parents_and_mode(tmp_path):
    made = writable_folder(tmp_path / "a" / "b", "the tables (-o)", mode=0o700)
    assert made == tmp_path / "a" / "b" and made.is_dir()
    assert stat.S_IMODE(made.stat().st_mode) == 0o700 & ~_umask()
    assert list(made.iterdir()) == []  # the probe file is gone


def test_a_file_or_a_folder_under_a_file_is_refused(tmp_path):
    blocker = tmp_path / "report.txt"
    blocker.write_text("keep me")
    with pytest.raises(WriteError) as err:
        writable_folder(blocker, "the tables (-o)")
    assert (
        str(err.value)
        == f"{blocker}: cannot write the tables (-o) there: it is a file, not a folder"
    )
    with pytest.raises(WriteError) as err:
        writable_folder(blocker / "sub" / "dir", "the tables (-o)")
    assert str(err.value) == (
        f"{blocker / 'sub' / 'dir'}: cannot write the tables (-o) there: {blocker} is a file, "
        "not a folder"
    )
    assert blocker.read_text() == "keep me"


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="no sysfs (Linux only)")
def test_a_folder_nobody_can_write_is_refused_even_as_root():
    """sysfs refuses new files to root too (chmod does not stop root: a permission test
    with it would pass for the wrong reason)."""
    with pytest.raises(WriteError) as err:
        writable_folder("/sys", "the tables (-o)")
    assert re.fullmatch(
        r"/sys: cannot write the tables \(-o\) there \((Permission denied|Read-only file "
        r"system)\); name a folder you can write",
        str(err.value),
    ), str(err.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a 0500 folder")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    with pytest.raises(WriteError, match=r"ro: cannot write x there \(Permission denied\)"):
        writable_folder(folder, "x")


def test_atomic_write_keeps_the_old_file_when_the_folder_is_gone(tmp_path):
    with pytest.raises(WriteError, match=r"missing/f\.txt: cannot write \(No such file"):
        atomic_write_text(tmp_path / "missing" / "f.txt", "x")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
