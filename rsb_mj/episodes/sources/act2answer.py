"""Act2Answer: binary items, one question source per knowledge category (``a2a_color`` ...).

An item is a :class:`~rsb_mj.episodes.question.Question` with one distractor and a picture
for each answer (``displays``, :mod:`.picture_specs` specs): the candidates of an
Act2Answer task are answer plates that show them (:mod:`rsb_mj.scene.display`), so the
instruction names the target or asks the question and never lists options.

Picture categories (:mod:`.a2a_pictures`: COLOR, SHAPE, COUNTING, SIZE, SPATIAL, TIME) are
generated procedurally; an item's text is a *target* phrase ("the red shape"). Text
categories come from the MMLU questions shipped in ``assets/questions/mmlu`` mapped by
subject to the paper's knowledge categories (:data:`TEXT_SUBJECTS`): each keeps its correct
answer and one of its three wrong options as the distractor, shown as printed text
(``"text:Paris"``); answers must fit a plate (two lines of nine characters,
:func:`.picture_specs.wrap_text`) and questions ``MAX_QUESTION_CHARS``.

Items are drawn in a fixed order (seed :data:`ITEM_SEED`) and accepted while they keep the
*picture-feature probes* (:func:`probe_hits`: the longer answer, the alphabetically first,
the larger number, the more dots, the later time, the bigger shape) inside their chance
share, so no feature of the two answers predicts which one is correct. The first
``EVAL_ITEMS + SPARE_ITEMS`` accepted items of a category are its eval pool, the next up to
``TRAIN_ITEMS + SPARE_ITEMS`` its train pool; items sharing a question text or an answer
pair stay on one side. Ids ``a2a-<category>-NNNN`` (position in the category's order). The
frozen tables (:mod:`rsb_mj.tables.paired`) keep the first ``EVAL_ITEMS`` /
``TRAIN_ITEMS`` items the plate reader can tell apart.

Held-out reserve (private draws): the items the pools did not take (:func:`reserve_items`), less
(:mod:`rsb_mj.tables.reserve`) the text items whose question near-duplicates a question of
a shipped table (RSB-General asks MMLU-Pro's versions of MMLU questions). Sizes: COLOR 113,
SHAPE 94, COUNTING 229, SIZE 400, SPATIAL 562, TIME 1,361, PHYSICAL 67, BIOLOGICAL 45,
QUANTITATIVE 187, SOCIAL 77, NORMATIVE 15, CULTURAL 430. COLOR and SHAPE have only 7 and 8
picture pairs that no pool item shows, so most of their reserve items show a pool item's
two pictures with the *other* one as the target ("the pink hexagon" beside an orange one,
where a pool item asked for the orange): a new question, never a pool item's.
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

import numpy as np

from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources.a2a_pictures import PICTURE_POOLS, Raw
from rsb_mj.episodes.sources.base import QuestionSource, check_split, questions_dir, read_lines
from rsb_mj.episodes.sources.mmlu_pro import clean
from rsb_mj.episodes.sources.picture_specs import wrap_text
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.a2a import A2A_CHOICES, A2A_SOURCES

#: Seed of every category's item order.
ITEM_SEED = 20261130
#: Eval items per category in a frozen table (each runs in both plate orders: 300 eval
#: episodes, as the paper's N = 300 per category).
EVAL_ITEMS = 150
#: Train items per category in a frozen table, at most.
TRAIN_ITEMS = 100
#: Extra items per split for the ones the legibility check drops.
SPARE_ITEMS = 30
#: Longest question (characters) of a text item.
MAX_QUESTION_CHARS = 220
#: Categories drawn as pictures; the others are printed text.
PICTURE_CATEGORIES = tuple(PICTURE_POOLS)
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
#: How far a probe's hit count may run ahead of half the accepted items (rows).
SLACK = 2.0


def category_names() -> tuple[str, ...]:
    """The twelve categories, in the suites' order."""
    return tuple(A2A_SOURCES)


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
    if category in PICTURE_POOLS:
        pool = list(PICTURE_POOLS[category]())
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


def _item(category: str, n: int, raw: Raw) -> Question:
    answer, distractor, text, answer_spec, distractor_spec = raw
    return Question(
        qid=f"a2a-{category.lower()}-{n:04d}",
        text=text,
        answer=answer,
        distractors=(distractor,),
        subject=category,
        form="target" if category in PICTURE_POOLS else "question",
        displays=(answer_spec, distractor_spec),
    )


