"""Options: distinct, correct letter and numeric rank uniform, near and non-negative."""

from collections import Counter
from decimal import Decimal

import numpy as np
import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.episodes.numeric import step_of
from rsb_mj.episodes.options import draw_options, window
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.arithmetic import make_question
from rsb_mj.errors import EpisodeError
from rsb_mj.stats import chi_square_uniform


@pytest.mark.parametrize("n", [4, 10])
def test_numeric_rank_and_letter_are_uniform(n):
    rng = np.random.default_rng(0)
    source = get_source("gsm8k")
    ranks = Counter()
    for _ in range(3000):
        q = source.draw("train", rng)
        options, letter = draw_options(q, n, rng)
        values = [Decimal(o) for o in options]
        assert values == sorted(values) and len(set(values)) == n
        assert options[LETTERS[n].index(letter)] == q.answer
        ranks[LETTERS[n].index(letter)] += 1
    _, p = chi_square_uniform([ranks[i] for i in range(n)])
    assert p > 0.01, ranks


def test_math_options_are_near_and_non_negative():
    rng = np.random.default_rng(3)
    for n in (4, 10):
        for _ in range(500):
            q = get_source("arithmetic").draw("eval", rng)
            options, _ = draw_options(q, n, rng)
            values = [int(o) for o in options]
            step = Decimal(q.step) if q.step else step_of(Decimal(q.answer))
            assert min(values) >= 0
            assert max(values) - min(values) <= window(n) * step
            assert all(v % step == 0 for v in values) or not q.step  # a x b: multiples of a


def test_known_draw():
    options, letter = draw_options(make_question("sub", 27, 17), 4, np.random.default_rng(5))
    assert (options, letter) == (("4", "8", "10", "12"), "C")


def test_round_answers_get_round_distractors():
    assert step_of(Decimal(54000)) == 1000
    assert step_of(Decimal(50)) == 1
    assert step_of(Decimal(1200)) == 100
    assert step_of(Decimal("2.5")) == Decimal("0.1")
    options, _ = draw_options(
        Question("t", "?", "54000", numeric=True), 4, np.random.default_rng(0)
    )
    assert all(int(o) % 1000 == 0 for o in options)


def test_small_answer_only_goes_negative_when_it_must():
    q = Question("t", "?", "2", numeric=True)
    rng = np.random.default_rng(0)
    for _ in range(200):
        options, letter = draw_options(q, 10, rng)
        rank = LETTERS[10].index(letter)
        negatives = sum(int(o) < 0 for o in options)
        assert negatives == max(0, rank - 2) or negatives <= rank


def test_text_options_are_the_answer_and_its_own_distractors():
    q = get_source("mmlu_pro").pool("eval")[0]
    rng = np.random.default_rng(1)
    for n in (4, 10):
        options, letter = draw_options(q, n, rng)
        assert len(set(options)) == n
        assert options[LETTERS[n].index(letter)] == q.answer
        assert set(options) - {q.answer} <= set(q.distractors)


def test_too_few_distractors_and_bad_counts_are_errors():
    q = Question("x-1", "?", "a", distractors=("b", "c", "d"))
    with pytest.raises(EpisodeError, match="question x-1 has 3 distractors; 10 options need 9"):
        draw_options(q, 10, np.random.default_rng(0))
    with pytest.raises(EpisodeError, match="question x-1 has 3 distractors; 5 options need 4"):
        draw_options(q, 5, np.random.default_rng(0))
    with pytest.raises(EpisodeError, match=r"11 options; valid choices: 2\.\.10"):
        draw_options(q, 11, np.random.default_rng(0))


def test_round_and_echo_weights_make_such_distractors_likelier():
    def share(question, pred):
        rng = np.random.default_rng(0)
        hits = total = 0
        for _ in range(400):
            options, _ = draw_options(question, 10, rng)
            others = [o for o in options if o != question.answer]
            hits += sum(pred(int(o)) for o in others)
            total += len(others)
        return hits / total

    plain = Question("t", "She has 47 and 58 marbles.", "53", numeric=True)
    weighted = Question(
        "t", "She has 47 and 58 marbles.", "53", numeric=True, round_weight=3.0, echo_weight=3.0
    )
    assert share(weighted, lambda v: v % 10 == 0) > 1.5 * share(plain, lambda v: v % 10 == 0)
    assert share(weighted, lambda v: v in (47, 58)) > 1.5 * share(plain, lambda v: v in (47, 58))
