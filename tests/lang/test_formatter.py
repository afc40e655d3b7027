"""The canonical layout: exact output, comments kept in place, identity on the AST."""

import random
from pathlib import Path

from rsb_mj.lang import And, Atom, Name, Problem, format_problem, format_text, parse_text
from rsb_mj.lang.comments import comments_of
from rsb_mj.lang.formatter import number

from .lang_samples import BASE, BASE_10, LIBERO

DATA = Path(__file__).resolve().parents[1] / "data" / "lang_fmt"


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
        "  (:objects\n"
        "    a b - can c - lemon)  ; trailing\n"
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


def test_an_inline_comment_stays_on_its_line():
    text = BASE.replace("(On block_b table_candidates)", "(On block_b table_candidates) ; b")
    out = format_text(text)
    assert "\n    (On block_b table_candidates)  ; b\n" in out
    assert out == text.replace("table_candidates) ; b", "table_candidates)  ; b")
    assert parse_text(out) == parse_text(text)


COMMENTED = DATA / "commented.bddl"


def test_every_comment_stays_beside_its_code():
    """The grammar README's example: inline comments stay on the line of their code, a
    comment on its own line stays above the form that followed it."""
    text = COMMENTED.read_text(encoding="utf-8")
    out = format_text(text, str(COMMENTED))
    assert out == (DATA / "commented.formatted.bddl").read_text(encoding="utf-8")
    assert format_text(out) == out
    assert parse_text(out) == parse_text(text)
    assert sorted(c for _, c in comments_of(out)) == sorted(c for _, c in comments_of(text))


def test_a_comment_inside_an_expression_keeps_it_broken():
    text = (
        "(define (problem p) (:domain robosuite)\n"
        "  (:goal (And (On a b) ; first\n"
        "              (On c d))))\n"
    )
    assert format_text(text) == (
        "(define (problem p)\n"
        "  (:domain robosuite)\n"
        "  (:goal\n"
        "    (And\n"
        "      (On a b)  ; first\n"
        "      (On c d))))\n"
    )


def test_own_line_comments_travel_with_their_block_when_blocks_are_reordered():
    text = (
        "; head\n"
        "(define (problem p)\n"
        "  ; the goal\n"
        "  (:goal (And (On a b)))\n"
        "  ; the domain\n"
        "  (:domain robosuite)  ; inline\n"
        "  ; before the end\n"
        ")\n"
        "; tail\n"
    )
    assert format_text(text) == (
        "; head\n"
        "(define (problem p)\n"
        "  ; the domain\n"
        "  (:domain robosuite)  ; inline\n"
        "  ; the goal\n"
        "  (:goal (And (On a b))))\n"
        "; before the end\n"
        "; tail\n"
    )


def test_semicolons_inside_strings_are_not_comments():
    assert comments_of('(define (problem p) (:camera "a;b") ; real\n') == [(1, "; real")]


def test_empty_and_pass_through_blocks_survive():
    text = "(define (problem p) (:cost) (:candidates) (:noise level 0.1 (:seed 3)))"
    out = format_text(text)
    assert out == (
        "(define (problem p)\n  (:candidates)\n  (:cost)\n  (:noise level 0.1 (:seed 3)))\n"
    )
    assert parse_text(out) == parse_text(text)


def test_random_comments_on_real_files_survive_idempotently():
    """Comments added at random to real task files: the AST is unchanged, formatting twice
    changes nothing, and every comment is still there (inline ones inside a form that is
    written on one line are joined on that line)."""
    suites = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
    rng = random.Random(0)
    for path in rng.sample(sorted(suites.rglob("*.bddl")), 40):
        lines = path.read_text(encoding="utf-8").splitlines()
        for k in range(6):
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines[i] += f" ; inline {k}"
            else:
                lines.insert(i, f"   ; own line {k}")
        text = "\n".join(lines) + "\n"
        out = format_text(text, str(path))
        assert parse_text(out) == parse_text(text), path
        assert format_text(out) == out, path
        kept = " ".join(c for _, c in comments_of(out))
        for _, comment in comments_of(text):
            assert comment in kept, (path, comment)


def test_comments_are_placed_by_the_lines_the_parser_counts():
    """CRLF endings and a form feed (whitespace that splitlines() would split on)."""
    text = (
        "(define (problem p)\r\n  (:domain robosuite) ; a\r\n\x0c  ; own\r\n"
        "  (:goal (And (On a b)))) ; end\r\n"
    )
    assert format_text(text) == (
        "(define (problem p)\n  (:domain robosuite)  ; a\n  ; own\n"
        "  (:goal (And (On a b))))  ; end\n"
    )
