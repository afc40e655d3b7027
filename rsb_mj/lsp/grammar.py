"""What the grammar (``grammar/rsb.lark``, the one description of the syntax) says about a
form: the keywords that may open a form inside it, and its productions as reference text.

Completion offers at ``(|`` exactly the keywords the grammar allows there, and hover on a
block keyword shows the block's rules with their comments, both read from the grammar file
the parser compiles (found through :func:`rsb_mj.resources.grammar_path`). Compiling the
grammar's rules takes about a second, so the server builds the index in the background at
start-up (:func:`index`, cached).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lark.load_grammar import load_grammar

from rsb_mj.resources import grammar_path

#: The head of a form whose head is a name inside ``(:source (NAME ...))``.
SOURCE_CALL = "<source_call>"
#: The marker for "any :keyword" (a pass-through block or property, a source parameter).
ANY_KEYWORD = ":*"

_RULE = re.compile(r"^\??(?P<name>[a-z_]+)\s*:")
_TERMINAL = re.compile(r"^(?P<name>[A-Z_]+)\s*:\s*(?P<body>.*)$")
_LITERALS = re.compile(r'^\s*("[^"]+"i?)(\s*\|\s*"[^"]+"i?)*\s*$')


@dataclass(frozen=True)
class GrammarIndex:
    """Keyword structure and reference text of the grammar.

    Attributes:
        children: form head -> the heads that may open a nested form right inside it.
            A head is a keyword in lower case (with its colon: ``":question"``, ``"and"``),
            :data:`ANY_KEYWORD` where any ``:keyword`` may stand, or ``"<rule>"`` for a
            form whose head is a name: ``"<atom>"`` (a predicate), ``"<region>"``,
            ``"<map_pair>"``; :data:`SOURCE_CALL` is the ``(NAME ...)`` of a ``:source``.
        rules: grammar rule name -> its text with the comment lines just above it.
        references: grammar rule name -> the rule names its text refers to.
    """

    children: dict[str, tuple[str, ...]]
    rules: dict[str, str]
    references: dict[str, tuple[str, ...]]

    def productions(self, rule: str, stop: frozenset[str] = frozenset()) -> str:
        """The text of ``rule`` and of the rules it refers to, depth first, leaving out
        ``stop`` (rules shared by many blocks, such as ``expr``)."""
        seen: list[str] = []

        def visit(name: str) -> None:
            if name in seen or name not in self.rules or (name in stop and seen):
                return
            seen.append(name)
            for ref in self.references.get(name, ()):
                visit(ref)

        visit(rule)
        return "\n".join(self.rules[name] for name in seen)


def _rule_texts(source: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """Rule name -> text (with the ``//`` comments just above it), and the rules it names."""
    lines = source.splitlines()
    texts: dict[str, str] = {}
    i = 0
    while i < len(lines):
        match = _RULE.match(lines[i])
        if match is None:
            i += 1
            continue
        first = i
        while first > 0 and lines[first - 1].startswith("//"):
            first -= 1
        end = i + 1
        while end < len(lines) and re.match(r"^\s+\|", lines[end]):
            end += 1
        texts[match.group("name")] = "\n".join(lines[first:end])
        i = end
    refs = {}
    for name, text in texts.items():
        body = "\n".join(ln for ln in text.splitlines() if not ln.startswith("//"))
        body = body.split(":", 1)[1]
        body = re.sub(r'"[^"]*"|->\s*\w+', " ", body)
        refs[name] = tuple(dict.fromkeys(w for w in re.findall(r"\b[a-z_]+\b", body) if w in texts))
    return texts, refs


def _keywords_of_terminals(source: str, terminals: dict[str, object]) -> dict[str, tuple[str, ...]]:
    """Terminal name -> the literal words it matches (``SPLIT_KEY`` -> ``:train``, ``:eval``),
    for the terminals that are literals or alternatives of literals."""
    out: dict[str, tuple[str, ...]] = {}
    for line in source.splitlines():
        match = _TERMINAL.match(line)
        if match is None or match.group("name") not in terminals:
            continue
        body = match.group("body")
        if _LITERALS.match(body):
            out[match.group("name")] = tuple(w.lower() for w in re.findall(r'"([^"]+)"', body))
    return out


def build(source: str) -> GrammarIndex:
    """The index of the grammar text ``source``."""
    grammar, _ = load_grammar(source, "rsb.lark", [], False)
    terms, rules, _ignore = grammar.compile(["start"], set())
    literal = _keywords_of_terminals(source, {t.name: t for t in terms})
    expansions: dict[str, list[list[str]]] = {}
    for r in rules:
        expansions.setdefault(r.origin.name, []).append([s.name for s in r.expansion])

    def heads(rule: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """The keywords a form of ``rule`` starts with (through inlined ``?rules``)."""
        out: set[str] = set()
        for exp in expansions.get(rule, ()):
            if len(exp) >= 2 and exp[0] == "LPAR":
                if exp[1] in literal:
                    out.update(literal[exp[1]])
                elif exp[1] == "KEYWORD":
                    out.add(ANY_KEYWORD)
                elif exp[1] == "NAME":
                    out.add(f"<{rule}>")
            elif len(exp) == 1 and exp[0] in expansions and exp[0] not in seen:
                out |= heads(exp[0], seen | {rule})
        return out

    def inner(symbols: list[str], seen: frozenset[str]) -> set[str]:
        """Keywords of the forms that ``symbols`` (a rule's items) may hold."""
        out: set[str] = set()
        for sym in symbols:
            if sym not in expansions or sym in seen:
                continue
            if sym.startswith("__"):  # a repetition helper: look through it
                for exp in expansions[sym]:
                    out |= inner(exp, seen | {sym})
            else:
                out |= heads(sym)
        return out

    children: dict[str, set[str]] = {}
    for rule, exps in expansions.items():
        for exp in exps:
            if len(exp) < 2 or exp[0] != "LPAR":
                continue
            if exp[1] in literal:
                keys = literal[exp[1]]
            elif exp[1] == "NAME":
                keys = (f"<{rule}>",)
            else:
                continue
            rest = exp[2:]
            if rest[:2] == ["LPAR", "NAME"]:  # (:source (NAME (:param ...) ...))
                children.setdefault(SOURCE_CALL, set()).update(inner(rest[2:], frozenset()))
                rest = rest[2:]
                children.setdefault(keys[0], set()).add(SOURCE_CALL)
                continue
            for key in keys:
                children.setdefault(key, set()).update(inner(rest, frozenset()))
    texts, refs = _rule_texts(source)
    return GrammarIndex({k: tuple(sorted(v)) for k, v in children.items() if v}, texts, refs)


@functools.cache
def index() -> GrammarIndex:
    """The index of the shipped grammar (built once per process)."""
    return build(grammar_path().read_text(encoding="utf-8"))
