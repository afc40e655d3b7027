"""Frozen episode tables: the rows every run reads, apart from how one episode is drawn
(:mod:`rsb_mj.episodes`).

A table is a JSONL file of :class:`~rsb_mj.episodes.episode.Episode` rows, one per suite and split,
listed with its sha256 in one manifest (``tasks/episodes/manifest.json``). The modules, one
concept each:

* :mod:`.files` -- where tables live, their rows, the manifest, a suite's task file;
* :mod:`.families` -- which family builds, checks, audits and verifies a suite's tables,
  and :func:`load_table`, the one way to read a shipped table (checked against the manifest);
* :mod:`.rsb` -- the RSB tables: sizes, row seeds, builds (``rsb episodes build``), kept
  balanced by :mod:`.balance`; a level's table derived from its base's (:mod:`.levels`);
  re-drawn row by row by :mod:`.check` (``rsb episodes check``);
* :mod:`.paired` -- the Act2Answer tables (every item in both plate orders);
* :mod:`.task` -- the tables of a task file (``rsb episodes build TASK.bddl``);
* :mod:`.goal` -- the goal suites' tables (``vla-arena``, ``libero-layouts``): rows of a seed
  and the layout frozen from it, read and checked against the manifest here, frozen and
  re-drawn by :mod:`rsb_mj.env.goal_tables` (it needs the scene);
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
