"""Balanced draws: how often a question may be used."""

from rsb_mj.tables.balance import max_question_uses


def test_question_uses():
    assert max_question_uses(500, 1319) == 1
    assert max_question_uses(1000, 500) == 3
    assert max_question_uses(500, None) == 1
