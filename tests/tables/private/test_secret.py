"""The secret of a private draw (rsb_mj.tables.private.secret): read stripped, too short
refused, its seeds the documented HMAC, and only its domain-separated hash public."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from rsb_mj.errors import EpisodeError
from rsb_mj.tables.private.secret import Secret

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
