"""RSB-General: MMLU-Pro multiple-choice questions (Apache-2.0, github.com/TIGER-AI-Lab/MMLU-Pro).

The pool is every MMLU-Pro question with exactly 10 distinct options outside the ``math``
category whose options are not all numbers (5,577 of 8,743): MMLU-Pro's numeric options put
the answer near the middle (rank 4 of 10 in 26% of them, last in 0.6%), a "pick the median"
shortcut that no per-episode draw can remove, and such questions are math-like anyway.
The same pool serves both General suites: 10 choices use all
options, 4 choices the answer plus 3 of its own distractors (:mod:`rsb_mj.episodes.options`).

Split: a fixed draw (``SPLIT_SEED``) of ``EVAL_SIZE`` = 1,000 questions is the eval pool
(questions with the same text stay on one side); the remaining 4,577 less the 44 that
near-duplicate an eval question (:mod:`rsb_mj.episodes.dedup`) are the train pool (4,533).
Ids ``mmlu_pro-QUESTION_ID``.

Held-out reserve (private draws, :mod:`rsb_mj.tables.reserve`): the 231 eval questions
that no shipped table asks nor near-duplicates (the General eval tables ask 740 of the
1,000; 29 more near-duplicate a question they ask), in id order. The train pool is no
reserve: it is what models train on.
"""

from __future__ import annotations

import json
from functools import cache

from rsb_mj.episodes.numeric import all_numeric
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import (
    FixedSplit,
    FixedSplitSource,
    questions_dir,
    read_lines,
)

#: Seed of the fixed train/eval split.
SPLIT_SEED = 20260501
#: Number of eval questions.
EVAL_SIZE = 1000
#: Categories left out of the pool (math belongs to the Math suites).
EXCLUDED_CATEGORIES = frozenset({"math"})


def clean(text: str) -> str:
    """Collapse runs of whitespace (newlines included) into one space."""
    return " ".join(str(text).split())


class MmluProSource(FixedSplitSource):
    """MMLU-Pro 10-option questions without the math category."""

    name = "mmlu_pro"

    label = "MMLU-Pro"
    id_hint = "mmlu_pro-N of a 10-option, non-math question"

    def fixed_split(self) -> FixedSplit:
        """MMLU-Pro's fixed split (``EVAL_SIZE`` eval questions, seed ``SPLIT_SEED``)."""
        return _split()


@cache
def _all() -> tuple[Question, ...]:
    out = []
    for line in read_lines(questions_dir() / "mmlu_pro" / "test.jsonl.gz"):
        row = json.loads(line)
        options = [clean(o) for o in row["options"]]
        if len(options) != 10 or len(set(options)) != 10:
            continue
        if row["category"] in EXCLUDED_CATEGORIES or all_numeric(options):
            continue
        answer = options[int(row["answer_index"])]
        out.append(
            Question(
                qid=f"mmlu_pro-{row['question_id']}",
                text=clean(row["question"]),
                answer=answer,
                distractors=tuple(o for o in options if o != answer),
                subject=str(row["category"]),
            )
        )
    return tuple(sorted(out, key=lambda q: int(q.qid.split("-")[1])))


@cache
def _split() -> FixedSplit:
    return FixedSplit.of(_all(), EVAL_SIZE, SPLIT_SEED)
