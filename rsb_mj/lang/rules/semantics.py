"""RSB401-423, RSB440: what the blocks of a task say, checked against what the episode
sampler, the scene and the scorer give them.

* RSB401-406: the blocks are there, complete, and name values the runtime has. Every task
  needs ``:goal``; an rsb task also its other blocks (:data:`RSB_REQUIRED`) and their fields;
  ``:question``'s source and choice count, ``:instruction``'s template set and ``:options``'
  mapping rule must be ones the episode sampler knows.
* RSB407-409, RSB419: the candidates, the objects that stand for the options: one per option
  (as many as ``:choices``), each a declared movable object, none listed twice, and each able
  to show its option letter when the options share one color.
* RSB410-412, RSB423: the ``(:map ...)`` of ``:options``, from option letters to candidates:
  one mapping rule per task; a fixed mapping gives every candidate a letter and every letter
  of the choice count a candidate, maps letters only onto candidates and each at most once,
  and uses only the letters of the choice count (A-I and K: J is skipped).
* RSB413, RSB420: the goal and the grasp depend on the answer: success must need the
  candidate of the correct option (``?answer`` in ``:goal``), and ``:grasp`` must grasp what
  the goal moves: any candidate (``?c - candidate``), or the named object the goal moves onto
  the chosen candidate (:func:`rsb_mj.lang.goal.named_movers`).
* RSB414-415, RSB421-422: the ``And``/``Or`` structure of ``:init``, ``:grasp``, ``:goal`` and
  ``:cost``: several top-level terms with no ``And`` (which VLA-Arena would cut to the first),
  a term repeated in one ``And``/``Or``, an empty connective, and an ``And`` holding a term
  and its negation.
* RSB416-417: declarations nothing refers to, an object or fixture and a table region (a name
  counts as used when a candidate, ``:obj_of_interest``, an atom of any expression block, a
  region's target or a free-form section names it).
* RSB418: a LIBERO ``:language`` text must say what the file name says: LIBERO builds the
  prompt a policy sees from the task file's name, so a ``:language`` that disagrees with it
  describes a task the policy is never asked to do (for files of LIBERO's and VLA-Arena's
  benchmark folders only: a user's own file may be named anything).
* RSB440: what a gripper holds at reset (``(Grasped OBJECT GRIPPER)`` in ``:init``,
  :mod:`rsb_mj.lang.held`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rsb_mj.choices import LETTERS, MAX_COLORED, counts_text, style
from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import CHOICE_COUNTS, MAP_RULES, QUESTION_SOURCES, TEMPLATE_SETS
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.expr import (
    And,
    Atom,
    Expr,
    Name,
    Not,
    Number,
    Or,
    SList,
    Symbol,
    Variable,
    walk_atoms,
)
from rsb_mj.lang.goal import named_movers
from rsb_mj.lang.held import GRIPPERS, held_atoms
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.table_top import TABLE_CATEGORIES

#: Blocks every rsb task needs.
RSB_REQUIRED = ("question", "instruction", "candidates", "options", "grasp", "goal", "layout")


def _has(ctx: Context, keyword: str) -> bool:
    return any(k == keyword for k, _ in ctx.problem.blocks)


@rule(
    "RSB401",
    "missing-block",
    "error",
    bad="(define (problem p) (:domain rsb) (:question (:source arithmetic) (:choices 4)))",
    good="(define (problem p) (:domain rsb) (:question ...) (:instruction ...) (:candidates ...)\n"
    "  (:options ...) (:grasp ...) (:goal ...) (:layout ...) ...)",
)
def missing_block(ctx: Context) -> None:
    """A block the task cannot work without. Every task needs ``:goal``; an rsb task (domain
    ``rsb`` or one with a ``:question``) also needs ``:question``, ``:instruction``,
    ``:candidates``, ``:options``, ``:grasp`` and ``:layout``."""
    required = ("domain", "goal", *RSB_REQUIRED) if ctx.semantics == "rsb" else ("domain", "goal")
    for keyword in dict.fromkeys(required):
        if not _has(ctx, keyword):
            ctx.report(
                "RSB401",
                f"missing block ':{keyword}'"
                + (" for an rsb task" if ctx.semantics == "rsb" else ""),
                ctx.problem.span,
            )


@rule(
    "RSB402",
    "incomplete-block",
    "error",
    bad="(:question (:source arithmetic))",
    good="(:question (:source arithmetic) (:choices 4))",
)
def incomplete_block(ctx: Context) -> None:
    """An rsb block without one of its fields: ``:question`` needs ``:source`` and
    ``:choices``, ``:instruction`` needs ``:templates``, ``:options`` needs ``:map``,
    ``:layout`` needs ``:min_spacing`` and ``:yaw_range``."""
    p = ctx.problem
    checks = []
    if p.question is not None:
        checks += [
            (p.question.source is None, p.question.span, ":question", "(:source S)"),
            (p.question.choices is None, p.question.span, ":question", "(:choices N)"),
        ]
    if p.instruction is not None:
        checks.append(
            (not p.instruction.choices, p.instruction.span, ":instruction", "(:templates T)")
        )
    if p.options is not None:
        checks.append((not p.options.rule, p.options.span, ":options", "(:map RULE)"))
    if p.layout is not None:
        checks += [
            (p.layout.min_spacing is None, p.layout.span, ":layout", "(:min_spacing D)"),
            (p.layout.yaw_range is None, p.layout.span, ":layout", "(:yaw_range (LO HI))"),
        ]
    for missing, span, block, field in checks:
        if missing:
            ctx.report("RSB402", f"{block} lacks {field}", span)


def _bad_value(
    ctx: Context, code: str, field: str, value: str, valid: tuple[str, ...], span: Span
) -> None:
    close = did_you_mean(value, valid)
    hint = f"did you mean {close!r}? " if close else ""
    ctx.report(
        code, f"{field} {value!r} is unknown; {hint}valid choices: {', '.join(valid)}", span, close
    )


@rule(
    "RSB403",
    "unknown-source",
    "error",
    bad="(:question (:source gsm8) (:choices 4))",
    good="(:question (:source gsm8k) (:choices 4))",
)
def unknown_source(ctx: Context) -> None:
    """A question source the episode sampler does not have (arithmetic, gsm8k, mmlu_pro,
    mmlu; or a question bank, ``(:source (:file "questions.jsonl"))``)."""
    q = ctx.problem.question
    if q is not None and q.file is not None:
        return
    if q is not None and q.source is not None and q.source not in QUESTION_SOURCES:
        _bad_value(ctx, "RSB403", ":source", q.source, QUESTION_SOURCES, q.span)


@rule(
    "RSB404",
    "bad-choice-count",
    "error",
    bad="(:question (:source arithmetic) (:choices 12))",
    good="(:question (:source arithmetic) (:choices 6))",
)
def bad_choice_count(ctx: Context) -> None:
    """A choice count that is not a whole number from 2 to 10. Options are lettered A, B, C,
    ... with J skipped (it is easily confused with I): ten choices are A-I and K."""
    q = ctx.problem.question
    if q is not None and q.choices is not None and q.choices not in CHOICE_COUNTS:
        ctx.report(
            "RSB404",
            f":choices {q.choices:g} is not supported; valid choices: {counts_text()}",
            q.span,
        )


@rule(
    "RSB405",
    "unknown-template-set",
    "error",
    bad="(:instruction (:templates held_out))",
    good="(:instruction (:templates unseen))",
)
def unknown_template_set(ctx: Context) -> None:
    """An instruction template set other than ``seen`` (demonstrations) or ``unseen`` (held
    out for evaluation); a task's own file is written ``(:file "my_templates.txt")``."""
    i = ctx.problem.instruction
    for choice in i.choices if i is not None else ():
        if choice.set_name is not None and choice.set_name not in TEMPLATE_SETS:
            _bad_value(ctx, "RSB405", ":templates", choice.set_name, TEMPLATE_SETS, choice.span)


