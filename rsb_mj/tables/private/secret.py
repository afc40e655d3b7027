"""The secret of a private draw (:mod:`rsb_mj.tables.private.build`): every seed and shuffle of
its tables is an HMAC of it, and only a domain-separated hash of it is ever written.

Row ``i``, attempt ``a`` of a table labelled ``L`` has the seed :meth:`Secret.seed`
``("rows", L, i, a)``: the first 8 bytes, shifted to 63 bits, of
``HMAC-SHA256(secret, "rsb_mj/private/v{VERSION}/rows/L/i/a")``; a paired table's fixed
shuffles come from :meth:`Secret.token` ``("balance", L)``. The public id
(:attr:`Secret.id`) is the sha256 of ``"rsb_mj/private/secret-id\\0" + secret``, a domain of
its own, so it is no key of any draw.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from rsb_mj.errors import EpisodeError
from rsb_mj.file_kind import file_kind

#: The private builder's version: it changes whenever the same secret would draw other rows.
VERSION = 1
#: The shortest secret accepted [bytes] (128 bits).
MIN_SECRET_BYTES = 16
#: A secret shorter than this [bytes] is accepted with a warning (a typed phrase of 16
#: characters holds far fewer than 128 random bits).
WARN_SECRET_BYTES = 32
#: The largest secret file read [bytes].
MAX_SECRET_FILE_BYTES = 4096
#: Folders of files the kernel makes as they are read (``/proc/self/status`` differs per
#: process): never a secret's home. ``/dev/shm`` (a tmpfs) is a real filesystem.
PSEUDO_FOLDERS = ("/proc", "/sys", "/dev")


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _pseudo_folder(path: Path) -> str:
    """The pseudo filesystem (:data:`PSEUDO_FOLDERS`) ``path`` is on ("" for none): by its
    real path, or by its device where that folder is a mount of its own (a file reached
    through a link or a bind mount)."""
    real = os.path.realpath(path)
    device = os.stat(path).st_dev
    for folder in PSEUDO_FOLDERS:
        inside = real == folder or real.startswith(folder + "/")
        if inside and not real.startswith("/dev/shm/"):
            return folder
        if os.path.ismount(folder) and os.stat(folder).st_dev == device and folder != "/dev":
            return folder
    return ""


class Secret:
    """The secret of a private draw: the seeds and shuffles of its tables (never written).

    Args:
        key: the secret's bytes.
        where: where it came from, for messages.

    Raises:
        EpisodeError: for a secret shorter than :data:`MIN_SECRET_BYTES`.
    """

    def __init__(self, key: bytes, where: str = "the secret") -> None:
        if len(key) < MIN_SECRET_BYTES:
            raise EpisodeError(
                f"{where}: a secret of {len(key)} bytes can be guessed; give at least "
                f"{MIN_SECRET_BYTES} (e.g. head -c 32 /dev/urandom | base64 > secret.txt)"
            )
        self._key = bytes(key)

    @classmethod
    def read(cls, path: Path, warn: Callable[[str], None] | None = None) -> Secret:
        """The secret in file ``path``: its bytes less surrounding whitespace.

        Only a regular file of at most :data:`MAX_SECRET_FILE_BYTES` on a real filesystem is
        read (a device such as ``/dev/urandom`` never ends, a FIFO blocks until someone writes
        it, a file of ``/proc`` or ``/sys`` is made anew for each reader, so the same path
        would not give the same secret to ``rsb episodes check``).

        Args:
            path: the secret file.
            warn: called with a message for a secret shorter than
                :data:`WARN_SECRET_BYTES` or a file that other users can read (default:
                printed to stderr).

        Raises:
            EpisodeError: for a missing or unreadable file, one that is not a regular file
                or is too big, or too short a secret.
        """
        where = f"--secret-file {path}"
        warn = warn or _warn
        try:
            mode = os.stat(path).st_mode
            if not stat.S_ISREG(mode):
                raise EpisodeError(
                    f"{where}: not a regular file ({file_kind(mode)}); write the secret to a "
                    "file, e.g. head -c 32 /dev/urandom | base64 > secret.txt"
                )
            pseudo = _pseudo_folder(path)
            if pseudo:
                raise EpisodeError(
                    f"{where}: on {pseudo}, not a real filesystem (its files are made anew "
                    "for each reader: the same path gives another secret later); write the "
                    "secret to a regular file, e.g. head -c 32 /dev/urandom | base64 > "
                    "secret.txt"
                )
            with open(path, "rb") as fh:
                data = fh.read(MAX_SECRET_FILE_BYTES + 1)
        except OSError as exc:
            raise EpisodeError(f"{where}: cannot read it ({exc.strerror or exc})") from None
        if len(data) > MAX_SECRET_FILE_BYTES:
            raise EpisodeError(
                f"{where}: more than {MAX_SECRET_FILE_BYTES} bytes; a secret is a short "
                "random string, e.g. head -c 32 /dev/urandom | base64 > secret.txt"
            )
        secret = cls(data.strip(), where)
        if len(secret._key) < WARN_SECRET_BYTES:
            warn(
                f"{where}: a secret of {len(secret._key)} bytes is short; "
                f"{WARN_SECRET_BYTES} random bytes or more are safer "
                "(head -c 32 /dev/urandom | base64 > secret.txt)"
            )
        if mode & 0o044:
            warn(
                f"{where}: other users can read it (mode {stat.S_IMODE(mode):04o}); "
                f"chmod 600 {path}"
            )
        return secret

    @property
    def id(self) -> str:
        """The secret's public id (hex): sha256 of ``"rsb_mj/private/secret-id\\0" + secret``."""
        return hashlib.sha256(b"rsb_mj/private/secret-id\0" + self._key).hexdigest()

    def digest(self, *parts: object) -> bytes:
        """``HMAC-SHA256(secret, "rsb_mj/private/v{VERSION}/" + "/".join(parts))``."""
        message = "/".join(["rsb_mj/private", f"v{VERSION}", *map(str, parts)])
        return hmac.new(self._key, message.encode(), hashlib.sha256).digest()

    def seed(self, *parts: object) -> int:
        """A 63-bit seed of :meth:`digest` (its first 8 bytes, shifted right by one)."""
        return int.from_bytes(self.digest(*parts)[:8], "big") >> 1

    def token(self, *parts: object) -> str:
        """:meth:`digest` in hex."""
        return self.digest(*parts).hex()

    def __repr__(self) -> str:
        return f"Secret(id {self.id[:12]})"


__all__ = [
    "MAX_SECRET_FILE_BYTES",
    "MIN_SECRET_BYTES",
    "PSEUDO_FOLDERS",
    "VERSION",
    "WARN_SECRET_BYTES",
    "Secret",
]
