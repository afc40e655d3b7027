"""A private folder's manifest (:mod:`rsb_mj.tables.private.build`): reading it, writing its
text, and loading a private table verified against it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.files import MANIFEST, read_table, sha256
from rsb_mj.tables.private.secret import VERSION
from rsb_mj.tables.private.target import file_of

if TYPE_CHECKING:
    from rsb_mj.tables.private.secret import Secret

#: The builder's name in the manifest.
#: The builder named in a private manifest (a format name, kept from where the builder first lived).
BUILDER = "rsb_mj.episodes.private"


@dataclass(frozen=True)
class PrivateManifest:
    """A private folder's manifest.

    Attributes:
        folder: the folder.
        version: the builder version that drew it.
        secret_id: the secret's public id (:attr:`~rsb_mj.tables.private.secret.Secret.id`).
        tables: file name -> its entry (see :mod:`rsb_mj.tables.private.build`).
        sha256: the sha256 of ``manifest.json``'s bytes: what records of a run on these
            tables name (``tables``).
    """

    folder: Path
    version: int
    secret_id: str
    tables: dict[str, dict[str, Any]]
    sha256: str

    def entry(self, file: str) -> dict[str, Any]:
        """The entry of table ``file``.

        Raises:
            EpisodeError: for a table the manifest does not list, naming the ones it does.
        """
        try:
            return self.tables[file]
        except KeyError:
            raise EpisodeError(
                f"{self.folder / MANIFEST}: no private table {file}; it holds "
                f"{', '.join(sorted(self.tables)) or 'none'} (draw it with: rsb episodes build "
                f"... --private --secret-file FILE -o {self.folder})"
            ) from None


def read_private(folder: Path) -> PrivateManifest:
    """The private manifest of ``folder``.

    Raises:
        EpisodeError: for a folder without a manifest, with the shipped kind (no
            ``private`` block) or a malformed one.
    """
    path = Path(folder) / MANIFEST
    if Path(folder).exists() and not Path(folder).is_dir():
        raise EpisodeError(
            f"{folder}: not a folder; private tables are the folder rsb episodes build SUITE "
            "--private --secret-file FILE -o DIR wrote"
        )
    try:
        data = path.read_bytes()
    except OSError:
        raise EpisodeError(
            f"{path}: no private manifest; draw tables with: rsb episodes build SUITE "
            f"--private --secret-file FILE -o {folder}"
        ) from None
    try:
        body = json.loads(data)
        info, tables = body["private"], body["tables"]
        version, secret_id = int(info["version"]), str(info["secret_sha256"])
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        raise EpisodeError(
            f"{path}: not a private manifest (expected {{'format', 'private': {{'builder', "
            "'version', 'secret_sha256'}, 'tables'}); a folder of shipped tables is checked "
            "with rsb episodes check --dir"
        ) from None
    return PrivateManifest(Path(folder), version, secret_id, dict(tables), sha256(data))


def manifest_bytes(secret: Secret, tables: dict[str, dict[str, Any]]) -> str:
    """The text of a private manifest (sorted, stable)."""
    body = {
        "format": 1,
        "private": {"builder": BUILDER, "version": VERSION, "secret_sha256": secret.id},
        "tables": dict(sorted(tables.items())),
    }
    return json.dumps(body, indent=2) + "\n"


_LOADED: dict[tuple[str, int, int], list[Episode]] = {}


def load_private(folder: Path, file: str) -> tuple[PrivateManifest, list[Episode]]:
    """The manifest and the rows of private table ``file`` in ``folder``, its sha256
    verified against the manifest first (once per file and process).

    Raises:
        EpisodeError: for a missing manifest or table, a table the manifest does not list,
            or one whose bytes differ from the manifest's.
    """
    manifest = read_private(folder)
    entry = manifest.entry(file)
    path = Path(folder) / file
    try:
        stat = path.stat()
    except OSError:
        raise EpisodeError(f"{path}: private table missing (the manifest lists it)") from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _LOADED:
        digest = sha256(path.read_bytes())
        if digest != entry["sha256"]:
            raise EpisodeError(
                f"{path}: sha256 {digest[:12]} is not the manifest's {entry['sha256'][:12]}: "
                "the table was changed by hand, so its rows would score the wrong episodes; "
                f"restore it, or draw it again with its secret: rsb episodes build "
                f"{entry['suite'] or entry['task']} --private --secret-file FILE -o {folder}"
            )
        _LOADED[key] = read_table(path)
    return manifest, _LOADED[key]


def wanted_files(manifest: PrivateManifest, names: list[str] | None) -> list[str]:
    """The table files of ``names`` (suites or task files), every one the manifest lists
    when ``names`` is empty or None.

    Raises:
        EpisodeError: for a name whose table the manifest does not list.
    """
    if not names:
        return sorted(manifest.tables)
    files = [file_of(n) for n in names]
    for file in files:
        manifest.entry(file)
    return files


__all__ = [
    "BUILDER",
    "PrivateManifest",
    "load_private",
    "manifest_bytes",
    "read_private",
    "wanted_files",
]
