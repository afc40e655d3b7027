"""The question-source interface: a train and an eval pool of :class:`Question` values."""

from __future__ import annotations

import gzip
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rsb_mj.choices import CHOICE_COUNTS
from rsb_mj.episodes.dedup import near_duplicates, normalize
from rsb_mj.episodes.question import Question
from rsb_mj.errors import EpisodeError
from rsb_mj.resources import assets_dir
from rsb_mj.splits import SPLITS

if TYPE_CHECKING:
    import numpy as np

#: The two splits every source offers. Their question ids are disjoint.


def check_split(split: str) -> str:
    """Return ``split`` if it is valid.

    Raises:
        EpisodeError: naming the valid splits.
    """
    if split not in SPLITS:
        raise EpisodeError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
    return split


def questions_dir() -> Path:
    """The folder of the shipped question data (``assets/questions``)."""
    return assets_dir() / "questions"


def read_lines(path: Path) -> Iterator[str]:
    """The text lines of a (gzip-compressed) data file.

    Raises:
        EpisodeError: when the file is missing from the installation.
    """
    if not path.is_file():
        raise EpisodeError(f"question data {path} is missing; reinstall rsb_mj")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        yield from handle


class QuestionSource(ABC):
    """A named source of questions with disjoint ``train`` and ``eval`` pools.

    Subclasses load lazily and cache; every draw takes the caller's generator.
    """

    #: The id task files use in ``(:question (:source NAME) ...)``.
    name: str = ""
    #: Choice counts the source supports (generated options: every count, 2..10).
    choices: tuple[int, ...] = CHOICE_COUNTS

    @abstractmethod
    def pool(self, split: str) -> tuple[Question, ...] | None:
        """All questions of ``split`` in a fixed order, or None for a generated pool."""

    @abstractmethod
    def get(self, qid: str) -> Question:
        """The question with id ``qid``.

        Raises:
            EpisodeError: for an unknown id.
        """

    def split_of(self, qid: str) -> str:
        """The split (``train`` or ``eval``) that question ``qid`` belongs to."""
        train = self.pool("train") or ()
        return "train" if any(q.qid == qid for q in train) else "eval"

    def draw(self, split: str, rng: np.random.Generator) -> Question:
        """One question of ``split``, uniform over its pool (exactly one draw from ``rng``)."""
        pool = self.pool(check_split(split))
        assert pool is not None, "generated sources override draw()"
        return pool[int(rng.integers(len(pool)))]

    def held_out(self) -> tuple[Question, ...] | None:
        """The questions a private draw (:mod:`rsb_mj.tables.private.build`) may use before the
        shipped tables' questions are taken out (:mod:`rsb_mj.tables.reserve`): the eval
        pool, in its fixed order; None for a generated pool (fresh questions are drawn).
        A source whose eval pool the shipped tables use up overrides it (Act2Answer: the
        items its eval and train pools did not take)."""
        return self.pool("eval")

    def question_key(self, question: Question) -> str:
        """What makes two questions the same question (the held-out reserve and the
        private-draw tests compare these): the normalized words of the text
        (:func:`rsb_mj.episodes.dedup.normalize`), and for a target description ("the
        orange hexagon", which repeats across items by design) the pictures it picks from."""
        words = " ".join(normalize(question.text))
        if question.form == "target":
            return words + " | " + " | ".join(sorted(question.displays))
        return words

    def episode_extra(self, question: Question) -> dict[str, str]:
        """Fields an episode of ``question`` carries in ``extra`` besides ``source`` (none;
        Act2Answer: its category and item)."""
        return {}

    def check_choices(self, choices: int) -> None:
        """Raise EpisodeError if this source cannot serve ``choices`` options."""
        if choices not in self.choices:
            raise EpisodeError(
                f"question source {self.name!r} cannot make {choices} options; "
                f"valid choices: {', '.join(map(str, self.choices))}"
            )


