"""Parsing: exact ASTs, spans, case-insensitive keywords, and RSB1xx syntax diagnostics."""

import pytest

from rsb_mj.errors import TaskError
from rsb_mj.lang import (
    And,
    AnswerZone,
    Atom,
    Instruction,
    Layout,
    Name,
    Not,
    Number,
    NumberList,
    OptionMap,
    Or,
    Problem,
    Question,
    Rect,
    Region,
    Section,
    SList,
    Span,
    Symbol,
    TaskFileError,
    TypedName,
    Variable,
    parse_file,
    parse_text,
)
from rsb_mj.lang.grammar import grammar
from rsb_mj.lang.parser import parse_source
from rsb_mj.resources import grammar_path

from .lang_samples import BASE


def test_base_parses_to_the_expected_ast():
    blocks = tuple(f"block_{c}" for c in "abcd")
    expected = Problem(
        name="rsb_test_4",
        domain="rsb",
        question=Question("arithmetic", 4),
        instruction=Instruction("seen"),
        regions=(
            Region("candidates", "table", (Rect(-0.25, -0.1, 0.25, 0.02),)),
            Region(
                "answer_zone", "table", (Rect(-0.06, 0.1, 0.06, 0.22),), rgba=(0.5, 0.5, 0.5, 1)
            ),
        ),
        fixtures=(TypedName("table", "table"),),
        objects=tuple(TypedName(b, "letter_block") for b in blocks),
        candidate_names=blocks,
        options=OptionMap("shuffle"),
        init=tuple(Atom("On", (Name(b), Name("table_candidates"))) for b in blocks),
        grasp_terms=(Atom("Grasped", (Variable("c", "candidate"),)),),
        goal_terms=(
            And(
                (
                    Atom("In", (Variable("answer"), Name("table_answer_zone"))),
                    Atom("Released", (Variable("answer"),)),
                )
            ),
        ),
        layout=Layout(0.07, (-0.3, 0.3)),
        answer_zone=AnswerZone(("table_answer_zone",)),
    )
    assert parse_text(BASE) == expected


def test_helpers_other_stages_use():
    p = parse_text(BASE, "t.bddl")
    assert p.candidates == ("block_a", "block_b", "block_c", "block_d")
    assert (p.question.source, p.question.choices) == ("arithmetic", 4)
    assert p.instruction.templates == "seen"
    assert (p.layout.min_spacing, p.layout.yaw_range) == (0.07, (-0.3, 0.3))
    assert p.category_of("block_c") == "letter_block"
    assert p.category_of("table") == "table"
    assert p.region("table_answer_zone").rgba == (0.5, 0.5, 0.5, 1.0)
    assert p.placement_of("block_b") == "table_candidates"
    assert p.grasp == Atom("Grasped", (Variable("c", "candidate"),))
    assert isinstance(p.goal, And) and len(p.goal.terms) == 2
    assert p.cost is None and p.cost_terms is None
    assert p.path == "t.bddl"


def test_helper_errors_name_the_valid_choices():
    p = parse_text(BASE, "t.bddl")
    with pytest.raises(
        TaskError,
        match=r"^t\.bddl: no region 'table_zone'; valid choices: "
        r"table_answer_zone, table_candidates$",
    ):
        p.region("table_zone")
    with pytest.raises(
        TaskError,
        match=r"no object or fixture 'block_z'; valid choices: "
        r"block_a, block_b, block_c, block_d, table$",
    ):
        p.category_of("block_z")
    with pytest.raises(TaskError, match=r"object 'table' has no \(On table REGION\) in :init"):
        p.placement_of("table")


def test_spans_are_one_based_and_cover_the_form():
    p = parse_text(BASE)
    assert p.span == Span(2, 1, 28, 36)
    assert p.regions[0].span == Span(7, 5, 9, 42)
    assert p.regions[0].ranges[0].span == Span(9, 17, 9, 39)
    assert p.init[1].span == Span(22, 5, 22, 34)
    assert p.init[1].args[1].span == Span(22, 17, 22, 33)
    assert p.objects[2].span == Span(17, 21, 17, 28)
    assert p.grasp_terms[0].args[0].span == Span(25, 20, 25, 34)
    assert dict(p.blocks)["layout"] == Span(27, 3, 27, 56)


