"""The evaluation harness: resumable runs, per-episode records, metrics and reports.

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
