"""RSB407-409, RSB419: the candidates of an rsb task, the objects that stand for the options.

One candidate per option (as many as ``:choices``), each a declared movable object, none
listed twice, and each able to show its option letter when the options share one color.
"""

from __future__ import annotations

from rsb_mj.choices import LETTERS, MAX_COLORED, style
from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import CHOICE_COUNTS
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.rules.base import Context, choices_text, rule


@rule(
    "RSB407",
    "choice-count-mismatch",
    "error",
    bad="(:question (:source arithmetic) (:choices 10))\n(:candidates block_a block_b block_c "
    "block_d)",
    good="(:question (:source arithmetic) (:choices 4))\n(:candidates block_a block_b block_c "
    "block_d)",
)
def choice_count_mismatch(ctx: Context) -> None:
    """The number of candidates differs from ``:choices``: every option needs exactly one
    object to stand for it."""
    q = ctx.problem.question
    if q is None or q.choices not in CHOICE_COUNTS or ctx.problem.candidate_names is None:
        return
    n = len(ctx.candidates)
    if n != q.choices:
        ctx.report(
            "RSB407",
            f"(:choices {q.choices}) needs {q.choices} candidates (options "
            f"{' '.join(LETTERS[int(q.choices)])}), got {n}",
            ctx.block_span("candidates"),
        )


@rule(
    "RSB408",
    "candidate-not-object",
    "error",
    bad="(:fixtures table - table)\n(:candidates table block_b block_c block_d)",
    good="(:candidates block_a block_b block_c block_d)",
)
def candidate_not_object(ctx: Context) -> None:
    """A candidate that is not declared in ``:objects`` (undeclared, or a fixture, which cannot
    be picked up)."""
    for name in ctx.candidates:
        if name in ctx.objects:
            continue
        if name in ctx.fixtures:
            message = f"candidate {name!r} is a fixture; candidates must be movable :objects"
            close = None
        else:
            close = did_you_mean(name, ctx.objects)
            hint = f"; did you mean {close!r}?" if close else ""
            message = f"candidate {name!r} is not declared in :objects{hint}"
        ctx.report("RSB408", message, ctx.block_span("candidates"), fix=close)


@rule(
    "RSB409",
    "duplicate-candidate",
    "error",
    bad="(:candidates block_a block_a block_c block_d)",
    good="(:candidates block_a block_b block_c block_d)",
)
def duplicate_candidate(ctx: Context) -> None:
    """A candidate listed twice: two options would stand for the same object."""
    seen: set[str] = set()
    for name in ctx.candidates:
        if name in seen:
            ctx.report(
                "RSB409", f"candidate {name!r} is listed twice", ctx.block_span("candidates")
            )
        seen.add(name)


@rule(
    "RSB419",
    "letterless-candidate",
    "error",
    bad="(:question (:source arithmetic) (:choices 10))\n(:objects can_a ... - can)",
    good="(:question (:source arithmetic) (:choices 10))\n(:objects block_a ... - letter_block)",
)
def letterless_candidate(ctx: Context) -> None:
    """A task with more choices than there are palette colors (9 or 10) whose candidates
    cannot show a letter. Such instructions list the options by letter and all candidates
    share one color, so the letter on each object is the only thing that tells them apart."""
    q = ctx.problem.question
    if q is None or q.choices not in CHOICE_COUNTS or style(int(q.choices)) != "letters":
        return
    for name in ctx.candidates:
        decl = ctx.objects.get(name)
        info = RSB_CATEGORIES.get(decl.category) if decl else None
        if info is not None and not info.letters:
            with_letters = [c for c, i in RSB_CATEGORIES.items() if i.letters]
            ctx.report(
                "RSB419",
                f"candidate {name!r} ({decl.category}) cannot show an option letter, which a "
                f"{q.choices:g}-choice task needs (more than {MAX_COLORED} choices share one "
                f"color); categories with letters: {choices_text(with_letters)}",
                decl.span,
            )
