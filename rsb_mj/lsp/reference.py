"""Reference text (Markdown) for hover and completion, read from the registries that the
linter and the runtime read: the vocabulary (:mod:`rsb_mj.lang.categories`,
:mod:`~rsb_mj.lang.predicates`, :mod:`~rsb_mj.lang.block_values`), the scoring and
cost predicate registries, the scene's category registry, the question sources and their
parameters, the motion keys, the lint rules and the grammar. Nothing here restates a fact;
each text is assembled from those sources.
"""

from __future__ import annotations

import inspect
import sys
from types import ModuleType

from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.params import SOURCE_PARAMS, ParamInfo
from rsb_mj.lang import a2a, ast, motion
from rsb_mj.lang.a2a import A2A_CHOICES, A2A_SOURCES
from rsb_mj.lang.block_values import GENERIC_BLOCKS, KNOWN_BLOCKS, SOURCE_CHOICES
from rsb_mj.lang.blocks import FILE_SOURCE
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.known_categories import ALL_CATEGORIES, ARTICULATED_CATEGORIES, KNOWN_CATEGORIES
from rsb_mj.lang.predicates import (
    ARG_KINDS,
    PREDICATE_DOMAINS,
    PREDICATES,
    RSB_COST,
    RSB_PLACEMENT,
    RSB_SCOREABLE,
)
from rsb_mj.lang.rules.base import RULES
from rsb_mj.lang.table_top import TABLE_CATEGORIES
from rsb_mj.lsp.grammar import index
from rsb_mj.scene.categories import CATEGORIES
from rsb_mj.scoring.cost_predicates import COST_PREDICATES
from rsb_mj.scoring.predicates import PREDICATES as SCORING

#: Rules shared by many blocks: a block's hover shows its own rules, not these.
_SHARED_RULES = frozenset({"expr", "atom", "arg", "sexp", "generic_section", "pair"})
_EXPRESSION_BLOCKS = {
    "init": ("placed by the rsb layout sampler", RSB_PLACEMENT),
    "grasp": ("scored by the rsb simulator", RSB_SCOREABLE),
    "goal": ("scored by the rsb simulator", RSB_SCOREABLE),
    "cost": ("evaluated by the rsb simulator", RSB_COST),
}


def _rst(text: str) -> str:
    """Docstring markup as Markdown (double backquotes to single)."""
    return inspect.cleandoc(text).replace("``", "`")


def _doc(obj: object) -> str:
    """The docstring of ``obj`` as Markdown ("" when it has none)."""
    doc = inspect.getdoc(obj)
    return _rst(doc) if doc else ""


def _first_paragraph(text: str) -> str:
    return text.split("\n\n", 1)[0]


def _module_of(obj: object) -> ModuleType | None:
    return sys.modules.get(getattr(obj, "__module__", ""))


def predicate(name: str) -> str | None:
    """A predicate's arity, argument kinds, registries and meaning, and what the rsb scorer
    or cost evaluator does with it (their module and class docstrings); None if unknown."""
    info = PREDICATES.get(name.lower())
    if info is None:
        return None
    args = "any arguments" if info.args is None else " ".join(info.args) or "no arguments"
    arity = "not checked" if info.arity is None else f"{info.arity}"
    lines = [
        f"**({info.name} {args})** predicate, arity {arity}",
        "",
        info.doc,
        "",
        "Registries: " + ", ".join(d for d in PREDICATE_DOMAINS if d in info.domains),
    ]
    uses = []
    if info.rsb_placement:
        uses.append("rsb places candidates with it in `:init`")
    if info.rsb_scoreable:
        uses.append("rsb scores it in `:grasp` and `:goal`")
    if info.rsb_cost:
        uses.append("rsb evaluates it in `:cost`")
    if info.per_step_cost:
        uses.append("a per-step cost term (VLA-Arena: 1 per control step it holds)")
    if uses:
        lines.append("rsb: " + "; ".join(uses))
    lines.append(f"Argument kinds: {', '.join(ARG_KINDS)} (see `rsb lint --explain RSB206`)")
    if info.rsb_scoreable:
        cls = SCORING.get(info.name)
        if cls is not None:
            module = _module_of(cls)
            lines += ["", "**Scoring**: " + _doc(cls)]
            if module is not None and module.__doc__:
                lines += ["", _rst(module.__doc__)]
    if info.rsb_cost:
        cost = COST_PREDICATES.get(info.name)
        if cost is not None:
            lines += ["", "**Cost**: " + _doc(cost)]
    return "\n".join(lines)


