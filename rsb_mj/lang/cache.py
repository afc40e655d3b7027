"""The lint result cache: what ``rsb lint`` found in a file, so that an unchanged file is not
read again by the parser and the rules (as ruff and mypy keep their results).

An entry is keyed by the file's path, the lint target and its text, inside a cache file
named after a fingerprint of the linter itself: the bytes of every ``rsb_mj`` module, the
grammar, the shipped template files and the Python version. Editing any of them, upgrading
rsb_mj or changing the file starts from nothing, so a cached result is always the one a fresh
run would give (a test checks the output is the same byte for byte). Files that name other
files (a quoted string: a question bank, a template file) are never cached, since their
findings depend on more than their own text.

Location: ``<cache root>/lint/<fingerprint>.json`` (the cache root is ``RSB_MJ_CACHE``, else
``~/.cache/rsb_mj``); written atomically; a cache that cannot be read or written is ignored.
``rsb lint --no-cache`` neither reads nor writes it. Pure Python: a run whose files are all
cached imports neither the parser nor the rules.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from rsb_mj.resources import cache_root

#: Entries kept in one cache file (beyond, the file restarts with the current run's entries).
MAX_ENTRIES = 50_000
#: Format of the cache file (part of the fingerprint).
FORMAT = 1


def _package_files() -> list[Path]:
    """The files a lint result depends on besides the linted file (sorted)."""
    from rsb_mj.resources import grammar_path, tasks_dir

    package = Path(__file__).resolve().parents[1]
    files = sorted(package.rglob("*.py"))
    files.append(Path(grammar_path()))
    files.extend(sorted((tasks_dir() / "templates").glob("*.txt")))
    return files


def fingerprint() -> str:
    """Hex digest of the linter: every rsb_mj module, the grammar, the shipped templates, the
    Python version and :data:`FORMAT`."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}\0{sys.version}\0".encode())
    for path in _package_files():
        digest.update(path.name.encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cacheable(text: str) -> bool:
    """False for a text whose findings depend on other files (it names one in quotes)."""
    return '"' not in text


class LintCache:
    """Lint findings by (path, target, text) for the current linter.

    Attributes:
        path: the cache file (None: nothing is stored).
        entries: key -> findings; a finding is ``{"error": bool, "text": str, "json": dict}``
            (its rendered text and its ``--format json`` object).
    """

    def __init__(self, path: Path | None, entries: dict[str, list[dict[str, Any]]]) -> None:
        self.path = path
        self.entries = entries
        self._changed = False

    @classmethod
    def open(cls) -> LintCache:
        """The cache of the current linter (empty when absent, unreadable or corrupt)."""
        root = cache_root()
        if root is None:
            return cls(None, {})
        path = root / "lint" / f"{fingerprint()}.json"
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            entries = {}
        return cls(path, entries if isinstance(entries, dict) else {})

    @staticmethod
    def key(path: Path | str, target: str | None, text: str) -> str:
        """The entry key of ``text`` read from ``path`` and linted for ``target``."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(f"{path}\0{target or ''}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    cacheable = staticmethod(cacheable)

    def get(self, key: str) -> list[dict[str, Any]] | None:
        """The findings stored under ``key``, or None."""
        found = self.entries.get(key)
        return found if isinstance(found, list) else None

    def put(self, key: str, findings: list[dict[str, Any]]) -> None:
        """Store ``findings`` under ``key`` (written by :meth:`save`)."""
        if self.entries.get(key) != findings:
            self.entries[key] = findings
            self._changed = True

    def save(self, keep: set[str] | None = None) -> None:
        """Write the cache file if anything changed (atomically; errors are ignored) and
        delete the cache files of other linter versions. Past :data:`MAX_ENTRIES` entries
        only those in ``keep`` (this run's) are written."""
        if self.path is None or not self._changed:
            return
        from rsb_mj.atomic import WriteError, atomic_write_text

        entries = self.entries
        if len(entries) > MAX_ENTRIES and keep is not None:
            entries = {k: v for k, v in entries.items() if k in keep}
        with contextlib.suppress(OSError, ValueError, WriteError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(entries, separators=(",", ":")))
            for other in self.path.parent.glob("*.json"):
                if other != self.path:
                    other.unlink(missing_ok=True)
        self._changed = False
