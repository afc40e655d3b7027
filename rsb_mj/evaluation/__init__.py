"""The evaluation harness: resumable runs, per-episode records and their metrics (the reports
of the records are :mod:`rsb_mj.reporting`'s).

Command line (the README main job; about 3 minutes on 2 cores)::

    rsb eval --suite all --policy expert --policy random-grasp --episodes 20 --out runs/quick
    rsb report runs/quick                      # Markdown + CSV + PNG in runs/quick/report/

A run directory holds ``run.json`` (split, versions) and ``episodes.jsonl`` (one
:class:`EpisodeRecord` per finished episode; both read and written by
:class:`rsb_mj.evaluation.run_folder.RunFolder`); rerunning the same command resumes it.
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

from __future__ import annotations

from typing import TYPE_CHECKING

from rsb_mj.lazy import lazy_exports

#: Public name -> defining module, imported on first access: the pool
#: (:mod:`rsb_mj.evaluation.pool`, imported by every spawned worker) loads without the harness.
_EXPORTS: dict[str, str] = {
    "Rate": "rsb_mj.evaluation.metrics",
    "SuiteMetrics": "rsb_mj.evaluation.metrics",
    "chance_margin": "rsb_mj.evaluation.metrics",
    "chance_verdict": "rsb_mj.evaluation.metrics",
    "confusion": "rsb_mj.evaluation.metrics",
    "nsg": "rsb_mj.evaluation.metrics",
    "summarize": "rsb_mj.evaluation.metrics",
    "wilson": "rsb_mj.evaluation.metrics",
    "EpisodeRecord": "rsb_mj.evaluation.records",
    "append_record": "rsb_mj.evaluation.records",
    "read_records": "rsb_mj.evaluation.records",
    "EvalConfig": "rsb_mj.evaluation.runner",
    "plan": "rsb_mj.evaluation.runner",
    "run_eval": "rsb_mj.evaluation.runner",
}

if TYPE_CHECKING:  # pragma: no cover
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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

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
