"""A fast reader for well-formed task files, equivalent to the Lark parser on what it accepts.

``grammar/rsb.lark`` stays the definition of the language. Lark's LALR parser spends about
10 us per token in Python; this reader splits the text with one regular expression, walks the
s-expressions by hand following the grammar's rules, and builds every node with the *same*
rule callbacks (:class:`rsb_mj.lang.transformer.AstBuilder`) from the same tokens (type,
text, line, column), so the AST and every span are identical. It accepts a strict subset of
the language: whenever it meets anything unusual (a syntax error, a quoted string, a reserved
word where a name is expected, a keyword where the grammar has no rule for it, a number out
of range) it raises :class:`Fallback` and :func:`rsb_mj.lang.parser.parse_source` parses the
text with Lark, which produces the diagnostics. Tests check that both parsers give identical
results (spans included) on every corpus file and on randomly edited ones.
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Any

from rsb_mj.lang import ast
from rsb_mj.lang.transformer import AstBuilder, NumberRangeError, _float


class Fallback(Exception):
    """The text is outside what the fast reader handles; parse it with Lark."""


#: One token: a newline (counted, not a token), a comment, a parenthesis, or an atom (other
#: whitespace between them is skipped). Group numbers are read by :func:`_read`.
_SCAN = re.compile(r"(\n)|(;[^\n]*)|(\()|(\))|[^ \t\f\r\n();]+")
_NAME = re.compile(r"[a-z_][a-z0-9_\-]*", re.I)
_KEYWORD = re.compile(r":[a-z_][a-z0-9_\-]*", re.I)
_VARIABLE = re.compile(r"\?[a-z_][a-z0-9_]*", re.I)
_WORD = re.compile(r"[^\s();]+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

#: Words the grammar reserves (case-insensitive); never read as names here.
_RESERVED = frozenset({"define", "problem", "and", "or", "not"})
#: Keyword terminals of the grammar (lower case, with the colon) -> terminal type.
_KEYWORDS = {
    k: k[1:].upper()
    for k in [
        ":domain",
        ":language",
        ":regions",
        ":fixtures",
        ":objects",
        ":obj_of_interest",
        ":init",
        ":goal",
        ":cost",
        ":target",
        ":ranges",
        ":yaw_rotation",
        ":rgba",
        ":question",
        ":source",
        ":choices",
        ":instruction",
        ":templates",
        ":candidates",
        ":options",
        ":map",
        ":grasp",
        ":layout",
        ":min_spacing",
        ":yaw_range",
        ":answer_zone",
    ]
}

_T = AstBuilder()


class Token(str):
    """A token: its text, Lark's terminal ``type`` and position attributes (1-based line and
    column; ``end_column`` exclusive), as the rule callbacks read them. Tokens never span lines
    here (comments and whitespace are not tokens)."""

    __slots__ = ("column", "line", "type")

    @property
    def value(self) -> str:
        """The text."""
        return str(self)

    #: Line of the last character (the token's line; read without a Python-level call).
    end_line = property(attrgetter("line"))

    @property
    def end_column(self) -> int:
        """Column just after the last character."""
        return self.column + len(self)


class _List:
    """A parenthesized form: its ``(`` and ``)`` tokens and its items."""

    __slots__ = ("close", "items", "open")

    def __init__(self, open_: Token) -> None:
        self.open = open_
        self.items: list[Any] = []
        self.close: Token | None = None


def _read(text: str) -> _List:
    """Tokens and nesting of ``text``: the one top-level form (else :class:`Fallback`).

    Every character is in a token except Lark's whitespace (space, tab, form feed, CR, LF):
    anything else, such as a vertical tab, ends up inside an atom, which then matches no
    terminal and sends the file to Lark.
    """
    if '"' in text:
        raise Fallback
    stack: list[_List] = []
    items: list[Any] = []  # items of the innermost open form (stack[-1].items)
    top: _List | None = None
    new = str.__new__
    line_no = 1
    newline = -1  # offset of the newline before the current line (-1 on the first line)
    for match in _SCAN.finditer(text):
        kind = match.lastindex  # 1: newline, 2: comment, 3: "(", 4: ")", None: an atom
        if kind == 1:
            line_no += 1
            newline = match.start()
            continue
        if kind == 2:
            continue
        token = new(Token, match.group())
        token.line = line_no
        token.column = match.start() - newline
        if kind is None:
            if not stack:
                raise Fallback
            token.type = ""
            items.append(token)
        elif kind == 3:
            token.type = "LPAR"
            form = _List(token)
            if stack:
                items.append(form)
            elif top is not None:
                raise Fallback  # text after the (define ...) form
            else:
                top = form
            stack.append(form)
            items = form.items
        else:
            if not stack:
                raise Fallback
            token.type = "RPAR"
            stack.pop().close = token
            if stack:
                items = stack[-1].items
    if stack or top is None:
        raise Fallback
    return top


def _word(item: Any, pattern: re.Pattern[str], kind: str) -> Token:
    if not isinstance(item, Token) or not pattern.fullmatch(item):
        raise Fallback
    if kind == "NAME" and item.lower() in _RESERVED:
        raise Fallback
    item.type = kind
    return item


def _name(item: Any) -> Token:
    return _word(item, _NAME, "NAME")


def _number(item: Any) -> Token:
    return _word(item, _NUMBER, "NUMBER")


def _form(item: Any, size: int | None = None) -> _List:
    if not isinstance(item, _List) or (size is not None and len(item.items) != size):
        raise Fallback
    return item


def _keyword_of(form: _List) -> str:
    """The lower-case keyword heading ``form`` (``":goal"``), else :class:`Fallback`."""
    if not form.items:
        raise Fallback
    head = form.items[0]
    if not isinstance(head, Token) or not _KEYWORD.fullmatch(head):
        raise Fallback
    return head.lower()


def _head(form: _List, keyword: str) -> list[Any]:
    """``[(, KEYWORD-token]`` of a keyword form, the token typed as the grammar's terminal."""
    head = form.items[0]
    head.type = _KEYWORDS.get(keyword, "KEYWORD")
    return [form.open, head]


# ---- expressions ------------------------------------------------------------------------------


# The most frequent leaves are built here directly, as AstBuilder's ``name``, ``number`` and
# ``rect`` build them (the tests compare every node and span with Lark's): one token's span
# and no children list to filter.


def _token_span(token: Token) -> ast.Span:
    return ast.Span(token.line, token.column, token.line, token.column + len(token))


def _name_node(item: Any) -> ast.Name:
    token = _name(item)
    return ast.Name(str(token), span=_token_span(token))


def _number_node(item: Any) -> ast.Number:
    token = _number(item)
    return ast.Number(_float(token), span=_token_span(token))


def _rect(item: Any) -> ast.Rect:
    form = _form(item, 4)
    x0, y0, x1, y1 = (_float(_number(x)) for x in form.items)
    close = form.close
    span = ast.Span(form.open.line, form.open.column, close.line, close.column + 1)
    return ast.Rect(x0, y0, x1, y1, span=span)


def _arg(items: list[Any], i: int) -> tuple[Any, int]:
    item = items[i]
    if isinstance(item, _List):
        numbers = [_number(x) for x in item.items]
        return _T.number_list([item.open, *numbers, item.close]), i + 1
    if item.startswith("?"):
        var = _word(item, _VARIABLE, "VARIABLE")
        following = items[i + 1] if i + 1 < len(items) else None
        if not (isinstance(following, Token) and following == "-"):
            return _T.variable([var]), i + 1
        if i + 2 >= len(items):
            raise Fallback
        following.type = "DASH"
        return _T.variable([var, following, _name(items[i + 2])]), i + 3
    if _NUMBER.fullmatch(item):
        return _number_node(item), i + 1
    return _name_node(item), i + 1


def _expr(item: Any) -> Any:
    form = _form(item)
    if not form.items or not isinstance(form.items[0], Token):
        raise Fallback
    head = form.items[0]
    word = head.lower()
    if word in ("and", "or", "not"):
        head.type = word.upper()
        terms = [_expr(x) for x in form.items[1:]]
        children = [form.open, head, *terms, form.close]
        if word == "and":
            return _T.and_expr(children)
        if word == "or":
            return _T.or_expr(children)
        if len(terms) != 1:
            raise Fallback
        return _T.not_expr(children)
    predicate = _name(head)
    args = []
    i, items = 1, form.items
    while i < len(items):
        value, i = _arg(items, i)
        args.append(value)
    return _T.atom([form.open, predicate, *args, form.close])


# ---- generic forms ----------------------------------------------------------------------------


def _sexp(item: Any) -> Any:
    if isinstance(item, _List):
        return _T.slist([item.open, *(_sexp(x) for x in item.items), item.close])
    low = item.lower()
    if low in _RESERVED or low in _KEYWORDS:
        raise Fallback
    if _NUMBER.fullmatch(item):
        return _T.number([_number(item)])
    if item == "-":
        item.type = "DASH"
    elif _NAME.fullmatch(item):
        item.type = "NAME"
    elif _KEYWORD.fullmatch(item):
        item.type = "KEYWORD"
    elif _VARIABLE.fullmatch(item):
        item.type = "VARIABLE"
    else:
        raise Fallback
    return _T.symbol([item])


def _generic(form: _List, keyword: str) -> Any:
    if keyword in _KEYWORDS:
        raise Fallback  # a grammar keyword where its rule does not apply
    head = _head(form, keyword)
    return _T.generic_section([*head, *(_sexp(x) for x in form.items[1:]), form.close])


# ---- blocks -----------------------------------------------------------------------------------


def _numbers_form(item: Any, size: int | None) -> list[Token]:
    form = _form(item, size)
    return [form.open, *(_number(x) for x in form.items), form.close]


def _region_prop(item: Any) -> Any:
    form = _form(item)
    keyword = _keyword_of(form)
    head = _head(form, keyword)
    rest = form.items[1:]
    if keyword == ":target":
        if len(rest) != 1:
            raise Fallback
        return _T.target([*head, _name(rest[0]), form.close])
    if keyword in (":ranges", ":yaw_rotation"):
        if len(rest) != 1:
            raise Fallback
        inner = _form(rest[0])
        if keyword == ":ranges":
            values = [_rect(x) for x in inner.items]
        else:
            values = [_T.pair(_numbers_form(x, 2)) for x in inner.items]
        method = _T.ranges if keyword == ":ranges" else _T.yaw_rotation
        return method([*head, inner.open, *values, inner.close, form.close])
    if keyword == ":rgba":
        if len(rest) != 1:
            raise Fallback
        return _T.rgba([*head, *_numbers_form(rest[0], None), form.close])
    return _generic(form, keyword)


def _region(item: Any) -> Any:
    form = _form(item)
    if not form.items:
        raise Fallback
    name = _name(form.items[0])
    props = [_region_prop(x) for x in form.items[1:]]
    return _T.region([form.open, name, *props, form.close])


def _declarations(form: _List, head: list[Any]) -> list[Any]:
    children: list[Any] = [*head]
    items = form.items
    i = 1
    while i < len(items):
        item = items[i]
        if item == "-" and isinstance(item, Token):
            if i + 1 >= len(items):
                raise Fallback
            item.type = "DASH"
            children.append(_T.decl_category([item, _name(items[i + 1])]))
            i += 2
        else:
            children.append(_T.decl_name([_name(item)]))
            i += 1
    return [*children, form.close]


def _pair_values(item: Any) -> tuple[float, float]:
    return _T.pair(_numbers_form(item, 2))


def _section(item: Any) -> Any:
    form = _form(item)
    keyword = _keyword_of(form)
    head = _head(form, keyword)
    rest = form.items[1:]
    close = form.close
    if keyword == ":domain":
        if len(rest) != 1:
            raise Fallback
        return _T.domain([*head, _name(rest[0]), close])
    if keyword == ":language":
        words = []
        for word in rest:
            words.append(_word(word, _WORD, "WORD"))
        return _T.language([*head, *words, close])
    if keyword == ":regions":
        return _T.regions([*head, *(_region(x) for x in rest), close])
    if keyword == ":fixtures":
        return _T.fixtures(_declarations(form, head))
    if keyword == ":objects":
        return _T.objects(_declarations(form, head))
    if keyword == ":obj_of_interest":
        return _T.obj_of_interest([*head, *(_name(x) for x in rest), close])
    if keyword == ":candidates":
        return _T.candidates([*head, *(_name(x) for x in rest), close])
    if keyword in (":init", ":goal", ":cost", ":grasp"):
        method = getattr(_T, keyword[1:])
        return method([*head, *(_expr(x) for x in rest), close])
    if keyword == ":question":
        return _T.question([*head, *(_question_prop(x) for x in rest), close])
    if keyword == ":instruction":
        return _T.instruction([*head, *(_templates(x) for x in rest), close])
    if keyword == ":answer_zone":
        return _T.answer_zone([*head, *(_name(x) for x in rest), close])
    if keyword == ":options":
        return _T.options([*head, *(_map_rule(x) for x in rest), close])
    if keyword == ":layout":
        return _T.layout([*head, *(_layout_prop(x) for x in rest), close])
    return _generic(form, keyword)


def _one(item: Any, keyword: str, method: Any, number: bool = False) -> Any:
    """``(KEYWORD NAME)`` (or ``(KEYWORD NUMBER)``) handed to ``method``."""
    form = _form(item, 2)
    if _keyword_of(form) != keyword:
        raise Fallback
    value = _number(form.items[1]) if number else _name(form.items[1])
    return method([*_head(form, keyword), value, form.close])


def _templates(item: Any) -> Any:
    """``(:templates NAME)`` or ``(:templates (:train NAME) (:eval NAME))``; files (quoted
    strings) go to Lark."""
    form = _form(item)
    if _keyword_of(form) != ":templates":
        raise Fallback
    choices = []
    for x in form.items[1:]:
        if isinstance(x, Token):
            choices.append(_T.template_set([_name(x)]))
            continue
        split = _form(x, 2)
        if _keyword_of(split) not in (":train", ":eval"):
            raise Fallback
        key = split.items[0]
        key.type = "SPLIT_KEY"
        if not isinstance(split.items[1], Token):
            raise Fallback
        inner = _T.template_set([_name(split.items[1])])
        choices.append(_T.template_split([split.open, key, inner, split.close]))
    return _T.templates([*_head(form, ":templates"), *choices, form.close])


def _question_prop(item: Any) -> Any:
    form = _form(item)
    keyword = _keyword_of(form)
    if keyword == ":source":
        return _one(form, ":source", _T.source)
    return _one(form, ":choices", _T.choices, number=True)


def _map_rule(item: Any) -> Any:
    form = _form(item)
    if _keyword_of(form) != ":map" or len(form.items) < 2:
        raise Fallback
    head = _head(form, ":map")
    if len(form.items) == 2 and isinstance(form.items[1], Token):
        return _T.map_named([*head, _name(form.items[1]), form.close])
    pairs = []
    for x in form.items[1:]:
        pair = _form(x, 2)
        pairs.append(_T.map_pair([pair.open, *(_name(n) for n in pair.items), pair.close]))
    return _T.map_pairs([*head, *pairs, form.close])


def _layout_prop(item: Any) -> Any:
    form = _form(item, 2)
    keyword = _keyword_of(form)
    if keyword == ":min_spacing":
        return _one(form, ":min_spacing", _T.min_spacing, number=True)
    if keyword != ":yaw_range":
        raise Fallback
    return _T.yaw_range([*_head(form, keyword), _pair_values(form.items[1]), form.close])


def fast_parse(text: str) -> ast.Problem:
    """The problem of ``text`` (``path`` not set), exactly as the Lark parser would build it.

    Raises:
        Fallback: when the text needs the full parser (errors, rare constructs).
    """
    top = _read(text)
    items = top.items
    if len(items) < 2:
        raise Fallback
    define = items[0]
    if not isinstance(define, Token) or define.lower() != "define":
        raise Fallback
    define.type = "DEFINE"
    name_form = _form(items[1], 2)
    problem = name_form.items[0]
    if not isinstance(problem, Token) or problem.lower() != "problem":
        raise Fallback
    problem.type = "PROBLEM"
    name = _T.problem_name([name_form.open, problem, _name(name_form.items[1]), name_form.close])
    try:
        sections = [_section(x) for x in items[2:]]
    except NumberRangeError:
        raise Fallback from None  # Lark reports it (same RSB107 diagnostic)
    return _T.start([top.open, define, name, *sections, top.close])
