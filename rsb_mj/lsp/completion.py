"""Completion: what may be written at the cursor, by the grammar and the registries.

At ``(|`` the grammar (:mod:`rsb_mj.lsp.grammar`) says which forms may open inside the
enclosing form: block keywords inside ``(define ...)``, ``:source``/``:choices`` inside
``:question``, region properties inside a region, predicates and ``And``/``Or``/``Not`` inside
an expression block, a source's parameters inside ``(:source (NAME ...))``. After a form's
head, the registries say what its names may be: the predicate's argument kinds pick declared
objects, fixtures or regions; ``- `` in ``:objects`` picks categories; ``:source`` picks
source names; a parameter picks its valid values; and so on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rsb_mj.episodes.sources.params import SOURCE_PARAMS
from rsb_mj.lang import ast, motion, templates
from rsb_mj.lang.block_values import (
    DOMAINS,
    GENERIC_BLOCKS,
    MAP_RULES,
    SOURCE_CHOICES,
    TEMPLATE_SETS,
)
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.known_categories import ALL_CATEGORIES, KNOWN_CATEGORIES
from rsb_mj.lang.predicates import PREDICATES, RSB_COST, RSB_PLACEMENT, RSB_SCOREABLE, predicates_of
from rsb_mj.lang.table_top import RSB_FIXTURE_CATEGORIES
from rsb_mj.lang.task import Family, family, task_family
from rsb_mj.lsp import grammar, reference
from rsb_mj.lsp.context import Cursor

#: Blocks whose items are expressions (predicates inside them, at any depth).
EXPRESSION_BLOCKS = (":init", ":grasp", ":goal", ":cost")
CONNECTIVES = ("and", "or", "not")
#: Variables the scorer binds: the correct option's candidate, and any candidate.
VARIABLES = ("?answer", "?c - candidate")


@dataclass(frozen=True)
class Item:
    """One completion: the text inserted, its kind (``keyword``, ``predicate``, ``category``,
    ``object``, ``region``, ``source``, ``parameter``, ``value``, ``variable``), a one-line
    detail and a lazily made reference text (``doc()``)."""

    label: str
    kind: str
    detail: str = ""
    topic: tuple[str, str] | None = None

    def doc(self, problem: ast.Problem | None = None) -> str | None:
        """The reference text of the item, or None."""
        if self.topic is None:
            return None
        what, key = self.topic
        if what == "predicate":
            return reference.predicate(key)
        if what == "category":
            return reference.category(key)
        if what == "source":
            return reference.source(key)
        if what == "block":
            return reference.block(key)
        if what == "parameter":
            source, _, param = key.partition(" ")
            return reference.source_param(source, param)
        if what == "region" and problem is not None:
            region = next((r for r in problem.regions if r.full_name == key), None)
            return reference.region(region, problem) if region is not None else None
        return None


def in_expression(cursor: Cursor, depth: int) -> bool:
    """True when the form ``depth`` levels out is an expression block or a connective
    inside one."""
    for form in reversed(cursor.forms[: len(cursor.forms) + depth + 1]):
        if form.head in EXPRESSION_BLOCKS:
            return True
        if form.head not in CONNECTIVES:
            return False
    return False


def _expression_block(cursor: Cursor) -> str:
    return next((f.head for f in reversed(cursor.forms) if f.head in EXPRESSION_BLOCKS), "")


_DOMAIN = re.compile(r"\(\s*:domain\s+([^\s()]+)", re.I)
_QUESTION = re.compile(r"\(\s*:question\b", re.I)


def family_at(problem: ast.Problem | None, text: str) -> Family:
    """The family of the task being edited (:func:`rsb_mj.lang.task.task_family`, the rule
    ``rsb lint`` and the pipeline use): a question task is completed with rsb's vocabulary,
    a goal task with LIBERO's and VLA-Arena's. Text that does not parse is judged by the
    same rule on its ``(:domain D)`` and whether it has a ``(:question``."""
    if problem is not None:
        return task_family(problem)
    domain = _DOMAIN.search(text)
    return family(domain.group(1) if domain else None, _QUESTION.search(text) is not None)


def _predicates(block: str, rsb: bool) -> list[Item]:
    if rsb:
        allowed = {
            ":init": RSB_PLACEMENT,
            ":grasp": RSB_SCOREABLE,
            ":goal": RSB_SCOREABLE,
            ":cost": RSB_COST,
        }.get(block, frozenset(p.name for p in PREDICATES.values()))
        infos = [p for p in PREDICATES.values() if p.name in allowed]
    else:
        infos = list(predicates_of(("libero", "vla_arena")).values())
    return [
        Item(
            p.name, "predicate", f"({p.name} {' '.join(p.args or ('...',))})", ("predicate", p.name)
        )
        for p in infos
    ]


def _keywords(keys: tuple[str, ...], parent: str) -> list[Item]:
    out = []
    for key in keys:
        if key == grammar.ANY_KEYWORD:
            if parent == "define":
                out += [
                    Item(":" + b, "keyword", "block kept verbatim", ("block", b))
                    for b in sorted(GENERIC_BLOCKS)
                ]
        elif not key.startswith("<"):
            label = key if key.startswith(":") else key.capitalize()
            topic = ("block", key[1:]) if parent == "define" else None
            out.append(Item(label, "keyword", f"({label} ...)", topic))
    return out


def _names(problem: ast.Problem | None, objects: bool, fixtures: bool, regions: bool) -> list[Item]:
    if problem is None:
        return []
    out = []
    if fixtures:
        out += [Item(d.name, "object", f"fixture - {d.category}") for d in problem.fixtures]
    if objects:
        out += [Item(d.name, "object", f"object - {d.category}") for d in problem.objects]
    if regions:
        out += [
            Item(r.full_name, "region", "region", ("region", r.full_name)) for r in problem.regions
        ]
    return out


def _values(values: tuple[str, ...] | frozenset[str], kind: str, detail: str) -> list[Item]:
    return [Item(v, kind, detail) for v in sorted(values)]


def _opening(cursor: Cursor, problem: ast.Problem | None, rsb: bool) -> list[Item]:
    """Completions for the head of the innermost form (the cursor right after ``(``)."""
    index = grammar.index()
    parent = cursor.head(-2)
    outer = cursor.head(-3)
    if len(cursor.forms) == 1:
        return [Item("define", "keyword", "(define (problem NAME) ...)")]
    if in_expression(cursor, -2):
        keys = index.children.get(parent, ())
        items = _keywords(tuple(k for k in keys if k in CONNECTIVES), parent)
        if "<atom>" in keys:
            items += _predicates(_expression_block(cursor), rsb)
        return items
    if outer == ":regions":
        return _keywords(index.children.get("<region>", ()), "<region>")
    if outer == ":source" and parent:
        source = parent

        return [
            Item(
                f":{p.name}",
                "parameter",
                reference.source_param_line(p),
                ("parameter", f"{source} {p.name}"),
            )
            for p in SOURCE_PARAMS.get(source, ())
        ]
    if parent == ":source":
        items = _keywords(
            tuple(k for k in index.children.get(":source", ()) if k.startswith(":")), parent
        )
        return items + _sources(rsb)
    if parent == ":moving_objects":
        return _names(problem, True, False, False)
    if outer == ":moving_objects":
        keys = sorted({k for ks in motion.KEYS.values() for k in ks} | {"type"})
        return [Item(f":motion_{k}", "keyword", "moving object property") for k in keys]
    if parent == "define" and cursor.forms[-2].nested:
        keys = tuple(k for k in index.children.get("define", ()) if k != "problem")
        return _keywords(keys, "define")
    return _keywords(index.children.get(parent, ()), parent)


def _sources(rsb: bool) -> list[Item]:
    names = list(SOURCE_CHOICES)
    return [Item(n, "source", "question source", ("source", n)) for n in names] if rsb else []


def _argument(cursor: Cursor, problem: ast.Problem | None, rsb: bool) -> list[Item]:
    """Completions for an item after the head of the innermost form."""
    head = cursor.head()
    parent = cursor.head(-2)
    index = cursor.index
    if in_expression(cursor, -2) and head not in CONNECTIVES:
        info = PREDICATES.get(head)
        if info is None:
            return []
        kinds = info.args
        kind = kinds[index - 1] if kinds is not None and 0 < index <= len(kinds) else None
        if kinds is not None and kind is None:
            return []
        items = _names(
            problem,
            objects=kind in (None, "object", "place"),
            fixtures=kind in (None, "object", "place"),
            regions=kind in (None, "place", "region"),
        )
        if kind in (None, "object") and _expression_block(cursor) != ":init":
            items += [Item(v, "variable", "bound by the scorer") for v in VARIABLES]
        if kind == "parts":
            items.append(Item("all", "value", "every part"))
        return items
    if head in (":objects", ":fixtures"):
        if cursor.previous != "-":
            return []
        if head == ":fixtures":
            pool = RSB_FIXTURE_CATEGORIES if rsb else KNOWN_CATEGORIES
        else:
            pool = frozenset(RSB_CATEGORIES) if rsb else ALL_CATEGORIES
        return [Item(c, "category", "object category", ("category", c)) for c in sorted(pool)]
    if cursor.head(-3) == ":source" and head.startswith(":"):
        source = parent

        info = next((p for p in SOURCE_PARAMS.get(source, ()) if f":{p.name}" == head), None)
        return _values(info.valid, "value", f":{info.name}") if info is not None else []
    if cursor.head(-3) == ":moving_objects" and head == ":motion_type":
        return _values(motion.MOTION_TYPES, "value", "motion type")
    single = {
        ":domain": (DOMAINS, "domain"),
        ":map": (MAP_RULES[:1], "option mapping"),
        ":templates": (TEMPLATE_SETS, "template set"),
        ":train": (TEMPLATE_SETS, "template set"),
        ":eval": (TEMPLATE_SETS, "template set"),
    }
    if head in single:
        values, detail = single[head]
        return _values(values, "value", detail)
    if head == ":source" and index == 1:
        return _sources(rsb)
    if head == ":target":
        return _names(problem, True, True, False)
    if head in (":candidates", ":obj_of_interest"):
        return _names(problem, True, False, False)
    if head == ":answer_zone":
        return _names(problem, False, False, True)
    return []


def complete(cursor: Cursor, problem: ast.Problem | None, text: str) -> list[Item]:
    """Every completion at ``cursor`` (empty in a comment, a string or outside any form)."""
    if cursor.in_comment or not cursor.forms:
        return []
    if cursor.token is not None and cursor.token.kind == "string":
        return []
    rsb = family_at(problem, text) == "question"
    items = _opening(cursor, problem, rsb) if cursor.index == 0 else _argument(cursor, problem, rsb)
    prefix = cursor.prefix.lower()
    return [i for i in items if i.label.lower().startswith(prefix)]


def complete_template(line_before: str, name: str) -> tuple[int, list[Item]]:
    """Placeholders after a ``{`` in a template file called ``name`` (its choice count from
    the name, as ``rsb lint`` reads it): how many characters before the cursor they replace
    (the ``{`` and what follows it), and the items (``{Q}``, ``{MAPA}`` ...)."""
    start = line_before.rfind("{")
    if start < 0 or "}" in line_before[start:] or line_before.lstrip().startswith("#"):
        return 0, []
    choices = templates.choices_from_name(name)
    if choices is None:
        return 0, []
    typed = line_before[start:]
    required = set(templates.REQUIRED[choices])
    items = [
        Item("{" + p + "}", "value", f"{choices} choices" + (", required" if p in required else ""))
        for p in templates.PLACEHOLDERS[choices]
    ]
    return len(typed), [i for i in items if i.label.lower().startswith(typed.lower())]
