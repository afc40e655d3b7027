"""Question sources: pool sizes, answers, ids, and disjoint deterministic splits."""

import numpy as np
import pytest

from rsb_mj.episodes.numeric import all_numeric
from rsb_mj.episodes.sources import SOURCES, get_source, source_of
from rsb_mj.episodes.sources.arithmetic import TRAIN_SIZE, make_question
from rsb_mj.episodes.sources.gsm8k import parse_solution
from rsb_mj.errors import EpisodeError


@pytest.mark.parametrize("name", ["gsm8k", "mmlu_pro", "mmlu"])
def test_fixed_pools_are_disjoint_and_ids_unique(name):
    source = get_source(name)
    train = [q.qid for q in source.pool("train")]
    evals = [q.qid for q in source.pool("eval")]
    assert len(set(train)) == len(train) and len(set(evals)) == len(evals)
    assert not set(train) & set(evals)
    # question texts too: a question repeated under two ids stays on one side
    texts = {q.text for q in source.pool("train")}
    assert not any(q.text in texts for q in source.pool("eval"))


def test_pool_sizes():
    assert (len(get_source("gsm8k").pool("train")), len(get_source("gsm8k").pool("eval"))) == (
        7472,  # less gsm8k-train-20, a near-duplicate of gsm8k-test-632
        1319,
    )
    assert (
        len(get_source("mmlu_pro").pool("train")),
        len(get_source("mmlu_pro").pool("eval")),
    ) == (
        4533,  # 4,577 less 44 near-duplicates of eval questions
        1000,
    )
    assert len(get_source("mmlu").pool("eval")) == 1000
    assert len(get_source("mmlu").pool("train")) == 10313
    assert len(get_source("arithmetic").pool("train")) == TRAIN_SIZE == 500
    assert get_source("arithmetic").pool("eval") is None


def test_arithmetic_eval_draws_never_hit_train_questions():
    source = get_source("arithmetic")
    train = {q.qid for q in source.pool("train")}
    rng = np.random.default_rng(0)
    drawn = {source.draw("eval", rng).qid for _ in range(3000)}
    assert not drawn & train
    swapped = {f"arith-add-{q.split('-')[3]}-{q.split('-')[2]}" for q in train if "-add-" in q}
    assert not drawn & swapped
    assert {qid.split("-")[1] for qid in drawn} == {"add", "sub", "mul"}


def test_arithmetic_forms_and_sign_rule():
    assert make_question("sub", 27, 17).text == "what is 27 minus 17?"
    assert make_question("sub", 27, 17).answer == "10"
    assert make_question("mul", 7, 23).answer == "161"
    with pytest.raises(EpisodeError, match="outside the ranges of 'sub'"):
        make_question("sub", 27, 18)  # a - b < 10 breaks the sign rule
    rng = np.random.default_rng(1)
    for _ in range(2000):
        q = get_source("arithmetic").draw("eval", rng)
        assert int(q.answer) >= 10 and q.slips == ()


def test_arithmetic_get_rebuilds_from_id_and_names_the_format():
    assert get_source("arithmetic").get("arith-add-12-34").answer == "46"
    with pytest.raises(EpisodeError, match="expected arith-OP-A-B"):
        get_source("arithmetic").get("arith-12")


def test_gsm8k_answer_and_slips():
    answer, steps = parse_solution("16-3-4 = <<16-3-4=9>>9 eggs\n9*2=<<9*2=18>>18\n#### 1,018")
    assert answer == "1018" and steps == ("9", "18")
    first = get_source("gsm8k").pool("eval")[0]
    assert first.qid == "gsm8k-test-0" and first.answer == "18" and first.slips == ("9",)
    assert get_source("gsm8k").get("gsm8k-train-0").answer == "72"
    with pytest.raises(EpisodeError, match="no '####'"):
        parse_solution("no final answer")


def test_mmlu_pro_pool_excludes_math_and_numeric_option_questions():
    pool = get_source("mmlu_pro").pool("eval") + get_source("mmlu_pro").pool("train")
    for q in pool:
        options = (q.answer, *q.distractors)
        assert len(options) == len(set(options)) == 10
        assert not all_numeric(options)
    assert get_source("mmlu_pro").split_of(pool[0].qid) in ("train", "eval")


def test_splits_are_deterministic_across_loads():
    from rsb_mj.episodes.sources.base import fixed_split

    ids = [f"q{i}" for i in range(50)]
    assert fixed_split(ids, 10, 7) == fixed_split(list(reversed(ids)), 10, 7)
    assert len(fixed_split(ids, 10, 7)[1]) == 10


def test_source_lookup_by_id_and_name():
    assert source_of("gsm8k-test-3") is SOURCES["gsm8k"]
    assert source_of("arith-add-10-10") is SOURCES["arithmetic"]
    valid = (
        "valid choices: a2a_biological, a2a_color, .*, a2a_time, arithmetic, gsm8k, mmlu, mmlu_pro$"
    )
    with pytest.raises(EpisodeError, match=valid):
        get_source("trivia")


def test_gsm8k_distractor_weights_match_the_train_split():
    from rsb_mj.episodes.sources.gsm8k import ECHO_WEIGHT, ROUND_WEIGHT, _load, measure_weights

    round_odds, echo_odds = measure_weights(_load("train"))
    assert round_odds == pytest.approx(ROUND_WEIGHT, abs=0.1)
    assert echo_odds == pytest.approx(ECHO_WEIGHT, abs=0.1)
