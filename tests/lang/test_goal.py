"""Goal placements: the task names what moves; ?answer binds a candidate."""

from rsb_mj.lang import load_task
from rsb_mj.lang.expr import Name, Variable
from rsb_mj.lang.goal import is_placement_predicate, named_movers, placements
from rsb_mj.lang.placement import distractor_names
from rsb_mj.resources import tasks_dir


def test_an_rsb_goal_moves_the_chosen_candidate_into_the_zone():
    problem = load_task(tasks_dir() / "rsb_math_4_l1.bddl")
    (p,) = placements(problem)
    assert (p.predicate, p.mover, p.place) == ("In", Variable("answer"), Name("table_answer_zone"))
    assert named_movers(problem) == ()
    assert distractor_names(problem) == ("can_1", "lemon_1", "toy_car_1")


def test_an_act2answer_goal_moves_the_cube_onto_the_chosen_plate():
    problem = load_task(tasks_dir() / "a2a_counting.bddl")
    (p,) = placements(problem)
    assert (p.predicate, p.mover, p.place) == ("On", Name("cube"), Variable("answer"))
    assert named_movers(problem) == ("cube",)
    assert distractor_names(problem) == ()  # the cube stays where :init puts it


def test_only_scoreable_predicates_with_an_object_and_a_place_are_placements():
    assert is_placement_predicate("In") and is_placement_predicate("on")
    assert not is_placement_predicate("Released") and not is_placement_predicate("NotOn")
