"""``rsb_mj.lang.linter.check_runnable``: one classifier for what ``rsb lint`` rejects and what
``rsb eval`` runs. For every error code of the RSB2xx, RSB3xx and RSB5xx families that can fire
on a goal task file and on a question task file, a file with that error is reported by lint as
an error, and ``rsb eval`` refuses it (exit 2) with the same positioned findings, recording
nothing and leaving no run folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.lang import RULES
from rsb_mj.lang.linter import lint_file

from .lang_samples import LIBERO
from .rule_cases import path_of
from .test_rules import ALL_CASES

_GOAL = "(:goal (And (On bowl_1 plate_1)))"

#: ``(code, old, new)``: an edit of the LIBERO sample that makes lint report ``code`` as an
#: error (RSB530-RSB534: the rule fixtures of tests/lang/rules/test_runtime_goal.py).
GOAL_CASES = [
    ("RSB201", _GOAL, "(:goall (And (On bowl_1 plate_1)))"),
    ("RSB202", "main_table - table)", "main_table - table)\n  (:objects apple_1 - apple)"),
    ("RSB203", "plate_1 - plate", "plate_1 - plaet"),
    ("RSB204", _GOAL, "(:goal (And (Onn bowl_1 plate_1)))"),
    ("RSB205", _GOAL, "(:goal (And (On bowl_1)))"),
    ("RSB206", _GOAL, "(:goal (And (On main_table_plate_region bowl_1)))"),
    ("RSB207", "(On plate_1 main_table_plate_region)", "(On plate_1 main_table_plat_region)"),
    ("RSB208", "plate_1 - plate)", "plate_1 - plate bowl_1 - plate)"),
    # a region whose target is not declared, used by :init (unused, it is a warning)
    (
        "RSB209",
        "(plate_region\n      (:target main_table)",
        "(plate_region\n      (:target main_tabel)",
    ),
    ("RSB210", "plate_1 - plate)", "plate_1 - plate lamp)"),
    ("RSB211", "(:domain robosuite)", "(:domain robosuit)"),
    ("RSB212", _GOAL, "(:goal (And (On ?bowl plate_1)))"),
    ("RSB301", "(0.04 -0.03 0.06 -0.01)", "(0.06 -0.03 0.04 -0.01)"),
    (
        "RSB306",
        "(:target main_table)\n      (:ranges ((0.04 -0.03 0.06 -0.01))))",
        "(:target main_table))",
    ),
    ("RSB307", "(0.04 -0.03 0.06 -0.01))))", "(0.04 -0.03 0.06 -0.01))) (:rgba (128 128 128)))"),
]

#: Error codes of the families that cannot fire on a goal task file, and why: they check
#: what only a question task (``(:domain rsb)`` or a ``(:question ...)``) has or builds.
QUESTION_ONLY = {
    "RSB213": "a goal file's own predicates go by RSB530 (what rsb_mj scores of a goal)",
    "RSB302": "a goal file's regions are in LIBERO's table frame, mapped onto Aloha's",
    "RSB303": "the answer zone",
    "RSB304": "the candidates' region",
    "RSB308": "(:layout ...)",
    "RSB309": "(:layout ...)",
    "RSB310": "the candidates",
    "RSB312": "the answer zone",
    "RSB501": "the rsb layout sampler's regions (RSB534 for a goal file)",
    "RSB502": "the rsb layout sampler's regions (RSB532 for a goal file)",
    "RSB503": "the rsb layout sampler's trial layouts",
    "RSB504": "the answer zone's scorer",
    "RSB505": "the answer's scorer",
    "RSB506": "the candidates' grasp",
    "RSB507": "the rsb scene (a goal file's unplaced object is placed on the table)",
    "RSB508": "the rsb scene's reserved names",
    "RSB509": "the rsb scene's cameras",
    "RSB510": "the question environment given a LIBERO file",
    "RSB511": "the question scorer's blocks",
    "RSB512": "the question scene's cost",
    "RSB513": "the rsb scene's moving objects",
    "RSB520": "the question source",
}
#: Error codes of the families that fire only on goal task files (RSB530-RSB534:
#: tests/lang/rules/test_runtime_goal.py's fixtures; RSB536-RSB540: test_relations.py's).
GOAL_ONLY = {f"RSB{n}" for n in (530, 531, 532, 533, 534, 536, 537, 538, 539, 540)}
_FAMILIES = ("RSB2", "RSB3", "RSB5")


def _error_codes() -> set[str]:
    return {
        c for c, r in RULES.items() if c.startswith(_FAMILIES) and r.severity == "error" and r.check
    }


def _question_cases() -> list[tuple[str, str, str, str]]:
    """``(code, base, old, new)`` of the rule fixtures on question tasks, first per code."""
    seen: dict[str, tuple[str, str, str, str]] = {}
    for code, base, old, new, *_ in ALL_CASES:
        if code in _error_codes() and base is not LIBERO and code not in seen:
            seen[code] = (code, base, old, new)
    return sorted(seen.values())


def _goal_cases() -> list[tuple[str, str, str, str]]:
    own = [(code, LIBERO, old, new) for code, old, new in GOAL_CASES]
    return own + [(c, b, o, n) for c, b, o, n, *_ in ALL_CASES if c in GOAL_ONLY]


CASES = [("goal", *c) for c in _goal_cases()] + [("question", *c) for c in _question_cases()]


def test_the_cases_cover_every_error_code_of_the_families_on_both_kinds_of_file():
    goal = {c[1] for c in CASES if c[0] == "goal"}
    question = {c[1] for c in CASES if c[0] == "question"}
    assert goal | set(QUESTION_ONLY) == _error_codes()
    assert question | GOAL_ONLY | {"RSB510"} == _error_codes()
    assert not goal & set(QUESTION_ONLY)


@pytest.mark.parametrize(
    ("kind", "code", "base", "old", "new"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES]
)
def test_what_lint_reports_as_an_error_eval_refuses_with_the_same_findings(
    kind, code, base, old, new, tmp_path, capsys
):
    assert old in base
    path = tmp_path / path_of(base)
    text = base.replace(old, new, 1)
    if code == "RSB209" and kind == "goal":  # :init places the plate in the region
        text = text.replace("main_table_plate_region", "main_tabel_plate_region")
    path.write_text(text)
    _, findings = lint_file(path, target="rsb")
    errors = [d.header() for d in findings if d.is_error]
    assert any(f": {code} " in e for e in errors), (code, errors)
    out = tmp_path / "run"
    rc = main(["eval", str(path), "--policy", "noop", "-n", "1", "--max-steps", "5",
               "--out", str(out), "--no-progress"])  # fmt: skip
    captured = capsys.readouterr()
    assert rc == 2
    assert not out.exists()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    lines = captured.err.rstrip("\n").splitlines()
    assert lines[0].startswith(f"rsb eval: error: {path}")
    reported = [line.removeprefix("rsb eval: error: ") for line in lines]
    assert [e for e in reported if re.match(rf"{re.escape(str(path))}:\d", e)] == errors


def test_the_issue_s_goal_true_at_reset_is_refused(tmp_path, capsys):
    """``libero_goal/put_the_bowl_on_the_plate.bddl`` with the goal ``(On plate_1
    main_table_plate_region)``, which holds at ``:init``: eval ran it (``step_limit``, exit 0)."""
    shipped = Path(__file__).parents[2] / "tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    path = tmp_path / shipped.name
    path.write_text(
        shipped.read_text().replace(
            "(And (On akita_black_bowl_1 plate_1))", "(And (On plate_1 main_table_plate_region))"
        )
    )
    rc = main(["eval", str(path), "--policy", "noop", "-n", "1", "--max-steps", "30"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.splitlines() == [
        f"rsb eval: error: {path}: 1 lint error (rsb lint --target rsb {path}); a task file "
        "with lint errors does not run:",
        f"{path}:124:3: RSB533 goal-at-reset: the goal holds at :init ((On plate_1 "
        "main_table_plate_region)): every episode would start solved, so the file does not run",
    ]


def _goal_at_reset(tmp_path: Path) -> Path:
    from .lang_samples import LIBERO_PATH

    path = tmp_path / LIBERO_PATH
    path.write_text(LIBERO.replace("(On bowl_1 main_table_bowl_region)", "(On bowl_1 plate_1)"))
    return path


def _refused(exc: BaseException, path: Path) -> None:
    assert str(exc).splitlines()[1:] == [
        f"{path}:21:3: RSB533 goal-at-reset: the goal holds at :init ((On bowl_1 plate_1)): "
        "every episode would start solved, so the file does not run"
    ]


def test_every_other_path_that_runs_a_goal_file_refuses_it_too(tmp_path, capsys):
    """rsb demos (exit 2, no folder), rsb_mj.evaluate (no folder), gymnasium's make and the
    vla-eval goal plugin all raise the same itemised list."""
    import gymnasium

    import rsb_mj
    from rsb_mj.env.registration import GOAL_ENV_ID
    from rsb_mj.lang.diagnostics import TaskFileError

    path = _goal_at_reset(tmp_path)
    out = tmp_path / "demos"
    assert main(["demos", str(path), "--out", str(out), "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rsb demos: error: {path}: 1 lint error")
    assert not out.exists()

    class Idle:
        def act(self, obs):
            return None

    out = tmp_path / "evaluate"
    with pytest.raises(TaskFileError) as exc:
        rsb_mj.evaluate(Idle(), [str(path)], episodes=1, out=out)
    _refused(exc.value, path)
    assert not out.exists()
    with pytest.raises(TaskFileError) as exc:
        gymnasium.make(GOAL_ENV_ID, task=str(path))
    _refused(exc.value, path)

    pytest.importorskip("vla_eval", reason="the vla-eval plugin needs its extra")
    from rsb_mj.integrations.vla_eval_goal import GoalBenchmark

    with pytest.raises(TaskFileError) as exc:
        GoalBenchmark(files=[str(path)])
    _refused(exc.value, path)


def test_every_shipped_goal_file_passes_the_gate():
    """The other side: the 300 shipped goal files (LIBERO 130, VLA-Arena 170) are lint-clean as
    scenes rsb_mj builds, so every path that runs them still does."""
    from rsb_mj.lang.linter import load_goal_task
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import task_family
    from rsb_mj.resources import tasks_dir

    goal = [p for p in sorted(tasks_dir().rglob("*.bddl")) if task_family(parse_file(p)) == "goal"]
    assert len(goal) == 300
    for path in goal:
        assert load_goal_task(path).path == str(path)
