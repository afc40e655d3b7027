"""The evaluation harness: resumable runs, per-episode records, metrics and reports.

Command line (the README main job; about 3 minutes on 2 cores)::

    rsb eval --suite all --policy expert --policy random-grasp --episodes 20 --out runs/quick
    rsb report runs/quick                      # Markdown + CSV + PNG in runs/quick/report/

A run directory holds ``run.json`` (split, versions) and ``episodes.jsonl`` (one
:class:`EpisodeRecord` per finished episode); rerunning the same command resumes it.
Episodes come from the frozen tables (``tasks/episodes``); one attempt per episode: a
record's ``choice`` is the first candidate grasped, and success needs that choice to be
correct and the task's ``:goal`` to hold at the end (see :mod:`rsb_mj.scoring.scorer`).

Python API::

    from rsb_mj.evaluation import EvalConfig, run_eval, summarize
    records = run_eval(EvalConfig(suites=("RSB-Math-4",), policies=("expert",),
                                  episodes=5, out=Path("runs/x")))
    for m in summarize(records):
        print(m.suite, m.gsr.value, m.tsr.value, m.nsg)
"""

from rsb_mj.evaluation.metrics import (
    Rate,
    SuiteMetrics,
    chance_margin,
    chance_verdict,
    confusion,
    nsg,
    summarize,
    wilson,
)
from rsb_mj.evaluation.records import EpisodeRecord, append_record, read_records
from rsb_mj.evaluation.runner import EvalConfig, plan, run_eval

__all__ = [
    "EpisodeRecord",
    "EvalConfig",
    "Rate",
    "SuiteMetrics",
    "append_record",
    "chance_margin",
    "chance_verdict",
    "confusion",
    "nsg",
    "plan",
    "read_records",
    "run_eval",
    "summarize",
    "wilson",
]
