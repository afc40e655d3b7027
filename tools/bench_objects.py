"""Measure the expert on every question-task object category: TSR/GSR over N seeds each.

Usage::

    PYTHONPATH=$PWD python tools/bench_objects.py [-n 200] [--start 0] [-j 2] [--category apple ...]
        [--out DIR] [--run runs/bench_objects]

For each category, writes a task file ``objects_<category>.bddl`` (four candidates, all of
that category, in the kitchen task's candidate region or a wider one; see
:func:`category_task`) into ``--out`` (a temporary folder by default) and runs
``rsb expert-check`` on its train rows START..START+N-1 (row seeds are fixed by the file
name, so the figures are reproducible). Prints one line per category and exits 1 when a
category misses TSR >= 99% or GSR = 100%.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from rsb_mj.atomic import atomic_write_text
from rsb_mj.evaluation.expert_check import check_suites
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.scene.categories.standins import STANDINS

#: Candidate region [m] of ``tasks/rsb_general_4_kitchen.bddl``, and a wider one for
#: categories whose footprint radius is at least ``WIDE_FROM`` [m] (four shoes need it:
#: rsb lint's RSB503 impossible-layout).
REGION, WIDE_REGION, WIDE_FROM = "-0.27 -0.17 0.27 0.03", "-0.28 -0.18 0.28 0.04", 0.06
TASK = """; objects_{name}: four {name} candidates (tools/bench_objects.py).
(define (problem objects_{name})
  (:domain rsb)
  (:question (:source mmlu) (:choices 4))
  (:instruction (:templates seen))
  (:regions
    (candidates
      (:target table)
      (:ranges (({region}))))
    (answer_zone
      (:target table)
      (:ranges ((-0.06 0.1 0.06 0.22)))
      (:rgba (0.5 0.5 0.5 1))))
  (:fixtures
    table - table)
  (:objects
    block_a block_b block_c block_d - {name})
  (:candidates block_a block_b block_c block_d)
  (:options (:map shuffle))
  (:init
    (On block_a table_candidates)
    (On block_b table_candidates)
    (On block_c table_candidates)
    (On block_d table_candidates))
  (:grasp (Grasped ?c - candidate))
  (:goal (And (In ?answer table_answer_zone) (Released ?answer)))
  (:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3))))
"""


def category_task(name: str, folder: Path) -> Path:
    """Write the four-candidate task file of category ``name`` into ``folder``."""
    path = folder / f"objects_{name}.bddl"
    wide = RSB_CATEGORIES[name].footprint_radius >= WIDE_FROM
    atomic_write_text(path, TASK.format(name=name, region=WIDE_REGION if wide else REGION))
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the measurement and print its figures; 1 when a category misses the bar."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="seeds (train rows) per category")
    parser.add_argument("--start", type=int, default=0, help="first row")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--category", action="append", help="only these (repeatable)")
    parser.add_argument("--out", type=Path, help="folder for the task files (kept)")
    parser.add_argument("--run", type=Path, help="run folder to keep (records; resumable)")
    args = parser.parse_args(argv)
    # By default the question tasks' categories (the stand-ins are goal-task objects).
    names = args.category or [c for c in CATEGORIES if c != "letter_block" and c not in STANDINS]
    unknown = sorted(set(names) - set(CATEGORIES))
    if unknown:
        parser.error(f"unknown category {unknown[0]!r}; valid choices: {', '.join(CATEGORIES)}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        paths = [str(category_task(name, folder)) for name in names]
        checks = check_suites(
            paths,
            split="train",
            n=args.n,
            start=args.start,
            jobs=args.jobs,
            progress=sys.stderr.isatty(),
            out=args.run,
        )
    for check in checks:
        print(check.line(), flush=True)
        for line in check.failure_lines():
            print(line)
    return 0 if all(check.passed for check in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