def fixed_split(
    ids: list[str], eval_size: int, seed: int, groups: list[str] | None = None
) -> tuple[set[str], set[str]]:
    """Split ``ids`` into (train, eval) sets with about ``eval_size`` eval ids, by a fixed seed.

    ``groups`` (one key per id, e.g. the question text) keeps ids with the same key on the
    same side, so a question repeated in a source under two ids never lands in both splits.
    Groups are shuffled by ``seed`` (after sorting, so the split depends only on the set of
    ids and keys) and taken into eval until it holds at least ``eval_size`` ids.
    """
    keys = list(ids) if groups is None else list(groups)
    members: dict[str, list[str]] = {}
    for qid, key in sorted(zip(ids, keys, strict=True), key=lambda p: (p[1], p[0])):
        members.setdefault(key, []).append(qid)
    order = sorted(members)
    import numpy as np  # (here: validating a question bank in rsb lint needs no numpy)

    perm = np.random.default_rng(seed).permutation(len(order))
    eval_ids: set[str] = set()
    for i in perm:
        if len(eval_ids) >= eval_size:
            break
        eval_ids.update(members[order[int(i)]])
    return set(ids) - eval_ids, eval_ids


@dataclass(frozen=True)
class FixedSplit:
    """A fixed train/eval split of a question list (see :func:`fixed_split`).

    Attributes:
        eval_ids: ids of the eval questions.
        pools: ``{"train": ..., "eval": ...}``, each in the order of the input list.
        by_id: every question by id.
    """

    eval_ids: frozenset[str]
    pools: dict[str, tuple[Question, ...]]
    by_id: dict[str, Question]

    @classmethod
    def of(cls, questions: tuple[Question, ...], eval_size: int, seed: int) -> FixedSplit:
        """Split ``questions``, keeping questions with the same (lowercased) text together,
        then drop from the train pool every near-duplicate of an eval question
        (:func:`without_near_duplicates`)."""
        _, eval_ids = fixed_split(
            [q.qid for q in questions], eval_size, seed, [q.text.lower() for q in questions]
        )
        eval_pool = tuple(q for q in questions if q.qid in eval_ids)
        train_pool = tuple(q for q in questions if q.qid not in eval_ids)
        return cls(
            eval_ids=frozenset(eval_ids),
            pools={"train": without_near_duplicates(train_pool, eval_pool), "eval": eval_pool},
            by_id={q.qid: q for q in questions},
        )


def without_near_duplicates(
    train: tuple[Question, ...], eval_pool: tuple[Question, ...]
) -> tuple[Question, ...]:
    """``train`` without the questions that near-duplicate an eval question (the same
    normalized text, or a shared run of 20 words: :mod:`rsb_mj.episodes.dedup`). The eval
    pool stays as it is, so eval tables keep their questions; e.g. 44 of MMLU-Pro's 4,577
    train questions go (a shared law case, a shared genetics passage)."""
    dups = near_duplicates([q.text for q in train], [q.text for q in eval_pool])
    return tuple(q for i, q in enumerate(train) if i not in dups)


class FixedSplitSource(QuestionSource):
    """A source whose questions are a fixed list split by :class:`FixedSplit`.

    Subclasses set ``label`` and ``id_hint`` (for error messages) and implement
    :meth:`fixed_split` (cached).
    """

    #: Data set name in messages, e.g. ``"MMLU"``.
    label: str = ""
    #: What a valid id looks like, e.g. ``"mmlu-SUBJECT-ROW"``.
    id_hint: str = ""

    @abstractmethod
    def fixed_split(self) -> FixedSplit:
        """The source's questions and their split."""

    def pool(self, split: str) -> tuple[Question, ...]:
        """The train or eval pool, in the source's fixed order."""
        return self.fixed_split().pools[check_split(split)]

    def get(self, qid: str) -> Question:
        """The question with id ``qid``.

        Raises:
            EpisodeError: for an unknown id, saying what ids look like.
        """
        question = self.fixed_split().by_id.get(qid)
        if question is None:
            raise EpisodeError(
                f"unknown {self.label} question id {qid!r} (expected {self.id_hint})"
            )
        return question

    def split_of(self, qid: str) -> str:
        """The split of ``qid`` (raises EpisodeError for an unknown id)."""
        self.get(qid)
        return "eval" if qid in self.fixed_split().eval_ids else "train"
