"""``rsb episodes check`` of the RSB tables: every row re-drawn from its seed alone.

The shipped template files are linted first (:func:`lint_templates`), then each table listed
in the manifest is read against its entry (sha256 and row count) and every row is drawn again
by :func:`~rsb_mj.episodes.sampler.sample_episode` from its ``(suite, split, index, seed)``
(:func:`check_tables`); nothing is refitted. A level's table is also checked against its
base suite's (:func:`~rsb_mj.tables.levels.check_level_table`).
:func:`rsb_mj.tables.families.check_tables` checks every family's tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rsb_mj.episodes.sampler import sample_episode
from rsb_mj.episodes.templates import (
    PLACEHOLDERS,
    TEMPLATE_SETS,
    answer_template_files,
    templates_dir,
)
from rsb_mj.lang import lint_template
from rsb_mj.suites import ALL_SUITES, get_suite
from rsb_mj.tables.files import (
    MANIFEST,
    diff_rows,
    episodes_dir,
    load_suite_problem,
    read_listed_table,
    read_manifest,
    table_name,
)
from rsb_mj.tables.levels import check_level_table


def lint_templates() -> list[str]:
    """Diagnostics of the task-language linter (``rsb_mj.lang.lint_template``) on the shipped
    template files (the answer templates included), as ``path:line:col: CODE message``
    lines."""
    files = [
        (templates_dir() / f"{set_name}_{choices}.txt", choices)
        for set_name in TEMPLATE_SETS
        for choices in PLACEHOLDERS
    ]
    files += [(path, 2) for path in answer_template_files()]
    out = []
    for path, choices in files:
        text = path.read_text(encoding="utf-8")
        out += [d.header() for d in lint_template(text, str(path), choices)]
    return out


def check_tables(
    suites: list[str] | None = None,
    folder: Path | None = None,
    max_report: int = 5,
    complete: bool = True,
    lint: bool = True,
    splits: tuple[str, ...] = ("eval", "train"),
) -> list[str]:
    """Verify the frozen ``splits`` tables of the RSB suites (seeded draws; default: every one of
    :data:`rsb_mj.suites.ALL_SUITES`); returns the problems found (empty when all is well).
    :func:`rsb_mj.tables.families.check_tables` checks every family's.

    Lints the template files (``lint``), then checks each manifest entry's file exists with
    the recorded sha256 and row count, and that every row is reproduced exactly by
    :func:`sample_episode` from its ``(suite, split, index, seed)``; drifted rows are named
    with the differing fields. With ``complete``, an eval or train table of a wanted suite
    missing from the manifest is a problem too (the shipped folder has all of them; a folder
    built with ``--out`` need not).
    """
    folder = episodes_dir() if folder is None else folder
    problems: list[str] = lint_templates() if lint else []
    manifest = read_manifest(folder)
    if not manifest:
        return [*problems, f"{folder / MANIFEST}: missing or empty; run: rsb episodes build"]
    wanted = {get_suite(s).name for s in suites} if suites else set(ALL_SUITES)
    missing = [
        table_name(s, split)
        for s in sorted(wanted)
        for split in splits
        if complete and table_name(s, split) not in manifest
    ]
    problems += [f"{name}: not in the manifest" for name in missing]
    loaded: dict[str, Any] = {}
    for name, entry in manifest.items():
        if entry["suite"] not in wanted or entry["suite"] not in ALL_SUITES:
            continue
        if entry["split"] not in splits:
            continue
        found, episodes = read_listed_table(folder, name, entry)
        problems += found
        if episodes is None:
            continue
        suite = ALL_SUITES[entry["suite"]]
        if suite.name not in loaded:
            loaded[suite.name] = load_suite_problem(suite)
        drifted = 0
        for row_no, stored in enumerate(episodes, start=1):
            fresh = sample_episode(
                loaded[suite.name],
                suite=stored.suite,
                split=stored.split,
                index=stored.index,
                seed=stored.seed,
            )
            fields = diff_rows(stored, fresh)
            if fields:
                drifted += 1
                if drifted <= max_report:
                    problems.append(
                        f"{name}:{row_no}: {suite.name} {stored.split} row {stored.index} "
                        f"drifted in {', '.join(fields)}"
                    )
        if drifted > max_report:
            problems.append(f"{name}: {drifted} rows drifted in all")
        if suite.level:
            problems += check_level_table(folder, name, suite, episodes, max_report)
    return problems


__all__ = ["check_tables", "lint_templates"]
