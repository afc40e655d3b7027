"""Rule 1 over shipped goal rows: the share of named objects the head camera shows.

For each file of the goal suites (``libero-layouts``, ``vla-arena``) and each of its eval rows
(the frozen table's seeds and layouts, placed and settled as ``rsb eval`` does), renders the
head camera at reset at 224x224 and counts the objects that the file's ``:goal`` or
``:language`` names (:func:`rsb_mj.env.visibility.named_objects`) that meet rule 1
(wholly inside, >= 150 visible px; :mod:`rsb_mj.env.visibility`). Prints one line per
failing object and the figure::

    goal head camera, 210 files, 1050 rows, 600 s: named objects meeting rule 1: ... of ...
    (...%); rows with all of them: ... of 1050; with >= 150 px alone: ... of ... (...%)

``--question-head`` measures with the question scenes' fixed head camera (the "before"
figure: goal scenes used it until issue 42). ``--every K`` measures files 0, K, 2K, ...
of the sorted list (a deterministic sample), ``--rows N`` the first N rows of each file,
``--files F...`` the given shipped files only (paths under tasks/).

Usage: ``python tools/goal_visibility.py [--rows 5] [--every 1] [--question-head] [--json]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rsb_mj.env.visibility import MIN_PIXELS, source_rows
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import GOAL_SUITES
from rsb_mj.tables.episode_source import goal_row_source, goal_rows

#: The goal suites whose files are measured (the VLA-Arena levels are parts of vla-arena).
SUITES = ("libero-layouts", "vla-arena")


def files(every: int, only: list[str]) -> list[tuple[str, Path]]:
    """(suite, file) of every measured file, sorted by path."""
    out = []
    for suite in SUITES:
        for path in sorted(GOAL_SUITES[suite].files):
            rel = path.relative_to(tasks_dir()).as_posix()
            if not only or rel in only:
                out.append((suite, path))
    return out[::every]


def main(argv: list[str] | None = None) -> int:
    """Print the rule-1 figure; exit 0 (a measurement, not a gate)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5, help="eval rows per file (5: all)")
    parser.add_argument("--every", type=int, default=1, help="every K-th file (1: all)")
    parser.add_argument("--files", nargs="*", default=[], help="only these files (tasks/...)")
    parser.add_argument("--question-head", action="store_true", help="the question camera")
    parser.add_argument("--json", type=Path, help="also write every row's views here")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    results = []
    for suite, path in files(max(1, args.every), args.files):
        source = goal_row_source(suite, path)
        n = min(args.rows, len(goal_rows(source, "eval") or ()))  # a short table: its rows
        rows = source_rows(source, "eval", range(n), cameras=("head",),
                           legacy_head=args.question_head)  # fmt: skip
        for row in rows:
            results.append(row.to_dict())
            for why in row.fails:
                print(f"{row.task} row {row.index}: {why}", flush=True)
    named = sum(len(r["named"]) for r in results)
    bad = sum(len({w.split(":")[0] for w in r["fails"]}) for r in results)
    full = sum(not r["fails"] for r in results)
    # the pixel count alone (>= 150 px, inside or not, no exemption): the measure
    px = sum(r["views"]["head"][n]["pixels"] >= MIN_PIXELS for r in results for n in r["named"])
    files_n = len({r["task"] for r in results})
    camera = "question head camera" if args.question_head else "goal head camera"
    print(
        f"{camera}, {files_n} files, {len(results)} rows, {time.monotonic() - t0:.0f} s: "
        f"named objects meeting rule 1: {named - bad} of {named} "
        f"({100 * (named - bad) / max(named, 1):.1f}%); rows with all of them: "
        f"{full} of {len(results)}; with >= {MIN_PIXELS} px alone: {px} of {named} "
        f"({100 * px / max(named, 1):.1f}%)"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
