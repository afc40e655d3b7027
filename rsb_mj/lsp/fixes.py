"""A finding's suggested fix as a text edit (an LSP quick fix).

A lint rule states its fix as text (``Diagnostic.fix``): the right spelling (``:goal``), the
right form (``(On block_e table_candidates)``, ``(-0.3 0.3)``), or advice in words ("add the
missing ')'"). Where it is code, :func:`quick_fix` tries the edits it can stand for, in
order: replace a word of the finding (or of the rest of its form) most like it, replace the
finding's text, replace a form in it with the same head, replace the values after the
form's head, insert it as a new item of the finding's form, of ``:init`` (a predicate) or of
the task. An edit is offered only if linting the edited text no longer reports the finding
and reports nothing new, so a quick fix never trades one finding for another. Advice in
words gives no edit (the message shows it).
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.linter import lint_source
from rsb_mj.lang.predicates import PREDICATES
from rsb_mj.lsp import context
from rsb_mj.lsp.positions import Positions

#: How many words or forms of each kind are tried, the likeliest first.
_TRIES = 3


@dataclass(frozen=True)
class Edit:
    """Replace the characters ``[start, end)`` with ``new``; ``title`` says what it does."""

    start: int
    end: int
    new: str
    title: str

    def apply(self, text: str) -> str:
        """``text`` with the edit made."""
        return text[: self.start] + self.new + text[self.end :]


def is_code(fix: str) -> bool:
    """True when ``fix`` is task-language text (one word, or one balanced form), not advice."""
    fix = fix.strip()
    if not fix:
        return False
    if fix.startswith("("):
        depth = 0
        for i, char in enumerate(fix):
            depth += (char == "(") - (char == ")")
            if depth == 0 and i != len(fix) - 1:
                return False
        return depth == 0
    return len(fix.split()) == 1 and "(" not in fix and ")" not in fix


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def candidates(text: str, d: Diagnostic, positions: Positions) -> list[Edit]:
    """The edits ``d.fix`` may stand for, likeliest first (not yet checked)."""
    fix = (d.fix or "").strip()
    if not is_code(fix) or d.span.line <= 0:
        return []
    start, end = positions.span_offsets(d.span)
    all_forms = context.forms(text)
    around = [f for f in all_forms if f.start <= start and end <= f.end]
    enclosing = around[-1] if around else None
    out: list[Edit] = []
    if not fix.startswith("("):
        stop = max(end, enclosing.end if enclosing else end)
        words = [t for t in context.tokens(text[start:stop]) if t.kind == "word"]
        words.sort(key=lambda t: -_similar(t.text, fix))
        for tok in words[:_TRIES]:
            if tok.text != fix:
                s, e = start + tok.start, start + tok.end
                out.append(Edit(s, e, fix, f"Replace '{tok.text}' with '{fix}'"))
    if text[start:end] != fix:
        out.append(Edit(start, end, fix, f"Replace with {fix}"))
    if fix.startswith("("):
        head = (context.tokens(fix)[1].text if len(context.tokens(fix)) > 1 else "").lower()
        inner = [f for f in all_forms if start <= f.start and f.end <= end]
        same = [
            f
            for f in inner
            if f.head.lower() == head or (_is_number(head) and (not f.head or _is_number(f.head)))
        ]
        same.sort(key=lambda f: -_similar(text[f.start : f.end], fix))
        for f in same[:_TRIES]:
            out.append(Edit(f.start, f.end, fix, f"Replace {text[f.start : f.end]} with {fix}"))
        span_form = next((f for f in inner if f.start == start and f.end == end), None)
        if span_form is not None and span_form.body < span_form.end - 1:
            values = text[span_form.body : span_form.end - 1].strip()
            body = span_form.body + (
                len(text[span_form.body :]) - len(text[span_form.body :].lstrip())
            )
            out.append(
                Edit(body, span_form.end - 1, fix[1:-1].strip(), f"Write {fix} for ({values})")
            )
        targets = []
        if span_form is not None:
            targets.append(span_form)
        if head.lower() in PREDICATES:
            targets += [f for f in all_forms if f.head.lower() == ":init"]
        targets += [f for f in all_forms if f.head.lower() == "define"]
        for target in dict.fromkeys(targets):
            at = target.end - 1
            out.append(Edit(at, at, _separator(text, target) + fix, f"Insert {fix}"))
    return out


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _separator(text: str, form: context.Span) -> str:
    """What goes before a new last item of ``form``: a new line indented like its items when
    it spans lines, else a space."""
    inside = text[form.start : form.end]
    if "\n" not in inside:
        return " "
    last_line = inside.rsplit("\n", 1)[1]
    indent = len(last_line) - len(last_line.lstrip())
    return "\n" + " " * indent


def _codes(diagnostics: list[Diagnostic]) -> Counter[str]:
    return Counter(d.code for d in diagnostics)


def quick_fix(
    text: str, path: Path, d: Diagnostic, before: list[Diagnostic], positions: Positions
) -> Edit | None:
    """The first edit for ``d`` (one of ``before``, the findings of ``text``) after which the
    linter no longer reports ``d`` and reports nothing new; None if there is none."""
    had = _codes(before)
    syntax = d.code.startswith("RSB1")
    tried: set[str] = set()
    for edit in candidates(text, d, positions):
        new_text = edit.apply(text)
        if new_text in tried:
            continue
        tried.add(new_text)
        after = _codes(lint_source(new_text, path)[1])
        if after[d.code] >= had[d.code]:
            continue
        if syntax:
            if sum(n for c, n in after.items() if c.startswith("RSB1")) < sum(
                n for c, n in had.items() if c.startswith("RSB1")
            ):
                return edit
        elif all(after[c] <= had[c] for c in after):
            return edit
    return None
