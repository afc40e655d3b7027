"""Task-file parameters of the built-in sources: the registry, checks and narrowed pools."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.episodes.numeric import parse_number
from rsb_mj.episodes.options import draw_options
from rsb_mj.episodes.sources import get_source, resolve_source
from rsb_mj.episodes.sources.arithmetic import DEFAULT_CONFIG, ArithmeticConfig, _train_pool
from rsb_mj.episodes.sources.params import MMLU_GROUPS, MMLU_SUBJECTS, check_params
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.blocks import SourceParam
from rsb_mj.lang.task import SourceSpec


def _spec(name, *params):
    return SourceSpec(name, tuple(SourceParam(p[0], tuple(p[1:])) for p in params))


def test_the_mmlu_groups_cover_every_subject_file_once():
    from rsb_mj.episodes.sources.base import questions_dir

    files = sorted(
        p.name.removesuffix("_test.csv.gz")
        for p in (questions_dir() / "mmlu" / "test").glob("*_test.csv.gz")
    )
    assert files == list(MMLU_SUBJECTS)
    assert sum(len(g) for g in MMLU_GROUPS.values()) == len(files) == 57


@pytest.mark.parametrize(
    ("source", "param", "message"),
    [
        ("gsm8k", ("answer_range", 100, 0), ":answer_range (100 0) is inverted; write (0 100)"),
        ("gsm8k", ("answer_range", 1), ":answer_range takes two whole numbers LO HI"),
        (
            "gsm8k",
            ("answer_range", 0, 10**7),
            ":answer_range (0 10000000) must lie within +-1000000",
        ),
        ("arithmetic", ("operand_range", 10, 15), ":operand_range (10 15) must span at least 10"),
        (
            "arithmetic",
            ("multiplier_range", 0, 3),
            ":multiplier_range (0 3) must start at 1 or more: the options of a x b are "
            "multiples of a, so a factor 0 leaves none",
        ),
        (
            "arithmetic",
            ("operators", "div"),
            ":operators 'div' is unknown; valid choices: add, sub, mul",
        ),
        (
            "mmlu_pro",
            ("subject", "biologgy"),
            ":subject 'biologgy' is unknown; did you mean 'biology'? valid choices: biology, "
            "business, chemistry, computer science, economics, engineering, health, history, "
            "law, other, philosophy, physics, psychology",
        ),
        (
            "mmlu_pro",
            ("topic", "x"),
            "source 'mmlu_pro' has no parameter :topic; valid choices: :subject, :group",
        ),
    ],
)
def test_bad_parameters_are_named_with_the_valid_choices(source, param, message):
    (problem,) = check_params(source, (SourceParam(param[0], tuple(param[1:])),))
    assert problem.message == message
    with pytest.raises(EpisodeError, match=r"^source "):
        resolve_source(_spec(source, param))


def test_no_parameters_is_the_shared_source_and_defaults_draw_the_same():
    assert resolve_source(_spec("gsm8k")) is get_source("gsm8k")
    same = resolve_source(
        _spec("arithmetic", ("operand_range", 10, 99), ("multiplier_range", 2, 9))
    )
    assert same.config == DEFAULT_CONFIG
    assert same.pool("train") == get_source("arithmetic").pool("train")
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    assert [same.draw("eval", rng_a) for _ in range(20)] == [
        get_source("arithmetic").draw("eval", rng_b) for _ in range(20)
    ]


def test_arithmetic_operators_and_ranges():
    source = resolve_source(_spec("arithmetic", ("operators", "add"), ("operand_range", 0, 20)))
    assert source.config == ArithmeticConfig(("add",), 0, 20, 2, 9)
    assert len(source.pool("train")) == source.config.count() // 2 == 115
    rng = np.random.default_rng(0)
    for _ in range(50):
        q = source.draw("eval", rng)
        _, op, a, b = q.qid.split("-")
        assert op == "add" and 0 <= int(a) <= 20 and 0 <= int(b) <= 20
        assert q.qid not in {t.qid for t in source.pool("train")}
    assert _train_pool() == get_source("arithmetic").pool("train")


def test_gsm8k_answer_range_keeps_the_split():
    source = resolve_source(_spec("gsm8k", ("answer_range", 0, 10)))
    base = get_source("gsm8k")
    for split in ("train", "eval"):
        pool = source.pool(split)
        assert pool and all(0 <= parse_number(q.answer) <= 10 for q in pool)
        assert {q.qid for q in pool} <= {q.qid for q in base.pool(split)}


def test_subjects_and_groups_narrow_mmlu_and_mmlu_pro():
    bio = resolve_source(_spec("mmlu_pro", ("subject", "biology", "computer_science")))
    assert {q.subject for q in bio.pool("eval")} == {"biology", "computer science"}
    humanities = resolve_source(_spec("mmlu", ("group", "humanities")))
    subjects = {q.subject for q in humanities.pool("train")}
    assert subjects <= set(MMLU_GROUPS["humanities"]) and "philosophy" in subjects
    assert humanities.choices == (2, 3, 4)


def test_a_multiplier_range_from_1_draws_options_for_both_splits():
    source = resolve_source(
        _spec(
            "arithmetic", ("operators", "mul"), ("multiplier_range", 1, 3), ("operand_range", 0, 10)
        )
    )
    rng = np.random.default_rng(0)
    for split in ("train", "eval"):
        for _ in range(20):
            question = source.draw(split, rng)
            options, correct = draw_options(question, 10, rng)
            assert len(set(options)) == 10
            assert options[LETTERS[10].index(correct)] == question.answer
