"""Act2Answer binary items: a question, its correct answer and one distractor, per category.

Picture categories are generated procedurally (every combination of a small closed
vocabulary, shuffled with a fixed seed): COLOR, SHAPE, COUNTING (dots, 1-9), SIZE (the
bigger or smaller of two shapes), SPATIAL (which of two shapes is left of / right of /
above / below the other) and TIME (analog clock faces at 5-minute steps). Text
categories come from the MMLU questions shipped in ``assets/questions/mmlu`` mapped by
subject to the paper's knowledge categories (:data:`TEXT_SUBJECTS`): each keeps its correct
answer and one of its three wrong options as the distractor; answers must fit a plate (two
lines of nine characters, :func:`rsb_mj.scene.pictures.wrap_text`) and questions
``MAX_QUESTION_CHARS``.

Items are drawn in a fixed order (seed :data:`ITEM_SEED`) and accepted while they keep the
*picture-feature probes* (:func:`probe_hits`: the longer answer, the alphabetically first,
the larger number, the more dots, the later time, the bigger shape) inside their chance
share, so no feature of the two answers predicts which one is correct. The first
:data:`EVAL_ITEMS` accepted items of a category are its eval items, the next up to
:data:`TRAIN_ITEMS` its train items; items sharing a question text or an answer pair stay on
one side. Items that the plate reader cannot tell apart are dropped by the table build
(:mod:`rsb_mj.a2a.table`), with the reason logged.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

from rsb_mj.colors import PALETTE
from rsb_mj.episodes.sources.base import questions_dir, read_lines
from rsb_mj.episodes.sources.mmlu_pro import clean
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.a2a import A2A_SOURCES
from rsb_mj.scene.pictures import RELATIONS, SHAPES, wrap_text

#: Seed of every category's item order.
ITEM_SEED = 20261130
#: Eval items per category (each runs in both plate orders: 300 eval episodes, as the paper's
#: N = 300 per category).
EVAL_ITEMS = 150
#: Train items per category at most.
TRAIN_ITEMS = 100
#: Extra candidates per split for the items the legibility check drops.
SPARE_ITEMS = 30
#: Longest question (characters) of a text item.
MAX_QUESTION_CHARS = 220
#: Categories drawn as pictures; the others are printed text.
PICTURE_CATEGORIES = ("COLOR", "SHAPE", "COUNTING", "SIZE", "SPATIAL", "TIME")
#: Text category -> MMLU subjects (test split) it draws from.
TEXT_SUBJECTS: dict[str, tuple[str, ...]] = {
    "PHYSICAL": (
        "astronomy",
        "college_chemistry",
        "college_physics",
        "conceptual_physics",
        "electrical_engineering",
        "high_school_chemistry",
        "high_school_physics",
    ),
    "BIOLOGICAL": (
        "anatomy",
        "clinical_knowledge",
        "college_biology",
        "college_medicine",
        "high_school_biology",
        "human_aging",
        "medical_genetics",
        "nutrition",
        "virology",
    ),
    "QUANTITATIVE": (
        "elementary_mathematics",
        "high_school_mathematics",
        "college_mathematics",
        "high_school_statistics",
        "abstract_algebra",
    ),
    "SOCIAL": (
        "high_school_psychology",
        "professional_psychology",
        "human_sexuality",
        "sociology",
        "public_relations",
        "management",
        "marketing",
        "high_school_macroeconomics",
        "high_school_microeconomics",
        "econometrics",
    ),
    "NORMATIVE": (
        "moral_disputes",
        "moral_scenarios",
        "business_ethics",
        "jurisprudence",
        "philosophy",
        "international_law",
        "logical_fallacies",
        "formal_logic",
        "professional_law",
        "security_studies",
        "us_foreign_policy",
        "high_school_government_and_politics",
    ),
    "CULTURAL": (
        "world_religions",
        "prehistory",
        "high_school_geography",
        "global_facts",
        "miscellaneous",
        "high_school_world_history",
        "high_school_us_history",
        "high_school_european_history",
    ),
}
#: Colors pictures use (the scene palette).
COLORS = tuple(PALETTE)
#: SIZE: radii (fraction of the plate's height) of the shapes compared.
SIZES = (0.16, 0.24, 0.32, 0.40)
#: How far a probe's hit count may run ahead of half the accepted items (rows).
SLACK = 2.0


@dataclass(frozen=True)
class Item:
    """One binary question.

    Attributes:
        item_id: stable id, e.g. ``"a2a-color-0007"`` (the order of the category's pool).
        category: upper-case category, e.g. ``"COLOR"``.
        question: what the instruction asks: for a picture category the target phrase
            ("the red shape"), for a text category the question.
        answer, distractor: the two answers as words ("red", "Paris").
        answer_spec, distractor_spec: the pictures of the two plates
            (:mod:`rsb_mj.scene.pictures` specs).
    """

    item_id: str
    category: str
    question: str
    answer: str
    distractor: str
    answer_spec: str
    distractor_spec: str


def category_names() -> tuple[str, ...]:
    """The twelve categories, in the suites' order."""
    return tuple(A2A_SOURCES)


# ---- picture pools (answer, distractor, question, specs) -----------------------------------

Raw = tuple[str, str, str, str, str]


def _color_pool() -> Iterator[Raw]:
    for shape in SHAPES:
        for a, d in itertools.permutations(COLORS, 2):
            yield a, d, f"the {a} {shape}", f"color:{a}:{shape}", f"color:{d}:{shape}"


def _shape_pool() -> Iterator[Raw]:
    for color in COLORS:
        for a, d in itertools.permutations(SHAPES, 2):
            article = "an" if a[0] in "aeiou" else "a"
            yield a, d, f"the picture of {article} {a}", f"shape:{a}:{color}", f"shape:{d}:{color}"


def _count_pool() -> Iterator[Raw]:
    for color in COLORS:
        for a, d in itertools.permutations(range(1, 10), 2):
            noun = "dot" if a == 1 else "dots"
            yield (
                str(a),
                str(d),
                f"the picture with {a} {noun}",
                f"count:{a}:{color}",
                f"count:{d}:{color}",
            )


def _size_pool() -> Iterator[Raw]:
    for shape, color in itertools.product(SHAPES, COLORS):
        for a, d in itertools.permutations(SIZES, 2):
            word = "bigger" if a > d else "smaller"
            yield (
                f"{word} {shape}",
                f"{'smaller' if a > d else 'bigger'} {shape}",
                f"the {word} {color} {shape}",
                f"size:{a:.2f}:{shape}:{color}",
                f"size:{d:.2f}:{shape}:{color}",
            )


_OPPOSITE = {"left": "right", "right": "left", "above": "below", "below": "above"}
_PHRASE = {"left": "left of", "right": "right of", "above": "above", "below": "below"}


def _spatial_pool() -> Iterator[Raw]:
    for s1, s2 in itertools.permutations(("circle", "square", "triangle", "star", "heart"), 2):
        for c1, c2 in itertools.permutations(COLORS[:4], 2):
            for rel in RELATIONS:
                other = _OPPOSITE[rel]
                yield (
                    f"{s1} {_PHRASE[rel]} {s2}",
                    f"{s1} {_PHRASE[other]} {s2}",
                    f"the picture where the {c1} {s1} is {_PHRASE[rel]} the {c2} {s2}",
                    f"spatial:{rel}:{s1}:{c1}:{s2}:{c2}",
                    f"spatial:{other}:{s1}:{c1}:{s2}:{c2}",
                )


def _time_pool() -> Iterator[Raw]:
    times = [(h, m) for h in range(1, 13) for m in range(0, 60, 15)]
    for (h, m), (h2, m2) in itertools.permutations(times, 2):
        if h == h2 or abs(h - h2) in (6,):
            continue
        yield (
            f"{h}:{m:02d}",
            f"{h2}:{m2:02d}",
            f"the clock showing {h}:{m:02d}",
            f"clock:{h}:{m:02d}",
            f"clock:{h2}:{m2:02d}",
        )


_PICTURE_POOLS: dict[str, Callable[[], Iterator[Raw]]] = {
    "COLOR": _color_pool,
    "SHAPE": _shape_pool,
    "COUNTING": _count_pool,
    "SIZE": _size_pool,
    "SPATIAL": _spatial_pool,
    "TIME": _time_pool,
}


# ---- text pools ----------------------------------------------------------------------------


@cache
def _text_questions(category: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(question, answer, wrong options that fit a plate) of the category's subjects."""
    out = []
    for subject in TEXT_SUBJECTS[category]:
        path = questions_dir() / "mmlu" / "test" / f"{subject}_test.csv.gz"
        for row in csv.reader(read_lines(path)):
            options = [clean(o) for o in row[1:5]]
            letter = row[5].strip()
            if letter not in "ABCD" or len(set(options)) != 4:
                continue
            answer = options["ABCD".index(letter)]
            question = clean(row[0])
            wrong = tuple(o for o in options if o != answer and _printable(o))
            if not _printable(answer) or not wrong or "\n" in question:
                continue
            if len(question) > MAX_QUESTION_CHARS or _refers_to_options(question):
                continue
            out.append((question, answer, wrong))
    return tuple(out)


def _printable(text: str) -> bool:
    """The plate font (OpenCV Hershey) draws printable ASCII only; the text must fit."""
    return text.isascii() and text.isprintable() and wrap_text(text) is not None


def _refers_to_options(question: str) -> bool:
    """Questions that only make sense with all four options ("all of the above")."""
    return bool(re.search(r"\b(all|none|both) of the (above|options)\b", question, re.I))


# ---- probes and balance --------------------------------------------------------------------


def _number(text: str) -> float | None:
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)(?::(\d\d))?\s*", text)
    if m is None:
        return None
    return float(m.group(1)) + (int(m.group(2)) / 60 if m.group(2) else 0.0)


def _size_of(spec: str) -> float | None:
    return float(spec.split(":")[1]) if spec.startswith("size:") else None


def probe_hits(
    answer: str, distractor: str, answer_spec: str, distractor_spec: str
) -> dict[str, bool]:
    """Which answer-blind probes would pick the correct answer of an item (probes that
    cannot tell the two answers apart are left out).

    Probes: ``longer`` (more characters), ``alpha_first`` (alphabetically first), ``larger``
    (the larger number, dots or time), ``bigger_picture`` (the bigger SIZE shape).
    """
    hits: dict[str, bool] = {}
    if len(answer) != len(distractor):
        hits["longer"] = len(answer) > len(distractor)
    if answer.lower() != distractor.lower():
        hits["alpha_first"] = answer.lower() < distractor.lower()
    a, d = _number(answer), _number(distractor)
    if a is not None and d is not None and a != d:
        hits["larger"] = a > d
    sa, sd = _size_of(answer_spec), _size_of(distractor_spec)
    if sa is not None and sd is not None:
        hits["bigger_picture"] = sa > sd
    return hits


class _Balance:
    """Running probe counts; an item is accepted while every probe stays near chance."""

    def __init__(self) -> None:
        self.cells: dict[str, Counter] = {}

    def ok(self, hits: dict[str, bool]) -> bool:
        for name, hit in hits.items():
            cell = self.cells.get(name, Counter())
            n = cell.total() + 1
            slack = max(1.0, 0.5 * math.sqrt(n * 0.25)) if n > 8 else SLACK
            if cell[hit] + 1 > 0.5 * n + slack:
                return False
        return True

    def accept(self, hits: dict[str, bool]) -> None:
        for name, hit in hits.items():
            self.cells.setdefault(name, Counter())[hit] += 1


def _order(n: int, category: str) -> np.ndarray:
    digest = hashlib.sha256(f"a2a/{category}/{ITEM_SEED}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big")).permutation(n)


