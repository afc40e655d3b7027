"""Write the L1 task files of the six suites (``tasks/rsb_<suite>_l1.bddl``) from their L0 files.

L1 = L0 + static distractors: three everyday objects that are not candidates (a can, a lemon
and a toy car, all at most 8 cm tall, so a candidate carried 10 cm above the table clears
them), placed per episode by the layout sampler in a ``distractors`` region: the two far
corners beside the answer zone and the candidates' own region (where there is room; see
:func:`rsb_mj.scene.layout.sample_distractors` for the clearances).

Usage: ``PYTHONPATH=$PWD python tools/level_tasks.py [--check]`` (``--check``: exit 1 when a
shipped file differs from what this script writes).
"""

from __future__ import annotations

import argparse
import sys

from rsb_mj.atomic import atomic_write_text
from rsb_mj.lang.formatter import format_text
from rsb_mj.resources import tasks_dir

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


def _candidate_rect(text: str) -> str:
    head = text.index("(candidates")
    start = text.index("(:ranges ((", head) + len("(:ranges (")
    return text[start : text.index(")", start) + 1]


def level_text(base: str, level: int) -> str:
    """The task file text of ``base`` (e.g. ``"rsb_math_4"``) at ``level`` (1)."""
    text = (tasks_dir() / f"{base}.bddl").read_text(encoding="utf-8")
    name = f"{base}_l{level}"
    lines = text.splitlines()
    header = (
        f"; {name}: {base} at level L{level}: the same episodes (question, mapping, colors, "
        "candidate layout)\n; plus static distractors (a can, a lemon, a toy car) "
        "that are not candidates."
    )
    body = "\n".join(line for line in lines if not line.startswith(";"))
    body = body.replace(f"(problem {base})", f"(problem {name})")
    rect = _candidate_rect(text)
    region = (
        "    (distractors\n"
        "      (:target table)\n"
        f"      (:ranges ({CORNERS} {rect})))\n"
        "    (answer_zone"
    )
    body = body.replace("    (answer_zone", region, 1)
    names = " ".join(f"{obj} - {cat}" for obj, cat in L1_DISTRACTORS)
    marker = "  (:candidates"
    body = body.replace(" - letter_block)\n" + marker, f" - letter_block {names})\n{marker}", 1)
    init = "".join(f"\n    (On {obj} table_distractors)" for obj, _ in L1_DISTRACTORS)
    anchor = "  (:grasp"
    head, tail = body.split(anchor, 1)
    head = head.rstrip()
    assert head.endswith("))"), head[-40:]
    head = head[:-1] + init + ")"
    return format_text(f"{header}\n{head}\n{anchor}{tail}\n", f"{name}.bddl")


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) the level task files; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    status = 0
    for base in BASES:
        for level in (1,):
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
