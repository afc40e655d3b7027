"""Which files ``rsb lint`` reads: task files (``*.bddl``) and template files
(``templates/**/*.txt``), found under the paths given (pure Python, no parser import)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

#: File suffixes ``rsb lint`` treats as task files.
TASK_SUFFIXES = (".bddl",)


def is_template_file(path: Path) -> bool:
    """True for ``*.txt`` files inside a folder called ``templates``."""
    return path.suffix == ".txt" and "templates" in path.parts[:-1]


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Task and template files under ``paths`` (folders searched recursively, sorted)."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [
                p
                for p in sorted(path.rglob("*"))
                if p.is_file() and (p.suffix in TASK_SUFFIXES or is_template_file(p))
            ]
            yield from found
        else:
            yield path
