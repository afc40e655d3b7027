"""Lint instruction template files (``tasks/templates/*.txt``).

A template file holds one instruction template per line; blank lines and lines starting
with ``#`` are ignored. Placeholders are ``{NAME}``:

* 2..8 choices (the ``colors`` style of :mod:`rsb_mj.choices`): ``{Q}`` (the question),
  one ``{MAPx}`` per option letter (``{MAPA}`` ... ``{MAPD}`` for 4: "A is the red block"),
  optionally ``{OPTIONS}`` ("(A) 12 (B) 15 ...");
* 9 and 10 choices (``letters``): ``{Q}`` and ``{OPTIONS}``;
* candidates that show their answers (answer plates; files ``a2a-{set}-{form}.txt``, 2
  choices): ``{Q}`` only.

The episode sampler calls :func:`lint_template` on every template file it loads;
``rsb lint`` runs it on ``*.txt`` files under a ``templates`` folder (the choice count comes
from the file name: ``seen_4.txt``, ``unseen_10.txt``), and on the template file a task names
in ``(:instruction (:templates (:file "...")))`` with the task's choice count.
"""

from __future__ import annotations

import re
from pathlib import Path

from rsb_mj.choices import (
    ANSWER_CHOICES,
    ANSWER_PLACEHOLDERS,
    CHOICE_COUNTS,
    counts_text,
    is_answer_template,
    placeholders,
    required_placeholders,
    style,
)
from rsb_mj.errors import TaskError, did_you_mean
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import RULES, declare

#: Placeholders allowed per choice count (:func:`rsb_mj.choices.placeholders`).
PLACEHOLDERS: dict[int, tuple[str, ...]] = {n: placeholders(n) for n in CHOICE_COUNTS}
#: Placeholders every template of a choice count must contain.
REQUIRED: dict[int, tuple[str, ...]] = {n: required_placeholders(n) for n in CHOICE_COUNTS}
#: Every mapping placeholder of any choice count ({MAPA} .. {MAPK}).
_MAPS = frozenset(p for names in PLACEHOLDERS.values() for p in names if p.startswith("MAP"))
#: Placeholder names that could carry the correct answer into the instruction.
LEAKING = re.compile(r"ANSWER|CORRECT|TARGET|SOLUTION|GOLD|TRUTH|RESULT|RIGHT|WINNER", re.I)
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")

declare(
    "RSB430",
    "template-unknown-placeholder",
    "error",
    """A placeholder the episode sampler does not fill: it would reach the policy verbatim.
    Templates for N <= 8 choices take {Q}, one {MAPx} per option letter ({MAPA}..{MAPD} for
    4) and {OPTIONS}; templates for 9 and 10 choices take {Q} and {OPTIONS}.""",
    bad="what is {QUESTION}? {MAPA}, {MAPB}, {MAPC}, {MAPD}. put the answer in the zone",
    good="what is {Q}? {MAPA}, {MAPB}, {MAPC}, {MAPD}. put the answer in the zone",
)
declare(
    "RSB431",
    "template-leaks-answer",
    "error",
    """A placeholder whose name says it carries the answer ({ANSWER}, {CORRECT}, {TARGET},
    ...). The correct option must never be in the instruction: it lives only in episode
    metadata.""",
    bad="{Q} {OPTIONS} hint: the answer is {ANSWER}",
    good="{Q} {OPTIONS} place the correct block in the gray zone",
)
declare(
    "RSB432",
    "template-missing-placeholder",
    "error",
    """A template that lacks a placeholder the policy needs: {Q} always; for N <= 8 choices
    every {MAPx} of the N option letters (which object stands for which option); for 9 and
    10 choices {OPTIONS}.""",
    bad="{Q} {MAPA}, {MAPB}, {MAPC}. place the right block in the zone",
    good="{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}. place the right block in the zone",
)
declare(
    "RSB433",
    "template-wrong-choice-count",
    "error",
    """A mapping placeholder ({MAPA}..) that the choice count has no option for: a 9- or
    10-choice template with any (those instructions name options by letter with {OPTIONS},
    because all the blocks share one color), or {MAPE} in a 4-choice template.""",
    bad="{Q} {MAPA} {MAPB} ...   (in a 10-choice template file)",
    good="{Q} options: {OPTIONS}. place the block with the right letter in the gray zone",
)
declare(
    "RSB434",
    "template-unbalanced-brace",
    "error",
    """A '{' without its '}' (or the reverse): the placeholder will not be replaced.""",
    bad="{Q {MAPA}, {MAPB}, {MAPC}, {MAPD}",
    good="{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}",
)
declare(
    "RSB435",
    "template-choice-count-unknown",
    "error",
    """A template file whose name does not say its choice count: ``rsb lint`` reads it (2 to
    10) from the name (``seen_4.txt``, ``unseen_10.txt``) to know which placeholders apply.""",
    bad="tasks/templates/seen.txt",
    good="tasks/templates/seen_4.txt",
)


