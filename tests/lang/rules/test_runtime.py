"""Lint-clean implies runs (the RSB5xx family, ``rsb_mj.lang.rules.runtime_*``): mutate the
shipped task files; a mutant either gets a lint error, or it compiles, resets, runs 20 steps
and is scored. (The layout rules have their own tests beside this one,
:mod:`.test_runtime_layout`; the trial layouts are the sampler's, ``tests/scene/test_layout.py``.)

The mutations work on the s-expressions: numbers are scaled or replaced, names, predicates
and choice counts replaced, forms deleted or duplicated (top-level blocks and anything
nested), and the ``(:source ...)`` replaced by a built-in source with drawn parameter values
(ranges, subjects, groups, operators: RSB451/452/458 or both splits draw). A mutant that
lints clean must also draw a train episode (the env resets on eval). The default
run checks 50 mutants (about 25 s); the slow one 2,000 (about 5 minutes on 2 busy cores).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rsb_mj.episodes.sources.params import SOURCE_PARAMS
from rsb_mj.lang import lint_text
from rsb_mj.lang.block_values import QUESTION_SOURCES
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.predicates import PREDICATES
from rsb_mj.workspace import SCENE_BODY_NAMES

from .shipped_tasks import SOURCES, TOKEN, forms_of, tokens_of

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_NAME = re.compile(r"[a-z_][a-z0-9_\-]*$", re.I)

#: Names a mutant may take: every name of the shipped files and what the runtime knows.
NAMES = sorted(
    {m.group() for text in SOURCES.values() for m in TOKEN.finditer(text) if _NAME.match(m.group())}
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

#: A ``(:source NAME)`` or ``(:source (...))`` form.
SOURCE_FORM = re.compile(r"\(:source (?:[^()\s]+|\((?:[^()]|\([^()]*\))*\))\)")
#: GSM8K answer range ends at the data's edges (answers run from -47 to 192,000,000, the eval
#: ones from -10 to 2,880,000) and the parameter check's +-1e6.
ANSWER_EDGES = st.sampled_from([-1000000, -100, -50, -11, -10, -3, 0, 385000, 999000, 1000000])
#: Range widths: an operand range below 10 is RSB452.
SPANS = st.sampled_from([0, 9, 10, 11, 12, 20, 89])
#: Subjects at the edges of the pools: mmlu's mathematics subjects (not in its pool) and
#: moral_scenarios (no train question).
EDGE_SUBJECTS = st.sampled_from(["abstract_algebra", "high_school_statistics", "moral_scenarios"])


@st.composite
def source_form(draw: st.DrawFn) -> str:
    """A built-in source with drawn parameter values: half of them anywhere (one or two
    parameters), half near the edges where a split empties (RSB458) or a range turns invalid
    (RSB452): subtraction alone over a range 10 or 11 wide, products by the smallest factors,
    GSM8K answer ranges between the data's extremes, mmlu subjects without questions in a
    split."""
    name = draw(st.sampled_from(sorted(SOURCE_PARAMS)))
    if draw(st.booleans()):
        if name == "arithmetic" and draw(st.booleans()):
            lo = draw(st.integers(0, 2))
            return f"(:source (arithmetic (:operators mul) (:multiplier_range {lo} {lo + 1})))"
        if name == "arithmetic":
            lo = draw(st.integers(0, 60))
            span = draw(st.sampled_from([9, 10, 11]))
            return f"(:source (arithmetic (:operators sub) (:operand_range {lo} {lo + span})))"
        if name == "gsm8k":
            lo, hi = sorted(draw(st.tuples(ANSWER_EDGES, ANSWER_EDGES)))
            return f"(:source (gsm8k (:answer_range {lo} {hi})))"
        if name == "mmlu":
            subjects = draw(st.lists(EDGE_SUBJECTS, min_size=1, max_size=2))
            return f"(:source (mmlu (:subject {' '.join(subjects)})))"
    infos = draw(st.permutations(SOURCE_PARAMS[name]))
    params = []
    for info in infos[: draw(st.integers(1, min(2, len(infos))))]:
        if info.kind == "range":
            lo = draw(st.integers(-20, 120) if info.name == "answer_range" else st.integers(0, 30))
            values = [str(lo), str(lo + draw(SPANS))]
        else:
            names = draw(st.lists(st.sampled_from(info.valid), min_size=1, max_size=2))
            values = [f'"{v}"' if " " in v else v for v in names]
        params.append(f"(:{info.name} {' '.join(values)})")
    return f"(:source ({name} {' '.join(params)}))"


def _with_source(text: str, form: str) -> str:
    """``text`` with its first ``(:source ...)`` form replaced by ``form``."""
    found = SOURCE_FORM.search(text)
    return text if found is None else text[: found.start()] + form + text[found.end() :]


@st.composite
def mutant(draw: st.DrawFn) -> tuple[str, str]:
    """(file name, mutated text) of a shipped task file."""
    name = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[name]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                [
                    "nudge",
                    "number",
                    "name",
                    "predicate",
                    "choices",
                    "delete",
                    "duplicate",
                    "block",
                    "source",
                ]
            )
        )
        tokens = tokens_of(text)
        if kind == "source":
            text = _with_source(text, draw(source_form()))
        elif kind == "nudge":  # a number scaled by 0.5-1.5: often still valid, so it must run
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
            forms = [f for f in forms_of(text) if (f[2] == 1) == depth_one and f[2] >= 1]
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
    from rsb_mj.episodes import sample_episode

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
    sample_episode(problem, suite="", split="train", index=0, seed=0)
    return "ran"


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(sorted(n for n in SOURCES if n.startswith("rsb_"))), source_form())
def test_a_narrowed_source_is_flagged_or_draws_both_splits(name, form):
    """The source mutations alone, without building the env: lint-clean => both splits draw
    a whole episode (seed 0) and the question and options of 30 more seeds each (a rare
    question, such as a factor 0 among 2..9, shows in a few of them; the env part is
    :func:`test_a_mutant_is_flagged_or_runs`)."""
    from rsb_mj.episodes import sample_episode
    from rsb_mj.episodes.sampler import draw_semantics

    text = _with_source(SOURCES[name], form)
    problem, diagnostics = lint_text(text, f"narrowed_{name}")
    if problem is None or any(d.is_error for d in diagnostics):
        event("flagged: " + " ".join(sorted({d.code for d in diagnostics if d.is_error})))
        return
    event("draws")
    for split in ("train", "eval"):
        sample_episode(problem, suite="", split=split, index=0, seed=0)
        for seed in range(1, 31):
            draw_semantics(problem, suite="", split=split, rng=np.random.default_rng(seed))


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
