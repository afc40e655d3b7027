"""Records of private rows (``rsb eval --tables DIR``): what they keep, and what they hide.

A record of a shipped row names it (``suite``, ``index``, ``seed``, ``question_id``); a
record of a private row must not: records get published, and a private row's seed or
question id would let a reader draw the row again or look its question up, spending the
private draw. :func:`private_record` is applied to every record of a run on private tables
before it is written.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.tables.episode_source import table_rows, tables_sha256


def private_record(record: EpisodeRecord, tables: str | Path) -> EpisodeRecord:
    """What the record of a private row keeps: nothing that names the row or its question
    (they would let whoever reads published records draw the row again or look it up).
    ``tables`` becomes the private manifest's sha256; ``seed`` 0; ``question_id`` (and an
    Act2Answer ``item``) ``"private-N"``, ``N`` the question's rank in the table by first
    appearance, so a paired item's two rows still pair; ``instruction`` None (it holds the
    private question); ``index`` stays the row's position in the private table, which with
    ``tables`` keys the record for resuming."""
    rows = table_rows(record.suite, record.split, tables)
    ranks: dict[str, int] = {}
    for row in rows:
        ranks.setdefault(row.question_id, len(ranks))

    def hidden(qid: str | None) -> str | None:
        return None if qid is None else f"private-{ranks.get(qid, len(ranks)):04d}"

    return dataclasses.replace(
        record,
        seed=0,
        question_id=str(hidden(record.question_id)),
        item=hidden(record.item),
        instruction=None,
        tables=tables_sha256(tables),
    )


__all__ = ["private_record"]
