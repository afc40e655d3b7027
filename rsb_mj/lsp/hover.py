"""Hover: the reference text of the word under the cursor, and the documentation of the
findings there (``rsb lint --explain``).

What a word is follows from where it stands (:mod:`rsb_mj.lsp.context`): a form's head
inside ``(define ...)`` is a block keyword, a form's head inside an expression a predicate,
a word after ``-`` in ``:objects`` or ``:fixtures`` a category, the name in ``:source`` a
question source, a ``:param`` inside it a source parameter; declared object, fixture and
region names are recognised anywhere. The texts come from :mod:`rsb_mj.lsp.reference`.
"""

from __future__ import annotations

from rsb_mj.lang import ast
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lsp import reference
from rsb_mj.lsp.completion import CONNECTIVES, in_expression
from rsb_mj.lsp.context import Cursor


def word_text(cursor: Cursor, problem: ast.Problem | None) -> str | None:
    """The reference text of the word under ``cursor``, or None."""
    tok = cursor.token
    if tok is None or tok.kind != "word" or cursor.in_comment:
        return None
    word = tok.text
    head, parent = cursor.head(), cursor.head(-2)
    is_head = cursor.index == 0
    if is_head and word.startswith(":"):
        if parent == "define":
            return reference.block(word[1:].lower())
        if cursor.head(-3) == ":source":
            return reference.source_param(parent, word[1:].lower())
        return reference.block(word[1:].lower())
    if is_head and in_expression(cursor, -2) and word.lower() not in CONNECTIVES:
        return reference.predicate(word)
    if head in (":objects", ":fixtures") and cursor.previous == "-":
        return reference.category(word)
    if (head == ":source" and cursor.index == 1) or (is_head and parent == ":source"):
        return reference.source(word)
    if problem is None:
        return None
    for kind, decls in (("fixture", problem.fixtures), ("object", problem.objects)):
        for decl in decls:
            if decl.name == word:
                return reference.declaration(decl, kind)
    for region in problem.regions:
        if region.full_name == word or (is_head and parent == ":regions" and region.name == word):
            return reference.region(region, problem)
    return None


def findings_text(diagnostics: list[Diagnostic]) -> str | None:
    """The ``--explain`` text of each rule among ``diagnostics`` (once per rule), or None."""
    texts = [reference.rule(code) for code in dict.fromkeys(d.code for d in diagnostics)]
    shown = [t for t in texts if t]
    return "\n\n".join(shown) if shown else None


def hover_text(
    cursor: Cursor, problem: ast.Problem | None, diagnostics: list[Diagnostic]
) -> str | None:
    """What hover shows at ``cursor``: the findings there (message and rule documentation),
    then the word's reference text; None if neither."""
    parts = []
    if diagnostics:
        parts += [f"**{d.code} {d.name}** ({d.severity}): {d.message}" for d in diagnostics]
        explained = findings_text(diagnostics)
        if explained:
            parts.append(explained)
    word = word_text(cursor, problem)
    if word:
        parts.append(word)
    return "\n\n".join(parts) if parts else None
