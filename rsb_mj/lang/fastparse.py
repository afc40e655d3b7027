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
from itertools import accumulate, repeat
from operator import attrgetter, sub
from typing import Any

from rsb_mj.lang import ast
from rsb_mj.lang.transformer import AstBuilder, NumberRangeError, Part, _float, _Names, _Prop
from rsb_mj.lang.vocabulary import canonical_predicate


class Fallback(Exception):
    """The text is outside what the fast reader handles; parse it with Lark."""


#: One token (a parenthesis or an atom), captured so that ``split`` keeps the whitespace
#: between tokens too (Lark's whitespace: space, tab, form feed, CR, LF; any other character
#: ends up in an atom).
_SPLIT = re.compile(r"([()]|[^ \t\f\r\n();]+)")
#: A comment, to the end of its line.
_COMMENT = re.compile(r";[^\n]*")
#: Builds a :class:`~rsb_mj.lang.ast.Span` from a 4-tuple without the keyword handling of
#: its constructor (one per node).
_span_new = tuple.__new__
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


#: Words already seen to be names (a file repeats its object and region names; files of one
#: suite share most): a set lookup instead of a regular expression match.
_NAMES: set[str] = set()


def _is_name(text: str) -> bool:
    """True (and remembered) when ``text`` is a NAME the grammar accepts and not reserved."""
    if not _NAME.fullmatch(text) or text.lower() in _RESERVED:
        return False
    if len(_NAMES) < 100_000:  # bounded: a process linting very many files
        _NAMES.add(text)
    return True


def _blank(match: re.Match[str]) -> str:
    return " " * (match.end() - match.start())


class _Flat:
    """The tokens of a text in one flat list, with their positions.

    Comments are blanked out (same length, so offsets stay), then one ``re.split`` cuts the
    text into whitespace and tokens; offsets, lines and columns come from running sums and
    ``str`` methods mapped over the pieces, so no Python code runs per character, newline or
    token.

    Attributes:
        tokens: the token texts, in order.
        lines: 1-based line of each token (tokens never span lines).
        columns: 1-based column of each token's first character.
    """

    __slots__ = ("columns", "lines", "tokens")

    def __init__(self, text: str) -> None:
        if ";" in text:
            text = _COMMENT.sub(_blank, text)
        parts = _SPLIT.split(text)  # whitespace, token, whitespace, ..., token, whitespace
        self.tokens: list[str] = parts[1::2]
        starts = list(accumulate(map(len, parts)))[0:-1:2]
        newlines = map(str.count, parts[0::2], repeat("\n"))
        self.lines: list[int] = list(accumulate(newlines, initial=1))[1:]
        # column = offset - offset of the newline before it (-1 on the first line)
        self.columns: list[int] = list(
            map(sub, starts, map(text.rfind, repeat("\n"), repeat(0), starts))
        )

    def span(self, first: int, last: int) -> ast.Span:
        """From the start of token ``first`` to the end of token ``last``."""
        lines, columns = self.lines, self.columns
        return _span_new(
            ast.Span,
            (lines[first], columns[first], lines[last], columns[last] + len(self.tokens[last])),
        )

    def token(self, i: int, kind: str = "") -> Token:
        """Token ``i`` as the rule callbacks read it (text, type, line, column)."""
        token = str.__new__(Token, self.tokens[i])
        token.type = kind
        token.line = self.lines[i]
        token.column = self.columns[i]
        return token

    def tree(self, i: int) -> tuple[_List, int]:
        """The form opening at token ``i`` (a ``(``) as nested :class:`_List` s, and the index
        just after its ``)`` (:class:`Fallback` when it is not closed)."""
        tokens = self.tokens
        top = _List(self.token(i, "LPAR"))
        stack = [top]
        i += 1
        while stack:
            if i >= len(tokens):
                raise Fallback
            text = tokens[i]
            if text == "(":
                form = _List(self.token(i, "LPAR"))
                stack[-1].items.append(form)
                stack.append(form)
            elif text == ")":
                stack.pop().close = self.token(i, "RPAR")
            else:
                stack[-1].items.append(self.token(i))
            i += 1
        return top, i


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


# ---- the direct road ------------------------------------------------------------------------
#
# The blocks nearly every file has (domain, language, regions with targets, ranges and yaws,
# declarations, objects of interest, expressions) are built straight from the flat tokens:
# no token objects and no children lists. Any other block is turned into the nested forms
# above and read by the rule-by-rule functions.

_EXPRESSION_BLOCKS = frozenset({":init", ":goal", ":cost", ":grasp"})
_DIRECT_BLOCKS = _EXPRESSION_BLOCKS | {
    ":domain",
    ":language",
    ":regions",
    ":fixtures",
    ":objects",
    ":obj_of_interest",
}