def _diag(code: str, message: str, path: str, span: Span, fix: str | None = None) -> Diagnostic:
    rule = RULES[code]
    return Diagnostic(code, rule.name, rule.severity, message, path, span, fix)


def choices_from_name(name: str) -> int | None:
    """The choice count a template file name states (``seen_4.txt`` -> 4; an answer-template
    file, ``a2a-seen-text.txt``, is binary: 2), or None."""
    if is_answer_template(name):
        return ANSWER_CHOICES
    numbers = re.findall(r"(?<![0-9])(10|[2-9])(?![0-9])", name)
    return int(numbers[-1]) if numbers else None


def choice_count_unknown(path: str) -> Diagnostic:
    """The RSB435 diagnostic for a template file name without a choice count."""
    return _diag(
        "RSB435",
        "cannot tell the choice count of a template file; its name must contain it "
        f"(e.g. seen_4.txt); valid choices: {counts_text()}",
        path,
        Span(1, 1, 1, 2),
    )


def lint_template(
    text: str, path: str, choices: int, answers: bool | None = None
) -> list[Diagnostic]:
    """Check every template line of a template file.

    Args:
        text: the file's contents (one template per line; ``#`` comments, blank lines).
        path: the file name used in diagnostics.
        choices: the choice count the templates are for (2..10).
        answers: templates for candidates that show their answers (``{Q}`` only); None:
            those of an answer-template file name (``a2a-seen-text.txt``).

    Returns:
        The diagnostics (RSB430-RSB434), in line order; empty when clean.

    Raises:
        TaskError: when ``choices`` is not a supported choice count.
    """
    if choices not in PLACEHOLDERS:
        raise TaskError(f"{path}: {choices!r} choices; valid choices: {counts_text()}")
    if answers is None:
        answers = is_answer_template(Path(path).name)
    allowed = ANSWER_PLACEHOLDERS if answers else PLACEHOLDERS[choices]
    required = ANSWER_PLACEHOLDERS if answers else REQUIRED[choices]
    out: list[Diagnostic] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.extend(_lint_line(line, number, path, choices, allowed, required))
    return out


def _lint_line(
    line: str,
    number: int,
    path: str,
    choices: int,
    allowed: tuple[str, ...],
    required: tuple[str, ...],
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    found: set[str] = set()
    for match in _PLACEHOLDER.finditer(line):
        name = match.group(1)
        span = Span(number, match.start() + 1, number, match.end() + 1)
        found.add(name)
        if name in allowed:
            continue
        if LEAKING.search(name):
            out.append(
                _diag(
                    "RSB431",
                    f"placeholder {{{name}}} could put the answer into the instruction; "
                    "the answer must stay in episode metadata",
                    path,
                    span,
                )
            )
        elif name in _MAPS and allowed != ANSWER_PLACEHOLDERS:
            why = (
                f"{choices}-choice templates list the options with {{OPTIONS}}"
                if style(choices) == "letters"
                else f"{choices} choices have no option {name[3:]}"
            )
            out.append(
                _diag(
                    "RSB433",
                    f"placeholder {{{name}}} is not a mapping of {choices} choices; {why}",
                    path,
                    span,
                )
            )
        else:
            close = did_you_mean(name, allowed)
            hint = f"did you mean {{{close}}}? " if close else ""
            valid = ", ".join("{" + p + "}" for p in allowed)
            out.append(
                _diag(
                    "RSB430",
                    f"unknown placeholder {{{name}}}; {hint}valid choices for {choices} "
                    f"options: {valid}",
                    path,
                    span,
                    fix="{" + close + "}" if close else None,
                )
            )
    stray = next((c for c in _PLACEHOLDER.sub("", line) if c in "{}"), None)
    if stray is not None:
        column = _column_of_stray(line, stray)
        out.append(
            _diag(
                "RSB434",
                f"unbalanced {stray!r}: a placeholder is written {{NAME}}",
                path,
                Span(number, column, number, column + 1),
            )
        )
    missing = [p for p in required if p not in found]
    if missing:
        shown = ", ".join("{" + p + "}" for p in missing)
        out.append(
            _diag(
                "RSB432",
                f"template lacks {shown}, which every {choices}-choice template needs",
                path,
                Span(number, 1, number, len(line) + 1),
            )
        )
    return out


def _column_of_stray(line: str, char: str) -> int:
    """1-based column of the first brace in ``line`` that is not part of a ``{NAME}``."""
    covered = set()
    for match in _PLACEHOLDER.finditer(line):
        covered.update(range(match.start(), match.end()))
    for i, c in enumerate(line):
        if c == char and i not in covered:
            return i + 1
    return 1
