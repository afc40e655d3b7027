"""RSB520: a choice count the task's question source cannot serve.

The counts each source serves are the sampler's own table
(:data:`rsb_mj.lang.block_values.SOURCE_CHOICES`).
"""

from __future__ import annotations

from rsb_mj.lang.block_values import CHOICE_COUNTS, SOURCE_CHOICES
from rsb_mj.lang.rules.base import Context, rule

__all__ = ["source_choice_count"]


@rule(
    "RSB520",
    "source-choice-count",
    "error",
    bad="(:question (:source mmlu) (:choices 10))",
    good="(:question (:source mmlu_pro) (:choices 10))",
)
def source_choice_count(ctx: Context) -> None:
    """A choice count the question source cannot serve: each source makes options from what
    its questions offer (MMLU questions have 4 options, so ``mmlu`` serves 2 to 4 choices;
    ``rsb_mj.lang.block_values.SOURCE_CHOICES``, the sampler's own table)."""
    q = ctx.problem.question
    if q is None or q.source not in SOURCE_CHOICES or q.choices is None:
        return
    valid = SOURCE_CHOICES[q.source]
    if q.choices not in CHOICE_COUNTS or int(q.choices) in valid:
        return  # RSB404 reports counts no source serves
    ctx.report(
        "RSB520",
        f"(:source {q.source}) cannot make {q.choices:g} options; valid choices: "
        + ", ".join(map(str, valid)),
        q.span,
    )
