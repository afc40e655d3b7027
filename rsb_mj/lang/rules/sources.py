"""RSB450-RSB457: question sources, template selection and the answer zone of an rsb task.

The checks read the runtime's own registries: source parameters
(:mod:`rsb_mj.episodes.sources.params`), the question-bank reader
(:mod:`rsb_mj.episodes.sources.bank`) and the template linter, so a file these rules pass
draws its episodes. Paths in ``(:file "...")`` are relative to the task file.
"""

from __future__ import annotations

from pathlib import Path

from rsb_mj.choices import CHOICE_COUNTS
from rsb_mj.errors import did_you_mean
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.display import shows_answers
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import RULES, Context, rule
from rsb_mj.lang.rules.references import usable_reference
from rsb_mj.splits import EVAL_ROWS, TRAIN_ROWS


def _report_in(ctx: Context, code: str, message: str, path: Path, line: int) -> None:
    """A finding located in another file (a question bank, a template file)."""
    spec = RULES[code]
    span = Span(line, 1, line, 2)
    ctx.diagnostics.append(
        Diagnostic(spec.code, spec.name, spec.severity, message, str(path), span, None)
    )


def _choices(ctx: Context) -> int | None:
    q = ctx.problem.question
    return int(q.choices) if q is not None and q.choices in CHOICE_COUNTS else None


@rule(
    "RSB450",
    "repeated-property",
    "error",
    bad="(:question (:source arithmetic) (:choices 4) (:choices 6))",
    good="(:question (:source arithmetic) (:choices 6))",
)
def repeated_property(ctx: Context) -> None:
    """A second ``(:source ...)`` or ``(:choices ...)`` in ``:question``, or a second
    ``(:templates ...)`` in ``:instruction``: only one can hold, so the repeat is an error at
    its position (the runtime keeps the first)."""
    p = ctx.problem
    for block, node in (("question", p.question), ("instruction", p.instruction)):
        for span in node.repeated if node is not None else ():
            ctx.report("RSB450", f"a repeated property in :{block}; give each one once", span)


@rule(
    "RSB451",
    "unknown-source-parameter",
    "error",
    bad='(:source (mmlu_pro (:topic "biology")))',
    good='(:source (mmlu_pro (:subject "biology")))',
)
def unknown_source_parameter(ctx: Context) -> None:
    """A parameter the question source does not take. arithmetic: ``:operators``,
    ``:operand_range``, ``:multiplier_range``; gsm8k: ``:answer_range``; mmlu_pro and mmlu:
    ``:subject``, ``:group`` (stem, humanities, social_sciences, other)."""
    _check_params(ctx, "unknown", "RSB451")


@rule(
    "RSB452",
    "bad-source-parameter",
    "error",
    bad="(:source (gsm8k (:answer_range 100 0)))",
    good="(:source (gsm8k (:answer_range 0 100)))",
)
def bad_source_parameter(ctx: Context) -> None:
    """A source parameter with a bad value: an unknown subject or group, a range that is not
    two whole numbers LO <= HI within +-1e6 (operand ranges: not negative, spanning at least
    10; multiplier ranges: from 1), or a parameter given twice."""
    _check_params(ctx, "value", "RSB452")


def _check_params(ctx: Context, kind: str, code: str) -> None:
    q = ctx.problem.question
    if q is None or q.file is not None or not q.params:
        return  # checked before the import: it brings in rsb_mj.episodes (and numpy)
    from rsb_mj.episodes.sources.params import SOURCE_PARAMS, check_params

    if q.source not in SOURCE_PARAMS:
        return
    for problem in check_params(q.source, q.params):
        if problem.code == kind:
            ctx.report(code, problem.message, q.params[problem.index].span, problem.fix)


