"""Which files rsb_mj reads for a task (pure Python, no parser import).

* ``rsb lint`` reads task files (``*.bddl``) and template files (``templates/**/*.txt``)
  found under the paths given (:func:`iter_files`).
* A task file names further files, a question bank ``(:source (:file "q.jsonl"))`` and
  template files ``(:templates (:file "t.txt"))``: *referenced files*. They are resolved
  against the task file's folder and must lie inside it once symlinks are followed
  (:func:`resolve_referenced`): ``../../x``, an absolute path or a symlink out of the folder is
  refused, unless the file lies under a folder allowed explicitly (``--allow-root DIR`` of
  ``rsb lint``, ``rsb eval`` and ``rsb episodes``; :func:`allow_roots` in this process,
  which a run hands to its workers as an argument, ``Job.allow_roots``; the environment
  variable :data:`ALLOW_ROOTS_ENV` a user sets, which rsb_mj reads and never writes). A
  referenced file must
  be a regular file (not a folder, FIFO, device or socket) of at most
  :data:`MAX_REFERENCED_BYTES` bytes, and is read with :func:`read_referenced`, which never
  blocks on a FIFO and never reads more than that cap.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from rsb_mj.errors import TaskError
from rsb_mj.file_kind import file_kind

#: File suffixes ``rsb lint`` treats as task files.
TASK_SUFFIXES = (".bddl",)
#: Largest file a task file may reference (question bank, template file) [bytes]: 32 MiB,
#: about six times the whole of GSM8K as a question bank.
MAX_REFERENCED_BYTES = 32 * 1024 * 1024
#: Environment variable a user may set to further folders referenced files may lie in
#: (``os.pathsep``-separated); read, never written (``--allow-root`` is an argument).
ALLOW_ROOTS_ENV = "RSB_MJ_ALLOW_ROOTS"

#: The folders :func:`allow_roots` allows in this process (resolved), innermost last.
_ALLOWED: list[tuple[Path, ...]] = []


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


class ReferencedFileError(TaskError):
    """A file a task file names cannot be used. The message has no position: callers put
    the task file's ``path:line:col`` in front (or report it as a lint finding there).

    Attributes:
        kind: ``"outside"`` (outside the task's folder and every allowed root),
            ``"missing"``, ``"not-regular"`` (a folder, FIFO, device or socket),
            ``"too-large"`` or ``"unreadable"``.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def allowed_roots() -> tuple[Path, ...]:
    """The folders allowed besides a task file's own: those :func:`allow_roots` allows in
    this process, then the user's :data:`ALLOW_ROOTS_ENV`."""
    raw = os.environ.get(ALLOW_ROOTS_ENV, "")
    given = _ALLOWED[-1] if _ALLOWED else ()
    return tuple(dict.fromkeys([*given, *(Path(p) for p in raw.split(os.pathsep) if p)]))


@contextlib.contextmanager
def allow_roots(roots: Sequence[str | Path]) -> Iterator[None]:
    """Allow referenced files under ``roots`` too while the block runs, in this process (a
    process rsb_mj starts gets them as an argument: a run's jobs carry them,
    :attr:`rsb_mj.evaluation.jobs.Job.allow_roots`; nothing is set in the environment).

    Raises:
        TaskError: for a root that is not an existing folder.
    """
    for root in roots:
        if not Path(root).is_dir():
            raise TaskError(f"--allow-root {root}: not a folder")
    outer = _ALLOWED[-1] if _ALLOWED else ()
    _ALLOWED.append(tuple(dict.fromkeys([*(Path(r).resolve() for r in roots), *outer])))
    try:
        yield
    finally:
        _ALLOWED.pop()


def add_allow_root(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-root DIR`` (repeatable) to a command that reads task files; the ``rsb``
    entry point applies it (:func:`allow_roots`) around the command."""
    parser.add_argument(
        "--allow-root",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="also read files a task names (question bank, templates) from under DIR "
        "(repeatable; by default only the task file's own folder)",
    )


def task_folder(task_path: str) -> Path:
    """The folder a task file's relative paths are read from (the current folder for a task
    given as text, ``"<string>"``)."""
    return Path(task_path).parent if not task_path.startswith("<") else Path.cwd()


def _check_stat(st: os.stat_result, shown: str, what: str) -> None:
    kind = file_kind(st.st_mode)
    if kind is not None:
        raise ReferencedFileError("not-regular", f"{what} {shown} is not a regular file ({kind})")
    if st.st_size > MAX_REFERENCED_BYTES:
        raise ReferencedFileError(
            "too-large",
            f"{what} {shown} is {st.st_size:,} bytes; files a task names are capped at "
            f"{MAX_REFERENCED_BYTES:,} bytes ({MAX_REFERENCED_BYTES >> 20} MiB)",
        )


def resolve_referenced(
    task_path: str, name: str, what: str, *, roots: Sequence[str | Path] | None = None
) -> Path:
    """The file ``name`` (as written in the task file ``task_path``), checked for use.

    Args:
        task_path: the task file (its folder is where ``name`` is looked up).
        name: the path as written in ``(:file "...")``.
        what: ``"question bank"`` or ``"template file"``, for messages.
        roots: further folders the file may lie in; None: :func:`allowed_roots`.

    Returns:
        The path to read: the task folder joined with ``name`` (symlinks not followed, so
        messages show the name the user wrote).

    Raises:
        ReferencedFileError: outside the folder and every root, missing, not a regular
            file, larger than :data:`MAX_REFERENCED_BYTES`; the message quotes ``name``.
    """
    folder = task_folder(task_path)
    path = folder / name
    shown = repr(name)
    resolved = path.resolve()
    extra_roots = allowed_roots() if roots is None else roots
    allowed = [folder.resolve(), *(Path(r).resolve() for r in extra_roots)]
    if not any(resolved.is_relative_to(root) for root in allowed):
        extra = ", ".join(str(r) for r in allowed[1:])
        raise ReferencedFileError(
            "outside",
            f"{what} {shown} resolves to {resolved}, outside the task file's folder "
            f"{allowed[0]}{f' and the allowed roots {extra}' if extra else ''}; files a task "
            "names must lie in its folder (or allow another with --allow-root DIR)",
        )
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ReferencedFileError(
            "missing", f"{what} {shown} not found (looked in {path})"
        ) from None
    except OSError as exc:
        raise ReferencedFileError(
            "unreadable", f"{what} {shown} cannot be read ({exc.strerror or exc})"
        ) from None
    _check_stat(st, shown, what)
    return path


def read_referenced(path: Path, what: str) -> bytes:
    """The bytes of a referenced file, read safely: opened without blocking (a FIFO swapped
    in after :func:`resolve_referenced` is refused, not waited on), checked to be a regular
    file of at most :data:`MAX_REFERENCED_BYTES` bytes, and never read beyond that.

    Raises:
        ReferencedFileError: missing, not a regular file, too large or unreadable.
    """
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ReferencedFileError("missing", f"{what} {shown} not found") from None
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            raise ReferencedFileError(
                "not-regular", f"{what} {shown} is not a regular file"
            ) from None
        raise ReferencedFileError(
            "unreadable", f"{what} {shown} cannot be read ({exc.strerror or exc})"
        ) from None
    try:
        _check_stat(os.fstat(fd), shown, what)
        chunks, total = [], 0
        while total <= MAX_REFERENCED_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_REFERENCED_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_REFERENCED_BYTES:  # grew after the check
            raise ReferencedFileError(
                "too-large", f"{what} {shown} is over {MAX_REFERENCED_BYTES:,} bytes"
            )
        return b"".join(chunks)
    except OSError as exc:
        raise ReferencedFileError(
            "unreadable", f"{what} {shown} cannot be read ({exc.strerror or exc})"
        ) from None
    finally:
        os.close(fd)