@rule(
    "RSB406",
    "unknown-map-rule",
    "error",
    bad="(:options (:map random))",
    good="(:options (:map shuffle))",
)
def unknown_map_rule(ctx: Context) -> None:
    """An option->candidate mapping rule other than ``shuffle`` (drawn per episode) or a fixed
    list of ``(LETTER candidate)`` pairs."""
    o = ctx.problem.options
    if o is not None and o.rule and o.rule not in MAP_RULES:
        _bad_value(ctx, "RSB406", ":map", o.rule, ("shuffle",), o.span)


@rule(
    "RSB407",
    "choice-count-mismatch",
    "error",
    bad="(:question (:source arithmetic) (:choices 10))\n(:candidates block_a block_b block_c "
    "block_d)",
    good="(:question (:source arithmetic) (:choices 4))\n(:candidates block_a block_b block_c "
    "block_d)",
)
def choice_count_mismatch(ctx: Context) -> None:
    """The number of candidates differs from ``:choices``: every option needs exactly one
    object to stand for it."""
    q = ctx.problem.question
    if q is None or q.choices not in CHOICE_COUNTS or ctx.problem.candidate_names is None:
        return
    n = len(ctx.candidates)
    if n != q.choices:
        ctx.report(
            "RSB407",
            f"(:choices {q.choices}) needs {q.choices} candidates (options "
            f"{' '.join(LETTERS[int(q.choices)])}), got {n}",
            ctx.block_span("candidates"),
        )


