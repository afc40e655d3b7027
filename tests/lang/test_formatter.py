"""The canonical layout: exact output, comments kept, identity on the AST."""

from rsb_mj.lang import And, Atom, Name, Problem, format_problem, format_text, parse_text
from rsb_mj.lang.formatter import comments_of, number

from .lang_samples import BASE, BASE_10, LIBERO


def test_numbers_are_canonical():
    assert [number(v) for v in (1.0, 0.05, -0.3, 0.060000000000000005, -0.0, 1e-7)] == [
        "1",
        "0.05",
        "-0.3",
        "0.060000000000000005",
        "0",
        "1e-07",
    ]


def test_messy_input_gets_the_canonical_layout():
    messy = """; head
(DEFINE (problem p)   (:GOAL (and (On a b)))
 (:objects a - can  b - can c - lemon) ; trailing
      (:domain   robosuite)(:init (On a r)))"""
    assert format_text(messy) == (
        "; head\n"
        "(define (problem p)\n"
        "  (:domain robosuite)\n"
        "  ; trailing\n"
        "  (:objects\n"
        "    a b - can c - lemon)\n"
        "  (:init\n"
        "    (On a r))\n"
        "  (:goal (And (On a b))))\n"
    )


def test_the_bases_are_canonical():
    for text in (BASE, BASE_10, LIBERO):
        assert format_text(text) == text


def test_declarations_take_one_line_per_group_only_when_too_wide():
    names = [f"object_with_a_long_name_{i}" for i in range(4)]
    text = (
        "(define (problem p) (:objects "
        + " ".join(f"{n} - lemon{i}" for i, n in enumerate(names))
        + "))"
    )
    assert format_text(text) == (
        "(define (problem p)\n  (:objects\n"
        + "\n".join(f"    {n} - lemon{i}" for i, n in enumerate(names))
        + "))\n"
    )


def test_long_expressions_break_at_connectives():
    terms = tuple(Atom("CheckGripperContact", (Name(f"teapot_{i}"),)) for i in range(6))
    text = format_problem(Problem("p", cost_terms=(And(terms),)))
    assert text == (
        "(define (problem p)\n"
        "  (:cost\n"
        "    (And\n"
        + "".join(f"      (CheckGripperContact teapot_{i})\n" for i in range(5))
        + "      (CheckGripperContact teapot_5))))\n"
    )
    assert parse_text(text).cost_terms == (And(terms),)


def test_comments_inside_blocks_move_above_them_and_none_are_lost():
    text = BASE.replace("(On block_b table_candidates)", "(On block_b table_candidates) ; b")
    out = format_text(text)
    assert "  ; b\n  (:init\n" in out
    assert [c for _, c in comments_of(out)] == [c for _, c in comments_of(text)]
    assert parse_text(out) == parse_text(text)


def test_semicolons_inside_strings_are_not_comments():
    assert comments_of('(define (problem p) (:camera "a;b") ; real\n') == [(1, "; real")]


def test_empty_and_pass_through_blocks_survive():
    text = "(define (problem p) (:cost) (:candidates) (:noise level 0.1 (:seed 3)))"
    out = format_text(text)
    assert out == (
        "(define (problem p)\n  (:candidates)\n  (:cost)\n  (:noise level 0.1 (:seed 3)))\n"
    )
    assert parse_text(out) == parse_text(text)
