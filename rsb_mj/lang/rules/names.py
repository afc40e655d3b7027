"""RSB2xx: the names and types of a task file, the rules that check what a file declares and
what its expressions name against the language's registries.

* RSB201-202, RSB211: every block and region property keyword is one the language knows,
  each top-level block is written once, and ``:domain`` is ``rsb`` or ``robosuite``.
* RSB203, RSB208-210: the declarations, objects, fixtures and regions, are ones the scene can
  build and refer to: each declared object or fixture has a category its domain knows; every
  name and every region's full name (``<target>_<region>``) is declared once; every region
  targets a declared fixture or object.
* RSB204, RSB213: the predicates a task names are ones its domain's registries define
  (:data:`rsb_mj.lang.predicates.PREDICATES`: LIBERO's, VLA-Arena's and rsb's, each predicate
  with the domains that define it) and, in an rsb task, ones the rsb simulator can evaluate in
  the block that names them.
* RSB205-206: each atom's arguments against its predicate's signature, their number and their
  kinds (object, place = object or region, region, number, numbers, parts = ``all``
  (:data:`ALL_PARTS`) or a list of part ids; :func:`expected_kinds`), as LIBERO's and
  VLA-Arena's evaluators read them.
* RSB207, RSB212: every name and variable an expression uses refers to something: a name in
  ``:init``, ``:grasp``, ``:goal``, ``:cost`` or ``:obj_of_interest`` must be a declared
  object or fixture or a region's full name; a variable must be one the episode binds
  (``?answer`` or a typed ``?c - candidate``), outside ``:init``.
"""

from __future__ import annotations

from rsb_mj.errors import did_you_mean
from rsb_mj.lang.block_values import (
    DOMAINS,
    GENERIC_BLOCKS,
    KNOWN_BLOCKS,
    REGION_PROPERTIES,
    VARIABLE_KINDS,
)
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.expr import Arg, Atom, Name, Number, NumberList, Variable
from rsb_mj.lang.held import is_held_atom
from rsb_mj.lang.known_categories import ALL_CATEGORIES, FIXTURE_CATEGORIES
from rsb_mj.lang.nodes import Span
from rsb_mj.lang.predicates import (
    PREDICATE_DOMAINS,
    PREDICATES,
    RSB_COST,
    RSB_PLACEMENT,
    RSB_SCOREABLE,
    PredicateInfo,
    predicates_of,
)
from rsb_mj.lang.rules.base import Context, choices_text, rule
from rsb_mj.lang.table_top import RSB_FIXTURE_CATEGORIES