class _Reader(_Flat):
    """Builds the AST from :class:`_Flat` tokens; each method takes the index of a form's
    ``(`` and returns the node and the index just after its ``)``. An index past the end
    (an unclosed form) raises IndexError, which :func:`fast_parse` turns into
    :class:`Fallback`."""

    __slots__ = ()

    def name(self, i: int) -> str:
        text = self.tokens[i]
        if text not in _NAMES and not _is_name(text):
            raise Fallback
        return text

    def number(self, i: int) -> float:
        text = self.tokens[i]
        if not _NUMBER.fullmatch(text):
            raise Fallback
        return _float(text)

    def keyword(self, i: int) -> str:
        """The lower-case keyword heading the form at ``i`` (``":goal"``)."""
        tokens = self.tokens
        if tokens[i] != "(" or not _KEYWORD.fullmatch(head := tokens[i + 1]):
            raise Fallback
        return head.lower()

    # ---- expressions -----------------------------------------------------------------------

    def expr(self, i: int) -> tuple[ast.Expr, int]:
        tokens = self.tokens
        if tokens[i] != "(":
            raise Fallback
        head = tokens[i + 1]
        word = head.lower()
        j = i + 2
        if word in ("and", "or", "not"):
            terms = []
            while tokens[j] != ")":
                term, j = self.expr(j)
                terms.append(term)
            span = self.span(i, j)
            if word == "and":
                return ast.And(tuple(terms), span=span), j + 1
            if word == "or":
                return ast.Or(tuple(terms), span=span), j + 1
            if len(terms) != 1:
                raise Fallback
            return ast.Not(terms[0], span=span), j + 1
        predicate = self.name(i + 1)
        args: list[ast.Arg] = []
        while (text := tokens[j]) != ")":
            if text == "(":  # a number list, e.g. VLA-Arena part ids
                k = j + 1
                values = []
                while tokens[k] != ")":
                    values.append(self.number(k))
                    k += 1
                args.append(ast.NumberList(tuple(values), span=self.span(j, k)))
                j = k + 1
            elif text[0] == "?":
                if not _VARIABLE.fullmatch(text):
                    raise Fallback
                if tokens[j + 1] == "-":
                    kind = self.name(j + 2)
                    args.append(ast.Variable(text[1:], kind, span=self.span(j, j + 2)))
                    j += 3
                else:
                    args.append(ast.Variable(text[1:], None, span=self.span(j, j)))
                    j += 1
            elif _NUMBER.fullmatch(text):
                args.append(ast.Number(_float(text), span=self.span(j, j)))
                j += 1
            else:
                args.append(ast.Name(self.name(j), span=self.span(j, j)))
                j += 1
        atom = ast.Atom(canonical_predicate(predicate), tuple(args), span=self.span(i, j))
        return atom, j + 1

    # ---- regions ---------------------------------------------------------------------------

    def region(self, i: int) -> tuple[ast.Region, int]:
        tokens = self.tokens
        if tokens[i] != "(":
            raise Fallback
        name = self.name(i + 1)
        fields: dict[str, Any] = {}
        extra: list[ast.Section] = []
        prop_spans = []
        j = i + 2
        while tokens[j] != ")":
            keyword = self.keyword(j)
            start = j
            if keyword == ":target":
                fields["target"] = self.name(j + 2)
                j += 3
            elif keyword == ":ranges":
                rects, j = self.rects(j + 2)
                fields["ranges"] = fields.get("ranges", ()) + rects
            elif keyword == ":yaw_rotation":
                pairs, j = self.pairs(j + 2)
                fields["yaw_rotation"] = fields.get("yaw_rotation", ()) + pairs
            elif keyword == ":rgba":
                if tokens[j + 2] != "(":
                    raise Fallback
                k = j + 3
                values = []
                while tokens[k] != ")":
                    values.append(self.number(k))
                    k += 1
                fields["rgba"] = tuple(values)
                j = k + 1
            else:  # a generic (:keyword ...) property, read rule by rule
                form, j = self.tree(j)
                part = _generic(form, keyword)
                extra.append(part.value)
                prop_spans.append((part.keyword, part.span))
                continue
            if tokens[j] != ")":
                raise Fallback
            prop_spans.append((keyword[1:], self.span(start, j)))
            j += 1
        region = ast.Region(
            name, extra=tuple(extra), span=self.span(i, j), prop_spans=tuple(prop_spans), **fields
        )
        return region, j + 1

    def groups(self, i: int, size: int) -> tuple[list[tuple[int, list[float]]], int]:
        """``((n ... n) ...)`` at ``i``, groups of ``size`` numbers: each group's ``(`` index
        with its numbers, and the index after the list."""
        tokens = self.tokens
        if tokens[i] != "(":
            raise Fallback
        groups = []
        j = i + 1
        while tokens[j] != ")":
            if tokens[j] != "(" or tokens[j + size + 1] != ")":
                raise Fallback
            groups.append((j, [self.number(k) for k in range(j + 1, j + size + 1)]))
            j += size + 2
        return groups, j + 1

    def rects(self, i: int) -> tuple[tuple[ast.Rect, ...], int]:
        """``((x0 y0 x1 y1) ...)`` at ``i``: the rectangles and the index after the list."""
        groups, end = self.groups(i, 4)
        return tuple(ast.Rect(*values, span=self.span(j, j + 5)) for j, values in groups), end

    def pairs(self, i: int) -> tuple[tuple[tuple[float, float], ...], int]:
        """``((lo hi) ...)`` at ``i``: the pairs and the index after the list."""
        groups, end = self.groups(i, 2)
        return tuple((lo, hi) for _, (lo, hi) in groups), end

    # ---- blocks ----------------------------------------------------------------------------

    def declarations(self, i: int) -> tuple[tuple[ast.TypedName, ...], int]:
        """``name ... - category ...`` from ``i`` to the block's ``)``."""
        tokens = self.tokens
        out: list[ast.TypedName] = []
        pending: list[int] = []
        j = i
        while tokens[j] != ")":
            if tokens[j] == "-":
                category = self.name(j + 1)
                category_span = self.span(j, j + 1)
                out.extend(
                    ast.TypedName(
                        tokens[k], category, span=self.span(k, k), category_span=category_span
                    )
                    for k in pending
                )
                pending = []
                j += 2
            else:
                self.name(j)
                pending.append(j)
                j += 1
        out.extend(ast.TypedName(tokens[k], "", span=self.span(k, k)) for k in pending)
        return tuple(out), j

    def block(self, i: int) -> tuple[Any, int]:
        """The top-level block at ``i`` as the rule callbacks return it (a ``Part``)."""
        keyword = self.keyword(i)
        if keyword not in _DIRECT_BLOCKS:
            form, j = self.tree(i)
            return _section(form), j
        tokens = self.tokens
        j = i + 2
        if keyword in _EXPRESSION_BLOCKS:
            exprs = []
            while tokens[j] != ")":
                expr, j = self.expr(j)
                exprs.append(expr)
            value: Any = tuple(exprs)
        elif keyword == ":regions":
            regions = []
            while tokens[j] != ")":
                region, j = self.region(j)
                regions.append(region)
            value = regions
        elif keyword in (":fixtures", ":objects"):
            value, j = self.declarations(j)
        elif keyword == ":obj_of_interest":
            names: list[int] = []
            while tokens[j] != ")":
                self.name(j)
                names.append(j)
                j += 1
            value = _Names(tokens[k] for k in names)
            value.spans = tuple(self.span(k, k) for k in names)
        elif keyword == ":domain":
            value = self.name(j)
            j += 1
        else:  # :language
            words = []
            while (word := tokens[j]) != ")":
                if not _WORD.fullmatch(word):
                    raise Fallback
                words.append(word)
                j += 1
            value = " ".join(words)
        if tokens[j] != ")":
            raise Fallback
        return Part(keyword[1:], value, self.span(i, j)), j + 1

    def problem(self) -> ast.Problem:
        """``(define (problem NAME) BLOCK ...)``: the whole text."""
        tokens = self.tokens
        if (
            tokens[0] != "("
            or tokens[1].lower() != "define"
            or tokens[2] != "("
            or tokens[3].lower() != "problem"
            or tokens[5] != ")"
        ):
            raise Fallback
        children: list[Any] = [self.token(0, "LPAR")]
        children.append(_Prop("name", self.name(4), self.span(2, 5)))
        j = 6
        while tokens[j] != ")":
            part, j = self.block(j)
            children.append(part)
        if j != len(tokens) - 1:
            raise Fallback  # text after the (define ...) form
        children.append(self.token(j, "RPAR"))
        return _T.start(children)


def fast_parse(text: str) -> ast.Problem:
    """The problem of ``text`` (``path`` not set), exactly as the Lark parser would build it.

    Raises:
        Fallback: when the text needs the full parser (errors, rare constructs).
    """
    if '"' in text:
        raise Fallback
    try:
        return _Reader(text).problem()
    except (IndexError, NumberRangeError):
        raise Fallback from None  # unclosed forms; Lark reports both (same diagnostics)