@cache
def item_pool(category: str) -> tuple[tuple[Question, ...], tuple[Question, ...]]:
    """(eval items, train items) of ``category`` before the legibility filter: up to
    ``EVAL_ITEMS + SPARE_ITEMS`` eval and ``TRAIN_ITEMS + SPARE_ITEMS`` train items in
    order (a frozen table keeps the first legible ``EVAL_ITEMS`` / ``TRAIN_ITEMS``)."""
    eval_items: list[Question] = []
    train_items: list[Question] = []
    balance = {"eval": _Balance(), "train": _Balance()}
    side_of: dict[str, str] = {}
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
                target.append(_item(category, n, raw))
                break
    return tuple(eval_items), tuple(train_items)


@cache
def reserve_items(category: str) -> tuple[Question, ...]:
    """The held-out reserve of ``category``: the items a private draw
    (:mod:`rsb_mj.tables.private.build`) takes, never in the eval or train pool.

    The candidates the pools did not take (the balance or a full side turned them away),
    in the category's fixed order, that are not the same
    question as a pool item (:meth:`~rsb_mj.episodes.sources.base.QuestionSource.
    question_key`: a text item's question text; a picture item's target phrase and its two
    pictures) nor as an earlier reserve item, accepted while the picture-feature probes stay
    at chance (their own balance, as for each pool). The pools are :func:`item_pool`'s,
    spares included, so the reserve does not depend on which items a table build's
    legibility check dropped; the reserve's sizes are in the module docstring.
    """
    eval_items, train_items = item_pool(category)
    key = Act2AnswerSource(category).question_key
    pools = (*eval_items, *train_items)
    taken = {q.qid for q in pools}
    seen = {key(q) for q in pools}
    balance = _Balance()
    out: list[Question] = []
    for n, (_, choices) in enumerate(_candidates(category)):
        for raw in choices:
            item = _item(category, n, raw)
            if item.qid in taken or key(item) in seen:
                break
            hits = probe_hits(raw[0], raw[1], raw[3], raw[4])
            if balance.ok(hits):
                balance.accept(hits)
                seen.add(key(item))
                out.append(item)
                break
    return tuple(out)


def category_of_source(name: str) -> str:
    """The category of an Act2Answer source id (``a2a_color`` -> ``COLOR``).

    Raises:
        EpisodeError: for a source that is not an Act2Answer one.
    """
    for category, source in A2A_SOURCES.items():
        if source == name:
            return category
    raise EpisodeError(
        f"unknown Act2Answer source {name!r}; valid choices: {', '.join(A2A_SOURCES.values())}"
    )


class Act2AnswerSource(QuestionSource):
    """The items of one Act2Answer category (suite ``A2A-<Category>``)."""

    choices = A2A_CHOICES

    def __init__(self, category: str) -> None:
        self.category = category
        self.name = A2A_SOURCES[category]

    def pool(self, split: str) -> tuple[Question, ...]:
        """The category's eval or train items, in order (before the legibility filter)."""
        eval_items, train_items = item_pool(self.category)
        return eval_items if check_split(split) == "eval" else train_items

    def get(self, qid: str) -> Question:
        """The item ``qid`` (``a2a-color-0007``).

        Raises:
            EpisodeError: for an id that is not an item of this category.
        """
        for pool in (*item_pool(self.category), reserve_items(self.category)):
            for question in pool:
                if question.qid == qid:
                    return question
        prefix = f"a2a-{self.category.lower()}"
        raise EpisodeError(f"unknown {self.name} item id {qid!r} (expected {prefix}-NNNN)")

    def held_out(self) -> tuple[Question, ...]:
        """The category's held-out reserve (:func:`reserve_items`): its eval pool is the
        frozen tables' (their spare items included)."""
        return reserve_items(self.category)

    def split_of(self, qid: str) -> str:
        """``train`` for an item of the train pool, else ``eval`` (the reserve's items too)."""
        return "train" if any(q.qid == qid for q in self.pool("train")) else "eval"

    def episode_extra(self, question: Question) -> dict[str, str]:
        """``{"category": "COLOR", "item": "a2a-color-0007"}``: what records and reports of
        Act2Answer episodes group by."""
        return {"category": question.subject, "item": question.qid}


def act2answer_sources() -> tuple[Act2AnswerSource, ...]:
    """One source per category, in the suites' order."""
    return tuple(Act2AnswerSource(category) for category in category_names())


__all__ = [
    "EVAL_ITEMS",
    "ITEM_SEED",
    "PICTURE_CATEGORIES",
    "SPARE_ITEMS",
    "TEXT_SUBJECTS",
    "TRAIN_ITEMS",
    "Act2AnswerSource",
    "act2answer_sources",
    "category_names",
    "category_of_source",
    "item_pool",
    "probe_hits",
    "reserve_items",
]