@rule(
    "RSB408",
    "candidate-not-object",
    "error",
    bad="(:fixtures table - table)\n(:candidates table block_b block_c block_d)",
    good="(:candidates block_a block_b block_c block_d)",
)
def candidate_not_object(ctx: Context) -> None:
    """A candidate that is not declared in ``:objects`` (undeclared, or a fixture, which cannot
    be picked up)."""
    for name in ctx.candidates:
        if name in ctx.objects:
            continue
        if name in ctx.fixtures:
            message = f"candidate {name!r} is a fixture; candidates must be movable :objects"
            close = None
        else:
            close = did_you_mean(name, ctx.objects)
            hint = f"; did you mean {close!r}?" if close else ""
            message = f"candidate {name!r} is not declared in :objects{hint}"
        ctx.report("RSB408", message, ctx.block_span("candidates"), fix=close)


@rule(
    "RSB409",
    "duplicate-candidate",
    "error",
    bad="(:candidates block_a block_a block_c block_d)",
    good="(:candidates block_a block_b block_c block_d)",
)
def duplicate_candidate(ctx: Context) -> None:
    """A candidate listed twice: two options would stand for the same object."""
    seen: set[str] = set()
    for name in ctx.candidates:
        if name in seen:
            ctx.report(
                "RSB409", f"candidate {name!r} is listed twice", ctx.block_span("candidates")
            )
        seen.add(name)


@rule(
    "RSB419",
    "letterless-candidate",
    "error",
    bad="(:question (:source arithmetic) (:choices 10))\n(:objects can_a ... - can)",
    good="(:question (:source arithmetic) (:choices 10))\n(:objects block_a ... - letter_block)",
)
def letterless_candidate(ctx: Context) -> None:
    """A task with more choices than there are palette colors (9 or 10) whose candidates
    cannot show a letter. Such instructions list the options by letter and all candidates
    share one color, so the letter on each object is the only thing that tells them apart."""
    q = ctx.problem.question
    if q is None or q.choices not in CHOICE_COUNTS or style(int(q.choices)) != "letters":
        return
    for name in ctx.candidates:
        decl = ctx.objects.get(name)
        info = RSB_CATEGORIES.get(decl.category) if decl else None
        if info is not None and not info.letters:
            with_letters = [c for c, i in RSB_CATEGORIES.items() if i.letters]
            ctx.report(
                "RSB419",
                f"candidate {name!r} ({decl.category}) cannot show an option letter, which a "
                f"{q.choices:g}-choice task needs (more than {MAX_COLORED} choices share one "
                f"color); categories with letters: {choices_text(with_letters)}",
                decl.span,
            )


@rule(
    "RSB414",
    "cost-without-and",
    "warning",
    bad="(:cost (Fall teapot_1) (CheckGripperContact teapot_1))",
    good="(:cost (And (Fall teapot_1) (CheckGripperContact teapot_1)))",
)
def cost_without_and(ctx: Context) -> None:
    """A ``:cost`` (or ``:goal``) with several top-level terms and no ``And`` around them.
    VLA-Arena silently keeps only the first term of such a block; rsb reads them as their
    ``And`` (a warning: the file runs, every cost term is evaluated and each record says
    ``cost_implicit_and: true``). Write the ``And`` so both agree."""
    for keyword, terms in (
        ("cost", ctx.problem.cost_terms or ()),
        ("goal", ctx.problem.goal_terms),
    ):
        if len(terms) > 1:
            ctx.report(
                "RSB414",
                f":{keyword} has {len(terms)} terms and no And; VLA-Arena keeps only the "
                f"first, so {len(terms) - 1} would be lost",
                ctx.block_span(keyword),
                fix="wrap the terms in (And ...)",
            )


