"""Number-shape probes (issue 9): divisors, digits, magnitude, niceness weights."""

from decimal import Decimal

import numpy as np

from rsb_mj.choices import LETTERS
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.options import draw_options
from rsb_mj.episodes.probes import (
    PROFILES,
    divisor_count,
    last_two_digits,
    measure_profile_weights,
    profile,
    units_digit,
)
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.gsm8k import profile_weights
from rsb_mj.lang.layout import Pose2D
from rsb_mj.tables.heuristics import (
    pick_commonest_magnitude,
    pick_most_divisors,
    pick_rarest_last_two,
    pick_rarest_units_digit,
    units_digit_oracle,
)


def make(options: tuple[str, ...], correct: str = "A") -> Episode:
    letters = LETTERS[len(options)]
    mapping = {letter: f"obj_{letter.lower()}" for letter in letters}
    layout = {obj: Pose2D(0.1 * i, 0.0, 0.0) for i, obj in enumerate(mapping.values())}
    colors = dict.fromkeys(mapping.values(), "red")
    return Episode.bound(
        "", "eval", 0, 0, "t.bddl", "x-1", "q?", options, correct, mapping, colors, layout, "t", "q"
    )


def test_divisor_count_and_digits():
    assert divisor_count(Decimal(60)) == 8  # 1 2 3 4 5 6 10 12
    assert divisor_count(Decimal(61)) == 1
    assert divisor_count(Decimal("2.5")) == 0
    assert divisor_count(Decimal(0)) == 12
    assert units_digit(Decimal(540)) == "0" and units_digit(Decimal("1.23")) == "3"
    assert last_two_digits(Decimal(7)) == "07" and last_two_digits(Decimal(1234)) == "34"


def test_nice_number_rule_picks_the_most_divisible_option():
    assert pick_most_divisors(make(("59", "60", "61", "62"))) == "B"
    assert pick_most_divisors(make(("a", "b", "c", "d"))) is None


def test_digit_and_magnitude_probes():
    assert pick_rarest_units_digit(make(("13", "23", "33", "47"))) == "D"
    assert pick_rarest_units_digit(make(("13", "24", "35", "46"))) is None  # all unique
    assert pick_rarest_last_two(make(("113", "213", "313", "247"))) == "D"
    assert pick_commonest_magnitude(make(("98", "99", "100", "101"))) is None  # 2 and 2
    assert pick_commonest_magnitude(make(("97", "98", "99", "100"))) == "A"


def test_units_digit_oracle():
    assert units_digit_oracle(make(("13", "24", "35", "46"))) == 1.0
    assert units_digit_oracle(make(("13", "23", "33", "43"), correct="B")) == 0.25
    assert units_digit_oracle(make(("a", "b", "c", "d"))) is None


def test_profile_classes():
    assert profile(Decimal(60), Decimal(1)) == 2 * 8 + 1
    assert profile(Decimal(61), Decimal(1)) == 2
    assert profile(Decimal(5400), Decimal(100)) == 2 * 10  # 54 steps: not round in steps


def test_gsm8k_profile_weights_favour_nice_distractors():
    w = profile_weights()
    assert len(w) == PROFILES
    assert w[2 * 1] < 0.5  # a value with no divisor but 1 is a rare answer
    assert w[2 * 8 + 1] > 1.1  # a round value with 8 divisors (60) is a common one
    assert measure_profile_weights([Decimal(7)] * 3)[profile(Decimal(7), Decimal(1))] > 1.0


def test_multiplication_distractors_are_multiples_of_the_factor():
    q = get_source("arithmetic").get("arith-mul-7-23")
    assert q.step == "7"
    rng = np.random.default_rng(0)
    for _ in range(20):
        options, _ = draw_options(q, 10, rng)
        assert all(int(o) % 7 == 0 for o in options) and "161" in options


def test_profile_weights_make_nice_distractors_likelier():
    def share(question):
        rng = np.random.default_rng(0)
        hits = total = 0
        for _ in range(300):
            options, _ = draw_options(question, 10, rng)
            others = [int(o) for o in options if o != question.answer]
            hits += sum(divisor_count(Decimal(v)) >= 6 for v in others)
            total += len(others)
        return hits / total

    plain = Question("t", "?", "53", numeric=True)
    nice = [1.0] * PROFILES
    for c in range(PROFILES):
        if c // 2 >= 6:
            nice[c] = 5.0
    weighted = Question("t", "?", "53", numeric=True, profile_weights=tuple(nice))
    assert share(weighted) > 1.5 * share(plain)
