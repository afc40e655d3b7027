"""The option a policy's text names, and the RSB Table 5 built from text-writing policies."""

import pytest

from rsb_mj.evaluation.failure_analysis import failure_analysis
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.evaluation.tables import failure_table
from rsb_mj.evaluation.text_choice import text_choice
from rsb_mj.lang import load_task
from rsb_mj.suites import get_suite

from .fakes import FakeEnv, TextPolicy, make_episode

OPTIONS = ("4", "7", "10", "17")


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("27 minus 17 is 10; option C is 10; C is the green block", "C"),
        ("<think>the answer is B</think>", "B"),
        ("I pick (D)", "D"),
        ("Answer: A", "A"),
        ("the result is 17.", "D"),  # the one option text it contains
        ("10 or 17", None),  # two options: ambiguous
        ("(E)", None),  # not a letter of a 4-choice episode
        ("", None),
        (None, None),
    ],
)
def test_text_choice_reads_letters_then_unambiguous_option_texts(text, letter):
    assert text_choice(text, OPTIONS) == letter


def _run(policy, index):
    problem = load_task(get_suite("RSB-Math-4").path)
    episode = make_episode(index=index)
    return Rollout(FakeEnv(), policy, episode, problem, max_steps=40).run()


def test_table5_splits_failures_by_choice_and_text():
    # fake episode i: correct option is "ABCD"[i % 4]
    records = [
        _run(TextPolicy(None, "the answer is A"), 0),  # right text, right choice: success
        _run(TextPolicy("B", "the answer is A"), 0),  # correct text, wrong target
        _run(TextPolicy("C", "I pick (C)"), 0),  # incorrect text, wrong target (follows it)
        _run(TextPolicy(None, "the answer is B", place=False), 1),  # correct, not placed
        _run(TextPolicy("A", "no idea"), 1),  # wrong target, text names no option
    ]
    assert [(r.success, r.correct_choice, r.text_choice) for r in records] == [
        (True, True, "A"),
        (False, False, "A"),
        (False, False, "C"),
        (False, True, "B"),
        (False, False, None),
    ]
    (a,) = failure_analysis(records)
    assert a.failures == 4
    assert (a.not_placed.k, a.wrong_target.k) == (1, 3)
    assert (a.wrong_text_wrong_target.k, a.right_text_wrong_target.k) == (1, 1)
    assert (a.following.k, a.following.n) == (3, 4)  # A->A, B!=A, C->C, B->B
    rows = failure_table([a])
    assert rows[1][0] == "policy (privileged)"  # TextPolicy reads the answer
    assert rows[1][1:5] == ["RSB-Math-4", "4", "25.0 [4.6, 69.9]", "75.0 [30.1, 95.4]"]
    assert rows[1][7] == "75.0 [30.1, 95.4]"
