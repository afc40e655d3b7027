"""Diagnostic rendering and the error carrying them."""

from rsb_mj.errors import TaskError
from rsb_mj.lang import Diagnostic, Span, TaskFileError


def test_render_puts_a_caret_under_the_span():
    d = Diagnostic("RSB207", "undefined-name", "error", "bad", "f.bddl", Span(2, 5, 2, 8), "x")
    assert d.render("line one\n(In abc d)\n") == (
        "f.bddl:2:5: RSB207 undefined-name: bad\n    2 | (In abc d)\n      |     ^^^\n    fix: x"
    )


def test_render_of_a_multi_line_span_marks_the_rest_of_the_first_line():
    d = Diagnostic("RSB303", "zone-overlap", "error", "m", "f", Span(1, 3, 4, 2))
    assert d.render("ab(cd\n") == "f:1:3: RSB303 zone-overlap: m\n    1 | ab(cd\n      |   ^^^"


def test_render_without_source_is_the_header():
    d = Diagnostic("RSB104", "unreadable-file", "error", "m", "f", Span(1, 1, 1, 2))
    assert d.render(None) == "f:1:1: RSB104 unreadable-file: m"


def test_task_file_error_lists_every_diagnostic():
    ds = [
        Diagnostic("RSB201", "unknown-block", "error", "a", "f", Span(1, 1, 1, 2)),
        Diagnostic("RSB202", "duplicate-block", "error", "b", "f", Span(3, 1, 3, 2)),
    ]
    err = TaskFileError(ds)
    assert isinstance(err, TaskError)
    assert str(err) == "f:1:1: RSB201 unknown-block: a\nf:3:1: RSB202 duplicate-block: b"
