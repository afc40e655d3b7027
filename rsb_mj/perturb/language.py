"""Language perturbations W0-W4: WordNet substitutes in the command part of the instruction.

Level K substitutes K distinct words (fewer when the command has fewer substitutable words)
of the instruction's *command part*: the template text outside ``{Q}``, ``{OPTIONS}`` and
``{MAPA}``..``{MAPD}``. The question, the options and the letter-to-object mapping are
never touched, so the answer is unchanged. Substitutes come from the shipped table
``assets/wordnet/synonyms.json`` (WordNet 3.0 synonyms and hypernyms of the sense each word
has in our templates; built offline by ``tools/build_synonyms.py``): nothing is downloaded.

Randomness: ``numpy.random.default_rng([episode.seed, 0x574C, level])`` ("WL"), so the same
episode and level give the same instruction.

Goal tasks (LIBERO / VLA-Arena files, :func:`perturb_goal_instruction`): the whole ``:language``
is the command, so level K substitutes K of its words or phrases found in the goal table
``assets/wordnet/goal_synonyms.json`` (built by ``tools/build_synonyms.py --goal``: the verbs
of manipulation, "pick up", "put", "place", "push", "stack", "take", "turn on", and "table";
object names, colours and spatial words are never substituted). LIBERO's and VLA-Arena's
instructions have 1-5 such slots (most 1 or 2), so levels above that change no further word.
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.instructions import instruction_values, template_of
from rsb_mj.episodes.templates import Template, render
from rsb_mj.errors import EpisodeError
from rsb_mj.resources import assets_dir

#: Language levels W0 (none) .. W4 (four substituted words).
LANGUAGE_LEVELS = (0, 1, 2, 3, 4)
#: Seed tag of the language generator ("WL").
LANGUAGE_SEED_TAG = 0x574C
_FIELD = re.compile(r"\{[^{}]*\}")
_WORD = re.compile(r"[a-z]+")

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem


@cache
def synonym_table(name: str = "synonyms.json") -> dict[str, tuple[str, ...]]:
    """word -> its substitutes, from ``assets/wordnet/<name>`` (``goal_synonyms.json``: the
    goal instructions' table, whose keys may be phrases such as ``"pick up"``).

    Raises:
        EpisodeError: when the shipped table is missing (reinstall rsb_mj).
    """
    path = assets_dir() / "wordnet" / name
    if not path.is_file():
        raise EpisodeError(f"synonym table {path} is missing; reinstall rsb_mj")
    words = json.loads(path.read_text(encoding="utf-8"))["words"]
    return {word: tuple(entry["substitutes"]) for word, entry in words.items()}


def check_level(level: int, name: str = "language_level") -> int:
    """``level`` as an int in 0..4.

    Raises:
        EpisodeError: naming ``name`` and the valid choices.
    """
    if isinstance(level, bool) or not isinstance(level, int | np.integer):
        raise EpisodeError(f"{name} must be an integer 0..4, got {level!r}")
    if int(level) not in LANGUAGE_LEVELS:
        raise EpisodeError(f"{name} {level}: valid choices: 0, 1, 2, 3, 4")
    return int(level)


def command_slots(template: Template) -> list[tuple[int, int, str]]:
    """Substitutable words of the template's command part as (start, end, word) in
    ``template.text``, in text order."""
    table = synonym_table()
    slots: list[tuple[int, int, str]] = []
    pos = 0
    for part in [*_FIELD.finditer(template.text), None]:
        end = part.start() if part is not None else len(template.text)
        for m in _WORD.finditer(template.text, pos, end):
            # whole words only: "answer's" counts as "answer", "lettered" is not "letter"
            if m.group() in table:
                slots.append((m.start(), m.end(), m.group()))
        pos = part.end() if part is not None else end
    return slots


def _values(episode: Episode, problem: Problem) -> dict[str, str]:
    """The placeholder values the sampler filled in (see ``episodes/sampler.py``)."""
    return instruction_values(
        problem, episode.question, episode.options, episode.mapping, episode.colors
    )


def _fill(template: Template, values: dict[str, str]) -> str:
    return " ".join(render(template, values).split())


def perturb_instruction(
    episode: Episode, problem: Problem, level: int
) -> tuple[str, dict[str, Any]]:
    """The instruction of ``episode`` with ``level`` command words substituted.

    Args:
        episode: the episode (its ``instruction`` is the unperturbed text).
        problem: the task (:class:`rsb_mj.lang.Problem`), for the candidates' nouns.
        level: 0..4.

    Returns:
        (instruction, record): ``record`` has ``level``, ``slots`` (substitutable words in the
        command), ``substituted`` (how many) and ``substitutions`` as
        ``[{"word", "substitute", "offset"}]`` (``offset``: character offset in the template).

    Raises:
        EpisodeError: for an invalid level, or an episode whose instruction is not its
            template filled with its own question, options and mapping.
    """
    level = check_level(level)
    record: dict[str, Any] = {"level": level, "slots": 0, "substituted": 0, "substitutions": []}
    if level == 0:
        return episode.instruction, record

    template = template_of(problem, episode.template_id)
    values = _values(episode, problem)
    if _fill(template, values) != episode.instruction:
        raise EpisodeError(
            f"episode {episode.suite}/{episode.split}/{episode.index}: its instruction is not "
            f"template {episode.template_id} filled with its question, options and mapping; "
            "cannot locate the command part (use language_level=0)"
        )
    slots = command_slots(template)
    rng = np.random.default_rng([episode.seed, LANGUAGE_SEED_TAG, level])
    count = min(level, len(slots))
    chosen = sorted(int(i) for i in rng.choice(len(slots), size=count, replace=False))
    table = synonym_table()
    text = template.text
    subs = []
    for i in chosen:
        start, _, word = slots[i]
        options = table[word]
        subs.append(
            {"word": word, "substitute": options[int(rng.integers(len(options)))], "offset": start}
        )
    for sub in reversed(subs):  # right to left keeps the earlier offsets valid
        start = sub["offset"]
        text = text[:start] + sub["substitute"] + text[start + len(sub["word"]) :]
    perturbed = _fill(dataclasses.replace(template, text=text), values)
    record.update(slots=len(slots), substituted=count, substitutions=subs)
    return perturbed, record


#: The goal instructions' table (module docstring).
GOAL_TABLE = "goal_synonyms.json"


def goal_slots(instruction: str) -> list[tuple[int, int, str]]:
    """Substitutable words and phrases of a goal task's instruction as (start, end, key),
    in text order: whole words of the goal table in any case, a phrase before its words."""
    table = synonym_table(GOAL_TABLE)
    keys = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in keys) + r")\b")
    return [(m.start(), m.end(), m.group()) for m in pattern.finditer(instruction.lower())]


def perturb_goal_instruction(instruction: str, seed: int, level: int) -> tuple[str, dict[str, Any]]:
    """A goal task's instruction (its ``:language``) with ``level`` words substituted, drawn
    from ``default_rng([seed, 0x574C, level])`` as :func:`perturb_instruction` draws.

    Returns:
        (instruction, record): ``record`` as :func:`perturb_instruction`'s (``offset``: the
        character offset in the instruction).

    Raises:
        EpisodeError: for an invalid level.
    """
    level = check_level(level)
    record: dict[str, Any] = {"level": level, "slots": 0, "substituted": 0, "substitutions": []}
    if level == 0:
        return instruction, record
    slots = goal_slots(instruction)
    rng = np.random.default_rng([int(seed), LANGUAGE_SEED_TAG, level])
    count = min(level, len(slots))
    chosen = sorted(int(i) for i in rng.choice(len(slots), size=count, replace=False))
    table = synonym_table(GOAL_TABLE)
    subs = []
    for i in chosen:
        start, _, word = slots[i]
        substitute = table[word][int(rng.integers(len(table[word])))]
        if instruction[start].isupper():  # "Put the bowl ..." -> "Place the bowl ..."
            substitute = substitute[0].upper() + substitute[1:]
        subs.append({"word": word, "substitute": substitute, "offset": start})
    text = instruction
    for sub in reversed(subs):  # right to left keeps the earlier offsets valid
        start = sub["offset"]
        text = text[:start] + sub["substitute"] + text[start + len(sub["word"]) :]
    record.update(slots=len(slots), substituted=count, substitutions=subs)
    return text, record
