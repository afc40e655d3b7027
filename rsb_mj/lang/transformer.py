"""Build the typed AST of :mod:`rsb_mj.lang.ast` from the rules of ``grammar/rsb.lark``.

One method per grammar rule, named after it. Children are read by their type (token type or
AST class), never by position. Every node gets the :class:`~rsb_mj.lang.nodes.Span` of its rule.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rsb_mj.lang import ast
from rsb_mj.lang.blocks import (
    FILE_SOURCE,
    AnswerZone,
    Instruction,
    Layout,
    OptionMap,
    Question,
    SourceParam,
    TemplateChoice,
)
from rsb_mj.lang.carriers import (
    FileRef,
    Names,
    Part,
    Prop,
    Token,
    declarations_of,
    exprs_of,
    first_props,
    floats_of,
    props_of,
    span_of,
    span_over,
    tokens_of,
)
from rsb_mj.lang.expr import (
    And,
    Atom,
    Name,
    Not,
    Number,
    NumberList,
    Or,
    Section,
    SList,
    Symbol,
    Variable,
)
from rsb_mj.lang.nodes import NO_SPAN, Span
from rsb_mj.lang.numbers import read_number
from rsb_mj.lang.predicates import canonical_predicate

__all__ = ["AstBuilder"]


class AstBuilder:
    """The grammar's rule callbacks, producing :class:`~rsb_mj.lang.ast.Problem` from ``start``.

    Lark's LALR parser calls them as it reduces each rule (:func:`rsb_mj.lang.grammar.grammar`
    mixes this class into a ``lark.Transformer``), with every token kept, so no parse tree is
    built. :func:`rsb_mj.lang.parser.parse_source` sets ``Problem.path`` afterwards.
    """

    # ---- root --------------------------------------------------------------------------------

    def start(self, children: list[Any]) -> ast.Problem:
        name = next((c.value for c in children if isinstance(c, Prop) and c.keyword == "name"), "")
        parts = [c for c in children if isinstance(c, Part)]
        fields: dict[str, Any] = {}
        sections: list[Section] = []
        interest_spans: tuple[Span, ...] = ()
        for part in parts:
            if part.keyword in _LIST_BLOCKS:
                key = _LIST_BLOCKS[part.keyword]
                fields[key] = fields.get(key, ()) + tuple(part.value)
                if part.keyword == "obj_of_interest":
                    interest_spans += part.value.spans
            elif part.keyword == "section":
                sections.append(part.value)
            else:
                fields[_SCALAR_BLOCKS[part.keyword]] = part.value
        return ast.Problem(
            name=name,
            sections=tuple(sections),
            blocks=tuple(
                (p.keyword if p.keyword != "section" else p.value.keyword, p.span) for p in parts
            ),
            span=span_over(children),
            obj_of_interest_spans=interest_spans,
            **fields,
        )

    def problem_name(self, children: list[Any]) -> Prop:
        (name,) = tokens_of(children, "NAME")
        return Prop("name", str(name), span_over(children))

    # ---- LIBERO / VLA-Arena blocks -----------------------------------------------------------

    def domain(self, children: list[Any]) -> Part:
        (name,) = tokens_of(children, "NAME")
        return Part("domain", str(name), span_over(children))

    def language(self, children: list[Any]) -> Part:
        words = tokens_of(children, "WORD")
        return Part("language", " ".join(words), span_over(children))

    def regions(self, children: list[Any]) -> Part:
        return Part(
            "regions", [c for c in children if isinstance(c, ast.Region)], span_over(children)
        )

    def fixtures(self, children: list[Any]) -> Part:
        return Part("fixtures", declarations_of(children), span_over(children))

    def objects(self, children: list[Any]) -> Part:
        return Part("objects", declarations_of(children), span_over(children))

    def decl_name(self, children: list[Any]) -> Token:
        (name,) = tokens_of(children, "NAME")
        return name

    def decl_category(self, children: list[Any]) -> Prop:
        (name,) = tokens_of(children, "NAME")
        return Prop("category", str(name), span_over(children))

    def obj_of_interest(self, children: list[Any]) -> Part:
        tokens = tokens_of(children, "NAME")
        names = Names(str(t) for t in tokens)
        names.spans = tuple(span_of(t) for t in tokens)
        return Part("obj_of_interest", names, span_over(children))

    def init(self, children: list[Any]) -> Part:
        return Part("init", exprs_of(children), span_over(children))

    def goal(self, children: list[Any]) -> Part:
        return Part("goal", exprs_of(children), span_over(children))

    def cost(self, children: list[Any]) -> Part:
        return Part("cost", exprs_of(children), span_over(children))

    # ---- regions -----------------------------------------------------------------------------

    def region(self, children: list[Any]) -> ast.Region:
        (name,) = tokens_of(children, "NAME")
        fields: dict[str, Any] = {}
        extra: list[Section] = []
        for prop in props_of(children):
            if prop.keyword == "section":
                extra.append(prop.value)
            elif prop.keyword in ("ranges", "yaw_rotation"):
                fields[prop.keyword] = fields.get(prop.keyword, ()) + prop.value
            else:
                fields[prop.keyword] = prop.value
        prop_spans = []
        for child in children:
            if isinstance(child, Part):  # a generic (:keyword ...) property
                extra.append(child.value)
            if isinstance(child, Prop | Part):
                prop_spans.append((child.keyword, child.span))
        return ast.Region(
            str(name),
            extra=tuple(extra),
            span=span_over(children),
            prop_spans=tuple(prop_spans),
            **fields,
        )

    def target(self, children: list[Any]) -> Prop:
        (name,) = tokens_of(children, "NAME")
        return Prop("target", str(name), span_over(children))

    def ranges(self, children: list[Any]) -> Prop:
        rects = tuple(c for c in children if isinstance(c, ast.Rect))
        return Prop("ranges", rects, span_over(children))

    def rect(self, children: list[Any]) -> ast.Rect:
        x0, y0, x1, y1 = floats_of(children)
        return ast.Rect(x0, y0, x1, y1, span=span_over(children))

    def yaw_rotation(self, children: list[Any]) -> Prop:
        pairs = tuple(c for c in children if isinstance(c, tuple))
        return Prop("yaw_rotation", pairs, span_over(children))

    def pair(self, children: list[Any]) -> tuple[float, float]:
        lo, hi = floats_of(children)
        return (lo, hi)

    def rgba(self, children: list[Any]) -> Prop:
        return Prop("rgba", floats_of(children), span_over(children))

    # ---- rsb blocks --------------------------------------------------------------------------

    def question(self, children: list[Any]) -> Part:
        values, repeated = first_props(children)
        source = values.get("source")
        name, params, file = source.value if source is not None else (None, (), None)
        choices = values["choices"].value if "choices" in values else None
        node = Question(
            name,
            choices,
            params,
            file,
            span=span_over(children),
            repeated=repeated,
            source_span=source.span if source is not None else NO_SPAN,
            choices_span=values["choices"].span if "choices" in values else NO_SPAN,
        )
        return Part("question", node, span_over(children))

    def source(self, children: list[Any]) -> Prop:
        (name,) = tokens_of(children, "NAME")
        return Prop("source", (str(name), (), None), span_over(children))

    def source_call(self, children: list[Any]) -> Prop:
        (name,) = tokens_of(children, "NAME")
        params = tuple(c for c in children if isinstance(c, SourceParam))
        return Prop("source", (str(name), params, None), span_over(children))

    def source_file(self, children: list[Any]) -> Prop:
        (ref,) = (c for c in children if isinstance(c, FileRef))
        return Prop("source", (FILE_SOURCE, (), ref.path), span_over(children))

    def source_param(self, children: list[Any]) -> SourceParam:
        (keyword,) = tokens_of(children, "KEYWORD")
        values: list[str | int | float] = []
        for token in tokens_of(children, "NAME", "STRING", "NUMBER"):
            if token.type == "NUMBER":
                values.append(read_number(token))
            elif token.type == "STRING":
                values.append(str(token)[1:-1])
            else:
                values.append(str(token))
        return SourceParam(str(keyword)[1:].lower(), tuple(values), span=span_over(children))

    def file_ref(self, children: list[Any]) -> FileRef:
        (path,) = tokens_of(children, "STRING")
        return FileRef(str(path)[1:-1], span_over(children))

    def choices(self, children: list[Any]) -> Prop:
        (number,) = tokens_of(children, "NUMBER")
        return Prop("choices", read_number(number), span_over(children))

    def instruction(self, children: list[Any]) -> Part:
        values, repeated = first_props(children)
        chosen: tuple[TemplateChoice, ...] = (
            values["templates"].value if "templates" in values else ()
        )
        plain = [c.set_name for c in chosen if c.split is None and c.set_name is not None]
        name = plain[0] if len(chosen) == 1 and plain else None
        node = Instruction(name, chosen, span=span_over(children), repeated=repeated)
        return Part("instruction", node, span_over(children))

    def templates(self, children: list[Any]) -> Prop:
        chosen = []
        for child in children:
            if isinstance(child, TemplateChoice):
                chosen.append(child)
            elif isinstance(child, FileRef):
                chosen.append(TemplateChoice(None, None, child.path, span=child.span))
        return Prop("templates", tuple(chosen), span_over(children))

    def template_set(self, children: list[Any]) -> TemplateChoice:
        (name,) = tokens_of(children, "NAME")
        return TemplateChoice(None, str(name), None, span=span_over(children))

    def template_split(self, children: list[Any]) -> TemplateChoice:
        (key,) = tokens_of(children, "SPLIT_KEY")
        split = str(key)[1:].lower()
        for child in children:
            if isinstance(child, TemplateChoice):
                return TemplateChoice(split, child.set_name, None, span=span_over(children))
            if isinstance(child, FileRef):
                return TemplateChoice(split, None, child.path, span=span_over(children))
        raise AssertionError("template_split without a choice")  # the grammar forbids it

    def answer_zone(self, children: list[Any]) -> Part:
        names = tuple(str(t) for t in tokens_of(children, "NAME"))
        return Part("answer_zone", AnswerZone(names, span=span_over(children)), span_over(children))

    def candidates(self, children: list[Any]) -> Part:
        names = tuple(str(t) for t in tokens_of(children, "NAME"))
        return Part("candidates", names, span_over(children))

    def options(self, children: list[Any]) -> Part:
        maps = [c for c in children if isinstance(c, OptionMap)]
        if not maps:
            return Part("options", OptionMap("", span=span_over(children)), span_over(children))
        node = dataclasses.replace(maps[0], repeated=tuple(m.span for m in maps[1:]))
        return Part("options", node, span_over(children))

    def map_named(self, children: list[Any]) -> OptionMap:
        (name,) = tokens_of(children, "NAME")
        return OptionMap(str(name), span=span_over(children))

    def map_pairs(self, children: list[Any]) -> OptionMap:
        pairs = tuple(c for c in children if isinstance(c, tuple))
        return OptionMap("fixed", pairs, span=span_over(children))

    def map_pair(self, children: list[Any]) -> tuple[str, str]:
        letter, name = tokens_of(children, "NAME")
        return (str(letter), str(name))

    def grasp(self, children: list[Any]) -> Part:
        return Part("grasp", exprs_of(children), span_over(children))

    def layout(self, children: list[Any]) -> Part:
        values = {p.keyword: p.value for p in props_of(children)}
        node = Layout(values.get("min_spacing"), values.get("yaw_range"), span=span_over(children))
        return Part("layout", node, span_over(children))

    def min_spacing(self, children: list[Any]) -> Prop:
        (value,) = floats_of(children)
        return Prop("min_spacing", value, span_over(children))

    def yaw_range(self, children: list[Any]) -> Prop:
        (pair,) = (c for c in children if isinstance(c, tuple))
        return Prop("yaw_range", pair, span_over(children))

    # ---- expressions -------------------------------------------------------------------------

    def and_expr(self, children: list[Any]) -> And:
        return And(exprs_of(children), span=span_over(children))

    def or_expr(self, children: list[Any]) -> Or:
        return Or(exprs_of(children), span=span_over(children))

    def not_expr(self, children: list[Any]) -> Not:
        (term,) = exprs_of(children)
        return Not(term, span=span_over(children))

    def atom(self, children: list[Any]) -> Atom:
        (predicate,) = tokens_of(children, "NAME")
        args = tuple(c for c in children if not isinstance(c, str))
        return Atom(canonical_predicate(str(predicate)), args, span=span_over(children))

    def name(self, children: list[Any]) -> Name:
        (token,) = tokens_of(children, "NAME")
        return Name(str(token), span=span_over(children))

    def variable(self, children: list[Any]) -> Variable:
        (var,) = tokens_of(children, "VARIABLE")
        kinds = tokens_of(children, "NAME")
        kind = str(kinds[-1]) if kinds else None
        return Variable(str(var)[1:], kind, span=span_over(children))

    def number(self, children: list[Any]) -> Number:
        (value,) = floats_of(children)
        return Number(value, span=span_over(children))

    def number_list(self, children: list[Any]) -> NumberList:
        return NumberList(floats_of(children), span=span_over(children))

    # ---- generic blocks ----------------------------------------------------------------------

    def generic_section(self, children: list[Any]) -> Part:
        (keyword,) = tokens_of(children, "KEYWORD")
        items = tuple(c for c in children if not isinstance(c, str))
        node = Section(str(keyword)[1:].lower(), items, span=span_over(children))
        return Part("section", node, span_over(children))

    def symbol(self, children: list[Any]) -> Symbol:
        (token,) = children
        return Symbol(str(token), span=span_over(children))

    def slist(self, children: list[Any]) -> SList:
        items = tuple(c for c in children if not isinstance(c, str))
        return SList(items, span=span_over(children))


#: Blocks whose contents accumulate when a block appears twice (the linter flags the repeat).
_LIST_BLOCKS = {
    "regions": "regions",
    "fixtures": "fixtures",
    "objects": "objects",
    "obj_of_interest": "obj_of_interest",
    "init": "init",
    "goal": "goal_terms",
    "cost": "cost_terms",
    "grasp": "grasp_terms",
    "candidates": "candidate_names",
}
#: Blocks holding one value (the last one wins when repeated; the linter flags the repeat).
_SCALAR_BLOCKS = {
    "domain": "domain",
    "language": "language",
    "question": "question",
    "instruction": "instruction",
    "options": "options",
    "layout": "layout",
    "answer_zone": "answer_zone",
}
