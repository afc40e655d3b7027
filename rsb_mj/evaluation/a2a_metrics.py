"""Act2Answer metrics: per-category success against the random threshold, per layout,
paired over the two plate orders, and side bias.

Over the scored (non-error) records of one policy on one A2A suite:

* **success**: TSR (the cube grasped and resting on the correct plate), with its Wilson 95%
  interval, and the *random threshold* of the paper's Appendix E: chance 0.5 with the margin
  ``Delta = 1.96 sqrt(0.25 / n)``; the verdict says whether the rate is above, within or
  below ``0.5 +- Delta`` (usable knowledge / no reliable knowledge / instruction or
  perception failure). The two layouts of an item are not independent, so the band is
  mildly anticonservative (the paper's note).
* **per layout**: success in the ``original`` and in the ``swapped`` plate order.
* **paired**: among items scored in both orders, the share right in both (chance 1/4 for a
  random choice; a policy with a fixed side gets 0).
* **side bias**: among episodes with a choice, the share that chose the left plate, minus 0.5
  (0 for no preference, +-0.5 for always the same side).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rsb_mj.evaluation.metrics import Rate, chance_margin, chance_verdict
from rsb_mj.evaluation.records import EpisodeRecord

#: Plate orders, as recorded.
LAYOUTS = ("original", "swapped")


@dataclass(frozen=True)
class A2AMetrics:
    """Act2Answer metrics of one policy on one suite (see the module docstring).

    Attributes:
        policy, suite, category: names; privileged: the policy read the answer.
        errors: error episodes (excluded).
        success, grasp: TSR and GSR over the scored episodes.
        layouts: layout -> success in that plate order.
        paired: items right in both orders, among items scored in both.
        left: episodes that chose the left plate, among episodes with a choice.
    """

    policy: str
    suite: str
    category: str
    privileged: bool
    errors: int
    success: Rate
    grasp: Rate
    layouts: dict[str, Rate] = field(default_factory=dict)
    paired: Rate = field(default_factory=lambda: Rate(0, 0))
    left: Rate = field(default_factory=lambda: Rate(0, 0))

    @property
    def margin(self) -> float:
        """The chance margin Delta for this many episodes."""
        return chance_margin(self.success.n, 2)

    @property
    def verdict(self) -> str:
        """``above``, ``within`` or ``below`` 0.5 +- Delta."""
        return chance_verdict(self.success.value, self.success.n, 2) if self.success.n else "-"

    @property
    def side_bias(self) -> float | None:
        """Left-choice share minus 0.5 (None without choices)."""
        return self.left.value - 0.5 if self.left.n else None


def is_a2a_record(record: EpisodeRecord) -> bool:
    """True for a record of an Act2Answer episode."""
    return record.item is not None


def a2a_metrics(records: Iterable[EpisodeRecord], variant: str = "original") -> list[A2AMetrics]:
    """One :class:`A2AMetrics` per (policy, suite) of the A2A records of ``variant``, in
    order of first appearance."""
    groups: dict[tuple[str, str], list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        if is_a2a_record(r) and r.variant == variant:
            groups[(r.policy, r.suite)].append(r)
    return [_metrics(policy, suite, rs) for (policy, suite), rs in groups.items()]


def _metrics(policy: str, suite: str, records: Sequence[EpisodeRecord]) -> A2AMetrics:
    scored = [r for r in records if not r.is_error]
    layouts = {
        layout: Rate(sum(r.success for r in part), len(part))
        for layout in LAYOUTS
        if (part := [r for r in scored if r.layout == layout])
    }
    by_item: dict[str, dict[str, bool]] = defaultdict(dict)
    for r in scored:
        by_item[str(r.item)][str(r.layout)] = r.success
    both = [v for v in by_item.values() if all(layout in v for layout in LAYOUTS)]
    chose = [r for r in scored if r.chosen_side is not None]
    return A2AMetrics(
        policy=policy,
        suite=suite,
        category=next((str(r.category) for r in records if r.category), ""),
        privileged=any(r.privileged for r in records),
        errors=len(records) - len(scored),
        success=Rate(sum(r.success for r in scored), len(scored)),
        grasp=Rate(sum(r.grasped for r in scored), len(scored)),
        layouts=layouts,
        paired=Rate(sum(all(v.values()) for v in both), len(both)),
        left=Rate(sum(r.chosen_side == "left" for r in chose), len(chose)),
    )


def a2a_table(metrics: Sequence[A2AMetrics]) -> list[list[str]]:
    """The per-category table: success with its Wilson interval, the random threshold and
    verdict, per-layout and paired accuracy, side bias (rates in %)."""
    from rsb_mj.evaluation.tables import PRIVILEGED_MARK, pct, rate_cell

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
        threshold = f"50 +- {pct(m.margin)}" if m.success.n else "-"
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
