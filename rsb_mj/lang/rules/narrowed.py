"""RSB458: a built-in question source narrowed by its parameters until a split is empty.

The count is the runtime's own (:func:`rsb_mj.episodes.sources.coverage.coverage`, the
filter :func:`~rsb_mj.episodes.sources.filtered.configured_source` builds), so a file this
rule passes draws episodes of both splits. Files without source parameters never import
``rsb_mj.episodes`` (numpy, the question data) here.
"""

from __future__ import annotations

from rsb_mj.choices import CHOICE_COUNTS
from rsb_mj.lang.block_values import SOURCE_CHOICES
from rsb_mj.lang.rules.base import Context, rule


@rule(
    "RSB458",
    "empty-narrowed-source",
    "error",
    bad="(:source (gsm8k (:answer_range -100 -11)))  ; no GSM8K test answer is below -10",
    good="(:source (gsm8k (:answer_range -100 -10)))",
)
def empty_narrowed_source(ctx: Context) -> None:
    """Source parameters that leave no question for a split (train or eval) at the task's
    choice count: an answer range no GSM8K problem of the split falls in, a subject with no
    questions in a split (``mmlu``'s mathematics subjects are not in the pool; all of
    ``moral_scenarios``' train questions repeat eval ones), or arithmetic operators and ranges
    with too few distinct questions to split. Reported at the ``(:source ...)`` form with the
    count per split and what would fill the empty one (the widened range, or the subjects of
    the same group with questions in both splits). Counting reads the source's questions
    once per process (GSM8K about 2 s cold)."""
    q = ctx.problem.question
    if q is None or not q.params or q.file is not None or q.source not in SOURCE_CHOICES:
        return  # checked before the imports: they bring in rsb_mj.episodes and its data
    from rsb_mj.episodes.sources.params import check_params

    if check_params(q.source, q.params):
        return  # RSB451 / RSB452
    choices = int(q.choices) if q.choices in CHOICE_COUNTS else None
    if choices is not None and choices not in SOURCE_CHOICES[q.source]:
        return  # RSB520
    from rsb_mj.episodes.sources.coverage import coverage

    found = coverage(q.source, q.params, choices)
    if found.empty:
        ctx.report("RSB458", found.message(), q.source_span, found.fix)
