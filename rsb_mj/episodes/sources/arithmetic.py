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

Held-out reserve (private draws, :mod:`rsb_mj.tables.reserve`): fresh eval draws that no
shipped table asks, up to commutativity (:meth:`ArithmeticSource.question_key`): of the
7,559 distinct eval questions the shipped eval tables ask 937, leaving 6,622.

Parameters (:mod:`.params`): ``(:operators add sub)`` draws only those operations (each
equally likely), ``(:operand_range LO HI)`` replaces the two-digit range [10, 99] and
``(:multiplier_range LO HI)`` the one-digit factor's [2, 9]; the defaults give exactly the
draws above. The train pool then holds ``min(500, half the distinct questions)`` questions,
so the eval questions never run out.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class ArithmeticConfig:
    """The generated distribution: operations and operand ranges (inclusive)."""

    ops: tuple[str, ...] = _OPS
    lo: int = 10
    hi: int = 99
    mul_lo: int = 2
    mul_hi: int = 9

    def count(self) -> int:
        """Distinct questions up to commutativity."""
        k = self.hi - self.lo + 1
        sizes = {
            "add": k * (k + 1) // 2,
            "sub": sum(max(0, self.hi - (b + 10) + 1) for b in range(self.lo, self.hi + 1)),
            "mul": (self.mul_hi - self.mul_lo + 1) * k,
        }
        return sum(sizes[op] for op in self.ops)

    def train_size(self) -> int:
        """Questions in the train pool: ``TRAIN_SIZE``, or half the distinct questions."""
        return min(TRAIN_SIZE, self.count() // 2)


#: The suites' distribution.
DEFAULT_CONFIG = ArithmeticConfig()


def make_question(op: str, a: int, b: int, config: ArithmeticConfig = DEFAULT_CONFIG) -> Question:
    """The arithmetic question ``a op b`` with its answer.

    Math distractors are near values only (no slips: a slip such as ``answer + 10`` forms
    a visible pair with the answer that points at it); those of a product ``a x b`` are
    multiples of ``a`` (``Question.step``), so they are as divisible as the answer.

    Raises:
        EpisodeError: for an unknown operation or operands outside the documented ranges.
    """
    if op not in _OPS:
        raise EpisodeError(f"unknown arithmetic operation {op!r}; valid choices: add, mul, sub")
    if not _valid(op, a, b, config):
        raise EpisodeError(f"operands {a}, {b} are outside the ranges of {op!r}")
    answer = {"add": a + b, "sub": a - b, "mul": a * b}[op]
    return Question(
        qid=f"arith-{op}-{a}-{b}",
        text=f"what is {a} {_WORDS[op]} {b}?",
        answer=str(answer),
        numeric=True,
        step=str(a) if op == "mul" else "",
    )


def _valid(op: str, a: int, b: int, c: ArithmeticConfig = DEFAULT_CONFIG) -> bool:
    if op == "add":
        return c.lo <= a <= c.hi and c.lo <= b <= c.hi
    if op == "sub":
        return c.lo <= b <= c.hi and b + 10 <= a <= c.hi
    return c.mul_lo <= a <= c.mul_hi and c.lo <= b <= c.hi


def _draw_operands(
    rng: np.random.Generator, c: ArithmeticConfig = DEFAULT_CONFIG
) -> tuple[str, int, int]:
    op = c.ops[int(rng.integers(len(c.ops)))]
    if op == "add":
        return op, int(rng.integers(c.lo, c.hi + 1)), int(rng.integers(c.lo, c.hi + 1))
    if op == "sub":
        b = int(rng.integers(c.lo, c.hi - 9))
        return op, int(rng.integers(b + 10, c.hi + 1)), b
    return op, int(rng.integers(c.mul_lo, c.mul_hi + 1)), int(rng.integers(c.lo, c.hi + 1))


class ArithmeticSource(QuestionSource):
    """Generated arithmetic questions (suites RSB-Math-4 and RSB-Math-10)."""

    name = "arithmetic"

    def __init__(self, config: ArithmeticConfig = DEFAULT_CONFIG) -> None:
        self.config = config

    def pool(self, split: str) -> tuple[Question, ...] | None:
        """The train questions (500 by default); None for eval (generated on demand)."""
        return _train_pool(self.config) if check_split(split) == "train" else None

    def draw(self, split: str, rng: np.random.Generator) -> Question:
        """A train question (one draw) or a fresh eval question not in the train pool."""
        if check_split(split) == "train":
            return super().draw(split, rng)
        train_keys = _train_keys(self.config)
        while True:
            op, a, b = _draw_operands(rng, self.config)
            if canonical(op, a, b) not in train_keys:
                return make_question(op, a, b, self.config)

    def get(self, qid: str) -> Question:
        """Rebuild question ``qid`` (``arith-OP-A-B``) from its id."""
        parts = qid.split("-")
        if len(parts) != 4 or parts[0] != "arith" or not (parts[2] + parts[3]).isdigit():
            raise EpisodeError(f"unknown arithmetic question id {qid!r}; expected arith-OP-A-B")
        return make_question(parts[1], int(parts[2]), int(parts[3]), self.config)

    def split_of(self, qid: str) -> str:
        """``train`` for the train pool's ids, else ``eval``."""
        return "train" if qid in _train_ids(self.config) else "eval"

    def question_key(self, question: Question) -> str:
        """The question up to commutativity (:func:`canonical`): ``add-17-27`` for both
        ``17 + 27`` and ``27 + 17``."""
        _, op, a, b = question.qid.split("-")
        op, x, y = canonical(op, int(a), int(b))
        return f"{op}-{x}-{y}"

    def eval_count(self) -> int:
        """Distinct eval questions (up to commutativity): the distribution's questions less
        the train pool's."""
        return self.config.count() - len(_train_keys(self.config))


@cache
def _train_pool(config: ArithmeticConfig = DEFAULT_CONFIG) -> tuple[Question, ...]:
    rng = np.random.default_rng(TRAIN_SEED)
    seen: dict[str, Question] = {}
    size = config.train_size()
    while len(seen) < size:
        question = make_question(*_draw_operands(rng, config), config)
        seen.setdefault(question.qid, question)
    return tuple(seen.values())


@cache
def _train_ids(config: ArithmeticConfig = DEFAULT_CONFIG) -> frozenset[str]:
    return frozenset(q.qid for q in _train_pool(config))


def canonical(op: str, a: int, b: int) -> tuple[str, int, int]:
    """The question up to commutativity: ``27 + 17`` and ``17 + 27`` are one question."""
    return (op, min(a, b), max(a, b)) if op == "add" else (op, a, b)


@cache
def _train_keys(config: ArithmeticConfig = DEFAULT_CONFIG) -> frozenset[tuple[str, int, int]]:
    out = set()
    for q in _train_pool(config):
        _, op, a, b = q.qid.split("-")
        out.add(canonical(op, int(a), int(b)))
    return frozenset(out)
