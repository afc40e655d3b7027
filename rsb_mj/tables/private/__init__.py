"""Private draws: fresh eval tables drawn from a secret, asking no question a shipped table
asks (``rsb episodes build --private``, ``rsb episodes check --tables``, ``rsb audit
--tables``, ``rsb eval --tables``; docs/private_draws.md).

One concept per module:

* :mod:`.secret` -- the secret, its seeds, shuffles and public id;
* :mod:`.target` -- what a table is drawn for (a suite or a task file), its file name;
* :mod:`.manifest` -- reading and writing the private manifest, loading a table against it;
* :mod:`.build` -- drawing the tables (:func:`build_private`);
* :mod:`.check` -- ``rsb episodes check --tables``, without the secret;
* :mod:`.audit` -- ``rsb audit --tables``.
"""

from __future__ import annotations

from rsb_mj.tables.private.audit import audit_private
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.check import check_private
from rsb_mj.tables.private.manifest import (
    BUILDER,
    PrivateManifest,
    load_private,
    read_private,
)
from rsb_mj.tables.private.secret import MIN_SECRET_BYTES, VERSION, Secret
from rsb_mj.tables.private.target import SPLIT, Target, file_of

__all__ = [
    "BUILDER",
    "MIN_SECRET_BYTES",
    "SPLIT",
    "VERSION",
    "PrivateManifest",
    "Secret",
    "Target",
    "audit_private",
    "build_private",
    "check_private",
    "file_of",
    "load_private",
    "read_private",
]
