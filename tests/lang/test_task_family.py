"""The task family: one rule (:func:`rsb_mj.lang.task.task_family`), the same answer from the
linter, the pipeline and the language server, and lint rules that declare their family."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.lang import RULES
from rsb_mj.lang.linter import lint_file
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.rules.base import APPLIES_TO, Context, rule
from rsb_mj.lang.task import family, task_family, task_semantics
from rsb_mj.lsp.completion import family_at
from rsb_mj.tables.episode_source import is_goal_source

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tasks"
PLATE = TASKS / "libero/libero_goal/push_the_plate_to_the_front_of_the_stove.bddl"


@pytest.mark.parametrize(
    ("domain", "has_question", "expected"),
    [
        ("rsb", True, "question"),
        ("RSB", False, "question"),  # rsb's domain without a question: a question task
        ("robosuite", True, "question"),
        ("robosuite", False, "goal"),
        (None, False, "goal"),
        (None, True, "question"),
        ("libero", False, "goal"),
    ],
)
def test_the_family_rule(domain, has_question, expected):
    assert family(domain, has_question) == expected


@pytest.fixture
def rsb_goal(tmp_path: Path) -> Path:
    """A LIBERO goal file whose domain says rsb, without a question."""
    text = PLATE.read_text(encoding="utf-8").replace("(:domain robosuite)", "(:domain rsb)")
    path = tmp_path / "rsb_goal.bddl"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rsb_domain_file_without_a_question_is_a_question_task_everywhere(rsb_goal, capsys):
    problem = parse_file(rsb_goal)
    assert task_family(problem) == "question" and task_semantics(problem) == "rsb"
    # the linter: checked as a question task, which lacks its :question
    _, found = lint_file(rsb_goal)
    missing = [d.message for d in found if d.code == "RSB401"]
    assert "missing block ':question' for an rsb task" in missing
    assert not [d for d in found if d.code.startswith("RSB53")]  # no goal rule ran
    # the pipeline: not a goal source; rsb eval refuses it with the linter's findings
    assert not is_goal_source(str(rsb_goal)) and task_family(problem) == "question"
    out = rsb_goal.parent / "run"
    code = main(["eval", str(rsb_goal), "--policy", "expert", "-n", "1", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{rsb_goal}:1:1: RSB401 missing-block: missing block ':question' for an rsb task" in err
    assert "Traceback" not in err
    # the language server's completion (the text alone judged by the same rule)
    text = rsb_goal.read_text(encoding="utf-8")
    assert family_at(problem, text) == "question"
    assert family_at(None, text) == "question"
    assert family_at(None, PLATE.read_text(encoding="utf-8")) == "goal"
    assert family_at(None, "(define (problem p) (:question (:source arithmetic)") == "question"


def test_every_shipped_file_has_one_family_for_the_linter_the_pipeline_and_the_server():
    files = sorted(TASKS.rglob("*.bddl")) + sorted((ROOT / "examples").rglob("*.bddl"))
    seen: list[str] = []
    for path in files:
        problem = parse_file(path)
        fam = task_family(problem)
        seen.append(fam)
        assert Context(problem, str(path)).family == fam, path
        assert is_goal_source(str(path)) == (fam == "goal"), path
        assert family_at(problem, "") == fam, path
        assert (fam == "question") == (problem.question is not None), path
    assert (seen.count("question"), seen.count("goal")) == (39, 300)


def test_every_rule_declares_a_family_it_applies_to():
    declared = {r.code: r.applies_to for r in RULES.values()}
    assert set(declared.values()) == set(APPLIES_TO)
    assert declared["RSB413"] == "question"  # goal-ignores-answer
    assert declared["RSB418"] == "goal"  # language-mismatch
    assert declared["RSB530"] == "goal"
    assert declared["RSB401"] == "any"


def test_a_rule_with_an_unknown_family_is_refused():
    with pytest.raises(
        ValueError, match="applies_to 'questions'; valid choices: any, question, goal"
    ):
        rule("RSB999", "made-up", "error", bad="", good="", applies_to="questions")(
            lambda ctx: None
        )
    assert "RSB999" not in RULES


def test_a_question_rule_does_not_run_on_a_goal_task():
    # goal-ignores-answer fires on this goal when called, but the linter does not call it
    problem = parse_file(PLATE)
    assert task_family(problem) == "goal"
    ctx = Context(problem, str(PLATE))
    RULES["RSB413"].check(ctx)
    assert [d.code for d in ctx.diagnostics] == ["RSB413"]
    _, found = lint_file(PLATE)
    assert not [d for d in found if d.code == "RSB413"]
