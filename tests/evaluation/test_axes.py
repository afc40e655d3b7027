"""Per-axis tables of a report: V0..V4 and W0..W4 x suite (rsb_mj/evaluation/axes.py)."""

import dataclasses

from rsb_mj.evaluation.axes import axis_levels, axis_table
from rsb_mj.evaluation.metrics import summarize

from .test_metrics import rec


def _at(record, visual=0, language=0, cost=None):
    sim = dict(record.sim, perturbation={"visual_level": visual, "language_level": language})
    return dataclasses.replace(record, sim=sim, cost=cost)


def _run(visual, language, success, suite="RSB-Math-4", policy="p", cost=None):
    return [
        _at(
            rec(
                i,
                grasped=True,
                success=s,
                choice_letter="A" if s else "B",
                suite=suite,
                policy=policy,
            ),
            visual,
            language,
            cost,
        )
        for i, s in enumerate(success)
    ]


def test_one_row_per_policy_and_level_one_column_per_suite():
    runs = [  # one run directory per level, as rsb report gets them
        [*_run(0, 0, [True, True]), *_run(0, 0, [True, False], suite="RSB-Math-4-L2", cost=3.0)],
        _run(3, 0, [True, False]),
        _run(4, 4, [False, False]),
    ]
    metrics = [m for records in runs for m in summarize(records)]
    assert axis_levels(metrics, "visual") == [0, 3, 4]
    assert axis_table(metrics, "visual") == [
        ["policy", "level", "RSB-Math-4", "RSB-Math-4-L2"],
        ["p", "V0", "100.0 / 100.0", "50.0 / 33.3 / 3.0"],
        ["p", "V3", "50.0 / 33.3", "-"],
        ["p", "V4 W4", "0.0 / -33.3", "-"],
    ]
    assert axis_table(metrics, "language") == [
        ["policy", "level", "RSB-Math-4", "RSB-Math-4-L2"],
        ["p", "W0", "100.0 / 100.0", "50.0 / 33.3 / 3.0"],
        ["p", "W0 V3", "50.0 / 33.3", "-"],
        ["p", "W4 V4", "0.0 / -33.3", "-"],
    ]


def test_no_table_for_an_axis_with_one_level():
    metrics = summarize(_run(2, 0, [True]))
    assert axis_table(metrics, "visual") == [["policy", "level", "RSB-Math-4"]]
    assert axis_table(metrics, "language") == [["policy", "level", "RSB-Math-4"]]