def test_span_is_not_part_of_equality_or_hash():
    a = Atom("On", (Name("x"), Name("y")), span=Span(1, 2, 3, 4))
    b = Atom("On", (Name("x"), Name("y")))
    assert a == b and hash(a) == hash(b)
    assert "span" not in repr(a)


def test_keywords_are_case_insensitive_and_predicates_canonical():
    text = """(DEFINE (PROBLEM p) (:DOMAIN robosuite) (:Objects a - apple)
      (:GOAL (AND (on a b) (OR (nOt (turnON a)) (open a)))))"""
    p = parse_text(text)
    assert p.objects == (TypedName("a", "apple"),)
    assert p.goal == And(
        (
            Atom("On", (Name("a"), Name("b"))),
            Or((Not(Atom("Turnon", (Name("a"),))), Atom("Open", (Name("a"),)))),
        )
    )


def test_unknown_predicates_keep_their_spelling():
    p = parse_text("(define (problem p) (:goal (MyThing a)))")
    assert p.goal == Atom("MyThing", (Name("a"),))


def test_nesting_beyond_the_limit_is_a_diagnostic_not_a_crash():
    text = "(define (problem p) (:goal " + "(Not " * 200 + "(Up a)" + ")" * 200 + "))"
    problem, diagnostics = parse_source(text, "deep.bddl")
    assert problem is None
    (d,) = diagnostics
    assert (d.code, d.name, d.span.line, d.span.column) == ("RSB108", "nesting-too-deep", 1, 518)
    assert d.message == "parentheses nest deeper than 100 levels"


def test_nested_connectives_at_any_depth():
    depth = 95
    text = "(define (problem p) (:goal " + "(And " * depth + "(Up a)" + ")" * depth + "))"
    expr = parse_text(text).goal
    for _ in range(depth):
        assert isinstance(expr, And)
        (expr,) = expr.terms
    assert expr == Atom("Up", (Name("a"),))


def test_comments_numbers_and_vla_arena_arguments():
    text = """; header
    (define (problem p) ; trailing
      (:language Pick up the knife, then stop!)
      (:cost (And (CheckGripperDistancePart knife_1 (3 9 12) 0.01) (CheckDistance a b -1e-2))))"""
    p = parse_text(text)
    assert p.language == "Pick up the knife, then stop!"
    assert p.cost == And(
        (
            Atom(
                "CheckGripperDistancePart",
                (Name("knife_1"), NumberList((3.0, 9.0, 12.0)), Number(0.01)),
            ),
            Atom("CheckDistance", (Name("a"), Name("b"), Number(-0.01))),
        )
    )


def test_hyphenated_region_names_from_vla_arena():
    p = parse_text(
        "(define (problem p) (:regions (region_-10_0 (:target t))) (:init (On x t_region_-10_0)))"
    )
    assert p.regions[0].full_name == "t_region_-10_0"
    assert p.placement_of("x") == "t_region_-10_0"


def test_pass_through_blocks_are_kept_verbatim():
    text = """(define (problem p)
      (:image_settings brightness 0.4 saturation -0.4)
      (:moving_objects (truck_1 (:motion_type linear) (:motion_direction (0 1 0)))))"""
    p = parse_text(text)
    assert p.sections == (
        Section(
            "image_settings",
            (Symbol("brightness"), Number(0.4), Symbol("saturation"), Number(-0.4)),
        ),
        Section(
            "moving_objects",
            (
                SList(
                    (
                        Symbol("truck_1"),
                        SList((Symbol(":motion_type"), Symbol("linear"))),
                        SList(
                            (Symbol(":motion_direction"), SList((Number(0), Number(1), Number(0))))
                        ),
                    )
                ),
            ),
        ),
    )


def test_fixed_option_map_and_untyped_trailing_names():
    p = parse_text("(define (problem p) (:objects a - can b) (:options (:map (A a) (B b))))")
    assert p.options == OptionMap("fixed", (("A", "a"), ("B", "b")))
    assert p.objects == (TypedName("a", "can"), TypedName("b", ""))


