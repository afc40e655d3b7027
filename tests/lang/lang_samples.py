"""A valid rsb task used as the starting point of the rule fixtures (kept inline so that
edits to tasks/*.bddl do not change what the tests check)."""

BASE = """\
; a valid 4-choice rsb task
(define (problem rsb_test_4)
  (:domain rsb)
  (:question (:source arithmetic) (:choices 4))
  (:instruction (:templates seen))
  (:regions
    (candidates
      (:target table)
      (:ranges ((-0.25 -0.1 0.25 0.02))))
    (answer_zone
      (:target table)
      (:ranges ((-0.06 0.1 0.06 0.22)))
      (:rgba (0.5 0.5 0.5 1))))
  (:fixtures
    table - table)
  (:objects
    block_a block_b block_c block_d - letter_block)
  (:candidates block_a block_b block_c block_d)
  (:options (:map shuffle))
  (:init
    (On block_a table_candidates)
    (On block_b table_candidates)
    (On block_c table_candidates)
    (On block_d table_candidates))
  (:grasp (Grasped ?c - candidate))
  (:goal (And (In ?answer table_answer_zone) (Released ?answer)))
  (:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3)))
  (:answer_zone table_answer_zone))
"""

#: The 10-choice variant (objects block_a .. block_i, block_k, in the larger region of
#: tasks/rsb_math_10.bddl: ten blocks 0.07 m apart do not fit in BASE's).
LETTERS_10 = "abcdefghik"
BASE_10 = (
    BASE.replace("(:choices 4)", "(:choices 10)")
    .replace("(-0.25 -0.1 0.25 0.02)", "(-0.28 -0.14 0.28 0.05)")
    .replace(
        "block_a block_b block_c block_d - letter_block",
        " ".join(f"block_{c}" for c in LETTERS_10) + " - letter_block",
    )
    .replace(
        "(:candidates block_a block_b block_c block_d)",
        "(:candidates " + " ".join(f"block_{c}" for c in LETTERS_10) + ")",
    )
    .replace(
        "    (On block_d table_candidates))",
        "\n".join(f"    (On block_{c} table_candidates)" for c in LETTERS_10[3:]) + ")",
    )
)

#: A valid LIBERO / VLA-Arena style task; lint it as ``put_the_bowl_on_the_plate.bddl``.
LIBERO = """\
(define (problem LIBERO_Tabletop_Manipulation)
  (:domain robosuite)
  (:language Put the bowl on the plate)
  (:regions
    (bowl_region
      (:target main_table)
      (:ranges ((-0.1 -0.01 -0.08 0.01))))
    (plate_region
      (:target main_table)
      (:ranges ((0.04 -0.03 0.06 -0.01)))))
  (:fixtures
    main_table - table)
  (:objects
    bowl_1 - akita_black_bowl plate_1 - plate)
  (:obj_of_interest
    bowl_1
    plate_1)
  (:init
    (On bowl_1 main_table_bowl_region)
    (On plate_1 main_table_plate_region))
  (:goal (And (On bowl_1 plate_1)))
  (:cost (And (Fall plate_1) (CheckGripperContact plate_1))))
"""
LIBERO_PATH = "put_the_bowl_on_the_plate.bddl"

#: A valid Act2Answer task (rsb_mj.lang.a2a): a pick cube and two answer plates.
A2A_BASE = """\
; a valid Act2Answer task
(define (problem a2a_test)
  (:domain rsb)
  (:question (:source a2a_color) (:choices 2))
  (:instruction (:templates seen))
  (:regions
    (left_plate
      (:target table)
      (:ranges ((-0.2125 0.0175 -0.0075 0.2225))))
    (right_plate
      (:target table)
      (:ranges ((0.0075 0.0175 0.2125 0.2225))))
    (pick_area
      (:target table)
      (:ranges ((-0.03 -0.11 0.03 -0.05)))))
  (:fixtures
    table - table)
  (:objects
    cube - pick_cube
    plate_a plate_b - answer_plate)
  (:candidates plate_a plate_b)
  (:options (:map shuffle))
  (:init
    (On cube table_pick_area)
    (On plate_a table_left_plate)
    (On plate_b table_right_plate))
  (:grasp (Grasped cube))
  (:goal (And (On cube ?answer) (Released cube)))
  (:layout (:min_spacing 0.2) (:yaw_range (0 0))))
"""


def unbuildable_stove(folder):
    """Write ``folder/turn_on_the_stove.bddl``: LIBERO's tier-B2 stove file with its goal
    made ``(Open flat_stove_1)`` (the stove has no open state: the one kind of tier-B file
    rsb_mj still cannot build, RSB530 at 124:10). Returns its path."""
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "data/bddl_suites/libero/libero_goal"
    text = (src / "turn_on_the_stove.bddl").read_text()
    path = Path(folder) / "turn_on_the_stove.bddl"
    path.write_text(text.replace("(Turnon flat_stove_1)", "(Open flat_stove_1)"))
    return path
