"""Lint-clean implies runs (rsb_mj.lang.rules.runtime): mutate the shipped task files; a
mutant either gets a lint error, or it compiles, resets, runs 20 steps and is scored.

The mutations work on the s-expressions: numbers are scaled or replaced, names, predicates
and choice counts replaced, forms deleted or duplicated (top-level blocks and anything
nested). The default
run checks 50 mutants (about 25 s); the slow one 2,000 (about 5 minutes on 2 busy cores).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rsb_mj.lang import lint_text
from rsb_mj.lang.rules.base import Context
from rsb_mj.lang.rules.runtime import layout_trials
from rsb_mj.lang.vocabulary import PREDICATES, QUESTION_SOURCES, RSB_CATEGORIES
from rsb_mj.workspace import SCENE_BODY_NAMES

TASKS = Path(__file__).resolve().parents[2] / "tasks"
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in sorted(TASKS.glob("*.bddl"))}

#: One token (a comment, a parenthesis, or an atom), as the fast reader splits a text.
_TOKEN = re.compile(r";[^\n]*|[()]|[^ \t\f\r\n();]+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_NAME = re.compile(r"[a-z_][a-z0-9_\-]*$", re.I)

#: Names a mutant may take: every name of the shipped files and what the runtime knows.
NAMES = sorted(
    {
        m.group()
        for text in SOURCES.values()
        for m in _TOKEN.finditer(text)
        if _NAME.match(m.group())
    }
    | set(RSB_CATEGORIES)
    | set(QUESTION_SOURCES)
    | SCENE_BODY_NAMES
    | {"answer_zone", "candidates", "fixed", "held_out", "akita_black_bowl", "main_table"}
)
PREDICATE_NAMES = sorted(p.name for p in PREDICATES.values())
NUMBERS = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "4", "5", "10", "11", "-1", "0.5", "-0.5", "1e300"]),
    st.floats(-0.7, 0.7, allow_nan=False).map(lambda v: f"{v:.3f}"),
    st.floats(0.0, 0.3, allow_nan=False).map(lambda v: f"{v:.3f}"),
)


def _tokens(text: str) -> list[re.Match[str]]:
    return [m for m in _TOKEN.finditer(text) if not m.group().startswith(";")]


def _forms(text: str) -> list[tuple[int, int, int]]:
    """(start, end, depth) of every parenthesized form."""
    out, stack = [], []
    for m in _tokens(text):
        if m.group() == "(":
            stack.append(m.start())
        elif m.group() == ")" and stack:
            start = stack.pop()
            out.append((start, m.end(), len(stack)))
    return out


@st.composite
def mutant(draw: st.DrawFn) -> tuple[str, str]:
    """(file name, mutated text) of a shipped task file."""
    name = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[name]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                ["nudge", "number", "name", "predicate", "choices", "delete", "duplicate", "block"]
            )
        )
        tokens = _tokens(text)
        if kind == "nudge":  # a number scaled by 0.5-1.5: often still valid, so it must run
            pool = [m for m in tokens if _NUMBER.match(m.group())]
            if pool:
                m = draw(st.sampled_from(pool))
                factor = draw(st.floats(0.5, 1.5))
                value = f"{float(m.group()) * factor:.4g}"
                text = text[: m.start()] + value + text[m.end() :]
        elif kind in ("number", "name", "predicate"):
            if kind == "number":
                pool = [m for m in tokens if _NUMBER.match(m.group())]
                value = draw(NUMBERS)
            elif kind == "name":
                pool = [m for m in tokens if _NAME.match(m.group())]
                value = draw(st.sampled_from(NAMES))
            else:
                pool = [
                    m
                    for i, m in enumerate(tokens)
                    if i and tokens[i - 1].group() == "(" and m.group().lower() in PREDICATES
                ]
                value = draw(st.sampled_from(PREDICATE_NAMES))
            if not pool:
                continue
            m = draw(st.sampled_from(pool))
            text = text[: m.start()] + value + text[m.end() :]
        elif kind == "choices":
            count = draw(st.integers(1, 11))
            text = re.sub(r"\(:choices \d+\)", f"(:choices {count})", text)
        else:
            depth_one = kind == "block"
            forms = [f for f in _forms(text) if (f[2] == 1) == depth_one and f[2] >= 1]
            if not forms:
                continue
            start, end, _ = draw(st.sampled_from(forms))
            if kind == "duplicate" or (depth_one and draw(st.booleans())):
                text = text[:end] + " " + text[start:end] + text[end:]
            else:
                text = text[:start] + text[end:]
    return name, text


def runs_or_is_flagged(name: str, text: str) -> str:
    """``"flagged"`` when lint reports an error; else build the env from the mutant, reset,
    step 20 times and score, and return ``"ran"`` (any exception fails the test)."""
    from rsb_mj.env.rsb_env import RsbEnv

    path = f"mutant_of_{name}"
    problem, diagnostics = lint_text(text, path)
    if problem is None or any(d.is_error for d in diagnostics):
        return "flagged"
    env = RsbEnv(problem, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        rng = np.random.default_rng(0)
        home = obs["state"]
        for _ in range(20):
            env.step(home + rng.normal(0.0, 0.05, size=14) * (np.arange(14) % 7 != 6))
        assert env.scorer is not None
        env.scorer.finish()
    finally:
        env.close()
    return "ran"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_shipped_task_runs_and_places_in_the_trials(name):
    problem, diagnostics = lint_text(SOURCES[name], name)
    assert problem is not None and diagnostics == []
    successes, trials = layout_trials(Context(problem, name))
    assert successes == 2 and trials <= 4


def test_a_crowded_region_is_flagged_and_the_sampler_agrees():
    from rsb_mj.errors import SceneError
    from rsb_mj.scene.layout import sample_layout

    text = SOURCES["rsb_math_10.bddl"].replace("(-0.28 -0.14 0.28 0.05)", "(-0.25 -0.1 0.25 0.02)")
    problem, diagnostics = lint_text(text, "crowded.bddl")
    assert [d.code for d in diagnostics if d.is_error] == ["RSB503"]
    with pytest.raises(SceneError, match="could not place 10 candidates after 64 attempts"):
        sample_layout(problem, np.random.default_rng(0))


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutant())
def test_a_mutant_is_flagged_or_runs(case):
    event(runs_or_is_flagged(*case))


@pytest.mark.slow
@settings(
    max_examples=2000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(mutant())
def test_two_thousand_mutants_are_flagged_or_run(case):
    event(runs_or_is_flagged(*case))  # --hypothesis-show-statistics: flagged / ran shares
