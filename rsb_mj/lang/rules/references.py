"""RSB470-RSB472: the files a task file names (question bank, template files) and what a
question bank's texts hold.

Where a referenced file may lie and what it may be is decided by one function,
:func:`rsb_mj.lang.files.resolve_referenced`, which the runtime (:func:`rsb_mj.lang.task.task_of`)
calls too: a file these rules pass is one the runtime reads, and one they flag is refused
there with the same message. The rules reading the file's contents (RSB453, RSB455) read it
only through :func:`usable_reference`, so nothing outside the task's folder is ever opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rsb_mj.lang.blocks import FILE_SOURCE
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.files import ReferencedFileError, resolve_referenced, task_folder
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import RULES, Context, rule


def _references(ctx: Context) -> Iterator[tuple[str, str, Span]]:
    """``(name as written, what, span)`` of every file the task names."""
    q = ctx.problem.question
    if q is not None and q.source == FILE_SOURCE and q.file is not None:
        yield q.file, "question bank", q.source_span if q.source_span.line else q.span
    i = ctx.problem.instruction
    for choice in i.choices if i is not None else ():
        if choice.file is not None:
            yield choice.file, "template file", choice.span


def usable_reference(ctx: Context, name: str, what: str) -> Path | None:
    """The path of ``name`` when it may be read (or is simply missing: the caller reports
    that), None when RSB470/RSB471 report why it may not."""
    try:
        return resolve_referenced(ctx.path, name, what)
    except ReferencedFileError as exc:
        return task_folder(ctx.path) / name if exc.kind == "missing" else None


@rule(
    "RSB470",
    "referenced-file-outside",
    "error",
    bad='(:source (:file "../../../etc/passwd"))',
    good='(:source (:file "questions.jsonl"))  ; next to the task file',
)
def referenced_file_outside(ctx: Context) -> None:
    """A question bank or template file that lies outside the task file's folder once the
    path is resolved: ``..`` steps out of it, an absolute path, or a symlink whose target
    is elsewhere. A task file is shared and run by others, so it may read only what travels
    with it. Other folders can be allowed explicitly: ``--allow-root DIR`` (``rsb lint``,
    ``rsb eval``, ``rsb episodes``), :func:`rsb_mj.lang.allow_roots`, or the user's
    ``RSB_MJ_ALLOW_ROOTS``."""
    _check(ctx, "outside", "RSB470")


@rule(
    "RSB471",
    "referenced-file-unusable",
    "error",
    bad='(:templates (:file "pipe_4.txt"))   ; a FIFO (or a device, a folder, a 2 GB file)',
    good='(:templates (:file "mine_4.txt"))',
)
def referenced_file_unusable(ctx: Context) -> None:
    """A question bank or template file that is not a regular file (a folder, FIFO, device
    or socket: reading it could block or never end), is larger than 32 MiB (the cap on any
    file a task names), or cannot be read (permissions)."""
    _check(ctx, ("not-regular", "too-large", "unreadable"), "RSB471")


def _check(ctx: Context, kinds: str | tuple[str, ...], code: str) -> None:
    for name, what, span in _references(ctx):
        try:
            resolve_referenced(ctx.path, name, what)
        except ReferencedFileError as exc:
            if exc.kind in kinds:
                ctx.report(code, str(exc), span)


@rule(
    "RSB472",
    "bank-placeholder",
    "warning",
    bad='{"question": "Which block is {MAPA}?", "options": ["x", "y"], "answer": "x"}',
    good='{"question": "Which city is the capital of Peru?", "options": ["Lima", "Quito"], ...}',
)
def bank_placeholder(ctx: Context) -> None:
    """A placeholder (``{Q}``, ``{OPTIONS}``, ``{MAPA}``.., or another ``{NAME}`` in capitals)
    inside a question bank's question or option text. Only templates are filled in: the text
    reaches the policy with the braces as written. Reported at its line and column in the
    bank."""
    q = ctx.problem.question
    if q is None or q.source != FILE_SOURCE or q.file is None:
        return
    path = usable_reference(ctx, q.file, "question bank")
    if path is None or not path.is_file():
        return
    # deferred: rsb_mj.episodes (and numpy), only for a task that names a question bank
    from rsb_mj.episodes.sources.bank import load_bank

    spec = RULES["RSB472"]
    for line, column, text in load_bank(path).placeholders:
        ctx.diagnostics.append(
            Diagnostic(
                spec.code,
                spec.name,
                spec.severity,
                f"{text} in a question bank text is shown as written (only templates fill "
                "placeholders); write the text the policy should read",
                str(path),
                Span(line, column, line, column + len(text)),
                None,
            )
        )