def _connectives(expr: Expr):
    if isinstance(expr, And | Or):
        yield expr
        for term in expr.terms:
            yield from _connectives(term)
    elif isinstance(expr, Not):
        yield from _connectives(expr.term)


@rule(
    "RSB415",
    "duplicate-term",
    "warning",
    bad="(:cost (And (Fall candle_1) (Fall candle_1) (CheckDistance lemon_1 candle_1 0.05)))",
    good="(:cost (And (Fall candle_1) (CheckDistance lemon_1 candle_1 0.05)))",
)
def duplicate_term(ctx: Context) -> None:
    """The same term twice in one ``And``/``Or``: it adds nothing (in a ``:cost`` it may count
    the same violation twice)."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            seen: list[Expr] = []
            for term in node.terms:
                if term in seen:
                    ctx.report(
                        "RSB415",
                        f"term repeated in :{block}: {_show_expr(term)}",
                        term.span,
                    )
                else:
                    seen.append(term)


def _show_expr(expr: Expr) -> str:
    if isinstance(expr, Atom):
        args = []
        for a in expr.args:
            if isinstance(a, Name):
                args.append(a.value)
            elif isinstance(a, Variable):
                args.append("?" + a.name)
            elif isinstance(a, Number):
                args.append(f"{a.value:g}")
            else:
                args.append("(" + " ".join(f"{v:g}" for v in a.values) + ")")
        return "(" + " ".join([expr.predicate, *args]) + ")"
    if isinstance(expr, Not):
        return f"(Not {_show_expr(expr.term)})"
    word = "And" if isinstance(expr, And) else "Or"
    return "(" + " ".join([word, *(_show_expr(t) for t in expr.terms)]) + ")"


@rule(
    "RSB421",
    "empty-connective",
    "warning",
    bad="(:goal (And))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def empty_connective(ctx: Context) -> None:
    """An ``And`` or ``Or`` with no terms: ``(And)`` is always true and ``(Or)`` never true,
    which is rarely what the author meant."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            if not node.terms:
                word = "And" if isinstance(node, And) else "Or"
                truth = "always true" if word == "And" else "never true"
                ctx.report("RSB421", f"empty ({word}) in :{block} is {truth}", node.span)


@rule(
    "RSB422",
    "contradictory-terms",
    "error",
    bad="(:goal (And (In ?answer table_answer_zone) (Not (In ?answer table_answer_zone))))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
)
def contradictory_terms(ctx: Context) -> None:
    """An ``And`` holding a term and its negation: it can never be true."""
    for block, expr in ctx.expressions():
        for node in _connectives(expr):
            if not isinstance(node, And):
                continue
            for term in node.terms:
                if isinstance(term, Not) and term.term in node.terms:
                    ctx.report(
                        "RSB422",
                        f"(And ...) in :{block} holds {_show_expr(term.term)} and its negation; "
                        "it can never be true",
                        term.span,
                    )


def _mentions_answer(expr: Expr | None) -> bool:
    return any(
        isinstance(a, Variable) and a.name == "answer"
        for atom in walk_atoms(expr)
        for a in atom.args
    )


@rule(
    "RSB413",
    "goal-ignores-answer",
    "error",
    bad="(:goal (And (In block_a table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
    applies_to="question",
)
def goal_ignores_answer(ctx: Context) -> None:
    """An rsb goal that never mentions ``?answer`` (the candidate of the correct option): it
    would be reached without answering the question, or by a fixed object regardless of
    the question."""
    if ctx.problem.goal_terms and not _mentions_answer(ctx.problem.goal):
        ctx.report(
            "RSB413",
            ":goal never mentions ?answer, so success does not depend on the question",
            ctx.block_span("goal"),
            fix="(And (In ?answer table_answer_zone) (Released ?answer))",
        )


