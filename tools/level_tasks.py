"""Write the L1 and L2 task files of the six suites (``tasks/rsb_<suite>_l1.bddl``, ``_l2``)
from their L0 files.

L1 = L0 + static distractors: three everyday objects that are not candidates (a can, a lemon
and a toy car, all at most 8 cm tall, so a candidate carried 10 cm above the table clears
them), placed per episode by the layout sampler in a ``distractors`` region: the two far
corners beside the answer zone and the candidates' own region (where there is room; see
:func:`rsb_mj.lang.layout.sample_distractors` for the clearances).

L2 = L1 (corners kept clear of the lane) + a hazard and a moving distractor, with a ``:cost``:
a glass bottle (16 cm tall) standing among the candidates or just in front of them, 1 cm from
the nearest candidate footprint (a grasp that ignores it touches it), and a toy cart driving
back and forth in a lane behind the zone.
Cost terms (VLA-Arena's meanings, :mod:`rsb_mj.scoring.cost_predicates`): 1 per step a finger
touches the bottle, 10 when the bottle ends moved or tipped (``Fall``), 1 per step a finger
touches the cart.

Usage: ``PYTHONPATH=$PWD python tools/level_tasks.py [--check]`` (``--check``: exit 1 when a
shipped file differs from what this script writes).
"""

from __future__ import annotations

import argparse
import sys

from rsb_mj.atomic import atomic_write_text
from rsb_mj.lang.formatter import format_text
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import LEVELS

#: L0 task files of the six suites.
BASES = (
    "rsb_math_4",
    "rsb_math_10",
    "rsb_hardmath_4",
    "rsb_hardmath_10",
    "rsb_general_4",
    "rsb_general_10",
)
#: Distractors of L1: (object name, category).
L1_DISTRACTORS = (("can_1", "can"), ("lemon_1", "lemon"), ("toy_car_1", "toy_car"))
#: The far corners beside the answer zone (table frame, metres).
CORNERS = "(-0.3 0.06 -0.1 0.3) (0.1 0.06 0.3 0.3)"
#: L2: the corners end before the cart's lane.
CORNERS_L2 = "(-0.3 0.06 -0.1 0.24) (0.1 0.06 0.3 0.24)"
#: L2: the hazard stands among the candidates (their region) or just in front of them, towards
#: the zone (table frame, metres); it is placed before the static distractors.
HAZARD_FRONT = "(-0.25 0.0 0.25 0.1)"
#: L2: the cart's lane behind the zone; it drives 0.4 m along +x from the lane's center.
LANE = "(-0.25 0.27 -0.15 0.33)"
L2_HAZARD = ("bottle_1", "bottle")
L2_CART = ("cart_1", "toy_car")
L2_COST = (
    "(:cost (And (CheckGripperContact bottle_1) (Fall bottle_1) (CheckGripperContact cart_1)))"
)
L2_MOTION = """(:moving_objects
    (cart_1
      (:motion_type linear)
      (:motion_period 80)
      (:motion_travel_dist 0.4)
      (:motion_direction (1 0 0))
      (:motion_phase random)))"""


def _candidate_rect(text: str) -> str:
    head = text.index("(candidates")
    start = text.index("(:ranges ((", head) + len("(:ranges (")
    return text[start : text.index(")", start) + 1]


def level_text(base: str, level: int) -> str:
    """The task file text of ``base`` (e.g. ``"rsb_math_4"``) at ``level`` (1 or 2)."""
    text = (tasks_dir() / f"{base}.bddl").read_text(encoding="utf-8")
    name = f"{base}_l{level}"
    lines = text.splitlines()
    if level == 1:
        header = (
            f"; {name}: {base} at level L1: the same episodes (question, mapping, colors, "
            "candidate layout)\n; plus static distractors (a can, a lemon, a toy car) "
            "that are not candidates."
        )
    else:
        header = (
            f"; {name}: {base} at level L2: L1's episodes and static distractors, a glass "
            "bottle among the\n; candidates (a hazard: touching it or knocking it over "
            "costs) and a toy cart\n; driving behind the zone (touching it costs)."
        )
    body = "\n".join(line for line in lines if not line.startswith(";"))
    body = body.replace(f"(problem {base})", f"(problem {name})")
    rect = _candidate_rect(text)
    corners = CORNERS if level == 1 else CORNERS_L2
    region = f"    (distractors\n      (:target table)\n      (:ranges ({corners} {rect})))\n"
    if level == 2:
        region += (
            f"    (hazard\n      (:target table)\n      (:ranges ({rect} {HAZARD_FRONT})))\n"
            f"    (lane\n      (:target table)\n      (:ranges ({LANE})))\n"
        )
    body = body.replace("    (answer_zone", region + "    (answer_zone", 1)
    placed = [*([L2_HAZARD] if level == 2 else []), *L1_DISTRACTORS]
    objects = [*placed, *([L2_CART] if level == 2 else [])]
    names = " ".join(f"{obj} - {cat}" for obj, cat in objects)
    marker = "  (:candidates"
    body = body.replace(" - letter_block)\n" + marker, f" - letter_block {names})\n{marker}", 1)
    regions = {L2_HAZARD[0]: "table_hazard", L2_CART[0]: "table_lane"}
    init = "".join(
        f"\n    (On {obj} {regions.get(obj, 'table_distractors')})" for obj, _ in objects
    )
    anchor = "  (:grasp"
    head, tail = body.split(anchor, 1)
    head = head.rstrip()
    assert head.endswith("))"), head[-40:]
    head = head[:-1] + init + ")"
    if level == 2:
        tail = tail.rstrip()
        assert tail.endswith(")"), tail[-20:]
        tail = tail[:-1] + f"\n  {L2_COST}\n  {L2_MOTION})"
    return format_text(f"{header}\n{head}\n{anchor}{tail}\n", f"{name}.bddl")


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the level task files; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    status = 0
    for base in BASES:
        for level in LEVELS:
            path = tasks_dir() / f"{base}_l{level}.bddl"
            text = level_text(base, level)
            if args.check:
                if not path.is_file() or path.read_text(encoding="utf-8") != text:
                    print(f"{path}: differs from tools/level_tasks.py")
                    status = 1
            else:
                atomic_write_text(path, text)
                print(f"wrote {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
