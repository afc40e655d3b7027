"""Property: random edits of valid files give diagnostics, never any other exception; and a
file that still parses formats to the same AST."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rsb_mj.lang import RULES, Diagnostic, format_text, lint_template, lint_text, parse_text

from .lang_samples import BASE, BASE_10, LIBERO

SOURCES = [BASE, BASE_10, LIBERO]
#: Fragments that make edits interesting for this grammar.
FRAGMENTS = [
    "(",
    ")",
    " ",
    "\n",
    ";",
    "-",
    "?",
    ":",
    '"',
    "0",
    "-0.5",
    "1e9",
    "?answer",
    "?c - candidate",
    ":goal",
    ":regions",
    ":ranges",
    ":map",
    ":choices",
    ":cost",
    "And",
    "Or",
    "Not",
    "On",
    "block_a",
    "table_candidates",
    "(And)",
    "(Not (On a b))",
    "{",
    "é",
    "\t",
    "J",
    "1e999",
    "-1e400",
]


@st.composite
def edited(draw):
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[i:]
        elif kind == "replace":
            text = text[:i] + draw(st.text(max_size=6)) + text[j:]
        else:
            text = text[:j] + text[i:j] + text[j:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_random_edits_yield_only_diagnostics(text):
    problem, diagnostics = lint_text(text, "edited.bddl")
    assert all(isinstance(d, Diagnostic) and d.code in RULES for d in diagnostics)
    assert all(d.span.line >= 1 and d.span.column >= 1 for d in diagnostics)
    if problem is None:
        assert len(diagnostics) == 1 and diagnostics[0].code.startswith("RSB1")
    else:
        assert parse_text(format_text(text)) == problem


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120), st.sampled_from([4, 10]))
def test_any_template_text_yields_only_diagnostics(text, choices):
    for d in lint_template(text, "t.txt", choices):
        assert d.code in RULES and d.span.line >= 1