@rule(
    "RSB420",
    "grasp-not-mover",
    "error",
    bad="(:grasp (Grasped block_a))",
    good="(:grasp (Grasped ?c - candidate))",
)
def grasp_not_mover(ctx: Context) -> None:
    """A ``:grasp`` that does not grasp what the goal moves. When the goal moves the chosen
    candidate (``(In ?answer ZONE)``), ``:grasp`` ranges over the candidates
    (``?c - candidate``): GSR counts a grasp of *any* candidate, so a fixed object here
    would make GSR and nSG meaningless. When the goal moves a named object onto the chosen
    candidate (``(On cube ?answer)``, :func:`rsb_mj.lang.goal.named_movers`), ``:grasp``
    names that object: ``(Grasped cube)``."""
    grasp = ctx.problem.grasp
    if grasp is None:
        return
    movers = named_movers(ctx.problem)
    args = [a for atom in walk_atoms(grasp) for a in atom.args]
    if movers:
        if not any(isinstance(a, Name) and a.value in movers for a in args):
            ctx.report(
                "RSB420",
                f":grasp must grasp what the goal moves, e.g. (Grasped {movers[0]})",
                ctx.block_span("grasp"),
                fix=f"(Grasped {movers[0]})",
            )
        return
    typed = any(isinstance(a, Variable) and a.kind == "candidate" for a in args)
    if not typed:
        ctx.report(
            "RSB420",
            ":grasp must range over the candidates, e.g. (Grasped ?c - candidate)",
            ctx.block_span("grasp"),
            fix="(Grasped ?c - candidate)",
        )


@rule(
    "RSB440",
    "held-at-reset",
    "error",
    bad="(:init (On cube table_pick_area) (Grasped cube left_hand))",
    good="(:init (On cube table_pick_area) (Grasped cube left_gripper))",
)
def held_at_reset(ctx: Context) -> None:
    """A ``(Grasped OBJECT GRIPPER)`` in ``:init`` the reset cannot carry out: the gripper
    is not ``left_gripper`` or ``right_gripper``; the object is a fixture, a region or a
    candidate (holding a candidate would be the choice); one gripper holds two objects, or
    one object is in two grippers; or ``:init`` has no ``(On OBJECT REGION)`` to pick it up
    from (the reset grasps it there with the expert's grasp and lifts it)."""
    by_gripper: dict[str, str] = {}
    by_object: dict[str, str] = {}
    placed = {
        a.args[0].value
        for a in ctx.problem.init
        if isinstance(a, Atom)
        and a.predicate.lower() == "on"
        and len(a.args) == 2
        and isinstance(a.args[0], Name)
    }
    for atom in held_atoms(ctx.problem):
        obj, gripper = atom.args
        if not isinstance(gripper, Name) or gripper.value not in GRIPPERS:
            text = gripper.value if isinstance(gripper, Name) else "?"
            ctx.report(
                "RSB440",
                f"unknown gripper {text!r}; valid choices: {', '.join(GRIPPERS)}",
                gripper.span,
            )
            continue
        if not isinstance(obj, Name):
            ctx.report("RSB440", "the held thing must be an object's name", obj.span)
            continue
        name = obj.value
        if name in ctx.fixtures or name in ctx.regions:
            ctx.report(
                "RSB440",
                f"{name!r} is a {'fixture' if name in ctx.fixtures else 'region'}; a gripper "
                "holds an object of :objects",
                obj.span,
            )
            continue
        if name not in ctx.objects:
            continue  # RSB207 names it
        if name in ctx.candidates:
            ctx.report(
                "RSB440",
                f"{name!r} is a candidate: holding it at reset would be the choice; hold "
                "what the goal moves (e.g. Act2Answer's cube)",
                obj.span,
            )
            continue
        if gripper.value in by_gripper:
            ctx.report(
                "RSB440",
                f"{gripper.value} already holds {by_gripper[gripper.value]!r}; one object per "
                "gripper",
                atom.span,
            )
            continue
        if name in by_object:
            ctx.report(
                "RSB440",
                f"{name!r} is already held by {by_object[name]}; one gripper per object",
                atom.span,
            )
            continue
        by_gripper[gripper.value], by_object[name] = name, gripper.value
        if name not in placed:
            ctx.report(
                "RSB440",
                f"(Grasped {name} {gripper.value}) needs ({'On'} {name} REGION) in :init: "
                "the reset picks the object up from there",
                atom.span,
            )


_SUFFIX = re.compile(r"(_\d+)+$")
#: LIBERO-90/10 file names start with a scene, e.g. ``KITCHEN_SCENE3_turn_on_the_stove``;
#: LIBERO drops it when it builds the prompt.
_SCENE = re.compile(r"^[A-Z][A-Z_]*SCENE\d+_")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


#: Folders of LIBERO's and VLA-Arena's benchmark suites (their repositories' and rsb_mj's
#: ``tasks/``): a file in one is run by its benchmark under a prompt made from its name.
BENCHMARK_FOLDERS = frozenset(
    {
        "libero",
        "vla_arena",
        "libero_goal",
        "libero_spatial",
        "libero_object",
        "libero_10",
        "libero_90",
    }
)


