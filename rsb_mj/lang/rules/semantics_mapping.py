"""RSB410-412, RSB423: the ``(:map ...)`` of ``:options``, from option letters to candidates.

One mapping rule per task; a fixed mapping gives every candidate a letter and every letter
of the choice count a candidate, maps letters only onto candidates and each at most once, and
uses only the letters of the choice count (A-I and K: J is skipped).
"""

from __future__ import annotations

from rsb_mj.choices import LETTERS
from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import CHOICE_COUNTS
from rsb_mj.lang.rules.base import Context, rule


@rule(
    "RSB423",
    "repeated-map",
    "error",
    bad="(:options (:map shuffle) (:map (A block_a) (B block_b) (C block_c) (D block_d)))",
    good="(:options (:map shuffle))",
)
def repeated_map(ctx: Context) -> None:
    """More than one ``(:map ...)`` form in ``:options``: only one mapping rule can hold, so
    a second one is an error at its position (the runtime would otherwise have to pick)."""
    o = ctx.problem.options
    for span in o.repeated if o is not None else ():
        ctx.report("RSB423", "a second (:map ...) in :options; give one mapping rule", span)


@rule(
    "RSB410",
    "unmapped-candidate",
    "error",
    bad="(:options (:map (A block_a) (B block_b) (C block_c)))  ; 4 candidates",
    good="(:options (:map (A block_a) (B block_b) (C block_c) (D block_d)))",
)
def unmapped_candidate(ctx: Context) -> None:
    """With a fixed mapping, a candidate that no option letter maps to, or an option letter of
    the choice count that maps to nothing."""
    o, q = ctx.problem.options, ctx.problem.question
    if o is None or o.rule != "fixed":
        return
    mapped = {name for _, name in o.pairs}
    for name in ctx.candidates:
        if name not in mapped:
            ctx.report("RSB410", f"candidate {name!r} has no option letter in :map", o.span)
    if q is not None and q.choices in CHOICE_COUNTS:
        letters = {letter for letter, _ in o.pairs}
        for letter in LETTERS[int(q.choices)]:
            if letter not in letters:
                ctx.report("RSB410", f"option {letter} maps to no candidate in :map", o.span)


@rule(
    "RSB411",
    "mapping-non-candidate",
    "error",
    bad="(:options (:map (A block_a) (B block_b) (C block_c) (D table)))",
    good="(:options (:map (A block_a) (B block_b) (C block_c) (D block_d)))",
)
def mapping_non_candidate(ctx: Context) -> None:
    """A fixed mapping that maps an option onto something that is not a candidate, or maps two
    options onto the same candidate."""
    o = ctx.problem.options
    if o is None or o.rule != "fixed":
        return
    seen: dict[str, str] = {}
    for letter, name in o.pairs:
        if name not in ctx.candidates:
            close = did_you_mean(name, ctx.candidates)
            hint = f"; did you mean {close!r}?" if close else ""
            ctx.report(
                "RSB411",
                f"option {letter} maps to {name!r}, which is not a candidate{hint}",
                o.span,
                fix=close,
            )
        elif name in seen:
            ctx.report(
                "RSB411",
                f"options {seen[name]} and {letter} both map to {name!r}",
                o.span,
            )
        seen.setdefault(name, letter)


@rule(
    "RSB412",
    "bad-option-letter",
    "error",
    bad="(:options (:map (A block_a) ... (J block_j)))  ; 10 choices",
    good="(:options (:map (A block_a) ... (K block_k)))",
)
def bad_option_letter(ctx: Context) -> None:
    """A fixed mapping with a letter that is not an option of the choice count (the first N
    of A-I and K: A-D for 4; J is skipped because it is easily confused with I) or a letter
    used twice."""
    o, q = ctx.problem.options, ctx.problem.question
    if o is None or o.rule != "fixed":
        return
    valid = LETTERS.get(int(q.choices)) if q and q.choices in CHOICE_COUNTS else LETTERS[10]
    seen: set[str] = set()
    for letter, _ in o.pairs:
        if letter not in valid:
            extra = " (J is skipped: it is easily confused with I)" if letter == "J" else ""
            ctx.report(
                "RSB412",
                f"option letter {letter!r} is not an option{extra}; valid choices: "
                f"{' '.join(valid)}",
                o.span,
            )
        elif letter in seen:
            ctx.report("RSB412", f"option letter {letter!r} is mapped twice", o.span)
        seen.add(letter)