def category(name: str) -> str | None:
    """An object category: what the rsb scene builds (noun, footprint radius, letters, the
    category module's description) and the registries that know it; None if unknown."""
    info = RSB_CATEGORIES.get(name)
    if info is None and name not in ALL_CATEGORIES:
        return None
    lines = [f"**{name}** object category"]
    if info is not None:
        lines += [
            "",
            f'rsb builds it: instructions call it "{info.noun}"; footprint radius '
            f"{info.footprint_radius:g} m (layout sampler and RSB303); "
            + ("shows an option letter" if info.letters else "shows no option letter"),
        ]

        built = CATEGORIES.get(name)
        if built is not None:
            if built.description:
                lines += ["", _first_paragraph(_rst(built.description))]
            lines.append(f"Rests {built.rest_height:g} m above the table top (body origin).")
    else:
        lines += ["", "rsb does not build it (LIBERO / VLA-Arena only)."]
    if name in KNOWN_CATEGORIES:
        lines.append("Registered by LIBERO / VLA-Arena.")
    if name in ARTICULATED_CATEGORIES:
        lines.append("Articulated (doors, drawers or knobs).")
    if name in TABLE_CATEGORIES:
        lines.append("A table top: regions on it need `:ranges`.")
    return "\n".join(lines)


def source(name: str) -> str | None:
    """A question source: its questions, the choice counts it serves and its parameters; None
    if unknown."""
    if name in A2A_SOURCES.values():
        category_name = next(k for k, v in A2A_SOURCES.items() if v == name)

        return "\n".join(
            [
                f"**{name}** question source (Act2Answer, {category_name})",
                "",
                f"Choices: {', '.join(map(str, A2A_CHOICES))}",
                "",
                _first_paragraph(_rst(a2a.__doc__ or "")),
            ]
        )
    if name == FILE_SOURCE:
        return '**(:file "questions.jsonl")** a question bank: JSON lines, relative to the task'
    if name not in SOURCE_CHOICES:
        return None

    lines = [
        f"**{name}** question source",
        "",
        _doc(type(get_source(name))),
        "",
        f"Choices: {', '.join(map(str, SOURCE_CHOICES[name]))}",
    ]
    params = SOURCE_PARAMS.get(name, ())
    if params:
        lines += ["", f"Parameters, `(:source ({name} (:param VALUE ...)))`:"]
        lines += [f"- {source_param_line(p)}" for p in params]
    return "\n".join(lines)


def source_param_line(param: object) -> str:
    """One line for a :class:`rsb_mj.episodes.sources.params.ParamInfo`."""
    assert isinstance(param, ParamInfo)
    kind = "LO HI (whole numbers)" if param.kind == "range" else "names"
    valid = f"; valid: {', '.join(param.valid)}" if param.valid and len(param.valid) <= 16 else ""
    return f"`:{param.name}` {kind}: {param.doc}{valid}"


def source_param(source_name: str, param: str) -> str | None:
    """A source parameter's reference line, or None."""
    for info in SOURCE_PARAMS.get(source_name, ()):
        if info.name == param:
            return f"**{source_name}** parameter {source_param_line(info)}"
    return None


def block(keyword: str) -> str | None:
    """A block keyword (without colon, lower case): its grammar rules and, for expression
    blocks, which predicates rsb evaluates there; None if the language has no such block."""
    grammar = index()
    generic = keyword in GENERIC_BLOCKS
    if keyword not in KNOWN_BLOCKS and keyword not in grammar.rules and not generic:
        return None
    rule = "generic_section" if generic or keyword not in grammar.rules else keyword
    stop = _SHARED_RULES - {rule}
    lines = [f"**:{keyword}** block", "", "```lark", grammar.productions(rule, stop), "```"]
    if keyword in _EXPRESSION_BLOCKS:
        what, names = _EXPRESSION_BLOCKS[keyword]
        lines += ["", f"Predicates {what} here: {', '.join(sorted(names))}"]
    if keyword == "moving_objects":
        keys = ", ".join(f"{t}: {' '.join(motion.KEYS[t])}" for t in motion.MOTION_TYPES)
        lines += ["", f"Motion types and their `:motion_` keys: {keys}"]
    return "\n".join(lines)


def region(region_node: ast.Region, problem: ast.Problem | None) -> str:
    """A declared region: full name, target, rectangles [m, table frame], yaw and colour."""
    lines = [f"**{region_node.full_name}** region `{region_node.name}`"]
    if region_node.target:
        lines.append(f"of `{region_node.target}`")
    for rect in region_node.ranges:
        lines.append(
            f"- x {rect.x0:g} .. {rect.x1:g}, y {rect.y0:g} .. {rect.y1:g} m (table frame): "
            f"{rect.width:g} x {rect.depth:g} m"
        )
    for lo, hi in region_node.yaw_rotation:
        lines.append(f"- yaw {lo:g} .. {hi:g} rad")
    if region_node.rgba is not None:
        lines.append(f"- drawn with rgba ({' '.join(f'{v:g}' for v in region_node.rgba)})")
    if problem is not None and region_node.full_name in problem.answer_zone_names:
        lines.append("The answer zone: `(In ?answer ...)` is scored on it.")
    return "\n".join(lines)


def declaration(decl: ast.TypedName, kind: str) -> str:
    """A declared object or fixture and its category."""
    text = f"**{decl.name}** {kind} - `{decl.category}`"
    about = category(decl.category)
    return text + ("\n\n" + about if about else "")


def rule(code: str) -> str | None:
    """A lint rule's ``rsb lint --explain`` text as a Markdown block, or None."""
    found = RULES.get(code)
    if found is None:
        return None
    return "```text\n" + found.explain().rstrip("\n") + "\n```"
