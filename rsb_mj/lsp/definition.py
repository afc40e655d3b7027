"""Go to definition: object, fixture and region names to their declarations, and
``(:file "...")`` references to the file they name (relative to the task file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rsb_mj.lang import ast
from rsb_mj.lsp.context import Cursor
from rsb_mj.lsp.positions import Positions


@dataclass(frozen=True)
class Target:
    """Where a name is defined: the file, and character offsets ``[start, end)`` in
    ``text`` (None for another file: its start)."""

    path: Path
    start: int | None = None
    end: int | None = None


def region_name_offsets(text: str, region: ast.Region, positions: Positions) -> tuple[int, int]:
    """Offsets of a region's own name in its declaration ``(NAME ...)``."""
    start, end = positions.span_offsets(region.span)
    at = text.find(region.name, start, end)
    return (at, at + len(region.name)) if at >= 0 else (start, end)


def file_target(cursor: Cursor, folder: Path) -> Target | None:
    """The file a ``(:file "...")`` string under the cursor names, if it exists."""
    tok = cursor.token
    if tok is None or tok.kind != "string" or cursor.head() != ":file":
        return None
    path = (folder / tok.text.strip('"')).resolve()
    return Target(path) if path.is_file() else None


def definition(
    cursor: Cursor, problem: ast.Problem | None, path: Path, positions: Positions
) -> Target | None:
    """Where the word under ``cursor`` is declared, or None."""
    found = file_target(cursor, path.parent)
    if found is not None or problem is None or cursor.token is None:
        return found
    word = cursor.token.text
    for decl in (*problem.fixtures, *problem.objects):
        if decl.name == word:
            start, end = positions.span_offsets(decl.span)
            return Target(path, start, end)
    for region in problem.regions:
        in_regions = cursor.head(-2) == ":regions" and region.name == word
        if region.full_name == word or in_regions:
            return Target(path, *region_name_offsets(positions.text, region, positions))
    return None
