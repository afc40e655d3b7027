"""GSR, TSR and nSG from vla-eval results of the RSB benchmark (no vla-eval needed).

vla-eval writes ``<output_dir>/<benchmark>_aggregate.json`` per benchmark entry after a
run; every episode's ``metrics`` hold the :class:`rsb_mj.integrations.vla_eval.RsbBenchmark`
result (``success``, ``grasped``, ``choices``, ...). Episodes that errored
(``failure_reason``: server unreachable, timeout, exception) are not scored, as in
``rsb eval``, and are counted apart.

    python -m rsb_mj.integrations.vla_eval_results RESULTS_DIR

Sharded runs (vla-eval's scale path): start one model server (batching across shards with
``max_batch_size`` > 1, e.g. ``rsb_mj.integrations.vla_eval_replay --args.max_batch_size
16``), run every shard with the same ``--eval-id`` and output folder (``vla-eval run
--no-docker -c CONFIG --shard-id K --num-shards N --eval-id ID --output-dir DIR``; the
shards share ``DIR/recording-ID.sqlite`` and take episodes from one queue in it), then
``vla-eval export DIR/recording-ID.sqlite`` writes one aggregate per benchmark with every
shard's episodes, which this module reads like an unsharded run's. An aggregate vla-eval
marks ``partial`` (a shard missing or unfinished work items) is summarized and flagged.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.metrics import nsg, wilson


@dataclass(frozen=True)
class VlaEvalSummary:
    """One benchmark entry's rates.

    Attributes:
        benchmark: the entry's name (the suite, in the shipped configs).
        choices: candidates per episode (4 or 10).
        episodes: scored episodes; errors: episodes that errored (not scored).
        grasped, success: GSR and TSR counts.
        partial: vla-eval marked the aggregate partial (a shard missing or work items
            unfinished: rerun the shards with the same ``--eval-id`` and export again).
    """

    benchmark: str
    choices: int
    episodes: int
    errors: int
    grasped: int
    success: int
    partial: bool = False

    @property
    def gsr(self) -> float:
        """Grasp success rate."""
        return self.grasped / self.episodes if self.episodes else 0.0

    @property
    def tsr(self) -> float:
        """Task success rate."""
        return self.success / self.episodes if self.episodes else 0.0

    @property
    def nsg(self) -> float | None:
        """Normalized semantic grounding; None when nothing was grasped."""
        return nsg(self.tsr, self.gsr, self.choices)


def summarize_aggregate(path: Path) -> VlaEvalSummary:
    """The rates of one ``*_aggregate.json``.

    Raises:
        EvalError: for a file that is not a vla-eval aggregate of the RSB benchmark.
    """
    try:
        body = json.loads(Path(path).read_text())
        episodes = [ep for task in body["tasks"] for ep in task["episodes"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EvalError(f"{path}: not a vla-eval aggregate ({exc})") from None
    scored = [ep for ep in episodes if not ep.get("failure_reason")]
    choices = {int(ep["metrics"]["choices"]) for ep in scored if "choices" in ep.get("metrics", {})}
    if len(choices) > 1:
        raise EvalError(f"{path}: episodes with {sorted(choices)} choices in one benchmark entry")
    for ep in scored:
        if not {"success", "grasped", "choices"} <= set(ep.get("metrics", {})):
            raise EvalError(
                f"{path}: episode {ep.get('episode_id')} has metrics "
                f"{sorted(ep.get('metrics', {}))}; expected success, grasped, choices "
                "(rsb_mj.integrations.vla_eval:RsbBenchmark)"
            )
    return VlaEvalSummary(
        benchmark=str(body.get("benchmark", Path(path).stem)),
        choices=choices.pop() if choices else 0,
        episodes=len(scored),
        errors=len(episodes) - len(scored),
        grasped=sum(bool(ep["metrics"]["grasped"]) for ep in scored),
        success=sum(bool(ep["metrics"]["success"]) for ep in scored),
        partial=bool(body.get("partial", False)),
    )


def summarize(results_dir: Path) -> list[VlaEvalSummary]:
    """Rates of every ``*_aggregate.json`` in ``results_dir``, by file name.

    Raises:
        EvalError: if there is none.
    """
    paths = sorted(Path(results_dir).glob("*_aggregate.json"))
    if not paths:
        raise EvalError(f"{results_dir}: no vla-eval results (*_aggregate.json)")
    return [summarize_aggregate(p) for p in paths]


def format_table(rows: list[VlaEvalSummary]) -> str:
    """A Markdown table: GSR and TSR with Wilson 95% intervals, nSG, errors."""

    def rate(k: int, n: int) -> str:
        lo, hi = wilson(k, n)
        return f"{k}/{n} = {k / n if n else 0:.3f} [{lo:.3f}, {hi:.3f}]"

    lines = ["| benchmark | N | GSR | TSR | nSG | errors |", "|---|---|---|---|---|---|"]
    for r in rows:
        score = "n/a" if r.nsg is None else f"{r.nsg:.3f}"
        name = f"{r.benchmark} (partial)" if r.partial else r.benchmark
        lines.append(
            f"| {name} | {r.choices} | {rate(r.grasped, r.episodes)} | "
            f"{rate(r.success, r.episodes)} | {score} | {r.errors} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table of a vla-eval results folder; exit 0, or 2 on an error."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m rsb_mj.integrations.vla_eval_results RESULTS_DIR", file=sys.stderr)
        return 2
    try:
        print(format_table(summarize(Path(args[0]))))
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