def in_benchmark_folder(path: str) -> bool:
    """True when a folder of ``path`` (as given) is one of :data:`BENCHMARK_FOLDERS`."""
    return bool(BENCHMARK_FOLDERS.intersection(Path(path).parts[:-1]))


@rule(
    "RSB418",
    "language-mismatch",
    "warning",
    bad="; put_the_bowl_on_the_plate.bddl\n(:language Put the bowl on the stove)",
    good="; put_the_bowl_on_the_plate.bddl\n(:language Put the bowl on the plate)",
    applies_to="goal",
)
def language_mismatch(ctx: Context) -> None:
    """``:language`` text that disagrees with the file name. LIBERO builds the prompt a policy
    sees from the file name, not from ``:language``, so the two must say the same thing
    (case, underscores, a leading ``KITCHEN_SCENE3_`` scene and a trailing ``_N`` index are
    ignored). Checked only for a file of LIBERO's or VLA-Arena's benchmark suites (in a
    ``libero``, ``libero_goal`` ... or ``vla_arena`` folder), which their harness runs under
    the prompt its name makes: rsb_mj's goal environment gives a policy ``:language``, and a
    user's own file may be named anything. Not checked for rsb tasks, whose instructions
    come from the template files."""
    language = ctx.problem.language
    if language is None or ctx.path.startswith("<"):
        return
    if not in_benchmark_folder(ctx.path):
        return
    stem = os.path.splitext(os.path.basename(ctx.path))[0]  # Path.stem, without Path
    stem = _SCENE.sub("", _SUFFIX.sub("", stem))
    from_name = _words(stem.replace("_", " "))
    if not from_name or from_name == _words(language):
        return
    ctx.report(
        "RSB418",
        f":language {language!r} disagrees with the file name {Path(ctx.path).name!r} "
        f"({' '.join(from_name)!r}); LIBERO prompts come from the file name",
        ctx.block_span("language"),
    )


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


def _mentioned_names(ctx: Context) -> set[str]:
    used: set[str] = set(ctx.candidates) | set(ctx.problem.obj_of_interest)
    for _, atom in ctx.atoms():
        used.update(a.value for a in atom.args if isinstance(a, Name))
    for region in ctx.problem.regions:
        if region.target:
            used.add(region.target)
    for section in ctx.problem.sections:
        used.update(_symbols(section.items))
    return used


def _symbols(items: tuple) -> set[str]:
    out: set[str] = set()
    for item in items:
        if isinstance(item, Symbol):
            out.add(item.value)
        elif isinstance(item, SList):
            out |= _symbols(item.items)
    return out


@rule(
    "RSB416",
    "unused-object",
    "warning",
    bad="(:objects block_a block_b - letter_block)\n(:init (On block_a table_candidates))",
    good="(:objects block_a - letter_block)\n(:init (On block_a table_candidates))",
)
def unused_object(ctx: Context) -> None:
    """An object or fixture that nothing refers to (no ``:init`` placement, no predicate, no
    candidate, no region on it): it is never placed, so the scene cannot put it anywhere."""
    used = _mentioned_names(ctx)
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if decl.name not in used:
            ctx.report("RSB416", f"{decl.name!r} is declared but never used", decl.span)


@rule(
    "RSB417",
    "unused-region",
    "warning",
    bad="(milk_region (:target main_table) (:ranges ((-0.15 0.08 -0.13 0.1))))  ; no use",
    good="; delete the region, or place an object in it: (On milk_1 main_table_milk_region)",
    applies_to="question",
)
def unused_region(ctx: Context) -> None:
    """In an rsb task, a table region with ``:ranges`` that nothing refers to: no object is
    placed in it and no predicate mentions it (usually left over from an edit). Not checked
    for ``robosuite`` files: VLA-Arena files carry grids of spare regions for their level
    variants."""
    used = _mentioned_names(ctx)
    zone_names = set(ctx.problem.answer_zone_names)
    for region in ctx.problem.regions:
        decl = ctx.decls.get(region.target or "")
        on_table = decl is not None and decl.category in TABLE_CATEGORIES
        if on_table and region.ranges and region.full_name not in used | zone_names:
            ctx.report(
                "RSB417",
                f"region {region.full_name!r} is defined but never used",
                region.span,
            )
