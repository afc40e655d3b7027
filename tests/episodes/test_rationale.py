"""Rationales of training episodes: exact texts per source, checked against the answer."""

import pytest

from rsb_mj.episodes.rationale import rationale, training_prompt
from rsb_mj.errors import EpisodeError
from rsb_mj.lang import load_task
from rsb_mj.suites import get_suite
from rsb_mj.tables.families import load_table


def _row(suite, split="train", index=0):
    return load_table(suite, split)[index], load_task(get_suite(suite).path)


def _expected_tail(row, problem):
    from rsb_mj.episodes.rationale import object_phrase

    text = row.options[row.letters.index(row.correct)].rstrip(". ")
    return f"; option {row.correct} is {text}; {row.correct} is " + (
        object_phrase(row, problem, row.correct) + "."
    )


def test_math_rationale_computes_the_expression():
    row, problem = _row("RSB-Math-4")
    _, op, a, b = row.question_id.split("-")
    value = {"add": int(a) + int(b), "sub": int(a) - int(b), "mul": int(a) * int(b)}[op]
    word = {"add": "plus", "sub": "minus", "mul": "times"}[op]
    color = row.colors[row.mapping[row.correct]]
    assert rationale(row, problem) == (
        f"{a} {word} {b} is {value}; option {row.correct} is {value}; {row.correct} is the "
        f"{color} block."
    )


def test_ten_choice_rationales_name_the_lettered_block():
    row, problem = _row("RSB-Math-10")
    assert rationale(row, problem).endswith(f"{row.correct} is the block lettered {row.correct}.")


def test_hardmath_rationale_is_gsm8ks_solution_without_calculator_annotations():
    row, problem = _row("RSB-HardMath-4")
    text = rationale(row, problem)
    assert "<<" not in text and "####" not in text
    assert text.endswith(_expected_tail(row, problem))
    assert f"the answer is {row.options[row.letters.index(row.correct)]};" in text


def test_general_rationale_states_the_answer_text():
    row, problem = _row("RSB-General-10")
    answer = row.options[row.letters.index(row.correct)].rstrip(". ")
    assert rationale(row, problem) == f"the answer is {answer}" + _expected_tail(row, problem)


@pytest.mark.parametrize("suite", ["RSB-Math-4", "RSB-HardMath-10", "RSB-General-4"])
def test_every_train_row_gets_a_rationale_that_matches_its_answer(suite):
    problem = load_task(get_suite(suite).path)
    for row in load_table(suite, "train")[:200]:
        assert f"option {row.correct} is" in rationale(row, problem)


def test_eval_rows_and_wrong_answers_are_refused():
    row, problem = _row("RSB-Math-4", "eval")
    with pytest.raises(EpisodeError, match=r"rationales are made for the train split only"):
        rationale(row, problem)
    row, problem = _row("RSB-Math-4")
    other = next(letter for letter in row.letters if letter != row.correct)
    wrong = row.rebound(correct=other)
    with pytest.raises(EpisodeError, match=r"the rationale reaches '.*', but the correct option"):
        rationale(wrong, problem)


def test_training_prompt_ends_in_a_think_block():
    row, problem = _row("RSB-Math-4")
    assert training_prompt(row, problem) == (
        f"{row.instruction} <think>{rationale(row, problem)}</think>"
    )
