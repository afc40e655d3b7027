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
from pathlib import Path

from rsb_mj.errors import EpisodeError

#: The private builder's version: it changes whenever the same secret would draw other rows.
VERSION = 1
#: The shortest secret accepted [bytes] (128 bits).
MIN_SECRET_BYTES = 16


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
    def read(cls, path: Path) -> Secret:
        """The secret in file ``path``: its bytes less surrounding whitespace.

        Raises:
            EpisodeError: for a missing or unreadable file, or too short a secret.
        """
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise EpisodeError(f"--secret-file {path}: cannot read it ({exc.strerror})") from None
        return cls(data.strip(), f"--secret-file {path}")

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


__all__ = ["MIN_SECRET_BYTES", "VERSION", "Secret"]
