"""Chain-of-thought rationales for training episodes (RSB Appendix D, ReasoningVLA).

A rationale is a short text that reasons from the question to the block to move: the
computation or the answer, the option that matches it, and the candidate that option maps
to. It is made offline and deterministically from the episode row and the question source,
never for the eval split, and checked against the episode's answer: a rationale whose answer
is not the correct option's text is a build error, never a training sample.

* Math (``arith-OP-A-B``): ``"27 minus 17 is 10; option B is 10; B is the green block."``
* HardMath (``gsm8k-train-ROW``): GSM8K's own worked solution with the calculator
  annotations (``<<16-3-4=9>>``) removed and the ``#### N`` line as ``"the answer is N"``,
  then the matched option and block.
* General (``mmlu_pro-ID``, ``mmlu-SUBJECT-ROW``) and every other fixed source:
  ``"the answer is <answer text>; option C is <answer text>; C is the cyan block."`` (the
  shipped MMLU-Pro copy has no ``cot_content``).
* Candidates that show their answers (Act2Answer plates): ``"the answer is Paris; the
  left plate shows it."`` (no letters to name).

:func:`training_prompt` writes the instruction followed by ``<think>rationale</think>``.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import TYPE_CHECKING

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.instructions import noun_of
from rsb_mj.episodes.numeric import normalize_number
from rsb_mj.episodes.sources import source_of
from rsb_mj.episodes.sources.base import questions_dir, read_lines
from rsb_mj.errors import EpisodeError

_ARITH = re.compile(r"^arith-(add|sub|mul)-(\d+)-(\d+)$")
_WORDS = {"add": "plus", "sub": "minus", "mul": "times"}
_CALC = re.compile(r"<<[^<>]*>>")

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem


def object_phrase(episode: Episode, problem: Problem, letter: str) -> str:
    """How the instruction names option ``letter``'s candidate: ``"the green block"``, or
    ``"the block lettered C"`` when every candidate has one colour (ten choices)."""
    obj = episode.mapping[letter]
    noun = noun_of(problem, obj)
    if len(set(episode.colors.values())) == 1:
        return f"the {noun} lettered {letter}"
    return f"the {episode.colors[obj]} {noun}"


@cache
def _gsm8k_solutions(part: str) -> tuple[str, ...]:
    path = questions_dir() / "gsm8k" / f"{part}.jsonl.gz"
    return tuple(json.loads(line)["answer"] for line in read_lines(path))


def _reasoning(episode: Episode) -> tuple[str, str]:
    """(the reasoning text, the answer it reaches) for the episode's question."""
    qid = episode.question_id
    arith = _ARITH.match(qid)
    if arith:
        op, a, b = arith.group(1), int(arith.group(2)), int(arith.group(3))
        value = str({"add": a + b, "sub": a - b, "mul": a * b}[op])
        return f"{a} {_WORDS[op]} {b} is {value}", value
    if qid.startswith("gsm8k-"):
        _, part, row = qid.split("-")
        solution = _gsm8k_solutions(part)[int(row)]
        steps, final = solution.rsplit("####", 1)
        value = normalize_number(final)
        text = " ".join(_CALC.sub("", steps).split())
        return f"{text} the answer is {value}", value

    try:
        answer = source_of(qid).get(qid).answer
    except EpisodeError:
        raise EpisodeError(f"{qid}: no rationale rule for this question source") from None
    return f"the answer is {answer}", answer


def rationale(episode: Episode, problem: Problem) -> str:
    """The rationale of a training episode (see the module docstring).

    Raises:
        EpisodeError: for an eval episode, a question source without a rule, or a rationale
            whose answer is not the correct option's text.
    """
    if episode.split != "train":
        raise EpisodeError(
            f"{episode.suite} {episode.split} {episode.index}: rationales are made for the "
            "train split only (eval answers never reach training data)"
        )
    reasoning, value = _reasoning(episode)
    correct_text = episode.options[episode.letters.index(episode.correct)]
    if value != correct_text:
        raise EpisodeError(
            f"{episode.suite} {episode.split} {episode.index}: the rationale reaches "
            f"{value!r}, but the correct option {episode.correct} is {correct_text!r}"
        )
    letter = episode.correct
    shown = correct_text.rstrip(". ")
    if episode.extra.get("plates"):  # the candidates show their answers, not letters
        x = episode.layout[episode.target].x
        side = "left" if all(x <= p.x for p in episode.layout.values()) else "right"
        return f"{reasoning.rstrip('. ')}; the {side} {noun_of(problem, episode.target)} shows it."
    phrase = object_phrase(episode, problem, letter)
    return f"{reasoning.rstrip('. ')}; option {letter} is {shown}; {letter} is {phrase}."


def training_prompt(episode: Episode, problem: Problem) -> str:
    """The instruction followed by ``<think>rationale</think>`` (ReasoningVLA's prompt)."""
    return f"{episode.instruction} <think>{rationale(episode, problem)}</think>"
