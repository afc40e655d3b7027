"""The identity of a task: a sha256 over the task file and every file it names.

A task is its ``.bddl`` file *and* the files that file names, the question bank
``(:source (:file ...))`` and template files ``(:templates (:file ...))``: editing any of
them changes the episodes. :func:`task_digest` hashes them all; it is what the environment
records as ``info["sim"]["task_sha256"]`` (so in every episode record), what a run folder's
``run.json`` keeps per suite and what ``rsb report`` refuses to pool across.

The digest of a task file that names no other file is the sha256 of its bytes (as before
referenced files were hashed, so the shipped suites' digests did not change); otherwise it is
the sha256 of ``"rsb-task-v1\\0"``, then ``\\0 sha256(task file) \\n``, then for each named
file in order of appearance ``name \\0 sha256(bytes) \\n`` (the name as written; so the digest
does not depend on where the task's folder lies).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.lang.blocks import FILE_SOURCE
from rsb_mj.lang.files import ReferencedFileError, read_referenced, resolve_referenced
from rsb_mj.lang.parser import parse_source

#: Prefix of the digest of a task that names other files (its format version).
DIGEST_FORMAT = b"rsb-task-v1\0"


@dataclass(frozen=True)
class TaskDigest:
    """A task's digest and the sha256 of each of its files.

    Attributes:
        sha256: the task's digest (hex).
        files: ``(name, sha256 hex)`` per file: the task file (its file name), then each
            file it names as written in it (``"missing"`` or ``"unreadable"`` for one that
            cannot be read).
    """

    sha256: str
    files: tuple[tuple[str, str], ...]

    def changed_files(self, held: dict[str, str]) -> list[str]:
        """Names of this digest's files whose sha256 differs from ``held`` (name -> sha256;
        a name absent from ``held`` counts as changed)."""
        return [name for name, sha in self.files if held.get(name) != sha]


def referenced_names(text: str, path: str) -> list[tuple[str, str]]:
    """``(name as written, what)`` of every file the task text names, in order (parsed:
    only a text with a quoted string can name one)."""
    if '"' not in text:
        return []

    problem, _ = parse_source(text, path)
    if problem is None:
        return []
    out = []
    q = problem.question
    if q is not None and q.source == FILE_SOURCE and q.file is not None:
        out.append((q.file, "question bank"))
    for choice in problem.instruction.choices if problem.instruction is not None else ():
        if choice.file is not None:
            out.append((choice.file, "template file"))
    return list(dict.fromkeys(out))


def task_digest(path: str | Path) -> TaskDigest:
    """The digest of the task file at ``path`` and the files it names (see the module).

    Raises:
        OSError: when the task file itself cannot be read.
    """
    data = Path(path).read_bytes()
    own = hashlib.sha256(data).hexdigest()
    names = referenced_names(data.decode("utf-8", errors="replace"), str(path))
    files = [(Path(path).name, own)]
    if not names:
        return TaskDigest(own, tuple(files))
    for name, what in names:
        try:
            body = read_referenced(resolve_referenced(str(path), name, what), what)
            files.append((name, hashlib.sha256(body).hexdigest()))
        except ReferencedFileError as exc:
            files.append((name, exc.kind))
    digest = hashlib.sha256(DIGEST_FORMAT)
    for i, (name, sha) in enumerate(files):  # the task file by content only: not by its path
        digest.update(f"{name if i else ''}\0{sha}\n".encode())
    return TaskDigest(digest.hexdigest(), tuple(files))
