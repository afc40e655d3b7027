"""The secret of a private draw (rsb_mj.tables.private.secret): read stripped, too short
refused, only a small regular file on a real filesystem read (never a device, a FIFO or a
file of /proc or /sys), a short or readable secret
warned of, its seeds the documented HMAC, and only its domain-separated hash public."""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.private.secret import MAX_SECRET_FILE_BYTES, Secret

from .private_draws import SECRET


def test_the_secret_is_read_stripped_and_only_its_domain_separated_hash_is_public(tmp_path):
    file = tmp_path / "secret.txt"
    file.write_bytes(b"  " + SECRET + b"\n")
    secret = Secret.read(file)
    assert secret.id == hashlib.sha256(b"rsb_mj/private/secret-id\0" + SECRET).hexdigest()
    assert secret.id != hashlib.sha256(SECRET).hexdigest()
    assert SECRET.decode() not in repr(secret)
    message = b"rsb_mj/private/v1/rows/RSB-Math-4/3/0"
    digest = hmac.new(SECRET, message, hashlib.sha256).digest()
    assert secret.seed("rows", "RSB-Math-4", 3, 0) == int.from_bytes(digest[:8], "big") >> 1
    file.write_bytes(b"short secret\n")
    with pytest.raises(EpisodeError) as err:
        Secret.read(file)
    assert str(err.value) == (
        f"--secret-file {file}: a secret of 12 bytes can be guessed; give at least 16 "
        "(e.g. head -c 32 /dev/urandom | base64 > secret.txt)"
    )
    with pytest.raises(EpisodeError, match="cannot read it"):
        Secret.read(tmp_path / "missing.txt")


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/dev/urandom", "a character device"), ("FIFO", "a FIFO"), ("DIR", "a folder")],
)
def test_only_a_regular_file_is_read_so_a_device_or_fifo_never_hangs(tmp_path, path, kind):
    if path == "FIFO":
        path = tmp_path / "fifo"
        os.mkfifo(path)  # opening it would block until a writer came
    elif path == "DIR":
        path = tmp_path
    with pytest.raises(EpisodeError) as err:
        Secret.read(path)
    assert str(err.value) == (
        f"--secret-file {path}: not a regular file ({kind}); write the secret to a file, e.g. "
        "head -c 32 /dev/urandom | base64 > secret.txt"
    )


def test_a_file_over_the_cap_is_refused_unread(tmp_path):
    file = tmp_path / "big"
    file.write_bytes(b"a" * (MAX_SECRET_FILE_BYTES + 1))
    with pytest.raises(EpisodeError) as err:
        Secret.read(file)
    assert str(err.value) == (
        f"--secret-file {file}: more than 4096 bytes; a secret is a short random string, e.g. "
        "head -c 32 /dev/urandom | base64 > secret.txt"
    )
    file.write_bytes(b"a" * MAX_SECRET_FILE_BYTES)
    assert Secret.read(file, warn=lambda _: None).id == Secret(b"a" * 4096).id


def test_a_short_or_readable_secret_is_used_with_a_warning(tmp_path):
    file = tmp_path / "secret.txt"
    file.write_bytes(b"0123456789abcdefghij\n")  # 20 bytes: accepted, but short
    file.chmod(0o644)
    warnings: list[str] = []
    Secret.read(file, warn=warnings.append)
    assert warnings == [
        f"--secret-file {file}: a secret of 20 bytes is short; 32 random bytes or more are "
        "safer (head -c 32 /dev/urandom | base64 > secret.txt)",
        f"--secret-file {file}: other users can read it (mode 0644); chmod 600 {file}",
    ]
    file.chmod(0o600)
    file.write_bytes(SECRET)
    warnings.clear()
    Secret.read(file, warn=warnings.append)
    assert warnings == []


def _sys_file() -> str:
    """A regular file of sysfs that can be read."""
    for path in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/power/state"):
        if os.access(path, os.R_OK):
            return path
    pytest.skip("no readable sysfs file here")


@pytest.mark.parametrize("where", ["/proc/self/status", "SYS", "LINK"])
def test_a_file_the_kernel_makes_for_each_reader_is_refused(tmp_path, where):
    # /proc/self/status was accepted: its bytes differ per process, so the same path later
    # failed rsb episodes check
    pseudo = "/sys" if where == "SYS" else "/proc"
    if where == "SYS":
        where = _sys_file()
    elif where == "LINK":
        (tmp_path / "secret.txt").symlink_to("/proc/self/status")
        where = str(tmp_path / "secret.txt")
    with pytest.raises(EpisodeError) as err:
        Secret.read(Path(where))
    assert str(err.value) == (
        f"--secret-file {where}: on {pseudo}, not a real filesystem (its files are made anew "
        "for each reader: the same path gives another secret later); write the secret to a "
        "regular file, e.g. head -c 32 /dev/urandom | base64 > secret.txt"
    )


def test_eval_refuses_a_proc_secret_file_before_the_first_episode(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "-n", "1", "--sealed",
            "--secret-file", "/proc/self/status", "--out", str(out), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "rsb eval: error: --secret-file /proc/self/status: on /proc, not a real filesystem "
        "(its files are made anew for each reader: the same path gives another secret later); "
        "write the secret to a regular file, e.g. head -c 32 /dev/urandom | base64 > "
        "secret.txt\n"
    )
    assert not out.exists()
