"""Huge numbers in task files are coded, positioned diagnostics, never tracebacks."""

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import TaskError
from rsb_mj.lang import lint_text, load_task
from rsb_mj.lang.ast import Rect
from rsb_mj.lang.rules.placement import capacity

from .lang_samples import BASE, LIBERO, LIBERO_PATH

BIG_INT = "1" + "0" * 400
CASES = [
    # (old, new, line, column, message)
    (
        "(-0.25 -0.1 0.25 0.02)",
        "(-1e300 -1e300 1e300 1e300)",
        9,
        18,
        "number '-1e300' is out of range; task-file numbers lie within +-1e9",
    ),
    (
        "(:min_spacing 0.07)",
        "(:min_spacing 1e300)",
        27,
        26,
        "number '1e300' is out of range; task-file numbers lie within +-1e9",
    ),
    (
        "(:choices 4)",
        f"(:choices {BIG_INT})",
        4,
        45,
        "number '100000000000...' (401 characters) is too large for a 64-bit float",
    ),
    (
        "(:yaw_range (-0.3 0.3))",
        "(:yaw_range (-0.3 1000000001))",
        27,
        50,
        "number '1000000001' is out of range; task-file numbers lie within +-1e9",
    ),
    (
        "(0.5 0.5 0.5 1)",
        "(0.5 0.5 0.5 1e999)",
        13,
        27,
        "number '1e999' is too large for a 64-bit float",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "line", "column", "message"), CASES, ids=[c[1][:24] for c in CASES]
)
def test_huge_numbers_are_rsb107_at_their_position(old, new, line, column, message):
    assert old in BASE
    problem, found = lint_text(BASE.replace(old, new, 1), "rsb_test_4.bddl")
    assert problem is None
    assert [(d.code, d.span.line, d.span.column, d.message) for d in found] == [
        ("RSB107", line, column, message)
    ]


def test_the_largest_allowed_numbers_lint_without_a_traceback():
    text = BASE.replace("(-0.25 -0.1 0.25 0.02)", "(-1e9 -1e9 1e9 1e9)").replace(
        "(:min_spacing 0.07)", "(:min_spacing 1e-300)"
    )
    problem, found = lint_text(text, "rsb_test_4.bddl")
    assert problem is not None
    assert {d.code for d in found} == {"RSB302", "RSB303"}  # leaves the table, reaches the zone


def test_a_huge_threshold_in_a_vla_arena_cost_is_rsb107():
    text = LIBERO.replace("(Fall plate_1)", "(CheckGripperDistance plate_1 1e400)")
    _, found = lint_text(text, LIBERO_PATH)
    assert [(d.code, d.span.line, d.span.column) for d in found] == [("RSB107", 22, 45)]


def test_capacity_of_a_degenerate_spacing_is_unbounded_not_an_overflow():
    assert capacity((Rect(-1e9, -1e9, 1e9, 1e9),), 1e-300) > 10**18


def test_load_task_raises_task_error_with_the_position(tmp_path):
    path = tmp_path / "huge.bddl"
    path.write_text(BASE.replace("(:min_spacing 0.07)", "(:min_spacing 1e300)"), encoding="utf-8")
    with pytest.raises(TaskError) as info:
        load_task(path)
    assert str(info.value) == (
        f"{path}:27:26: RSB107 number-out-of-range: number '1e300' is out of range; "
        "task-file numbers lie within +-1e9"
    )


def test_rsb_lint_reports_it_with_exit_1(tmp_path, capsys):
    path = tmp_path / "huge.bddl"
    path.write_text(BASE.replace("(:choices 4)", f"(:choices {BIG_INT})"), encoding="utf-8")
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:4:45: RSB107 number-out-of-range: number '100000000000...'")
    assert out.endswith("1 file checked: 1 error, 0 warnings\n")
