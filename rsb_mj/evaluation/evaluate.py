"""``rsb_mj.evaluate``: evaluate a policy object from Python, e.g. inside a training loop.

``rsb eval`` builds its policies from specs in processes of their own; a trainer holds its
policy as an object in its own process and wants the numbers back as values. ::

    import rsb_mj

    results = rsb_mj.evaluate(policy, suites=["RSB-Math-4"], episodes=20, out="runs/step_1000")
    results["RSB-Math-4"].tsr.value       # 0..1, its Wilson 95% interval: .tsr.interval
    wandb.log(results.flat(), step=1000)  # {"RSB-Math-4/tsr": ..., "RSB-Math-4/tsr_lo": ...}

``suites`` also takes task file paths: a goal task (LIBERO / VLA-Arena style, ``:goal``
without a question) is scored by success, and by cost where it has a ``:cost``::

    bowl = "tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    results = rsb_mj.evaluate(policy, suites=[bowl], episodes=20, out="runs/bowl")
    results.flat()  # {"put_the_bowl_on_the_plate/success": ..., "..._lo", "..._hi", ...}

It is the runner of ``rsb eval`` (:func:`~rsb_mj.evaluation.runner.run_eval`) with the
object lent for the run: the same frozen episodes, records in ``out/episodes.jsonl`` and
resuming (calling it again with the same ``out`` runs only the episodes not yet scored, so
an interrupted evaluation continues and a finished one returns at once; give each
checkpoint its own ``out``). The episodes run one after another in this process (the object
cannot be sent to worker processes). The policy's records are labelled
``inprocess:NAME`` (``name``, default the object's class name) and say ``privileged: true``,
as every ``inprocess:`` policy's do: user code in rsb's process could read the answer, so
reports mark its rows and never rank them beside sandboxed runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.metrics import SuiteMetrics, summarize, task_labels
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.policies.spec import IN_PROCESS, LENT
from rsb_mj.policies.user import adapt_policy
from rsb_mj.suites import expand_suites

#: Suites a trainer evaluates on when it names none.
DEFAULT_SUITES = ("RSB-Math-4",)


@dataclass(frozen=True)
class Results(Mapping[str, SuiteMetrics]):
    """What :func:`evaluate` returns: per suite its :class:`SuiteMetrics` (``gsr``,
    ``tsr``: :class:`~rsb_mj.evaluation.metrics.Rate` with ``value`` and Wilson 95%
    ``interval``; ``nsg`` and ``nsg_interval``, None without a grasp; ``episodes`` scored,
    ``errors``), in the order the suites were asked. A mapping suite -> metrics; a goal
    task file's key is its path as given and its ``tsr`` is its success rate (``gsr`` and
    ``nsg`` mean nothing for it: :meth:`flat` leaves them out).

    Attributes:
        policy: the label the records carry (``inprocess:NAME``).
        out: the run folder.
        records: every record of the run's episodes, in plan order.
    """

    policy: str
    out: Path
    records: tuple[EpisodeRecord, ...]
    metrics: tuple[SuiteMetrics, ...]

    def __getitem__(self, suite: str) -> SuiteMetrics:
        for m in self.metrics:
            if m.suite == suite:
                return m
        raise KeyError(suite)

    def __iter__(self) -> Iterator[str]:
        return iter(m.suite for m in self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    def flat(self, prefix: str = "") -> dict[str, float | int]:
        """A flat dict of numbers (what ``wandb.log`` or a TensorBoard writer takes).

        A question suite's keys are ``{prefix}{suite}/{gsr,tsr,nsg}`` as fractions, each
        with ``_lo`` and ``_hi`` (its 95% interval), ``/episodes`` and ``/errors``; nSG and
        its interval are left out when no episode grasped (nSG is undefined then). A goal
        task file's are ``{prefix}{task}/success`` with ``_lo`` and ``_hi``, ``/cost`` (the
        mean cumulative ``:cost`` per episode, only where the task has one), ``/episodes``
        and ``/errors``, where ``task`` is the file's stem, with as many of its folders as
        tell two files of one stem apart, joined by ``.`` (no ``/``:
        :func:`~rsb_mj.evaluation.metrics.task_labels`)."""
        goal = {r.suite for r in self.records if r.is_goal}
        labels = task_labels(dict.fromkeys(m.suite for m in self.metrics if m.suite in goal))
        out: dict[str, float | int] = {}
        for m in self.metrics:
            if m.suite in goal:
                key = f"{prefix}{labels[m.suite]}/"
                out[key + "success"] = m.tsr.value
                out[key + "success_lo"], out[key + "success_hi"] = m.tsr.interval
                if m.cost is not None:
                    out[key + "cost"] = m.cost.mean
                out[key + "episodes"], out[key + "errors"] = m.episodes, m.errors
                continue
            key = f"{prefix}{m.suite}/"
            for name, rate in (("gsr", m.gsr), ("tsr", m.tsr)):
                out[key + name] = rate.value
                out[key + name + "_lo"], out[key + name + "_hi"] = rate.interval
            if m.nsg is not None and m.nsg_interval is not None:
                out[key + "nsg"] = m.nsg
                out[key + "nsg_lo"], out[key + "nsg_hi"] = m.nsg_interval
            out[key + "episodes"], out[key + "errors"] = m.episodes, m.errors
        return out


@contextlib.contextmanager
def _lent(label: str, made: Any) -> Iterator[None]:
    """Lend ``made`` to the runner as spec ``label``; the runner neither keeps nor closes
    it (it closes its policies when a run ends), and a Policy's name is given back."""
    if label in LENT:
        raise EvalError(f"policy {label}: already being evaluated (one evaluate() per name)")
    saved = (getattr(made, "name", None), getattr(made, "user_in_process", None))
    policy = adapt_policy(made, label, "evaluate(policy)")
    had_close = "close" in vars(policy)
    saved = (*saved, vars(policy).get("close"))
    LENT[label] = policy
    policy.close = lambda: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        del LENT[label]
        if policy is made:
            policy.name, policy.user_in_process = saved[0], saved[1]
        if had_close:
            policy.close = saved[2]  # type: ignore[method-assign]
        else:
            del policy.close


