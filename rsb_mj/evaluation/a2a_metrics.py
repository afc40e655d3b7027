"""Act2Answer's per-category view of the suite metrics: success against the random
threshold, per candidate order, paired over the orders, and side bias.

A view, not a second scorer: every number comes from the generic records and metrics. Over
the records whose episodes name a candidate ``layout`` (every Act2Answer eval item runs in
both plate orders, ``original`` and ``swapped``), per (policy, suite) of one variant:

* **success**, **grasp**, errors: TSR and GSR of :func:`rsb_mj.evaluation.metrics.summarize`
  (Wilson 95% intervals), and the *random threshold* of the paper's Appendix E: chance
  ``1/N`` with the margin ``Delta = 1.96 sqrt(p0 (1 - p0) / n)`` (0.5 +- 1.96 sqrt(0.25 / n)
  for binary items); the verdict says whether the rate is above, within or below it (usable
  knowledge / no reliable knowledge / instruction or perception failure). The two layouts of
  an item are not independent, so the band is mildly anticonservative (the paper's note).
* **per layout**: success in each candidate order.
* **paired**: among questions (``question_id``) scored in both orders, the share right in
  both (chance 1/4 for a random choice; a policy with a fixed side gets 0).
* **side bias**: among episodes with a choice, the share whose choice stood on the left
  (``chosen_side``), minus 0.5 (0 for no preference, +-0.5 for always the same side).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rsb_mj.evaluation.metrics import Rate, SuiteMetrics, chance_margin, chance_verdict, summarize
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.tables import PRIVILEGED_MARK, pct, rate_cell

#: Candidate orders, as recorded.
LAYOUTS = ("original", "swapped")


@dataclass(frozen=True)
class A2AMetrics:
    """The per-category view of one policy on one suite (see the module docstring).

    Attributes:
        metrics: the suite's generic metrics (:class:`SuiteMetrics`).
        category: the knowledge category the records name.
        layouts: layout -> success in that candidate order.
        paired: questions right in both orders, among questions scored in both.
        left: episodes whose choice stood on the left, among episodes with a choice.
    """

    metrics: SuiteMetrics
    category: str
    layouts: dict[str, Rate] = field(default_factory=dict)
    paired: Rate = field(default_factory=lambda: Rate(0, 0))
    left: Rate = field(default_factory=lambda: Rate(0, 0))

    policy = property(lambda self: self.metrics.policy)
    suite = property(lambda self: self.metrics.suite)
    privileged = property(lambda self: self.metrics.privileged)
    errors = property(lambda self: self.metrics.errors)
    success = property(lambda self: self.metrics.tsr)
    grasp = property(lambda self: self.metrics.gsr)

    @property
    def margin(self) -> float:
        """The chance margin Delta for this many episodes."""
        return chance_margin(self.success.n, self.metrics.choices)

    @property
    def verdict(self) -> str:
        """``above``, ``within`` or ``below`` 1/N +- Delta."""
        if not self.success.n:
            return "-"
        return chance_verdict(self.success.value, self.success.n, self.metrics.choices)

    @property
    def side_bias(self) -> float | None:
        """Left-choice share minus 0.5 (None without choices)."""
        return self.left.value - 0.5 if self.left.n else None


def is_a2a_record(record: EpisodeRecord) -> bool:
    """True for a record of an episode run in a named candidate order (Act2Answer)."""
    return record.layout is not None


def a2a_metrics(records: Iterable[EpisodeRecord], variant: str = "original") -> list[A2AMetrics]:
    """One :class:`A2AMetrics` per (policy, suite) of the ``variant`` records that name a
    layout, in order of first appearance.

    Raises:
        EvalError: as :func:`summarize`, for records of one suite run with different
            settings.
    """
    chosen = [r for r in records if is_a2a_record(r) and r.variant == variant]
    groups: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for r in chosen:
        groups[(r.policy, r.suite)].append(r)
    return [_view(m, groups[(m.policy, m.suite)]) for m in summarize(chosen)]


def _view(metrics: SuiteMetrics, records: Sequence[EpisodeRecord]) -> A2AMetrics:
    scored = [r for r in records if not r.is_error]
    layouts = {
        layout: Rate(sum(r.success for r in part), len(part))
        for layout in LAYOUTS
        if (part := [r for r in scored if r.layout == layout])
    }
    by_question: dict[str, dict[str, bool]] = defaultdict(dict)
    for r in scored:
        by_question[r.question_id][str(r.layout)] = r.success
    both = [v for v in by_question.values() if all(layout in v for layout in LAYOUTS)]
    chose = [r for r in scored if r.chosen_side is not None]
    return A2AMetrics(
        metrics=metrics,
        category=next((str(r.category) for r in records if r.category), ""),
        layouts=layouts,
        paired=Rate(sum(all(v.values()) for v in both), len(both)),
        left=Rate(sum(r.chosen_side == "left" for r in chose), len(chose)),
    )


def a2a_table(metrics: Sequence[A2AMetrics]) -> list[list[str]]:
    """The per-category table: success with its Wilson interval, the random threshold and
    verdict, per-layout and paired accuracy, side bias (rates in %)."""

    rows = [
        [
            "policy",
            "category",
            "n",
            "errors",
            "GSR %",
            "success %",
            "random threshold %",
            "vs chance",
            "original %",
            "swapped %",
            "paired %",
            "side bias (left - 50) pp",
        ]
    ]
    for m in metrics:
        chance = f"{100 / m.metrics.choices:g}"
        threshold = f"{chance} +- {pct(m.margin)}" if m.success.n else "-"
        bias = "-" if m.side_bias is None else f"{100 * m.side_bias:+.1f}"
        rows.append(
            [
                m.policy + (PRIVILEGED_MARK if m.privileged else ""),
                m.category or m.suite,
                str(m.success.n),
                str(m.errors),
                rate_cell(m.grasp),
                rate_cell(m.success),
                threshold,
                m.verdict,
                *(rate_cell(m.layouts[k]) if k in m.layouts else "-" for k in LAYOUTS),
                rate_cell(m.paired) if m.paired.n else "-",
                bias,
            ]
        )
    return rows


A2A_NOTE = (
    "Act2Answer: success = cube grasped and resting on the correct plate (the first plate it "
    "rests on decides); random threshold = 50% +- 1.96 sqrt(0.25/n) (Appendix E); every eval "
    "item runs in both plate orders; paired = right in both orders (chance 25%); side bias = "
    "share of choices on the left plate - 50 pp"
)

__all__ = ["A2A_NOTE", "A2AMetrics", "a2a_metrics", "a2a_table", "is_a2a_record"]
