"""RSB463: how the candidates show their options, and what the question source gives them.

A candidate is told apart by a letter, by a color, or by showing its option's *answer*
(:mod:`rsb_mj.lang.display`: an ``answer_plate`` shows a
picture or printed text). Candidates that show answers need a source that says how each
answer looks (:data:`rsb_mj.lang.a2a.DISPLAY_SOURCES`: the Act2Answer items), and such a
source's questions ("put the cube on the orange hexagon") only make sense with them.
"""

from __future__ import annotations

from rsb_mj.lang.a2a import DISPLAY_SOURCES
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.display import display_kind
from rsb_mj.lang.rules.base import Context, choices_text, rule


@rule(
    "RSB463",
    "answer-display",
    "error",
    bad="(:question (:source a2a_color) (:choices 2))\n(:candidates block_a block_b)",
    good="(:question (:source a2a_color) (:choices 2))\n(:candidates plate_a plate_b)  "
    "; each '- answer_plate'",
    applies_to="question",
)
def answer_display(ctx: Context) -> None:
    """A candidate that shows its option's answer (``- answer_plate``) with a question
    source that gives no pictures of its answers, or a source whose answers are pictures
    (``a2a_color`` ...) with a candidate that cannot show them: the plates would stay blank,
    or the instruction would name a picture nothing shows."""
    q = ctx.problem.question
    if q is None:
        return
    source = q.source if q.file is None else None
    pictured = source in DISPLAY_SOURCES
    showing = sorted(c for c, i in RSB_CATEGORIES.items() if i.shows_answer)
    for name in ctx.candidates:
        decl = ctx.objects.get(name)
        if decl is None or decl.category not in RSB_CATEGORIES:
            continue  # RSB408, RSB203
        if (display_kind(ctx.problem, name) == "answer") == pictured:
            continue
        if pictured:
            ctx.report(
                "RSB463",
                f"candidate {name!r} ({decl.category}) cannot show a picture of its answer, "
                f"which (:source {source}) needs; categories that show answers: "
                + choices_text(showing),
                ctx.block_span("candidates"),
            )
        else:
            shown = f"(:source {source})" if source else "a question bank"
            ctx.report(
                "RSB463",
                f"candidate {name!r} ({decl.category}) shows its option's answer, but "
                f"{shown} gives no pictures of its answers; sources that do: "
                + choices_text(DISPLAY_SOURCES),
                decl.span,
            )
