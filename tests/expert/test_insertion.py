"""Insertion under an overhang (rsb_mj.expert.insertion) on LIBERO's two-layer shelf and
microwave: which regions are slots, a book pushed in level, a mug laid in the microwave."""

from __future__ import annotations

import pytest

from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.expert.insertion import slot_of
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.task import Relation

from .goal_play import LIBERO, run_goal

AT = Span(line=1, column=1, end_line=1, end_column=2)


def _on(mover: str, place: str, predicate: str = "On", kind: str = "object") -> Relation:
    return Relation(predicate, mover, place, kind, AT)


MICROWAVE_MUG = (
    "libero_10/KITCHEN_SCENE6_put_the_yellow_and_white_mug_in_the_microwave_and_close_it.bddl"
)
SHELF_BOOK = (
    "libero_90/STUDY_SCENE4_pick_up_the_book_on_the_right_and_place_it_on_the_cabinet_shelf.bddl"
)


def test_only_a_region_under_its_owners_board_is_a_slot():
    """The two-layer shelf's compartments are covered by its own boards and open at one
    side (world -x in STUDY_SCENE4): slots with the boards' heights; its top is not."""
    env = GoalEnv(LIBERO / SHELF_BOOK, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        expert.act(obs)  # plans from the measured state
        shelf = "wooden_two_layer_shelf_1"
        top = slot_of(expert, _on("yellow_book_1", f"{shelf}_top_region", "In", "site"))
        assert top is not None
        assert (top.floor, top.ceiling) == pytest.approx((0.8595, 0.945), abs=1e-6)
        assert top.inward == pytest.approx([1.0, 0.0], abs=1e-9)
        assert (top.opening, top.back) == pytest.approx((-0.095, 0.083), abs=1e-6)
        assert top.door is False
        bottom = slot_of(expert, _on("yellow_book_1", f"{shelf}_bottom_region", "In", "site"))
        assert bottom is not None
        assert (bottom.floor, bottom.ceiling) == pytest.approx((0.762, 0.8475), abs=1e-6)
        assert slot_of(expert, _on("yellow_book_1", f"{shelf}_top_side", "On", "site")) is None
    finally:
        env.close()


def test_a_book_goes_in_level_onto_the_shelf_board():
    """A book too tall for the compartment is turned level (its covers horizontal) and
    pushed in from the open side, the fingers outside, then let go (seed 0)."""
    env, expert, info = run_goal(LIBERO / SHELF_BOOK, seed=0)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
        book = env.data.body("yellow_book_1")
        assert abs(book.xmat.reshape(3, 3)[2, 1]) > 0.95  # its thickness (local y) upright
        assert book.xpos[2] == pytest.approx(0.8595 + 0.014, abs=0.004)  # on the middle board
    finally:
        env.close()


def test_the_open_microwave_is_a_slot_whose_opening_is_its_front_not_its_door():
    """The microwave's heating region (seed 0: moved to face the left arm, world -x) is a
    slot 14.4 cm tall with a door; its opening is the front of the fixed body (c5 at
    x = -0.0395), not the end of the door swung open 0.35 m out in front of it."""
    env = GoalEnv(LIBERO / MICROWAVE_MUG, cameras=())
    try:
        obs, _ = env.reset(seed=0)
        expert = PickPlaceExpert(env)
        expert.act(obs)
        rel = _on("white_yellow_mug_1", "microwave_1_heating_region", "In", "site")
        slot = slot_of(expert, rel)
        assert slot is not None
        assert (slot.floor, slot.ceiling) == pytest.approx((0.774, 0.918), abs=1e-3)
        assert slot.inward == pytest.approx([1.0, 0.0], abs=1e-9)
        assert (slot.opening, slot.back) == pytest.approx((-0.1205, 0.0705), abs=1e-4)
        assert slot.door is True
    finally:
        env.close()


def test_a_mug_goes_into_the_microwave_on_its_side_and_the_door_is_shut():
    """The 9 cm mug under a gripper from above is too tall for the microwave's 14.4 cm
    interior: taken by its rim opposite its handle, laid on its side with the gripper
    level, pushed in wholly behind the door's plane; the door is then pushed shut
    (libero_10, seed 2: the left arm faces the opening and reaches the mug)."""
    env, expert, info = run_goal(LIBERO / MICROWAVE_MUG, seed=2)
    try:
        assert info["is_success"], expert.failure
        assert expert.failure is None
        mug = env.data.body("white_yellow_mug_1")
        assert abs(mug.xmat.reshape(3, 3)[2, 2]) < 0.3  # its axis (local z) lies level
    finally:
        env.close()