@rule(
    "RSB453",
    "question-bank",
    "error",
    bad='(:source (:file "questions.jsonl"))  ; a line without "answer"',
    good='{"question": "Capital of Peru?", "options": ["Lima", "Quito", "Bogota", "Santiago"], '
    '"answer": "Lima"}  ; (:choices 4): at least 4 options',
)
def question_bank(ctx: Context) -> None:
    """A question bank (``(:source (:file "questions.jsonl"))``) that is missing, or has a line
    that breaks the schema (JSON object with ``question``, ``options``, ``answer``, optional
    ``subject``, ``split``, ``id``), a duplicate, a question with fewer options than
    ``:choices``, or no question of a split. Each finding points at its line of the bank;
    when no question has enough options for ``:choices``, one finding points at the task's
    ``(:choices N)`` instead. ``rsb lint BANK.jsonl`` says which task to lint, and checks the
    bank's lines."""
    q = ctx.problem.question
    if q is None or q.file is None:
        return  # checked before the import: it brings in rsb_mj.episodes (and numpy)
    # deferred: rsb_mj.episodes (and numpy), only for a task that names a question bank
    from rsb_mj.episodes.sources.bank import load_bank

    path = usable_reference(ctx, q.file, "question bank")
    if path is None:
        return  # outside the task's folder, or not a regular file: RSB470/RSB471 say why
    if not path.is_file():
        ctx.report("RSB453", f"question bank {q.file!r} not found (looked in {path})", q.span)
        return
    bank = load_bank(path)
    choices = _choices(ctx)
    short = bank.too_few_options(choices) if choices else []
    if short and len(short) == len(bank.questions):  # one cause: the task's :choices
        most = max(len(question.distractors) + 1 for question in bank.questions)
        ctx.report(
            "RSB453",
            f"(:choices {choices}) needs questions of at least {choices} options, and no "
            f"question of {q.file} has more than {most} (all {len(short)} have fewer): lower "
            f":choices to {most} or give the questions more options",
            q.choices_span if q.choices_span.line else q.span,
        )
        short = []
    found = list(bank.problems) + short
    for line, message in sorted(found):
        if line:
            _report_in(ctx, "RSB453", message, path, line)
        else:
            ctx.report("RSB453", f"{q.file}: {message}", q.span)


#: A split of a question bank with fewer questions than this gets RSB459.
MIN_SPLIT_QUESTIONS = 5


@rule(
    "RSB459",
    "small-bank-split",
    "warning",
    bad='{"question": "Capital of Peru?", ..., "split": "eval"}  ; one of 2 eval questions',
    good="a bank with at least 5 questions in each split (a line without a split goes to eval "
    "about one time in 3)",
)
def small_bank_split(ctx: Context) -> None:
    """A question bank whose train or eval split holds fewer than 5 questions (none at all is
    RSB453): every row ``rsb eval`` draws for that split (500 eval, 1,000 train) asks one of
    them, so nearly all rows repeat a question, and ``rsb audit`` tests rows drawn from a
    handful of questions. The warning gives the split, its questions and the rows that
    repeat at least."""
    q = ctx.problem.question
    if q is None or q.file is None:
        return
    # deferred: rsb_mj.episodes (and numpy), only for a task that names a question bank
    from rsb_mj.episodes.sources.bank import load_bank

    path = usable_reference(ctx, q.file, "question bank")
    if path is None or not path.is_file():
        return  # RSB453/RSB470/RSB471 say why
    bank = load_bank(path)
    for split, rows in (("eval", EVAL_ROWS), ("train", TRAIN_ROWS)):
        pool = len(bank.pool(split))
        if 0 < pool < MIN_SPLIT_QUESTIONS:
            ctx.report(
                "RSB459",
                f"the {split} split of {q.file} holds {pool} of its {len(bank.questions)} "
                f"questions: the {rows} {split} rows rsb eval draws ask only these, so at "
                f'least {rows - pool} rows repeat a question; mark more questions "split": '
                f'"{split}" (at least {MIN_SPLIT_QUESTIONS})',
                q.source_span if q.source_span.line else q.span,
            )


