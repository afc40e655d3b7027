"""MMLU 4-option questions (MIT, github.com/hendrycks/test): the alternative General source.

A task file selects it with ``(:question (:source mmlu) (:choices 4))``; it serves 2 to 4
choices (the answer and its own distractors). The pool is the MMLU test split (57 subjects)
without the mathematics subjects
(``EXCLUDED_SUBJECTS``), without questions whose 4 options are not distinct and without
questions whose options are all numbers (as for MMLU-Pro, see :mod:`.mmlu_pro`).

Split: a fixed draw (``SPLIT_SEED``) of ``EVAL_SIZE`` = 1,000 questions is the eval pool
(questions with the same text stay on one side); the rest, less the 963 questions that
near-duplicate an eval question (shared instructions of the logic subjects and moral
scenarios, shared passages: :mod:`rsb_mj.episodes.dedup`), is the train pool (10,313).
Ids ``mmlu-SUBJECT-ROW`` (0-based row of the subject's CSV file).
"""

from __future__ import annotations

import csv
from functools import cache

from rsb_mj.episodes.numeric import all_numeric
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import (
    FixedSplit,
    FixedSplitSource,
    questions_dir,
    read_lines,
)
from rsb_mj.episodes.sources.mmlu_pro import clean

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


class MmluSource(FixedSplitSource):
    """MMLU 4-option questions without the mathematics subjects."""

    name = "mmlu"
    choices = (2, 3, 4)

    label = "MMLU"
    id_hint = "mmlu-SUBJECT-ROW"

    def fixed_split(self) -> FixedSplit:
        """MMLU's fixed split (``EVAL_SIZE`` eval questions, seed ``SPLIT_SEED``)."""
        return _split()


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
                    subject=subject,
                )
            )
    return tuple(out)


@cache
def _split() -> FixedSplit:
    return FixedSplit.of(_all(), EVAL_SIZE, SPLIT_SEED)
