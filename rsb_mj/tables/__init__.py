"""Frozen episode tables: the rows every run reads, apart from how one episode is drawn
(:mod:`rsb_mj.episodes`).

A table is a JSONL file of :class:`~rsb_mj.episodes.episode.Episode` rows, one per suite and split,
listed with its sha256 in one manifest (``tasks/episodes/manifest.json``). The modules, one
concept each:

* :mod:`.files` -- tables of every kind: where they live, their rows in one order, the
  manifest, the one check before use (``verify_listed``) and the one writer
  (``write_tables``); a suite's task file;
* :mod:`.freeze` -- ``rsb episodes build``: one entry point that draws each kind's rows
  and writes them all through :mod:`.files` (a goal suite's rows drawn by the env's
  function it is handed);
* :mod:`.families` -- which family builds, checks, audits and verifies a suite's tables,
  and :func:`load_table`, the one way to read a shipped table (checked against the manifest);
* :mod:`.rsb` -- the RSB tables: sizes, row seeds, balanced draws, kept balanced by
  :mod:`.balance`; a level's table derived from its base's (:mod:`.levels`); re-drawn row by
  row by :mod:`.check` (``rsb episodes check``);
* :mod:`.paired` -- the Act2Answer tables (every item in both plate orders);
* :mod:`.task` -- the tables of a task file (``rsb episodes build TASK.bddl``);
* :mod:`.layouts` -- the layout tables, the goal suites' (``vla-arena``, ``libero``,
  ``libero-layouts``): per task file, rows of a seed and the layout frozen from it; which
  rows they hold, their manifest entries and their check (the rows drawn and re-drawn by
  :mod:`rsb_mj.env.settled_layouts`, which needs the scene);
* :mod:`.episode_source` -- ``(source, split, index) -> Episode``: the one row lookup of
  ``rsb eval``, ``rsb demos`` and the datasets;
* :mod:`.audit`, :mod:`.paired_audit`, :mod:`.heuristics`, :mod:`.learned`, :mod:`.stats`
  -- the shortcut audit (``rsb audit``);
* :mod:`.reserve` -- the questions no shipped table asks, and :mod:`.private` -- private
  draws from a secret (``--private``, ``--tables``).

Public API::

    load_table(suite, split="eval") -> list[Episode]   # checked against the manifest
    read_table(path) -> list[Episode]                  # a table file as it is
    build_all() / check_tables()                       # rsb episodes build / check
    audit_rows(episodes, label) -> AuditReport         # rsb audit
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rsb_mj.lazy import lazy_exports

if TYPE_CHECKING:
    from rsb_mj.tables.families import audit_rows, check_tables, load_table
    from rsb_mj.tables.files import read_table
    from rsb_mj.tables.rsb import build_all

#: Public name -> the module that defines it, imported on first access.
_LAZY = {
    "audit_rows": "rsb_mj.tables.families",
    "build_all": "rsb_mj.tables.rsb",
    "check_tables": "rsb_mj.tables.families",
    "load_table": "rsb_mj.tables.families",
    "read_table": "rsb_mj.tables.files",
}

__all__ = ["audit_rows", "build_all", "check_tables", "load_table", "read_table"]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
