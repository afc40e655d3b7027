"""Instruction ablations and counterfactual twins of a frozen episode.

Does the policy's choice follow the instruction? Two tools, both deterministic functions of
the frozen row (same row, same variant, same bytes):

**Ablations** (``rsb eval --instruction MODE``) change only the instruction:

* ``original``: as in the table;
* ``blank``: the empty instruction;
* ``tokens``: as many words as the instruction has, drawn uniformly (seeded by the episode
  seed) from :func:`vocabulary` (every word of the shipped template files);
* ``command-only``: the command without the question, the options and the mapping
  (:func:`command_part` of the template);
* ``shuffled-options``: the options in another order (a seeded derangement of their
  letters); the mapping is re-derived so each option text keeps its candidate, so the
  answer's candidate stays the same while its letter changes (the scene paints the new
  letters);
* ``no-mapping``: the "A is the red block" phrases removed (4-choice suites, the only ones
  whose instruction states the mapping);
* ``direct``: the question replaced by its answer, in the task's own words ("place the block
  C in the gray answer zone.", "put the cube on the plate showing 12:00.";
  :mod:`rsb_mj.evaluation.direct`). It reveals the answer: a control, never a score; the
  reports set it beside ``original`` as the *semantic gap* (TSR under ``direct`` minus TSR
  under ``original``).

A goal task (a LIBERO / VLA-Arena style file, :class:`~rsb_mj.episodes.episode.Episode`
with no binding) has no question, options or answer, only its ``:language`` command: it runs
:data:`GOAL_INSTRUCTION_MODES`, ``blank`` (the empty instruction) and ``tokens`` (as many
words as its ``:language`` has, drawn from :func:`goal_vocabulary`, the words of the shipped
goal instructions), so a success that does not need the instruction shows. The other modes
change a question, its options or its mapping, or state the answer (``command-only`` of a
command is the command itself), and are refused for goal tasks
(:func:`rsb_mj.evaluation.runner.plan`).

**Counterfactual twins** (``rsb eval --counterfactual``): for eval row i, the twin keeps row
i's scene (layout, colours, mapping, letters: identical model state) and template, but asks
the question of the first later row j (cyclically) of the same table whose correct letter
differs from row i's, so the correct candidate moves. A policy that reads the question must
move its choice; a language-blind one cannot.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from functools import cache

import numpy as np

from rsb_mj.choices import CHOICE_COUNTS, MAX_COLORED, style
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.direct import direct_instruction
from rsb_mj.lang.ast import Problem

#: The instruction modes, ``original`` first.
INSTRUCTION_MODES = (
    "original",
    "blank",
    "tokens",
    "command-only",
    "shuffled-options",
    "no-mapping",
    "direct",
)
#: The instruction modes of a goal task (see the module docstring).
GOAL_INSTRUCTION_MODES = ("original", "blank", "tokens")
#: Why each other mode does not apply to a goal task (``rsb eval`` says so).
GOAL_MODE_REFUSALS = {
    "command-only": "a goal's :language is a command already (the mode would change nothing)",
    "shuffled-options": "a goal task has no options to shuffle",
    "no-mapping": "a goal task has no option->object mapping to remove",
    "direct": "a goal task has no answer to state (its :language states the goal already)",
}
#: The instruction mode that states the answer (a control, see the module docstring).
DIRECT = "direct"
#: The record variant of a counterfactual twin.
COUNTERFACTUAL = "counterfactual"

_PLACEHOLDER = re.compile(r"\{[A-Z]+\}")
_SENTENCE = re.compile(r"(?<=[.?!])\s+")


def command_part(template_text: str) -> str:
    """The command of a template: its sentences without a placeholder, and the text after
    the last placeholder of a sentence that has one (``"({OPTIONS}) place the object ..."``),
    leading punctuation stripped."""
    kept = []
    for sentence in _SENTENCE.split(template_text.strip()):
        pieces = _PLACEHOLDER.split(sentence)
        tail = pieces[-1] if len(pieces) > 1 else sentence
        tail = tail.lstrip(" ,;:.)(").strip()
        if len(tail.split()) >= 3 or (len(pieces) == 1 and tail):
            kept.append(tail)
    return " ".join(kept)


def without_mapping(template_text: str) -> str:
    """A ``colors``-style template with its ``{MAPA}``.. list removed (the punctuation
    and "and" of the emptied list, and emptied brackets, go with it)."""
    text = re.sub(r"\{MAP[A-K]\}", "", template_text)
    text = re.sub(r"(\s*[,;.]\s*(and\s+)?){2,}", ". ", text)  # ", , , and ." -> ". "
    text = re.sub(r"\(\s*[.,;]?\s*\)", "", text)  # "( . )"
    text = " ".join(text.split()).replace(" .", ".")
    return text.lstrip(" .,;")


@cache
def vocabulary() -> tuple[str, ...]:
    """Every word (lower case letters) of the shipped instruction template files, sorted."""
    from rsb_mj.episodes.templates import TEMPLATE_SETS, load_templates

    words = {
        w
        for set_name in TEMPLATE_SETS
        for choices in CHOICE_COUNTS
        for t in load_templates(set_name, choices)
        for w in re.findall(r"[a-z]+", _PLACEHOLDER.sub(" ", t.text))
    }
    return tuple(sorted(words))


@cache
def goal_vocabulary() -> tuple[str, ...]:
    """Every word (lower case letters) of the ``:language`` of the shipped goal suites'
    task files (``tasks/libero``, ``tasks/vla_arena``), sorted."""
    from rsb_mj.suites import GOAL_SUITES

    words: set[str] = set()
    files = {p for suite in GOAL_SUITES.values() for p in suite.files}
    for path in files:
        for text in re.findall(r"\(:language([^)]*)\)", path.read_text(encoding="utf-8")):
            words.update(re.findall(r"[a-z]+", text.lower()))
    return tuple(sorted(words))


def _ablate_goal(episode: Episode, problem: Problem, mode: str) -> Episode:
    """A goal episode with its instruction ablated by ``mode``
    (:data:`GOAL_INSTRUCTION_MODES`; see the module docstring).

    Raises:
        EvalError: for a mode a goal task has no use for (naming why and the valid ones).
    """
    if mode not in GOAL_INSTRUCTION_MODES:
        why = GOAL_MODE_REFUSALS.get(mode, "not an instruction mode")
        raise EvalError(
            f"instruction mode {mode}: {why}; valid choices for goal tasks: "
            f"{', '.join(GOAL_INSTRUCTION_MODES)}"
        )
    if mode == "original":
        return episode
    extra = {**episode.extra, "variant": mode}
    if mode == "blank":
        return dataclasses.replace(episode, instruction="", extra=extra)
    words = goal_vocabulary()
    count = len((problem.language or "").split())
    picks = _rng(episode, mode).integers(len(words), size=count)
    text = " ".join(words[int(i)] for i in picks)
    return dataclasses.replace(episode, instruction=text, extra=extra)


def _rng(episode: Episode, mode: str) -> np.random.Generator:
    return np.random.default_rng([episode.seed, zlib.crc32(mode.encode())])


def _rendered(problem: Problem, episode: Episode, **changes: object) -> str:
    from rsb_mj.episodes.instructions import render_instruction, template_of

    ep = episode.rebound(**changes)
    return render_instruction(
        problem,
        template_of(problem, ep.template_id),
        ep.question,
        ep.options,
        ep.mapping,
        ep.colors,
    )


def ablate(episode: Episode, problem: Problem, mode: str) -> Episode:
    """``episode`` with its instruction ablated by ``mode`` (see the module docstring);
    ``"original"`` gives any episode back as it is; a goal task's runs
    :data:`GOAL_INSTRUCTION_MODES`.

    Raises:
        EvalError: for an unknown mode, ``no-mapping`` on a suite whose instruction does not
            state the mapping, or a mode a goal task has no use for.
    """
    if mode not in INSTRUCTION_MODES:
        raise EvalError(
            f"unknown instruction mode {mode!r}; valid choices: {', '.join(INSTRUCTION_MODES)}"
        )
    if episode.binding is None:
        return _ablate_goal(episode, problem, mode)
    if mode == "original":
        return episode
    extra = {**episode.extra, "variant": mode}
    if mode == "blank":
        return dataclasses.replace(episode, instruction="", extra=extra)
    if mode == DIRECT:
        return dataclasses.replace(
            episode, instruction=direct_instruction(problem, episode), extra=extra
        )
    if mode == "tokens":
        words = vocabulary()
        picks = _rng(episode, mode).integers(len(words), size=len(episode.instruction.split()))
        text = " ".join(words[int(i)] for i in picks)
        return dataclasses.replace(episode, instruction=text, extra=extra)
    from rsb_mj.episodes.instructions import template_of

    template = template_of(problem, episode.template_id)
    if mode == "command-only":
        return dataclasses.replace(episode, instruction=command_part(template.text), extra=extra)
    if mode == "no-mapping":
        if style(episode.choices) != "colors":
            raise EvalError(
                f"instruction mode no-mapping: {episode.suite} instructions do not state the "
                "option->object mapping (the letters are painted on the objects); it applies "
                f"to tasks of up to {MAX_COLORED} choices"
            )
        text = without_mapping(template.text)
        instruction = _fill_q(problem, episode, text)
        return dataclasses.replace(episode, instruction=instruction, extra=extra)
    # shuffled-options: a seeded derangement of the letters
    letters = episode.letters
    rng = _rng(episode, mode)
    while True:
        order = rng.permutation(len(letters))
        if not np.any(order == np.arange(len(letters))):
            break
    options = tuple(episode.options[int(k)] for k in order)
    mapping = {letters[i]: episode.mapping[letters[int(k)]] for i, k in enumerate(order)}
    correct = letters[int(np.flatnonzero(order == letters.index(episode.correct))[0])]
    instruction = _rendered(problem, episode, options=options, mapping=mapping)
    return episode.rebound(
        options=options,
        mapping=mapping,
        correct=correct,
        instruction=instruction,
        extra=extra,
    )


def _fill_q(problem: Problem, episode: Episode, text: str) -> str:
    """Render ``text`` (a template with only ``{Q}`` left) with the episode's question."""
    from rsb_mj.episodes.instructions import instruction_values
    from rsb_mj.episodes.templates import Template, render

    values = instruction_values(
        problem, episode.question, episode.options, episode.mapping, episode.colors
    )
    return " ".join(render(Template("no-mapping", text, "", 0), values).split())


def counterfactual_twin(episode: Episode, problem: Problem, rows: tuple[Episode, ...]) -> Episode:
    """The twin of ``episode`` (row i of ``rows``): same scene and template, the question of
    the first later row whose correct letter differs (see the module docstring).

    Raises:
        EvalError: when no other row of the table has a different correct letter.
    """
    n = len(rows)
    for step in range(1, n):
        other = rows[(episode.index + step) % n]
        if other.correct != episode.correct and other.question_id != episode.question_id:
            break
    else:
        raise EvalError(f"{episode.suite}: no row with another correct option for a twin")
    extra = {
        **episode.extra,
        "variant": COUNTERFACTUAL,
        "counterfactual_of": episode.index,
        "question_row": other.index,
    }
    changes = {"question": other.question, "options": other.options}
    return episode.rebound(
        question_id=other.question_id,
        question=other.question,
        options=other.options,
        correct=other.correct,
        instruction=_rendered(problem, episode, **changes),
        extra=extra,
    )
