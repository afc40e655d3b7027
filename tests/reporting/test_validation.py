"""rsb report refuses records that cannot be true, duplicated episodes, unknown suites and two
versions of a task in one row, naming each file:line; a report folder that cannot be written
is one clear error, and --stdout prints the report without writing."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import append_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.reporting.report import write_report
from rsb_mj.reporting.validation import record_problems
from rsb_mj.suites import A2A_SUITES, ALL_SUITES
from tests.evaluation.test_metrics import rec


def _write(folder: Path, records) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r in records:
        append_record(folder / RECORDS_FILE, r)
    return folder / RECORDS_FILE


def _good(n=4):
    return [rec(i, grasped=True, success=i % 2 == 0, choice_letter="A" if i % 2 == 0 else "B")
            for i in range(n)]  # fmt: skip


def _refused(folder: Path) -> str:
    with pytest.raises(EvalError) as err:
        write_report([folder], folder / "report", plots=False)
    assert not (folder / "report" / "report.md").exists()
    return str(err.value)


def test_consistent_records_pass():
    assert [record_problems(r) for r in _good()] == [[]] * 4
    assert record_problems(rec(0, grasped=False, success=False, error="InfraError: x")) == []


def test_success_with_the_wrong_choice_is_refused_naming_the_line(tmp_path):
    bad = dataclasses.replace(rec(2, grasped=True, success=False, choice_letter="B"), success=True)
    path = _write(tmp_path, [*_good(2), bad])
    assert _refused(tmp_path) == (
        "1 invalid record; nothing was reported:\n"
        f"{path}:3: success is true without a grasp of the correct choice"
    )


def test_flags_that_contradict_each_other_are_each_named():
    r = rec(0, grasped=True, success=True, choice_letter="A")
    cases = {
        "correct_choice": (
            dataclasses.replace(r, correct_choice=False),
            "correct_choice is false, but the choice 'block_a' is the target 'block_a'",
        ),
        "letter": (
            dataclasses.replace(r, chosen_option="C"),
            "the chosen option 'C' and the correct option 'A' disagree with the choice "
            "'block_a' and the target 'block_a'",
        ),
        "termination": (
            dataclasses.replace(r, termination="won"),
            "termination 'won'; valid choices: success, wrong_choice, step_limit, "
            "policy_done, policy_fault, error",
        ),
        "steps": (
            dataclasses.replace(r, steps=500),
            "steps 500 is not within the step limit 0..400",
        ),
        "letters": (
            dataclasses.replace(r, correct="E"),
            "correct 'E' is not one of the 4 letters ABCD",
        ),
    }
    for name, (record, message) in cases.items():
        assert message in record_problems(record), name


def test_choices_zero_is_an_invalid_record_not_a_division_by_zero(tmp_path, capsys):
    bad = dataclasses.replace(_good(1)[0], choices=0)
    path = _write(tmp_path / "run", [bad, *_good(3)[1:]])
    assert main(["report", str(tmp_path / "run"), "--no-plots"]) == 2
    assert capsys.readouterr().err == (
        "rsb report: error: 1 invalid record; nothing was reported:\n"
        f"{path}:1: choices 0; valid choices: 2..10\n"
    )


def test_two_records_of_one_episode_and_an_unknown_suite_are_refused(tmp_path):
    first, second = _good(2)
    again = rec(0, grasped=True, success=False, choice_letter="B")  # the same episode
    stray = dataclasses.replace(second, index=7, suite="RSB-Chess-4")
    path = _write(tmp_path, [first, second, again, stray])
    assert _refused(tmp_path).splitlines()[1:] == [
        f"{path}:3: a second scored record of RSB-Math-4 eval episode 0 for p (original), "
        "with another outcome than line 1; keep one",
        f"{path}:4: unknown suite 'RSB-Chess-4'; valid choices: a task file (*.bddl) or one of "
        f"{len(ALL_SUITES) + len(A2A_SUITES)} suites (e.g. RSB-Math-4; see rsb eval --help)",
    ]


def test_an_error_then_a_scored_record_of_one_episode_is_a_retry_not_a_duplicate(tmp_path):
    error = rec(0, grasped=False, success=False, error="InfraError: server went away")
    _write(tmp_path, [error, *_good(2)])
    assert "| p      | RSB-Math-4 | 2 " in write_report([tmp_path], tmp_path / "r", plots=False)


def test_two_task_versions_in_one_row_are_refused_with_both_digests(tmp_path):
    a, b = _good(2)
    a = dataclasses.replace(a, sim={**a.sim, "task_sha256": "a" * 64})
    b = dataclasses.replace(b, sim={**b.sim, "task_sha256": "b" * 64})
    path = _write(tmp_path / "run", [a, b])
    assert _refused(tmp_path / "run").splitlines()[1] == (
        f"{path}:2: RSB-Math-4 was run with task sha256 {'b' * 16} here and {'a' * 16} at "
        "line 1: two versions of the task (its file or a file it names changed) cannot be "
        "pooled into one row; report them from separate run folders"
    )
    # two folders, one version each: two rows, both digests named
    _write(tmp_path / "one", [a])
    _write(tmp_path / "two", [b])
    text = write_report([tmp_path / "one", tmp_path / "two"], tmp_path / "r", plots=False)
    assert f"Tasks: RSB-Math-4 (task sha256 {'a' * 16}; {'b' * 16})" in text


HINT = "name a folder that can be written with --out DIR, or print the report with --stdout"


def test_a_report_folder_that_cannot_be_made_is_one_error_and_stdout_still_prints(tmp_path, capsys):
    _write(tmp_path / "run", _good())
    (tmp_path / "run" / "report").write_text("a file where the report folder would go")
    assert main(["report", str(tmp_path / "run"), "--no-plots"]) == 2
    assert capsys.readouterr().err == (
        f"rsb report: error: {tmp_path / 'run' / 'report'}: cannot create the report folder "
        f"(File exists); {HINT}\n"
    )
    assert main(["report", str(tmp_path / "run"), "--stdout"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# rsb_mj evaluation report") and "written to" not in out
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [RECORDS_FILE, "report"]
    assert main(["report", str(tmp_path / "run"), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "report.md").is_file()


#: Why the read-only test cannot run as root (root writes through permission bits).
AS_ROOT = "root ignores permission bits; the test above covers the refusal with a real path"


@pytest.mark.skipif(os.geteuid() == 0, reason=AS_ROOT)
def test_a_read_only_run_folder_is_one_error_naming_out_and_stdout(tmp_path, capsys):
    _write(tmp_path / "run", _good())
    (tmp_path / "run").chmod(0o555)
    try:
        assert main(["report", str(tmp_path / "run"), "--no-plots"]) == 2
        assert capsys.readouterr().err == (
            f"rsb report: error: {tmp_path / 'run' / 'report'}: cannot create the report "
            f"folder (Permission denied); {HINT}\n"
        )
        assert main(["report", str(tmp_path / "run"), "--stdout"]) == 0
    finally:
        (tmp_path / "run").chmod(0o755)
