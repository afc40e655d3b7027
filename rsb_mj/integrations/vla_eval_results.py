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

Sealed runs (``sealed: true`` or ``tables:``; :mod:`rsb_mj.integrations.vla_eval`) send the
server no outcome and keep their aggregate's metrics at ``{"sealed": true}``; their
outcomes are in the benchmark's signed ``outcomes`` file, read with the secret::

    python -m rsb_mj.integrations.vla_eval_results --outcomes FILE --secret-file SECRET
    python -m rsb_mj.integrations.vla_eval_results --outcomes FILE --secret-file SECRET --nonce N

Every line is verified first (:func:`rsb_mj.evaluation.sealed.check_chain`, the HMAC chain
``rsb report`` checks on a sealed ``rsb eval`` run, starting at the run's nonce): an
edited, moved, removed or foreign line is refused with ``file:line``; a file that does not
end in its signed closing record (the benchmark writes it after the last outcome) as
*incomplete*, naming how many outcome lines it holds; and given ``--nonce`` (the run's,
which the benchmark prints when it starts), the file of another run, naming both nonces.
An episode the server itself failed (an action that is
not one) is in the outcomes as a failure (``policy_fault``, counted in the rates and in its
own column); an episode vla-eval aborted (no answer from the server) has no outcome. A goal
benchmark's outcomes (:mod:`rsb_mj.integrations.vla_eval` on goal tasks: ``task``, ``success``,
``cost``) are reported per task: success with its interval, mean cost, policy faults.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.errors import EvalError, RsbError
from rsb_mj.evaluation.metrics import nsg, wilson
from rsb_mj.evaluation.sealed import CLOSING, SIGNATURE, Seal, check_chain, complete_lines


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
        policy_faults: scored episodes the server failed itself (sealed outcomes).
    """

    benchmark: str
    choices: int
    episodes: int
    errors: int
    grasped: int
    success: int
    partial: bool = False
    policy_faults: int = 0

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
    if any(ep.get("metrics") == {"sealed": True} for ep in scored):
        raise EvalError(
            f"{path}: a sealed run; its outcomes are in the benchmark's outcomes file: "
            "--outcomes FILE --secret-file SECRET"
        )
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


#: Keys of one sealed outcome line (besides its ``signature``).
OUTCOME_KEYS = frozenset(
    {"suite", "row", "success", "grasped", "correct_choice", "choice", "choices", "policy_fault"}
)


#: Keys of one sealed goal outcome line (:mod:`rsb_mj.integrations.vla_eval`).
GOAL_OUTCOME_KEYS = frozenset({"task", "suite", "row", "success", "cost", "policy_fault"})


@dataclass(frozen=True)
class GoalOutcomeSummary:
    """One goal task's sealed outcomes.

    Attributes:
        task: the task's name (its path under ``tasks/``, else as given).
        episodes: its outcomes; success: how many succeeded.
        cost: the mean cumulative cost per episode, None for a file without ``:cost``.
        policy_faults: episodes the server failed itself.
    """

    task: str
    episodes: int
    success: int
    cost: float | None
    policy_faults: int


def check_outcomes(path: Path, seal: Seal, nonce: str | None = None) -> None:
    """Verify a sealed run's outcomes file: every line signed in one chain from the run's
    nonce (``nonce``, else the one its closing record names), ending in that closing
    record (:func:`rsb_mj.evaluation.sealed.closing_line`, as a sealed run folder's records).

    Raises:
        EvalError: ``path:line: ...`` for a line that is not JSON, not signed, whose
            signature does not match (edited, moved, removed lines before it, another run
            or secret), a closing record of another run (naming both nonces); ``path:
            incomplete: ...`` for a file cut short (no closing record after its last line).
    """
    rows = []
    for number, line in complete_lines(path):
        try:
            rows.append((number, json.loads(line)))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise EvalError(f"{path}:{number}: not a JSON record") from None
    closings = [
        (number, row[CLOSING].get("nonce"))
        for number, row in rows
        if isinstance(row, dict) and isinstance(row.get(CLOSING), dict)
    ]
    start = nonce if nonce is not None else (closings[0][1] if closings else None)
    for number, theirs in closings:
        if start is not None and theirs != start:
            given = "--nonce" if nonce is not None else f"line {closings[0][0]}'s"
            raise EvalError(
                f"{path}:{number}: the outcomes of another run (its closing record names nonce "
                f"{str(theirs)[:12]}, {given} {start[:12]}); they cannot be reported"
            )

    def incomplete(count: int) -> EvalError:
        return EvalError(
            f"{path}: incomplete: {count} signed outcome line{'' if count == 1 else 's'} and no "
            "closing record after the last (the benchmark writes the outcomes and their "
            "closing record at once, at the end of the run): the file was cut; it cannot be "
            "reported"
        )

    if not isinstance(start, str):
        raise incomplete(len(rows) - len(closings))
    chain = check_chain(path, seal, start)
    if not chain.closed:
        raise incomplete(chain.records)


def _outcome_rows(path: Path, seal: Seal, nonce: str | None = None) -> list[dict]:
    """The verified outcome lines of a sealed run's outcomes file (:func:`check_outcomes`),
    signatures and the closing record dropped.

    Raises:
        EvalError: as :func:`summarize_outcomes`, for a line of neither kind of outcome.
    """
    path = Path(path)
    if not path.is_file():
        raise EvalError(f"{path}: no such outcomes file")
    data = path.read_bytes()
    if data.rsplit(b"\n", 1)[-1].strip():  # the chain holds complete lines only
        number = data.count(b"\n") + 1
        raise EvalError(
            f"{path}:{number}: not a signed outcome: the last line has no "
            "newline (the benchmark writes whole lines at once: it was cut off or added by hand)"
        )
    check_outcomes(path, seal, nonce)
    rows = []
    for number, line in complete_lines(path):  # the lines check_outcomes checked
        row = json.loads(line)
        row.pop(SIGNATURE, None)
        if CLOSING in row:
            continue
        if set(row) not in (OUTCOME_KEYS, GOAL_OUTCOME_KEYS):
            raise EvalError(
                f"{path}:{number}: not a sealed RSB outcome (keys {sorted(row)}; expected "
                f"{sorted(OUTCOME_KEYS)}, or for a goal task {sorted(GOAL_OUTCOME_KEYS)})"
            )
        rows.append(row)
    if not rows:
        raise EvalError(f"{path}: no outcomes")
    return rows


def summarize_goal_outcomes(rows: list[dict]) -> list[GoalOutcomeSummary]:
    """One summary per task of verified goal outcome lines (:func:`_outcome_rows`), in
    file order."""
    tasks: dict[str, list[dict]] = {}
    for row in rows:
        tasks.setdefault(str(row["task"]), []).append(row)
    out = []
    for task, group in tasks.items():
        costs = [float(r["cost"]) for r in group if r["cost"] is not None]
        out.append(
            GoalOutcomeSummary(
                task=task,
                episodes=len(group),
                success=sum(bool(r["success"]) for r in group),
                cost=sum(costs) / len(costs) if costs else None,
                policy_faults=sum(bool(r["policy_fault"]) for r in group),
            )
        )
    return out


def format_goal_table(rows: list[GoalOutcomeSummary]) -> str:
    """A Markdown table of goal outcomes: success with its Wilson 95% interval, mean cost,
    policy faults."""
    lines = ["| task | success | cost/episode | policy faults |", "|---|---|---|---|"]
    for r in rows:
        lo, hi = wilson(r.success, r.episodes)
        cost = "-" if r.cost is None else f"{r.cost:.2f}"
        lines.append(
            f"| {r.task} | {r.success}/{r.episodes} = {r.success / r.episodes:.3f} "
            f"[{lo:.3f}, {hi:.3f}] | {cost} | {r.policy_faults} |"
        )
    return "\n".join(lines)


def summarize_outcomes(path: Path, seal: Seal, nonce: str | None = None) -> list[VlaEvalSummary]:
    """The rates of a sealed run's signed outcomes file, one row per suite (in file order),
    after every line is verified against ``seal`` (and the run's ``nonce``, when given:
    :func:`check_outcomes`).

    Raises:
        EvalError: ``path:line: ...`` for a line that is not signed, whose signature does not
            match (edited, moved, removed lines before it, another run or secret), or that
            is not an outcome; ``path: incomplete: ...`` for a file cut short; another run's
            file; a file that holds none, or goal outcomes (read those with
            :func:`summarize_goal_outcomes`).
    """
    rows: dict[str, list[dict]] = {}
    for row in _outcome_rows(path, seal, nonce):
        if set(row) != OUTCOME_KEYS:
            raise EvalError(f"{path}: goal outcomes: summarize them with summarize_goal_outcomes")
        rows.setdefault(str(row["suite"]), []).append(row)
    out = []
    for suite, group in rows.items():
        choices = {int(r["choices"]) for r in group}
        if len(choices) > 1:
            raise EvalError(f"{path}: {suite} outcomes with {sorted(choices)} choices")
        out.append(
            VlaEvalSummary(
                benchmark=suite,
                choices=choices.pop(),
                episodes=len(group),
                errors=0,
                grasped=sum(bool(r["grasped"]) for r in group),
                success=sum(bool(r["success"]) for r in group),
                policy_faults=sum(bool(r["policy_fault"]) for r in group),
            )
        )
    return out


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

    faults = any(r.policy_faults for r in rows)
    head = "| benchmark | N | GSR | TSR | nSG | errors |" + (" policy faults |" if faults else "")
    lines = [head, "|---" * (7 if faults else 6) + "|"]
    for r in rows:
        score = "n/a" if r.nsg is None else f"{r.nsg:.3f}"
        name = f"{r.benchmark} (partial)" if r.partial else r.benchmark
        lines.append(
            f"| {name} | {r.choices} | {rate(r.grasped, r.episodes)} | "
            f"{rate(r.success, r.episodes)} | {score} | {r.errors} |"
            + (f" {r.policy_faults} |" if faults else "")
        )
    return "\n".join(lines)


USAGE = (
    "usage: python -m rsb_mj.integrations.vla_eval_results RESULTS_DIR\n"
    "       python -m rsb_mj.integrations.vla_eval_results --outcomes FILE --secret-file SECRET "
    "[--nonce NONCE]"
)
#: The options of a sealed run's outcomes (``--nonce`` optional).
OUTCOME_OPTIONS = ("--outcomes", "--secret-file", "--nonce")


def main(argv: list[str] | None = None) -> int:
    """Print the table of a vla-eval results folder, or of a sealed run's outcomes file;
    exit 0, or 2 on an error (one line naming the file, and line where there is one)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        if len(args) == 1 and not args[0].startswith("--"):
            rows = summarize(Path(args[0]))
        elif (
            len(args) in (4, 6)
            and set(args[0::2]) <= set(OUTCOME_OPTIONS)
            and len(set(args[0::2])) == len(args) // 2
            and {"--outcomes", "--secret-file"} <= set(args[0::2])
        ):
            given = dict(zip(args[0::2], args[1::2], strict=True))
            seal = Seal.read(Path(given["--secret-file"]))
            nonce = given.get("--nonce")
            outcomes = _outcome_rows(Path(given["--outcomes"]), seal, nonce)
            if len({frozenset(r) for r in outcomes}) > 1:
                raise EvalError(f"{given['--outcomes']}: holds both question and goal outcomes")
            if set(outcomes[0]) == GOAL_OUTCOME_KEYS:
                print(format_goal_table(summarize_goal_outcomes(outcomes)))
                return 0
            rows = summarize_outcomes(Path(given["--outcomes"]), seal, nonce)
        else:
            print(USAGE, file=sys.stderr)
            return 2
        print(format_table(rows))
    except RsbError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
