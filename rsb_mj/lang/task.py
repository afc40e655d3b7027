"""The typed task view: what the sampler, scene and scoring read of a task file.

:class:`Task` is built once from a parsed (and linted) :class:`~rsb_mj.lang.ast.Problem` by
:func:`task_of`; it resolves what the AST leaves as written: the question source with its
parameters and the question bank path, the instruction templates of each split (a shipped
set or a template file, paths relative to the task file and inside its folder: see
:mod:`rsb_mj.lang.files`), the option map, the answer-zone
regions and the candidates' nouns. Later stages take a ``Task`` (or a ``Problem``, which they
turn into one with :func:`task_of`), never an untyped object.

Which family a task is, is decided here and nowhere else: :func:`task_family` (``"question"``
or ``"goal"``) and the predicate semantics that go with it, :func:`task_semantics`
(``"rsb"``, ``"libero"`` or ``"vla_arena"``). The pipeline (source resolution, the scorer's
choice), the linter (which rules run: :attr:`rsb_mj.lang.rules.base.Rule.applies_to`) and
the language server's completion call them (``docs/architecture.md``, "The task family").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rsb_mj.errors import TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.blocks import FILE_SOURCE, SourceParam
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.files import ReferencedFileError, resolve_referenced, task_folder
from rsb_mj.lang.nodes import Span

#: The two task families: a question task binds ``?answer`` per episode to the candidate of
#: the correct option; a goal task (LIBERO, VLA-Arena, a user's "put the bowl on the plate")
#: has a fixed :goal.
Family = Literal["question", "goal"]
FAMILIES: tuple[Family, ...] = ("question", "goal")
#: The domain of question tasks (rsb's own vocabulary: letter blocks, answer plates).
QUESTION_DOMAIN = "rsb"


def family(domain: str | None, has_question: bool) -> Family:
    """The family of a task that declares ``(:domain domain)`` (None: no ``:domain``) and
    has (``has_question``) or lacks a ``(:question ...)`` block: the one rule.

    A task is a question task when it asks a question or declares rsb's domain; every other
    task (``(:domain robosuite)``, another domain or none, without a question) is a goal
    task. A ``(:domain rsb)`` file without a question is therefore a question task missing
    its ``:question``: ``rsb lint`` reports RSB401 and the pipeline refuses it with the
    missing block named, rather than running it as a goal task the linter never checked.
    """
    if has_question or (domain or "").lower() == QUESTION_DOMAIN:
        return "question"
    return "goal"


def task_family(problem: Problem) -> Family:
    """The family of ``problem`` (:func:`family` of its ``:domain`` and ``:question``)."""
    return family(problem.domain, problem.question is not None)


def task_semantics(problem: Problem) -> str:
    """Whose predicate semantics score ``problem``: ``"rsb"`` for a question task (the first
    grasp is the choice), else ``"libero"`` for a LIBERO problem (its name starts with
    ``LIBERO``; ``On`` within 0.03 m) or ``"vla_arena"`` (VLA-Arena's and users' own goal
    tasks; ``On`` within 0.07 m: :data:`rsb_mj.lang.goal_task.SEMANTICS`)."""
    if task_family(problem) == "question":
        return "rsb"
    return "libero" if problem.name.upper().startswith("LIBERO") else "vla_arena"


#: Template sets used when a task has no ``:instruction`` block (the RSB paper's protocol).
DEFAULT_TEMPLATES = {"train": "seen", "eval": "unseen"}


@dataclass(frozen=True)
class SourceSpec:
    """Where a task's questions come from.

    Attributes:
        name: a built-in source (``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu``) or
            ``"file"`` for a question bank.
        params: the built-in source's parameters as written (``(:subject "biology")``).
        file: the question bank, resolved against the task file's folder, or None.
    """

    name: str
    params: tuple[SourceParam, ...] = ()
    file: Path | None = None


@dataclass(frozen=True)
class TemplateSpec:
    """The instruction templates of one split: a shipped set or a template file.

    Attributes:
        set_name: ``"seen"`` or ``"unseen"`` (``tasks/templates/{set}_{N}.txt``), or None.
        file: a template file resolved against the task file's folder, or None.
    """

    set_name: str | None = None
    file: Path | None = None


@dataclass(frozen=True)
class Task:
    """A task file as the runtime reads it.

    Attributes:
        problem: the parsed task (regions, objects, expressions for the scene and scoring).
        path: the task file path (``"<string>"`` for text).
        candidates: candidate object names, declaration order.
        choices: options per episode (2..10).
        source: the question source (:class:`SourceSpec`).
        templates: ``(("train", spec), ("eval", spec))``: the templates of each split.
        option_pairs: a fixed ``(:map (A obj) ...)`` as letter/object pairs, or None when
            the mapping is shuffled per episode.
        answer_zones: full names of the answer-zone regions.
        nouns: candidate -> the noun instructions use ("block", "lemon").
    """

    problem: Problem
    path: str
    candidates: tuple[str, ...]
    choices: int
    source: SourceSpec
    templates: tuple[tuple[str, TemplateSpec], ...]
    option_pairs: tuple[tuple[str, str], ...] | None
    answer_zones: tuple[str, ...]
    nouns: tuple[tuple[str, str], ...]

    def templates_for(self, split: str) -> TemplateSpec:
        """The template selection of ``split`` (``"train"`` or ``"eval"``)."""
        return dict(self.templates)[split]

    def noun(self, obj: str) -> str:
        """The noun instructions use for candidate ``obj``."""
        return dict(self.nouns)[obj]

    @property
    def folder(self) -> Path:
        """The folder relative paths of the task file are read from."""
        return task_folder(self.path)


def _noun(category: str) -> str:
    info = RSB_CATEGORIES.get(category)
    return info.noun if info is not None else category.replace("_", " ")


def _referenced(path: str, name: str, what: str, span: Span) -> Path:
    """A file the task names, checked (:func:`rsb_mj.lang.files.resolve_referenced`); a
    missing one is left to its reader, which says so.

    Raises:
        TaskError: ``path:line:col: ...`` for a file outside the task's folder (and every
            allowed root), not a regular file, or over the size cap.
    """
    try:
        return resolve_referenced(path, name, what)
    except ReferencedFileError as exc:
        if exc.kind == "missing":
            return task_folder(path) / name
        raise TaskError(f"{path}:{span.line}:{span.column}: {exc}") from None


def task_of(problem: Problem) -> Task:
    """The :class:`Task` of ``problem`` (memoized per problem object).

    Raises:
        TaskError: when the task has no ``(:question (:source S) (:choices N))`` or names a
            candidate that is not declared.
    """
    cached = _CACHE.get(id(problem))
    if cached is not None and cached[0] is problem:
        return cached[1]
    task = _build(problem)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(problem)] = (problem, task)
    return task


_CACHE: dict[int, tuple[Problem, Task]] = {}


def _build(problem: Problem) -> Task:
    path = str(problem.path)
    q = problem.question
    if q is None or q.source is None or q.choices is None:
        raise TaskError(f"{path}: task has no (:question (:source S) (:choices N)) block")
    file = None
    if q.source == FILE_SOURCE and q.file is not None:
        file = _referenced(path, q.file, "question bank", q.source_span)
    source = SourceSpec(q.source, q.params, file)
    templates = []
    for split, default in DEFAULT_TEMPLATES.items():
        chosen = problem.instruction.for_split(split) if problem.instruction else None
        if chosen is None:
            spec = TemplateSpec(default)
        elif chosen.file is not None:
            spec = TemplateSpec(None, _referenced(path, chosen.file, "template file", chosen.span))
        else:
            spec = TemplateSpec(chosen.set_name)
        templates.append((split, spec))
    options = problem.options
    pairs = options.pairs if options is not None and options.rule == "fixed" else None
    candidates = problem.candidates
    nouns = tuple((c, _noun(problem.category_of(c))) for c in candidates)
    return Task(
        problem=problem,
        path=path,
        candidates=candidates,
        choices=int(q.choices),
        source=source,
        templates=tuple(templates),
        option_pairs=pairs,
        answer_zones=problem.answer_zone_names,
        nouns=nouns,
    )
