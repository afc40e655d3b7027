"""The held-out reserve: the questions of a source that no shipped table asks.

A private draw (:mod:`rsb_mj.tables.private.build`) must not ask a question that a shipped table
asks: a policy that looks the public rows up would know its answer. The *reserve* of a
source is its held-out questions (:meth:`~rsb_mj.episodes.sources.base.QuestionSource.
held_out`: the eval pool; Act2Answer: the items its eval and train pools did not take) less

* every question the same source asks in a shipped table (every table the one manifest
  lists, both splits, verified first), compared by
  :meth:`~rsb_mj.episodes.sources.base.QuestionSource.question_key` (arithmetic up to
  commutativity; a target description with its pictures), and
* for questions (not target descriptions), every near-duplicate (:mod:`.dedup`: the same
  normalized text or a shared run of 20 words) of a question of *any* shipped table: an
  Act2Answer text item is an MMLU question, and MMLU-Pro holds MMLU's questions.

A generated source (``arithmetic``) has no list: :class:`ReserveSource` draws its eval
questions as the eval tables do and rejects the ones excluded above. The shipped tables
are never rebuilt from the reserve (their pools, draws and bytes stay as they are); the
reserve is what they leave. Its sizes are in docs/private_draws.md and in each
source's docstring, and ``tests/tables/test_reserve.py`` holds them, so a rebuild
of a shipped table that changes a reserve fails until they are updated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from rsb_mj.episodes.dedup import DuplicateIndex
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources import source_of
from rsb_mj.episodes.sources.base import QuestionSource, check_split
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.families import verify_table
from rsb_mj.tables.files import read_manifest

if TYPE_CHECKING:
    import numpy as np

#: Draws a generated reserve may reject in a row before it gives up (the arithmetic
#: reserve rejects about one draw in eight).
MAX_REJECTS = 10_000


class Shipped:
    """The questions of some table rows (the shipped tables: :func:`shipped_questions`).

    Args:
        asked: source name -> the ids of the questions its rows ask.
        texts: the question text of every row, for the near-duplicate rule.
    """

    def __init__(self, asked: dict[str, Iterable[str]], texts: Iterable[str]) -> None:
        self.asked = {name: tuple(dict.fromkeys(ids)) for name, ids in asked.items()}
        self.texts = tuple(dict.fromkeys(texts))
        self._keys: dict[str, frozenset[str]] = {}
        self._index: DuplicateIndex | None = None

    def keys(self, source: QuestionSource) -> frozenset[str]:
        """The :meth:`question_key` of every question of ``source`` the rows ask (cached)."""
        if source.name not in self._keys:
            ids = self.asked.get(source.name, ())
            self._keys[source.name] = frozenset(source.question_key(source.get(q)) for q in ids)
        return self._keys[source.name]

    @property
    def index(self) -> DuplicateIndex:
        """The near-duplicate index of the rows' question texts (built on first use)."""
        if self._index is None:
            self._index = DuplicateIndex(self.texts)
        return self._index

    def asks(self, source: QuestionSource, question: Question) -> bool:
        """True when the rows ask ``question`` of ``source`` or (for a question, not a
        target description) a near-duplicate of it."""
        if source.question_key(question) in self.keys(source):
            return True
        return question.form == "question" and self.index.match(question.text) is not None


def source_name(row: dict) -> str:
    """The source a table row (its JSON object) draws from: ``extra["source"]``, else the
    question id's."""
    name = row.get("extra", {}).get("source")
    return str(name) if name else source_of(str(row["question_id"])).name


def shipped_questions_of(rows: Iterable[dict]) -> Shipped:
    """The :class:`Shipped` questions of table rows (JSON objects, :meth:`Episode.to_dict`)."""
    asked: dict[str, list[str]] = {}
    texts = []
    for row in rows:
        asked.setdefault(source_name(row), []).append(str(row["question_id"]))
        texts.append(str(row["question"]))
    return Shipped(asked, texts)


