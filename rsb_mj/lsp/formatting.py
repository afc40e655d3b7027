"""Document formatting: ``rsb fmt``'s formatter (:func:`rsb_mj.lang.formatter.format_text`,
comments kept) over the editor's buffer; a task that does not parse is left as it is."""

from __future__ import annotations

from pathlib import Path

from rsb_mj.lang.diagnostics import TaskFileError
from rsb_mj.lang.files import TASK_SUFFIXES
from rsb_mj.lang.formatter import format_text


def formatted(text: str, path: Path) -> str | None:
    """The canonical layout of ``text``; None when ``path`` is not a task file (``rsb fmt``
    formats ``*.bddl`` only), the text does not parse, or nothing changes."""
    if path.suffix not in TASK_SUFFIXES:
        return None

    try:
        out = format_text(text, str(path))
    except TaskFileError:
        return None
    return out if out != text else None