@rule(
    "RSB455",
    "template-selection",
    "error",
    bad='(:instruction (:templates seen (:file "t.txt")))',
    good='(:instruction (:templates (:train seen) (:eval (:file "t.txt"))))',
)
def template_selection(ctx: Context) -> None:
    """A ``(:templates ...)`` that does not give one selection per split: either one
    (``seen``, ``unseen`` or ``(:file "t.txt")``) for both, or ``(:train X)`` and/or
    ``(:eval X)``; or a template file that is missing. A template file's own lines are
    checked like ``tasks/templates`` files for the task's choice count (RSB430-434, reported
    in that file; ``{Q}`` only when the candidates show their answers)."""
    # a cycle: lang.templates registers its rules in lang.rules, whose __init__ imports this
    from rsb_mj.lang.templates import lint_template

    i = ctx.problem.instruction
    if i is None:
        return
    plain = [c for c in i.choices if c.split is None]
    for split in ("train", "eval"):
        same = [c for c in i.choices if c.split == split]
        if len(same) > 1:
            ctx.report("RSB455", f"(:{split} ...) is given twice in :templates", same[1].span)
    if len(plain) > 1 or (plain and len(plain) != len(i.choices)):
        extra = plain[1] if len(plain) > 1 else plain[0]
        ctx.report(
            "RSB455",
            "give one template selection for both splits, or (:train X) and (:eval X)",
            extra.span,
        )
    choices = _choices(ctx)
    for choice in i.choices:
        if choice.file is None:
            continue
        path = usable_reference(ctx, choice.file, "template file")
        if path is None:
            continue  # outside the task's folder, or not a regular file: RSB470/RSB471
        if not path.is_file():
            ctx.report(
                "RSB455",
                f"template file {choice.file!r} not found (looked in {path})",
                choice.span,
            )
        elif choices is not None:
            text = path.read_text(encoding="utf-8", errors="replace")
            answers = shows_answers(ctx.problem)
            ctx.diagnostics.extend(lint_template(text, str(path), choices, answers))


@rule(
    "RSB456",
    "implicit-answer-zone",
    "warning",
    bad="(:regions (answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22)))))",
    good="(:regions (answer_zone ...))\n(:answer_zone table_answer_zone)",
    applies_to="question",
)
def implicit_answer_zone(ctx: Context) -> None:
    """An rsb task that relies on a region being *called* ``answer_zone`` instead of declaring
    its answer zone with ``(:answer_zone REGION)``. The name still works (deprecated); any
    region may be the answer zone once declared."""
    p = ctx.problem
    if p.answer_zone is None and p.answer_zone_names:
        names = " ".join(p.answer_zone_names)
        ctx.report(
            "RSB456",
            f"the answer zone is found by its name only; declare it: (:answer_zone {names})",
            p.answer_zone_regions[0].span,
            fix=f"(:answer_zone {names})",
        )


@rule(
    "RSB457",
    "unknown-answer-zone",
    "error",
    bad="(:answer_zone table_anwser_zone)",
    good="(:answer_zone table_answer_zone)",
)
def unknown_answer_zone(ctx: Context) -> None:
    """An ``(:answer_zone ...)`` that names no region with ``:ranges`` (or names none): the
    answer would have nowhere to go. (A goal ``(In ?answer REGION)`` on a region that is not
    the answer zone is RSB504.)"""
    zone = ctx.problem.answer_zone
    if zone is None:
        return
    if not zone.regions:
        ctx.report("RSB457", "(:answer_zone) names no region", zone.span)
    for name in zone.regions:
        region = ctx.regions.get(name)
        if region is None:
            close = did_you_mean(name, ctx.regions)
            hint = f"did you mean {close!r}? " if close else ""
            ctx.report(
                "RSB457",
                f"answer zone {name!r} is not a region; {hint}valid choices: "
                + ", ".join(sorted(ctx.regions)),
                zone.span,
                close,
            )
        elif not region.ranges:
            ctx.report("RSB457", f"answer zone {name!r} has no (:ranges ...)", zone.span)
