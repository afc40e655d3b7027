"""The instruction of an episode: which templates a task's split draws from, and how the
question, options and mapping fill them.

* :func:`templates_for`: the shipped set the task's ``(:instruction (:templates ...))``
  selects for a split (``seen_4.txt`` ...), or its own template file; for candidates that
  show their answers (:func:`shows_answers`), the answer templates of the question's form
  (``a2a-unseen-text.txt``: ``{Q}`` only);
* :func:`display_text`: a question that ends mid-sentence gets a blank;
* :func:`instruction_values` / :func:`render_instruction`: the placeholder values and the
  filled, whitespace-collapsed instruction.

The draw itself (which template) is the sampler's (:mod:`rsb_mj.episodes.sampler`).
"""

from __future__ import annotations

from rsb_mj.choices import ANSWER_PLACEHOLDERS, LETTERS, map_placeholder, placeholders, style
from rsb_mj.episodes.sources import check_split
from rsb_mj.episodes.templates import (
    TEMPLATE_SETS,
    Template,
    load_answer_templates,
    load_template_file,
    load_templates,
    option_list,
    render,
    template_by_id,
)
from rsb_mj.errors import EpisodeError, TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.display import shows_answers as candidates_show_answers
from rsb_mj.lang.task import Task, task_of

#: What the sampler accepts: a parsed task or its typed view.
TaskLike = Problem | Task


def as_task(task: TaskLike) -> Task:
    """The typed :class:`~rsb_mj.lang.task.Task` of ``task``, one with a question part
    (:attr:`~rsb_mj.lang.task.Task.question`).

    Raises:
        EpisodeError: when the task has no question block.
    """
    try:
        view = task if isinstance(task, Task) else task_of(task)
        view.asked()
    except TaskError as exc:
        raise EpisodeError(str(exc)) from None
    return view


def shows_answers(task: TaskLike) -> bool:
    """True when the task's candidates show their options' answers (answer plates,
    :func:`rsb_mj.lang.display.shows_answers`): the instruction then neither lists the
    options nor maps them to candidates."""
    return candidates_show_answers(as_task(task).problem)


def template_set_for(task: TaskLike, split: str, templates: str | None = None) -> str:
    """Which shipped template set an episode uses (``""`` for the task's template file).

    ``templates`` if given (an override, e.g. ``rsb eval --templates``); otherwise what the
    task's ``(:instruction (:templates ...))`` selects for ``split`` (the six suites:
    ``(:train seen) (:eval unseen)``; a task without the block: the same).
    """
    spec = as_task(task).asked().templates_for(check_split(split))
    chosen = templates if templates is not None else spec.set_name
    if chosen is None:
        return ""
    if chosen not in TEMPLATE_SETS:
        raise EpisodeError(
            f"unknown template set {chosen!r}; valid choices: {', '.join(TEMPLATE_SETS)}"
        )
    return chosen


def templates_for(
    task: TaskLike, split: str, templates: str | None = None, form: str = "question"
) -> tuple[Template, ...]:
    """The templates an episode of ``split`` draws from (see :func:`template_set_for`); for
    candidates that show their answers, those of the question's ``form``."""
    view = as_task(task)
    asked = view.asked()
    chosen = template_set_for(view, split, templates)
    answers = shows_answers(view)
    if chosen:
        if answers:
            return load_answer_templates(chosen, form, asked.choices)
        return load_templates(chosen, asked.choices)
    file = asked.templates_for(split).file
    assert file is not None
    return load_template_file(file, asked.choices, answers)


#: Last characters that end a question as written; other questions are sentence stems.
_QUESTION_ENDS = (".", "?", "!", ":", ";", ")", '"', "'", "\u201d", "\u2019", "_")


def display_text(text: str) -> str:
    """The question as the instruction shows it: a stem that ends mid-sentence ("The issue
    that precipitated the passage excerpted above was", "The element (4, 2) of Z_12 x Z_8
    has order") gets a blank, ``" ___."``, so the instruction's next sentence does not run
    on from it. Every question gets it, whatever its family; a description of the target
    (``Question.form == "target"``, "the orange hexagon") is not a sentence and is shown as
    written."""
    return text if text.endswith(_QUESTION_ENDS) else f"{text} ___."


def template_of(task: TaskLike, template_id: str) -> Template:
    """The template ``template_id`` of an episode of ``task``: a shipped one
    (``unseen-4-03``) or one of the task's own template files (``mine-6-00``).

    Raises:
        EpisodeError: for an id in neither.
    """
    try:
        return template_by_id(template_id)
    except EpisodeError:
        asked = as_task(task).asked()
        for _, spec in asked.templates:
            if spec.file is not None:
                for template in load_template_file(spec.file, asked.choices):
                    if template.id == template_id:
                        return template
        raise


def noun_of(task: TaskLike, obj: str) -> str:
    """The noun instructions use for ``obj`` ("block" for a letter_block)."""
    return as_task(task).asked().noun(obj)


def instruction_values(
    problem: TaskLike,
    text: str,
    options: tuple[str, ...],
    mapping: dict[str, str],
    colors: dict[str, str],
) -> dict[str, str]:
    """The placeholder values of an instruction: ``Q`` (``colors`` style, up to 8 choices:
    with the options), ``OPTIONS``, and ``MAPA``.. (``"A is the red block"``) in the
    ``colors`` style (:mod:`rsb_mj.choices`); only ``Q``, the question as shown, for
    candidates that show their answers.

    Returns:
        Exactly :func:`rsb_mj.choices.placeholders` of the choice count (or
        :data:`~rsb_mj.choices.ANSWER_PLACEHOLDERS`), in its order: the placeholders the
        template linter accepts are the ones filled here.
    """
    if shows_answers(problem):
        return {name: text for name in ANSWER_PLACEHOLDERS}
    values = {"OPTIONS": option_list(options)}
    if style(len(options)) == "colors":
        listed = option_list(options)
        end = "" if listed.endswith((".", "?", "!")) else "."
        values["Q"] = f"{text} options: {listed}{end}"
        for letter in LETTERS[len(options)]:
            obj = mapping[letter]
            phrase = f"{letter} is the {colors[obj]} {noun_of(problem, obj)}"
            values[map_placeholder(letter)] = phrase
    else:
        values["Q"] = text
    return {name: values[name] for name in placeholders(len(options))}


def render_instruction(
    problem: TaskLike,
    template: Template,
    text: str,
    options: tuple[str, ...],
    mapping: dict[str, str],
    colors: dict[str, str],
) -> str:
    """The instruction ``template`` gives for a question shown as ``text`` (whitespace
    collapsed), its options, and the option->candidate mapping and colours."""
    values = instruction_values(problem, text, options, mapping, colors)
    return " ".join(render(template, values).split())


__all__ = [
    "TaskLike",
    "as_task",
    "display_text",
    "instruction_values",
    "noun_of",
    "render_instruction",
    "shows_answers",
    "template_of",
    "template_set_for",
    "templates_for",
]
