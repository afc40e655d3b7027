"""Run the lint rules over task files and template files.

``lint_problem`` checks a parsed problem; ``lint_text``/``lint_file`` add the syntax step;
``load_task`` is what the later stages call: parse, lint, and raise on any error;
``check_runnable`` is the gate a goal task passes before anything runs it (``rsb eval``,
``rsb demos``, the vla-eval plugin, the goal environment): the same rules decide what ``rsb
lint`` reports and what runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from rsb_mj.lang import templates
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.diagnostics import Diagnostic, TaskFileError
from rsb_mj.lang.files import is_template_file
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.parser import parse_source, read_source
from rsb_mj.lang.rules import RULES, Context
from rsb_mj.lang.task import Task, task_of, tier_of

__all__ = [
    "FOREIGN_SCENE",
    "RUN_TARGET",
    "TARGETS",
    "check_runnable",
    "lint_file",
    "lint_problem",
    "lint_source",
    "lint_text",
    "load_goal_task",
    "load_task",
]

#: The code of the rule listing what the question environment cannot build
#: (``target="question"``).
FOREIGN_SCENE = "RSB510"


def _sort_key(d: Diagnostic) -> tuple[int, int, str]:
    return (d.span.line, d.span.column, d.code)


#: What ``target`` may be: None (the file as it declares itself), ``"rsb"`` (a scene rsb_mj
#: must build and run: a goal task of a tier rsb_mj does not build is an error, RSB530) or
#: ``"question"`` (a question scene, what :class:`rsb_mj.env.RsbEnv` asks: a LIBERO file then
#: lists what it lacks as RSB510).
TARGETS = ("rsb", "question")


def lint_problem(
    problem: Problem, path: str | None = None, *, target: str | None = None
) -> list[Diagnostic]:
    """All findings of the semantic rules (RSB2xx-RSB5xx) that apply to ``problem``'s family
    (:attr:`rsb_mj.lang.rules.base.Rule.applies_to`), in source order."""
    ctx = Context(problem, path if path is not None else problem.path, target)
    for rule in RULES.values():
        if rule.check is not None and rule.applies(ctx.family):
            rule.check(ctx)
    return sorted(ctx.diagnostics, key=_sort_key)


def lint_text(
    text: str, path: str = "<string>", *, target: str | None = None
) -> tuple[Problem | None, list[Diagnostic]]:
    """Parse and lint ``text``; the problem is None when it does not parse."""
    problem, diagnostics = parse_source(text, path)
    if problem is None:
        return None, diagnostics
    return problem, lint_problem(problem, path, target=target)


def lint_file(
    path: str | Path, *, target: str | None = None
) -> tuple[str | None, list[Diagnostic]]:
    """Lint one task file (``*.bddl``) or template file (``templates/**/*.txt``).

    Returns:
        The file's text (None if unreadable) and its diagnostics.
    """
    path = Path(path)
    text, diagnostics = read_source(path)
    if text is None:
        return None, diagnostics
    return text, lint_source(text, path, target=target)[1]


def lint_source(
    text: str, path: str | Path, *, target: str | None = None
) -> tuple[Problem | None, list[Diagnostic]]:
    """Lint ``text`` as the contents of the file at ``path`` (what :func:`lint_file` does after
    reading it; an editor's unsaved buffer): a template file (``templates/**/*.txt``) by the
    template rules, anything else as a task file. Relative ``(:file ...)`` references resolve
    against the folder of ``path``.

    Returns:
        The problem (None for a template file or a task that does not parse) and the findings.
    """
    path = Path(path)
    if path.suffix == ".jsonl":
        return None, _question_bank(path)
    if is_template_file(path):
        choices = templates.choices_from_name(path.name)
        if choices is None:
            return None, [templates.choice_count_unknown(str(path))]
        return None, templates.lint_template(text, str(path), choices)
    return lint_text(text, str(path), target=target)


def _question_bank(path: Path) -> list[Diagnostic]:
    """``rsb lint BANK.jsonl``: say that a question bank is linted with the task that names
    it (where ``:choices`` and the splits are known), then its own lines' problems."""
    # deferred: it brings in rsb_mj.episodes and numpy, which linting task files never needs
    from rsb_mj.episodes.sources.bank import load_bank

    spec = RULES["RSB453"]
    if _is_episode_table(path):
        return [
            Diagnostic(
                "RSB101",
                RULES["RSB101"].name,
                "error",
                f"{path.name} is an episode table (JSON lines), not a task file; check it with "
                "rsb episodes check (or rsb audit --table FILE)",
                str(path),
                Span(1, 1, 1, 2),
            )
        ]
    naming = sorted(
        str(task)
        for task in path.parent.glob("*.bddl")
        if f'"{path.name}"' in task.read_text(encoding="utf-8", errors="replace")
    )
    how = (
        f"rsb lint {' '.join(naming)}"
        if naming
        else f'rsb lint TASK.bddl, for a task with (:source (:file "{path.name}"))'
    )
    first = Diagnostic(
        spec.code,
        spec.name,
        spec.severity,
        f"{path.name} is a question bank (JSON lines), not a task file; it is linted with "
        f"the task that names it: {how}",
        str(path),
        Span(1, 1, 1, 2),
    )
    own = [
        Diagnostic(spec.code, spec.name, spec.severity, message, str(path), Span(line, 1, line, 2))
        for line, message in load_bank(path).problems
    ]
    return [first, *own]


def _is_episode_table(path: Path) -> bool:
    """Whether the first line of ``path`` is an episode (a row of an episode table)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            row = json.loads(fh.readline(1 << 20) or "null")
    except (OSError, ValueError):
        return False
    return isinstance(row, dict) and {"suite", "seed", "index"} <= set(row)


def load_task(path: str | Path, *, target: str | None = None) -> Problem:
    """Parse and lint the task file at ``path``; warnings are allowed, errors are not.

    Args:
        path: the task file.
        target: ``"rsb"`` to require a scene rsb_mj can build and run (a goal task of a
            tier rsb_mj does not build fails, RSB530); ``"question"`` to require a question
            scene (what the question environment asks): a LIBERO / VLA-Arena file then
            fails with every part it lacks (RSB510).

    Raises:
        TaskFileError: (a :class:`~rsb_mj.errors.TaskError`) listing every error diagnostic
            as ``path:line:col: CODE name: message``; with ``target="question"`` and RSB510
            findings, a first line says that rsb_mj cannot build the scene.
    """
    text, diagnostics = read_source(path)
    if text is None:
        raise TaskFileError(diagnostics)
    problem, diagnostics = lint_text(text, str(path), target=target)
    errors = [d for d in diagnostics if d.is_error]
    if problem is None or errors:
        foreign = sum(d.code == FOREIGN_SCENE for d in errors)
        summary = (
            f"{path}: rsb_mj cannot build this scene ({foreign} part"
            f"{'s' if foreign != 1 else ''} listed below as {FOREIGN_SCENE}); it reads "
            "LIBERO / VLA-Arena files but builds only rsb scenes: a table, rsb object "
            "categories, :candidates and a :question"
            if foreign
            else None
        )
        raise TaskFileError(errors, summary)
    return problem


#: The target a goal task is checked against before it runs: the scene rsb_mj builds
#: (``rsb lint --target rsb``).
RUN_TARGET = "rsb"

#: Problems already found runnable, by id (the problem kept to tell a reused id apart).
_RUNNABLE: dict[int, Problem] = {}


def check_runnable(task: str | Path | Problem) -> Problem:
    """The goal task file (a path) or parsed problem ``task``, refused when ``rsb lint
    --target rsb`` reports an error for it: one classifier for what lint rejects and what
    does not run (``rsb eval``, ``rsb demos``, the vla-eval plugin, the goal environment
    call it through :func:`load_goal_task`). Warnings pass. A problem
    once found runnable is not linted again (memoized per object).

    Raises:
        TaskFileError: every error finding, ``path:line:col: CODE name: message``, under a
            first line naming the file: ``rsb_mj cannot build this scene (tier T):`` when
            a finding is the tier's (RSB530), else the count of lint errors and that the
            file does not run.
    """
    if not isinstance(task, Problem):
        text, diagnostics = read_source(task)
        if text is None:
            raise TaskFileError(diagnostics)
        problem, diagnostics = lint_text(text, str(task), target=RUN_TARGET)
        if problem is None:
            raise TaskFileError([d for d in diagnostics if d.is_error])
    else:
        problem = task
        if _RUNNABLE.get(id(problem)) is problem:
            return problem
        diagnostics = lint_problem(problem, target=RUN_TARGET)
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise TaskFileError(errors, _refusal(problem, errors))
    if len(_RUNNABLE) > 64:
        _RUNNABLE.clear()
    _RUNNABLE[id(problem)] = problem
    return problem


def load_goal_task(task: str | Path | Problem | Task) -> Task:
    """The goal task of a path, a parsed problem or a goal task, refused unless it would
    run: the gate of every path that runs a goal task file (``rsb eval``, ``rsb demos``,
    the vla-eval plugin, :class:`rsb_mj.env.rsb_env.RsbEnv` and so gymnasium's ``make``),
    :func:`check_runnable`: a file ``rsb lint --target rsb`` reports an error for does not
    run (a tier rsb_mj does not build is RSB530), and a lint-clean file does.

    Raises:
        TaskError: a question task, or (a :class:`~rsb_mj.lang.diagnostics.TaskFileError`)
            a syntax error or the itemised list of the file's lint errors,
            ``path:line:col: CODE name: message`` each, under a line naming the file (and
            its tier when rsb_mj does not build it).
    """
    if isinstance(task, Task):
        return task_of(check_runnable(task.problem), expect="goal")
    return task_of(check_runnable(task), expect="goal")


def _refusal(problem: Problem, errors: list[Diagnostic]) -> str:
    """The first line of a refused goal task's message."""
    path = errors[0].path
    if any(d.code == "RSB530" for d in errors):
        return f"{path}: rsb_mj cannot build this scene (tier {tier_of(problem)}):"
    n = len(errors)
    return (
        f"{path}: {n} lint error{'s' if n != 1 else ''} (rsb lint --target rsb {path}); "
        "a task file with lint errors does not run:"
    )