def evaluate(
    policy: Any,
    suites: str | Sequence[str] = DEFAULT_SUITES,
    episodes: int = 20,
    out: str | Path = "runs/evaluate",
    *,
    name: str | None = None,
    split: str = "eval",
    start: int = 0,
    batch: int = 1,
    max_steps: int | None = None,
    progress: bool = False,
    assets: str | Path | None = None,
) -> Results:
    """Evaluate ``policy`` (a :class:`~rsb_mj.policies.base.Policy`, or any object with
    ``act(obs)``, see :mod:`rsb_mj.policies.user`) on ``episodes`` frozen episodes of each
    suite, in this process; resumable (see the module docstring).

    Args:
        policy: the policy object (not a spec: use ``rsb eval`` or
            :func:`~rsb_mj.evaluation.runner.run_eval` for those).
        suites: suite names, groups (``all``, ``a2a``, ...) or task file paths (a
            question task's, or a goal task's: scored by success and cost, see
            :meth:`Results.flat`).
        episodes: episodes per suite: eval table rows ``start .. start + episodes - 1``.
        out: the run folder (records, ``run.json``); the same folder resumes.
        name: the label's name (``inprocess:NAME``); default the object's class name.
        split: ``"eval"`` or ``"train"``.
        start: first table row.
        batch: episodes run at once in lockstep for a batched policy (``act_batch``).
        max_steps: control-step limit; None uses each suite's.
        progress: show a progress bar on stderr.
        assets: goal tasks' object folder (a LIBERO / VLA-Arena ``assets/``, as ``rsb eval
            --assets``); None: ``$RSB_MJ_ASSETS``, an installed package's, else the shipped
            stand-ins (:func:`rsb_mj.scene.assets.resolve_object_source`).

    Returns:
        :class:`Results`: per suite GSR, TSR and nSG with Wilson 95% intervals (per goal
        task file its success rate, and its mean cost).

    Raises:
        EvalError: for a policy without ``act``, an unknown suite, rows outside a table, or
            an ``out`` of another split or step limit (as ``rsb eval``).
        SceneError: for an ``assets`` folder whose originals the goal tasks use cannot be
            built, naming the file; RsbError: for an ``RSB_MJ_CACHE`` that cannot be
            written (both before the first episode; nothing is recorded, no folder is made).
    """

    label = f"{IN_PROCESS}{name or type(policy).__name__}"
    if isinstance(policy, str | Path):
        raise EvalError(
            f"evaluate() takes a policy object, got the spec {str(policy)!r}; run specs "
            "with rsb eval --policy SPEC (or rsb_mj.run_eval)"
        )
    names = expand_suites([suites] if isinstance(suites, str) else list(suites))
    config = EvalConfig(
        suites=tuple(names),
        policies=(label,),
        episodes=episodes,
        out=Path(out),
        split=split,
        start=start,
        batch=batch,
        max_steps=max_steps,
        progress=progress,
        assets=str(assets or ""),
    )
    with _lent(label, policy):
        records = run_eval(config)
    return Results(label, Path(out), tuple(records), tuple(summarize(records)))