def _candidates(category: str) -> Iterator[tuple[str, list[Raw]]]:
    """(side key, raw choices) in the category's fixed order: the key keeps items that share
    a question text or an answer pair on one split; the choices are the ways to make the
    item (text items: one per fitting distractor)."""
    if category in _PICTURE_POOLS:
        pool = list(_PICTURE_POOLS[category]())
        for i in _order(len(pool), category):
            raw = pool[int(i)]
            yield " / ".join(sorted(raw[3:])), [raw]
    elif category in TEXT_SUBJECTS:
        pool_t = _text_questions(category)
        for i in _order(len(pool_t), category):
            question, answer, wrong = pool_t[int(i)]
            yield question, [(answer, w, question, f"text:{answer}", f"text:{w}") for w in wrong]
    else:
        raise EpisodeError(
            f"unknown Act2Answer category {category!r}; valid choices: "
            + ", ".join(category_names())
        )


@cache
def item_pool(category: str) -> tuple[tuple[Item, ...], tuple[Item, ...]]:
    """(eval items, train items) of ``category`` before the legibility filter: up to
    ``EVAL_ITEMS + SPARE_ITEMS`` eval and ``TRAIN_ITEMS + SPARE_ITEMS`` train candidates in
    order (the table build keeps the first legible ``EVAL_ITEMS`` / ``TRAIN_ITEMS``)."""
    eval_items: list[Item] = []
    train_items: list[Item] = []
    balance = {"eval": _Balance(), "train": _Balance()}
    side_of: dict[str, str] = {}
    prefix = f"a2a-{category.lower()}"
    room = {"eval": EVAL_ITEMS + SPARE_ITEMS, "train": TRAIN_ITEMS + SPARE_ITEMS}
    for n, (key, choices) in enumerate(_candidates(category)):
        if len(eval_items) >= room["eval"] and len(train_items) >= room["train"]:
            break
        side = side_of.get(key)
        if side is None:
            side = "eval" if len(eval_items) < room["eval"] else "train"
        target = eval_items if side == "eval" else train_items
        if len(target) >= room[side]:
            continue
        for raw in choices:
            hits = probe_hits(raw[0], raw[1], raw[3], raw[4])
            if balance[side].ok(hits):
                balance[side].accept(hits)
                side_of[key] = side
                target.append(Item(f"{prefix}-{n:04d}", category, raw[2], *raw[:2], *raw[3:]))
                break
    return tuple(eval_items), tuple(train_items)


__all__ = [
    "EVAL_ITEMS",
    "ITEM_SEED",
    "PICTURE_CATEGORIES",
    "TEXT_SUBJECTS",
    "TRAIN_ITEMS",
    "Item",
    "category_names",
    "item_pool",
    "probe_hits",
]
