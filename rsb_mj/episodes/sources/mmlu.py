"""MMLU 4-option questions (MIT, github.com/hendrycks/test): the alternative General source.

A task file selects it with ``(:question (:source mmlu) (:choices 4))``; it only serves 4
choices. The pool is the MMLU test split (57 subjects) without the mathematics subjects
(``EXCLUDED_SUBJECTS``), without questions whose 4 options are not distinct and without
questions whose options are all numbers (as for MMLU-Pro, see :mod:`.mmlu_pro`).

Split: a fixed draw (``SPLIT_SEED``) of ``EVAL_SIZE`` = 1,000 questions is the eval pool
(questions with the same text stay on one side); the rest is the train pool.
Ids ``mmlu-SUBJECT-ROW`` (0-based row of the subject's CSV file).
"""

from __future__ import annotations

import csv
from functools import cache

from rsb_mj.episodes.numeric import all_numeric
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import (
    FixedSplit,
    QuestionSource,
    check_split,
    questions_dir,
    read_lines,
)
from rsb_mj.episodes.sources.mmlu_pro import clean
from rsb_mj.errors import EpisodeError

#: Seed of the fixed train/eval split.
SPLIT_SEED = 20260502
#: Number of eval questions.
EVAL_SIZE = 1000
#: Subjects left out (they belong to the Math suites).
EXCLUDED_SUBJECTS = frozenset(
    {
        "abstract_algebra",
        "college_mathematics",
        "elementary_mathematics",
        "high_school_mathematics",
        "high_school_statistics",
    }
)
_LETTERS = "ABCD"


class MmluSource(QuestionSource):
    """MMLU 4-option questions without the mathematics subjects."""

    name = "mmlu"
    choices = (4,)

    def pool(self, split: str) -> tuple[Question, ...]:
        """The train or eval pool, ordered by id."""
        return _split().pools[check_split(split)]

    def get(self, qid: str) -> Question:
        """Question ``mmlu-SUBJECT-ROW``."""
        question = _split().by_id.get(qid)
        if question is None:
            raise EpisodeError(f"unknown MMLU question id {qid!r} (expected mmlu-SUBJECT-ROW)")
        return question

    def split_of(self, qid: str) -> str:
        """The split of ``qid``."""
        self.get(qid)
        return "eval" if qid in _split().eval_ids else "train"


@cache
def _all() -> tuple[Question, ...]:
    out = []
    for path in sorted((questions_dir() / "mmlu" / "test").glob("*_test.csv.gz")):
        subject = path.name.removesuffix("_test.csv.gz")
        if subject in EXCLUDED_SUBJECTS:
            continue
        for row_no, row in enumerate(csv.reader(read_lines(path))):
            options = [clean(o) for o in row[1:5]]
            if len(set(options)) != 4 or row[5].strip() not in _LETTERS or all_numeric(options):
                continue
            answer = options[_LETTERS.index(row[5].strip())]
            out.append(
                Question(
                    qid=f"mmlu-{subject}-{row_no}",
                    text=clean(row[0]),
                    answer=answer,
                    distractors=tuple(o for o in options if o != answer),
                )
            )
    return tuple(out)


@cache
def _split() -> FixedSplit:
    return FixedSplit.of(_all(), EVAL_SIZE, SPLIT_SEED)