@cache
def shipped_questions() -> Shipped:
    """The questions of every table in ``tasks/episodes`` (each verified against the one
    manifest first, :func:`rsb_mj.tables.families.verify_table`), cached per process.

    Raises:
        EpisodeError: for a shipped table that is missing or changed.
    """
    rows: list[dict] = []
    for entry in read_manifest().values():
        if entry.get("family") == "goal":  # goal tables ask no question
            continue
        text = verify_table(entry["suite"], entry["split"]).read_text(encoding="utf-8")
        rows += [json.loads(line) for line in text.splitlines() if line.strip()]
    return shipped_questions_of(rows)


class ReserveSource(QuestionSource):
    """The eval questions of ``base`` that no shipped table asks (see the module docstring):
    what a private draw's rows draw from. Ids, splits, keys and episode fields are the base
    source's, so a private row names its question as a shipped row would."""

    def __init__(self, base: QuestionSource, shipped: Shipped) -> None:
        self.base = base
        self.shipped = shipped
        self.name = base.name
        self.choices = base.choices
        held = base.held_out()
        self.reserve = None if held is None else tuple(q for q in held if not shipped.asks(base, q))
        self._reserve_ids: frozenset[str] | None = None

    def pool(self, split: str) -> tuple[Question, ...] | None:
        """The reserve (``eval``; None for a generated source) or the base's train pool."""
        if check_split(split) == "train":
            return self.base.pool("train")
        return self.reserve

    def held_out(self) -> tuple[Question, ...] | None:
        """The reserve itself."""
        return self.reserve

    def draw(self, split: str, rng: np.random.Generator) -> Question:
        """One reserve question, uniform: one draw from ``rng`` for a listed reserve; for a
        generated one, the base's eval draws until one no shipped table asks.

        Raises:
            EpisodeError: for the train split (a private draw has eval rows only), an empty
                reserve, or a generated source whose draws keep hitting shipped questions.
        """
        if check_split(split) != "eval":
            raise EpisodeError(f"source {self.name}: a private draw has eval rows only")
        if self.reserve is not None:
            if not self.reserve:
                raise EpisodeError(f"source {self.name}: its held-out reserve is empty")
            return self.reserve[int(rng.integers(len(self.reserve)))]
        for _ in range(MAX_REJECTS):
            question = self.base.draw("eval", rng)
            if not self.shipped.asks(self.base, question):
                return question
        raise EpisodeError(
            f"source {self.name}: {MAX_REJECTS} eval draws in a row are asked by shipped tables"
        )

    def get(self, qid: str) -> Question:
        """The base source's question ``qid``."""
        return self.base.get(qid)

    def split_of(self, qid: str) -> str:
        """The base source's split of ``qid``."""
        return self.base.split_of(qid)

    def question_key(self, question: Question) -> str:
        """The base source's key."""
        return self.base.question_key(question)

    def episode_extra(self, question: Question) -> dict[str, str]:
        """The base source's episode fields."""
        return self.base.episode_extra(question)

    def check_choices(self, choices: int) -> None:
        """The base source's check."""
        self.base.check_choices(choices)

    def holds(self, question: Question) -> bool:
        """True when ``question`` is one this reserve may draw: in the listed reserve, or
        (generated) an eval question no shipped table asks."""
        if self.reserve is not None:
            return question.qid in self._ids()
        split = self.base.split_of(question.qid)
        return split == "eval" and not self.shipped.asks(self.base, question)

    def _ids(self) -> frozenset[str]:
        if self._reserve_ids is None:
            self._reserve_ids = frozenset(q.qid for q in self.reserve or ())
        return self._reserve_ids

    def size(self) -> int | None:
        """Questions in the reserve (None: generated)."""
        return None if self.reserve is None else len(self.reserve)


_RESERVES: dict[int, ReserveSource] = {}


def reserve_source(base: QuestionSource) -> ReserveSource:
    """The :class:`ReserveSource` of ``base`` against the shipped tables (one per source
    object and process)."""
    held = _RESERVES.get(id(base))
    if held is None or held.base is not base:
        held = _RESERVES[id(base)] = ReserveSource(base, shipped_questions())
    return held


__all__ = [
    "MAX_REJECTS",
    "ReserveSource",
    "Shipped",
    "reserve_source",
    "shipped_questions",
    "shipped_questions_of",
    "source_name",
]
