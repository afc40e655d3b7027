"""Slow: the language-blind baselines score chance on every suite, through the real runner.

200 frozen eval episodes per suite and policy (``rsb eval`` with two workers). Chance is
a correct first grasp (the choice) in 1/N of grasping episodes, TSR = GSR/N and nSG = 0;
each Wilson 95% interval must contain it. ``try-all`` places every candidate one after another:
one attempt per episode (the first grasp is the choice) must hold it to chance with the
suites' step limit and with ``--max-steps 1000``.

Run with ``python -m pytest -m slow tests/policies/test_blind_chance.py`` (5,200 episodes:
about 1.5 h on 2 busy cores). With ``RSB_BLIND_RUNS=DIR`` the run directories are
``DIR/<policy>`` and ``DIR/try-all-1000`` instead of temporary ones: a killed run resumes
where it stopped, and ``rsb report DIR/*`` tabulates the figures.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rsb_mj.evaluation import EvalConfig, SuiteMetrics, run_eval, summarize
from rsb_mj.suites import SUITES

EPISODES = 200
BLIND = ("try-all", "nearest-to-zone", "fixed-letter", "fixed-position")


def _off_chance(m: SuiteMetrics) -> list[str]:
    """Why ``m`` is not at chance (empty when every interval contains it)."""
    chance_tsr = m.gsr.value / m.choices
    lo, hi = m.tsr.interval
    why = []
    s_lo, s_hi = m.selection.interval
    if not s_lo <= 1 / m.choices <= s_hi:
        why.append(f"choice {m.selection.k}/{m.selection.n} [{s_lo:.3f}, {s_hi:.3f}] excludes 1/N")
    if not lo <= chance_tsr <= hi:
        why.append(f"TSR {m.tsr.k}/{m.tsr.n} [{lo:.3f}, {hi:.3f}] excludes GSR/N {chance_tsr:.3f}")
    band = m.nsg_interval
    if band is None or not band[0] <= 0.0 <= band[1]:
        why.append(f"nSG {m.nsg} interval {band} excludes 0 (GSR {m.gsr.k}/{m.gsr.n})")
    return [f"{m.policy} on {m.suite}: {w}" for w in why]


def _out(tmp_path: Path, name: str) -> Path:
    """``$RSB_BLIND_RUNS/name`` when set (kept and resumed), else a temporary directory."""
    return Path(os.environ.get("RSB_BLIND_RUNS") or tmp_path) / name


def _run(out: Path, policy: str, suites: tuple[str, ...], max_steps: int | None = None):
    config = EvalConfig(
        suites=suites,
        policies=(policy,),
        episodes=EPISODES,
        out=out,
        workers=2,
        max_steps=max_steps,
        progress=False,
    )
    return summarize(run_eval(config))


@pytest.mark.slow
def test_try_all_with_a_long_step_limit_is_at_chance(tmp_path):
    suites = ("RSB-Math-4", "RSB-HardMath-10")
    metrics = _run(_out(tmp_path, "try-all-1000"), "try-all", suites, max_steps=1000)
    assert [m.suite for m in metrics] == list(suites)
    assert all(m.episodes == EPISODES and m.errors == 0 for m in metrics)
    assert all(m.gsr.value > 0.8 for m in metrics), [(m.suite, m.gsr.k) for m in metrics]
    assert [w for m in metrics for w in _off_chance(m)] == []


@pytest.mark.slow
@pytest.mark.parametrize("policy", BLIND)
def test_blind_policy_is_at_chance_on_every_suite(tmp_path, policy):
    metrics = _run(_out(tmp_path, policy), policy, tuple(SUITES))
    assert sorted(m.suite for m in metrics) == sorted(SUITES)
    assert all(m.episodes == EPISODES and m.errors == 0 for m in metrics)
    # the motion works (these are embodied baselines, not no-ops) ...
    assert all(m.gsr.value > 0.8 for m in metrics), [(m.suite, m.gsr.k) for m in metrics]
    # ... and the choice is blind
    assert [w for m in metrics for w in _off_chance(m)] == []