def test_repeated_list_blocks_merge_and_are_recorded():
    p = parse_text("(define (problem p) (:objects a - can) (:objects b - can))")
    assert [d.name for d in p.objects] == ["a", "b"]
    assert [k for k, _ in p.blocks] == ["objects", "objects"]


SYNTAX = [
    (
        "(define (problem p) (:objects a # b))",
        "RSB101",
        "unexpected-character",
        (1, 33),
        "unexpected character '#'; expected one of: ')', '-', a name",
    ),
    (
        "(define (problem p) (:question (:sorce a)))",
        "RSB102",
        "unexpected-token",
        (1, 33),
        "unexpected ':sorce'; expected one of: ':choices', ':source'; did you mean ':source'?",
    ),
    (
        "(define (problem p) (:question (:choices four)))",
        "RSB102",
        "unexpected-token",
        (1, 42),
        "unexpected 'four'; expected a number",
    ),
    (
        "(define (problem p)\n  (:goal (And (In a b)\n  )\n",
        "RSB103",
        "unclosed-paren",
        (2, 3),
        "'(' at line 2 column 3 is never closed (the file ends at line 4); "
        "expected one of: '(', ')'",
    ),
    (
        "(define (problem p)) )",
        "RSB105",
        "trailing-text",
        (1, 22),
        "unexpected ')' after the end of the (define ...) form",
    ),
    (
        "",
        "RSB106",
        "missing-define",
        (1, 1),
        "no task found: a task file holds one (define (problem NAME) ...) form",
    ),
    (
        "(problem p)",
        "RSB102",
        "unexpected-token",
        (1, 2),
        "unexpected 'problem'; expected 'define'",
    ),
    (
        "(define (problem p) (:layout (:min_spacing 1e999)))",
        "RSB107",
        "number-out-of-range",
        (1, 44),
        "number '1e999' is too large for a 64-bit float",
    ),
    (
        '(define (problem p) (:goal (On a "b")))',
        "RSB101",
        "unexpected-character",
        (1, 34),
        "unexpected character '\"'; "
        "expected one of: '(', ')', a name, a number, a variable (?name)",
    ),
]


@pytest.mark.parametrize(("text", "code", "name", "where", "message"), SYNTAX)
def test_syntax_errors_become_coded_diagnostics(text, code, name, where, message):
    problem, diagnostics = parse_source(text, "bad.bddl")
    assert problem is None
    (d,) = diagnostics
    assert (d.code, d.name, (d.span.line, d.span.column), d.message) == (
        code,
        name,
        where,
        message,
    )
    assert d.severity == "error" and d.path == "bad.bddl"


def test_parse_text_raises_a_task_error_with_the_diagnostic():
    with pytest.raises(TaskFileError) as info:
        parse_text("(define (problem p) (:objects a 1 b))", "bad.bddl")
    assert isinstance(info.value, TaskError)
    assert str(info.value) == (
        "bad.bddl:1:33: RSB102 unexpected-token: unexpected '1'; expected one of: ')', '-', a name"
    )
    assert [d.code for d in info.value.diagnostics] == ["RSB102"]


def test_unreadable_files(tmp_path):
    binary = tmp_path / "x.bddl"
    binary.write_bytes(b"\xff\xfe(\x00")
    with pytest.raises(TaskFileError, match=r"x\.bddl:1:1: RSB104 unreadable-file: cannot read"):
        parse_file(binary)
    with pytest.raises(TaskFileError, match="RSB104 unreadable-file"):
        parse_file(tmp_path / "missing.bddl")


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.bddl"
    path.write_text("\ufeff" + BASE, encoding="utf-8")
    assert parse_file(path) == parse_text(BASE)


def test_grammar_ships_as_package_data_and_is_strict_lalr():
    assert grammar_path().name == "rsb.lark" and grammar_path().is_file()
    parser = grammar()
    assert parser.options.parser == "lalr"
    assert parser.options.strict is True
