"""RSB-Math: procedurally generated arithmetic questions.

Three forms, each drawn with probability 1/3:

* addition ``a + b`` with two-digit ``a, b`` in [10, 99];
* subtraction ``a - b`` with two-digit ``a, b`` and the **sign rule** ``a >= b + 10``: the
  answer is always a non-negative number of at least 10, so every option of a 10-choice
  question (9 distractors below the answer when it ranks last) can be a non-negative integer
  and no option is ever negative (a negative option would be a give-away);
* multiplication ``a x b`` with one-digit ``a`` in [2, 9] (1 would make it trivial) and
  two-digit ``b``.

The train pool is 500 distinct questions drawn once from ``TRAIN_SEED``; eval questions are
drawn from the same distribution, rejecting any train question and any addition that is a
train question with its operands swapped (``27 + 17`` after ``17 + 27``), so the splits are
disjoint even up to commutativity.
Ids are ``arith-{add,sub,mul}-A-B``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.base import QuestionSource, check_split
from rsb_mj.errors import EpisodeError

#: Seed of the fixed train pool.
TRAIN_SEED = 20260500
#: Number of train questions (the RSB paper's RSB-Math training set size).
TRAIN_SIZE = 500

_WORDS = {"add": "plus", "sub": "minus", "mul": "times"}
_OPS = ("add", "sub", "mul")


def make_question(op: str, a: int, b: int) -> Question:
    """The arithmetic question ``a op b`` with its answer.

    Math distractors are near values only (no slips: a slip such as ``answer + 10`` forms
    a visible pair with the answer that points at it); those of a product ``a x b`` are
    multiples of ``a`` (``Question.step``), so they are as divisible as the answer.

    Raises:
        EpisodeError: for an unknown operation or operands outside the documented ranges.
    """
    if op not in _OPS:
        raise EpisodeError(f"unknown arithmetic operation {op!r}; valid choices: add, mul, sub")
    if not _valid(op, a, b):
        raise EpisodeError(f"operands {a}, {b} are outside the ranges of {op!r}")
    answer = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    return Question(
        qid=f"arith-{op}-{a}-{b}",
        text=f"what is {a} {_WORDS[op]} {b}?",
        answer=str(answer),
        numeric=True,
        step=str(a) if op == "mul" else "",
    )


def _valid(op: str, a: int, b: int) -> bool:
    if op == "add":
        return 10 <= a <= 99 and 10 <= b <= 99
    if op == "sub":
        return 10 <= b <= 99 and b + 10 <= a <= 99
    return 2 <= a <= 9 and 10 <= b <= 99


def _draw_operands(rng: np.random.Generator) -> tuple[str, int, int]:
    op = _OPS[int(rng.integers(3))]
    if op == "add":
        return op, int(rng.integers(10, 100)), int(rng.integers(10, 100))
    if op == "sub":
        b = int(rng.integers(10, 90))
        return op, int(rng.integers(b + 10, 100)), b
    return op, int(rng.integers(2, 10)), int(rng.integers(10, 100))


class ArithmeticSource(QuestionSource):
    """Generated arithmetic questions (suites RSB-Math-4 and RSB-Math-10)."""

    name = "arithmetic"

    def pool(self, split: str) -> tuple[Question, ...] | None:
        """The 500 train questions; None for eval (generated on demand)."""
        return _train_pool() if check_split(split) == "train" else None

    def draw(self, split: str, rng: np.random.Generator) -> Question:
        """A train question (one draw) or a fresh eval question not in the train pool."""
        if check_split(split) == "train":
            return super().draw(split, rng)
        train_keys = _train_keys()
        while True:
            op, a, b = _draw_operands(rng)
            if canonical(op, a, b) not in train_keys:
                return make_question(op, a, b)

    def get(self, qid: str) -> Question:
        """Rebuild question ``qid`` (``arith-OP-A-B``) from its id."""
        parts = qid.split("-")
        if len(parts) != 4 or parts[0] != "arith" or not (parts[2] + parts[3]).isdigit():
            raise EpisodeError(f"unknown arithmetic question id {qid!r}; expected arith-OP-A-B")
        return make_question(parts[1], int(parts[2]), int(parts[3]))

    def split_of(self, qid: str) -> str:
        """``train`` for the 500 train ids, else ``eval``."""
        return "train" if qid in _train_ids() else "eval"


@cache
def _train_pool() -> tuple[Question, ...]:
    rng = np.random.default_rng(TRAIN_SEED)
    seen: dict[str, Question] = {}
    while len(seen) < TRAIN_SIZE:
        question = make_question(*_draw_operands(rng))
        seen.setdefault(question.qid, question)
    return tuple(seen.values())


@cache
def _train_ids() -> frozenset[str]:
    return frozenset(q.qid for q in _train_pool())


def canonical(op: str, a: int, b: int) -> tuple[str, int, int]:
    """The question up to commutativity: ``27 + 17`` and ``17 + 27`` are one question."""
    return (op, min(a, b), max(a, b)) if op == "add" else (op, a, b)


@cache
def _train_keys() -> frozenset[tuple[str, int, int]]:
    out = set()
    for q in _train_pool():
        _, op, a, b = q.qid.split("-")
        out.add(canonical(op, int(a), int(b)))
    return frozenset(out)