@rule(
    "RSB201",
    "unknown-block",
    "error",
    bad="(:goall (And (In ?answer table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def unknown_block(ctx: Context) -> None:
    """A top-level block or region property whose keyword the language does not know. The
    parser keeps such blocks verbatim, so a misspelled ``:goal`` would otherwise be ignored
    silently. Known pass-through blocks (``:camera``, ``:noise``, ``:image_settings``, ...) are
    accepted."""
    valid = sorted(":" + k for k in KNOWN_BLOCKS | GENERIC_BLOCKS)
    for section in ctx.problem.sections:
        if section.keyword in GENERIC_BLOCKS:
            continue
        close = did_you_mean(":" + section.keyword, valid)
        hint = f"; did you mean {close!r}?" if close else ""
        ctx.report(
            "RSB201",
            f"unknown block ':{section.keyword}'{hint} valid blocks: {choices_text(valid, 30)}",
            section.span,
            fix=close,
        )
    props = sorted(":" + k for k in REGION_PROPERTIES)
    for region in ctx.problem.regions:
        for section in region.extra:
            close = did_you_mean(":" + section.keyword, props)
            hint = f"; did you mean {close!r}?" if close else ""
            ctx.report(
                "RSB201",
                f"unknown property ':{section.keyword}' in region {region.name!r}{hint} "
                f"valid properties: {', '.join(props)}",
                section.span,
                fix=close,
            )


@rule(
    "RSB202",
    "duplicate-block",
    "error",
    bad="(:objects block_a - letter_block)\n(:objects block_b - letter_block)",
    good="(:objects block_a block_b - letter_block)",
)
def duplicate_block(ctx: Context) -> None:
    """A top-level block written twice. LIBERO keeps only one of them; rsb merges list blocks
    and keeps the last value of the others. Either way the file says two things: write one
    block."""
    seen: dict[str, Span] = {}
    for keyword, span in ctx.problem.blocks:
        if keyword in seen:
            ctx.report(
                "RSB202",
                f"block ':{keyword}' appears again (first at line {seen[keyword].line}); "
                "write it once",
                span,
            )
        else:
            seen[keyword] = span


@rule(
    "RSB211",
    "unknown-domain",
    "error",
    bad="(:domain robosuit)",
    good="(:domain robosuite)",
)
def unknown_domain(ctx: Context) -> None:
    """A ``:domain`` other than ``rsb`` (rsb tasks) or ``robosuite`` (LIBERO / VLA-Arena)."""
    domain = ctx.problem.domain
    if domain is None or domain.lower() in DOMAINS:
        return
    close = did_you_mean(domain, DOMAINS)
    ctx.report(
        "RSB211",
        f"unknown domain {domain!r}; valid choices: {', '.join(DOMAINS)}",
        ctx.block_span("domain"),
        fix=close,
    )


@rule(
    "RSB205",
    "predicate-arity",
    "error",
    bad="(:goal (And (In ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def predicate_arity(ctx: Context) -> None:
    """A known predicate applied to the wrong number of arguments (arities as LIBERO's and
    VLA-Arena's ``base_predicates.py`` and ``_eval_predicate`` read them)."""
    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        if info is None or info.args is None or len(atom.args) == info.arity:
            continue
        if is_held_atom(block, atom):
            continue  # (Grasped OBJECT GRIPPER): held at reset, RSB440
        ctx.report(
            "RSB205",
            f"{info.name!r} takes {info.arity} argument{'s' if info.arity != 1 else ''} "
            f"({', '.join(info.args)}), got {len(atom.args)}",
            atom.span,
        )


def _arg_kind(ctx: Context, arg: Arg) -> str:
    if isinstance(arg, Number):
        return "number"
    if isinstance(arg, NumberList):
        return "numbers"
    if isinstance(arg, Variable):
        return "variable"
    if arg.value in ctx.regions:
        return "region"
    if arg.value in ctx.decls:
        return "object"
    if arg.value == ALL_PARTS:
        return "all"
    return "undefined"


#: The name that stands for every part of an object (``InContactPart``).
ALL_PARTS = "all"

_ACCEPTS = {
    "object": {"object", "variable"},
    "place": {"object", "region", "variable"},
    "region": {"region", "variable"},
    "number": {"number"},
    "numbers": {"numbers"},
    "parts": {"numbers", "all"},
}


def expected_kinds(atom: Atom) -> tuple[str, ...] | None:
    """The argument kinds ``atom``'s predicate expects, when known and the arity matches."""
    info = PREDICATES.get(atom.predicate.lower())
    if info is None or info.args is None or len(atom.args) != info.arity:
        return None
    return info.args


@rule(
    "RSB206",
    "argument-kind",
    "error",
    bad="(:init (On table_candidates block_a))",
    good="(:init (On block_a table_candidates))",
)
def argument_kind(ctx: Context) -> None:
    """An argument of the wrong kind: a region where an object is expected, a name where a
    number is expected, and so on (kinds: object, place = object or region, region, number,
    numbers, parts = ``all`` or a list of part ids)."""
    for _, atom in ctx.atoms():
        kinds = expected_kinds(atom)
        if kinds is None:
            continue
        for index, (arg, want) in enumerate(zip(atom.args, kinds, strict=True), start=1):
            got = _arg_kind(ctx, arg)
            if got == "undefined" or got in _ACCEPTS[want]:
                continue
            ctx.report(
                "RSB206",
                f"argument {index} of {atom.predicate!r} must be {_article(want)}, "
                f"got {got} {_show(arg)}",
                arg.span,
            )


def _article(kind: str) -> str:
    return {
        "object": "an object",
        "place": "an object or region",
        "region": "a region",
        "number": "a number",
        "numbers": "a list of numbers",
        "parts": "all or a list of part ids",
    }[kind]


def _show(arg: Arg) -> str:
    if isinstance(arg, Name):
        return repr(arg.value)
    if isinstance(arg, Variable):
        return f"'?{arg.name}'"
    if isinstance(arg, Number):
        return f"{arg.value:g}"
    return "(" + " ".join(f"{v:g}" for v in arg.values) + ")"


@rule(
    "RSB203",
    "unknown-category",
    "error",
    bad="(:objects block_a - leter_block)",
    good="(:objects block_a - letter_block)",
)
def unknown_category(ctx: Context) -> None:
    """An object or fixture of a category nobody can build. With ``(:domain rsb)`` objects
    must be rsb categories (``rsb_mj.lang.categories.RSB_CATEGORIES``) and fixtures
    ``table``; other domains may use any LIBERO or VLA-Arena category."""
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if not decl.category:
            continue
        if ctx.semantics == "rsb":
            valid = RSB_FIXTURE_CATEGORIES if decl.name in ctx.fixtures else set(RSB_CATEGORIES)
        else:
            valid = ALL_CATEGORIES
        if decl.category in valid:
            continue
        kind = "fixture" if decl.name in ctx.fixtures else "object"
        close = did_you_mean(decl.category, _same_kind(valid, kind))
        hint = f"did you mean {close!r}? " if close else ""
        ctx.report(
            "RSB203",
            f"{kind} {decl.name!r} has unknown category {decl.category!r}; {hint}"
            f"valid choices: {choices_text(valid)}",
            decl.span,
            fix=close,
        )


def _same_kind(valid: set[str] | frozenset[str], kind: str) -> set[str]:
    """The categories of ``valid`` of a declaration's kind (``"fixture"`` or ``"object"``):
    what RSB203 may suggest (``wine_glass`` is not a ``wine_rack``)."""
    if kind == "fixture":
        return {c for c in valid if c in FIXTURE_CATEGORIES or c in RSB_FIXTURE_CATEGORIES}
    return {c for c in valid if c not in FIXTURE_CATEGORIES}


#: Why RSB208 on a region is a warning outside ``(:domain rsb)``.
_SAME_NAME_LOADERS = (
    "; LIBERO's and VLA-Arena's loaders accept this (a warning in their domains): rsb_mj "
    "uses the first definition"
)
#: Why RSB209 on a region nothing uses is a warning outside ``(:domain rsb)``.
_UNUSED_REGION_LOADERS = (
    "; LIBERO's and VLA-Arena's loaders accept this and nothing uses the region (a warning "
    "in their domains): rsb_mj builds no site for it"
)


@rule(
    "RSB208",
    "duplicate-name",
    "error",
    bad="(:objects block_a block_a - letter_block)",
    good="(:objects block_a block_b - letter_block)",
)
def duplicate_name(ctx: Context) -> None:
    """The same name declared twice (objects and fixtures share one namespace) or two regions
    with the same full name: references to it become ambiguous. Outside ``(:domain rsb)`` a
    region defined twice is a warning (LIBERO's and VLA-Arena's loaders accept it; rsb_mj uses
    the first definition)."""
    seen: dict[str, Span] = {}
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if decl.name in seen:
            ctx.report(
                "RSB208",
                f"{decl.name!r} is declared again (first at line {seen[decl.name].line})",
                decl.span,
            )
        else:
            seen[decl.name] = decl.span
    regions: dict[str, Span] = {}
    for region in ctx.problem.regions:
        full = region.full_name
        if full in regions:
            loaders = "" if ctx.semantics == "rsb" else _SAME_NAME_LOADERS
            ctx.report(
                "RSB208",
                f"region {full!r} is defined again (first at line {regions[full].line})" + loaders,
                region.span,
                severity="warning" if loaders else None,
            )
        elif full in seen:
            ctx.report("RSB208", f"region {full!r} has the name of a declared object", region.span)
        regions.setdefault(full, region.span)


@rule(
    "RSB209",
    "unknown-region-target",
    "error",
    bad="(candidates (:target tabel) (:ranges ((-0.2 -0.1 0.2 0.02))))",
    good="(candidates (:target table) (:ranges ((-0.2 -0.1 0.2 0.02))))",
)
def unknown_region_target(ctx: Context) -> None:
    """A region whose ``:target`` is not a declared fixture or object (or that has no
    ``:target`` at all): nothing to attach it to, and its full name is unclear. Outside
    ``(:domain rsb)`` a region that nothing uses is a warning (LIBERO's and VLA-Arena's loaders
    accept it; rsb_mj builds no site for it)."""
    for region in ctx.problem.regions:
        if region.target is None:
            ctx.report(
                "RSB209",
                f"region {region.name!r} has no (:target NAME); valid targets: "
                f"{choices_text(ctx.decls) or '(none declared)'}",
                region.span,
            )
            continue
        if region.target in ctx.decls:
            continue
        close = did_you_mean(region.target, ctx.decls)
        hint = f"did you mean {close!r}? " if close else ""
        unused = ctx.semantics != "rsb" and region.full_name not in ctx.used_names()
        ctx.report(
            "RSB209",
            f"region {region.name!r} targets {region.target!r}, which is not declared; "
            f"{hint}valid targets: {choices_text(ctx.decls) or '(none declared)'}"
            + (_UNUSED_REGION_LOADERS if unused else ""),
            region.span,
            fix=close,
            severity="warning" if unused else None,
        )


@rule(
    "RSB210",
    "missing-category",
    "error",
    bad="(:objects block_a block_b)",
    good="(:objects block_a block_b - letter_block)",
)
def missing_category(ctx: Context) -> None:
    """A declared name with no ``- category`` after it: the scene cannot build it."""
    for decl in (*ctx.problem.fixtures, *ctx.problem.objects):
        if not decl.category:
            ctx.report(
                "RSB210",
                f"{decl.name!r} has no category; write '{decl.name} - CATEGORY'",
                decl.span,
            )


def _registry(ctx: Context) -> tuple[dict[str, PredicateInfo], dict[str, PredicateInfo], str]:
    """The predicates a file may name, by its domain: any other file than an rsb task reads
    LIBERO's and VLA-Arena's registries together; an rsb task may name any registered
    predicate (RSB213 then says which ones the rsb simulator cannot evaluate)."""
    if ctx.semantics == "rsb":
        return PREDICATES, predicates_of(("rsb",)), "rsb"
    both = predicates_of(("libero", "vla_arena"))
    return both, both, "LIBERO or VLA-Arena"


@rule(
    "RSB204",
    "unknown-predicate",
    "error",
    bad="(:init (Onn block_a table_candidates))",
    good="(:init (On block_a table_candidates))",
)
def unknown_predicate(ctx: Context) -> None:
    """A predicate no registry of the file's domain defines: LIBERO's and VLA-Arena's for a
    ``(:domain robosuite)`` file (``rsb_mj.lang.predicates.PREDICATES``, read from the two
    projects' ``predicates/__init__.py``); any registry for an rsb task. Their evaluators would
    stop on it (or, in a ``:cost``, it would never fire)."""
    known, shown, where = _registry(ctx)
    valid = [p.name for p in shown.values()]
    for _, atom in ctx.atoms():
        if atom.predicate.lower() in known:
            continue
        close = did_you_mean(atom.predicate, [p.name for p in known.values()])
        hint = f"did you mean {close!r}? " if close else ""
        other = PREDICATES.get(atom.predicate.lower())
        if other is not None:
            names = ", ".join(_DOMAIN_WORDS[d] for d in PREDICATE_DOMAINS if d in other.domains)
            hint = f"it is {names}'s, not {where}'s; " + hint
        ctx.report(
            "RSB204",
            f"unknown predicate {atom.predicate!r}; {hint}valid choices: {choices_text(valid, 30)}",
            atom.span,
            fix=close,
        )


_DOMAIN_WORDS = {"libero": "LIBERO", "vla_arena": "VLA-Arena", "rsb": "rsb"}


@rule(
    "RSB213",
    "unscoreable-predicate",
    "error",
    bad="(:goal (And (InContact ?answer table) (Released ?answer)))",
    good="(:goal (And (In ?answer table_answer_zone) (Released ?answer)))",
    applies_to="question",
)
def unscoreable_predicate(ctx: Context) -> None:
    """In an rsb task, a registered predicate the rsb simulator cannot evaluate where it is
    used: ``:grasp`` and ``:goal`` take the predicates ``rsb_mj.scoring`` scores
    (``RSB_SCOREABLE``: Grasped, In, On, Released), ``:cost`` the safety predicates
    ``rsb_mj.scoring.cost`` evaluates (``RSB_COST``), ``:init`` the placement the layout
    sampler reads (``On``). LIBERO and VLA-Arena files are not checked: their own simulators
    evaluate their predicates."""
    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        if info is None:
            continue  # RSB204
        valid = {"init": RSB_PLACEMENT, "cost": RSB_COST}.get(block, RSB_SCOREABLE)
        if info.name in valid or is_held_atom(block, atom):  # held at reset: RSB440
            continue
        names = ", ".join(_DOMAIN_WORDS[d] for d in PREDICATE_DOMAINS if d in info.domains)
        doing = {"init": "place objects with", "cost": "evaluate"}.get(block, "score")
        ctx.report(
            "RSB213",
            f"the rsb simulator cannot {doing} {info.name!r} ({names}) in :{block}; "
            f"valid choices there: {', '.join(sorted(valid))}",
            atom.span,
        )


@rule(
    "RSB207",
    "undefined-name",
    "error",
    bad="(:goal (And (In ?answer table_answer_zon)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_name(ctx: Context) -> None:
    """A name used in ``:init``, ``:goal``, ``:cost``, ``:grasp`` or ``:obj_of_interest`` that
    is neither a declared object or fixture nor a region's full name (``<target>_<region>``).
    Outside ``(:domain rsb)`` an ``:obj_of_interest`` name is a warning (LIBERO's and
    VLA-Arena's loaders accept it)."""
    known = set(ctx.decls) | set(ctx.regions)

    def check(name: str, span: Span, where: str) -> None:
        if name in known:
            return
        close = did_you_mean(name, known)
        hint = f"; did you mean {close!r}?" if close else _region_hint(ctx, name)
        # LIBERO's and VLA-Arena's loaders never resolve :obj_of_interest names: a warning there
        loose = where == ":obj_of_interest" and ctx.semantics != "rsb"
        ctx.report(
            "RSB207",
            f"{name!r} in {where} is not a declared object, fixture or region{hint}"
            + (
                "; LIBERO's and VLA-Arena's loaders accept this (a warning in their domains)"
                if loose
                else ""
            ),
            span,
            fix=close,
            severity="warning" if loose else None,
        )

    for block, atom in ctx.atoms():
        info = PREDICATES.get(atom.predicate.lower())
        takes_parts = info is not None and "parts" in (info.args or ())
        held = is_held_atom(block, atom)
        for index, arg in enumerate(atom.args):
            if not isinstance(arg, Name) or (takes_parts and arg.value == ALL_PARTS):
                continue
            if held and index == 1:
                continue  # the gripper of (Grasped OBJECT GRIPPER): RSB440
            check(arg.value, arg.span, f":{block}")
    for name in ctx.problem.obj_of_interest:
        check(name, ctx.block_span("obj_of_interest"), ":obj_of_interest")


def _region_hint(ctx: Context, name: str) -> str:
    """For an undeclared ``{T}_{R}`` whose ``T`` is a declared object or fixture (the
    longest such prefix): how to declare the region ``R`` on ``T``; else ``""``."""
    owner = next(
        (d for d in sorted(ctx.decls, key=len, reverse=True) if name.startswith(d + "_")), None
    )
    if owner is None or len(name) <= len(owner) + 1:
        return ""
    region = name[len(owner) + 1 :]
    return (
        f"; to use the {region!r} of {owner!r}, declare it in :regions: "
        f"({region} (:target {owner}))"
    )


@rule(
    "RSB212",
    "undefined-variable",
    "error",
    bad="(:goal (And (In ?anser table_answer_zone)))",
    good="(:goal (And (In ?answer table_answer_zone)))",
)
def undefined_variable(ctx: Context) -> None:
    """A variable the episode does not bind. ``?answer`` (the correct option's candidate) may
    appear in ``:grasp``, ``:goal`` and ``:cost``; a typed variable ``?c - candidate`` ranges
    over all candidates in the same blocks. ``:init`` describes the start state and takes no
    variables."""
    for block, atom in ctx.atoms():
        for arg in atom.args:
            if not isinstance(arg, Variable):
                continue
            if block == "init":
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' in :init; :init names objects and regions only",
                    arg.span,
                )
            elif arg.kind is not None and arg.kind not in VARIABLE_KINDS:
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' has unknown kind {arg.kind!r}; valid choices: "
                    f"{', '.join(VARIABLE_KINDS)}",
                    arg.span,
                )
            elif arg.kind is None and arg.name != "answer":
                close = did_you_mean(arg.name, ["answer"])
                ctx.report(
                    "RSB212",
                    f"variable '?{arg.name}' is not bound; valid choices: ?answer, "
                    "or a typed variable such as '?c - candidate'",
                    arg.span,
                    fix="?answer" if close else None,
                )
