"""The one predicate registry: each name registered once, with its variants per source."""

from __future__ import annotations

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.lang.buildable import SCORED_PREDICATES
from rsb_mj.lang.predicates import PREDICATES as LANGUAGE
from rsb_mj.lang.task import STATE_PREDICATES
from rsb_mj.scoring.predicates import (
    PREDICATES,
    Close,
    Grasped,
    In,
    On,
    Open,
    Released,
    TurnOff,
    TurnOn,
    get_predicate,
)
from rsb_mj.scoring.predicates.base import SOURCE_SEMANTICS


def test_each_name_is_registered_once_with_its_variants():
    assert {
        "Grasped": Grasped,
        "Released": Released,
        "In": In,
        "On": On,
        "Open": Open,
        "Close": Close,
        "TurnOn": TurnOn,
        "TurnOff": TurnOff,
    } == PREDICATES
    assert set().union(*(cls.variants for cls in PREDICATES.values())) == set(SOURCE_SEMANTICS)
    variants = {name: sorted(cls.variants) for name, cls in PREDICATES.items()}
    assert variants == {
        "Grasped": ["rsb"],
        "Released": ["rsb"],
        "In": ["libero", "rsb", "vla_arena"],
        "On": ["libero", "rsb", "vla_arena"],
        "Open": ["libero", "vla_arena"],
        "Close": ["libero", "vla_arena"],
        "TurnOn": ["libero", "vla_arena"],
        "TurnOff": ["libero", "vla_arena"],
    }


def test_every_goal_task_predicate_is_found_by_the_sources_spelling():
    for name in ("On", "In", *STATE_PREDICATES.values()):
        spelt = LANGUAGE[name.lower()].name  # LIBERO's ``Turnon`` is the task's ``TurnOn``
        assert get_predicate(spelt, semantics="libero").name == name
        assert get_predicate(spelt, semantics="vla_arena").name == name


@pytest.mark.parametrize("semantics", ["rsb", "libero", "vla_arena"])
def test_on_and_in_are_one_class_for_every_source(semantics):
    assert get_predicate("On", semantics=semantics) is On
    assert get_predicate("in", semantics=semantics) is In


def test_a_question_task_cannot_score_a_fixture_state():
    with pytest.raises(EvalError) as err:
        get_predicate("Open", where="t.bddl:4:7")
    assert str(err.value) == (
        "t.bddl:4:7: predicate 'Open' cannot be scored; valid choices: Grasped, In, On, Released"
    )


def test_a_goal_task_cannot_score_the_grasp_rule():
    with pytest.raises(EvalError) as err:
        get_predicate("Released", where="t.bddl:2:3", semantics="libero")
    assert str(err.value) == (
        "t.bddl:2:3: predicate 'Released' cannot be scored; valid choices: "
        "Close, In, On, Open, TurnOff, TurnOn"
    )


def test_a_variant_a_predicate_lacks_is_an_error_naming_it(make_signals, wrap):
    with pytest.raises(EvalError) as err:
        Open((), where="t.bddl:5:9").evaluate(wrap(make_signals(1, 2)))
    assert str(err.value) == "t.bddl:5:9: (Open ...) has no rsb variant"


def test_the_goal_task_checker_accepts_what_the_registry_scores_for_goal_tasks():
    """lang (an earlier stage) cannot import the registry; its list of the goal predicates
    rsb scores is held equal to the registry's libero / vla_arena variants here."""
    for semantics in ("libero", "vla_arena"):
        scored = {name.lower() for name, cls in PREDICATES.items() if semantics in cls.variants}
        assert scored == SCORED_PREDICATES
