"""``rsb fmt [--check] PATH...``: rewrite task files (``*.bddl``) in the canonical layout.

With ``--check`` nothing is written; the files that would change are listed. A file is
rewritten atomically (:mod:`rsb_mj.atomic`: temporary file, then rename): a failed write (full
disk, ``ulimit -f``, no permission) leaves it as it was and prints one line naming it. A
symlink stays a symlink (the file it points to is rewritten) and a file keeps its permission
bits.
Exit status: 0 nothing to change (or all rewritten), 1 ``--check`` found files to change or a
file does not parse, 2 usage error or a file that could not be written.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from rsb_mj.atomic import WriteError, atomic_write_text
from rsb_mj.lang.files import iter_files


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fmt`` subcommand."""
    parser = subparsers.add_parser(
        "fmt",
        help="format task files in the canonical layout",
        description="Rewrite task files (*.bddl) in the canonical layout (comments kept).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file would change"
    )
    parser.set_defaults(func=run)


def _rewrite(path: Path, text: str) -> None:
    """Write ``text`` over the file ``path`` names, atomically: through a symlink to its
    target (the link stays), keeping the file's permission bits.

    Raises:
        WriteError: naming the file and the cause.
    """
    target = path.resolve() if path.is_symlink() else path
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError as exc:
        raise WriteError(f"{target}: cannot write ({exc.strerror or exc})") from None
    atomic_write_text(target, text, mode=mode)


def run(args: argparse.Namespace) -> int:
    """Run ``rsb fmt``; returns the exit status."""
    # Imported here: building the ``rsb`` parser (every command) must not load the parser.
    from rsb_mj.lang.diagnostics import TaskFileError
    from rsb_mj.lang.formatter import format_text
    from rsb_mj.lang.parser import read_source

    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        print(f"rsb fmt: error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    files = [p for p in iter_files(args.paths) if p.suffix == ".bddl"]
    if not files:
        print(f"rsb fmt: error: no *.bddl files under {', '.join(args.paths)}", file=sys.stderr)
        return 2
    status = 0
    changed = 0
    for path in files:
        text, diagnostics = read_source(path)
        try:
            if text is None:
                raise TaskFileError(diagnostics)
            formatted = format_text(text, str(path))
        except TaskFileError as err:
            for d in err.diagnostics:
                print(d.render(text), file=sys.stderr)
            status = 1
            continue
        if formatted == text:
            continue
        changed += 1
        if args.check:
            print(f"would reformat {path}")
            status = 1
        else:
            try:
                _rewrite(path, formatted)
            except WriteError as err:
                print(f"rsb fmt: error: {err}; the file is unchanged", file=sys.stderr)
                changed -= 1
                status = 2
                continue
            print(f"reformatted {path}")
    verb = "would be reformatted" if args.check else "reformatted"
    print(f"{len(files)} file{'s' if len(files) != 1 else ''} checked, {changed} {verb}")
    return status
