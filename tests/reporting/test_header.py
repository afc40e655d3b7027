"""rsb report's header: runs, protocol, non-default settings, tasks, errors, privilege."""

import dataclasses

from rsb_mj.evaluation.metrics import summarize
from rsb_mj.evaluation.records import append_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.reporting.header import settings_lines
from rsb_mj.reporting.report import build_report
from tests.evaluation.test_metrics import rec

PROTOCOL = (
    "Protocol: one attempt per episode (the choice is the first candidate grasped; a wrong "
    "first grasp fails the episode). Rates in %, Wilson 95% intervals in brackets; selection "
    "= correct choice among grasping episodes; nSG only where GSR > 0."
)


def test_a_default_run_says_all_defaults_and_lists_no_setting():
    records = [rec(i, grasped=True, success=True, choice_letter="A") for i in range(2)]
    assert settings_lines({"p": summarize(records)}) == []


def test_the_header_names_odd_settings_task_digests_errors_and_privileged_rows(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    expert = rec(0, grasped=True, success=True, choice_letter="A", policy="expert",
                 privileged=True, max_steps=200)  # fmt: skip
    high = dict(expert.sim, quality="high", task_sha256="ab" * 32)
    records = [
        dataclasses.replace(expert, sim=dict(expert.sim, task_sha256="ab" * 32)),
        dataclasses.replace(rec(0, grasped=True, success=False, choice_letter="B"), sim=high),
        rec(1, grasped=False, success=False, error="boom"),
    ]
    for r in records:
        append_record(run / RECORDS_FILE, r)
    assert build_report([run], plots=False).header == (
        f"Runs: `{run}`",
        "",
        PROTOCOL,
        "",
        "Settings: mujoco 3.8.1; non-default:",
        "- expert (privileged) on RSB-Math-4: max_steps 200",
        "- p on RSB-Math-4: quality high",
        "",
        "Renderer: unrecorded (records made before rsb_mj recorded renderer fingerprints)",
        "",
        f"Tasks: RSB-Math-4 (task sha256 {'ab' * 8})",
        "",
        "Error episodes (faults outside the policy, not results; excluded from every rate): 1; "
        "rows above 5% errors are withheld",
        "",
        "Rows marked (privileged) read the answer (the built-in expert): an upper-bound "
        "reference, not a policy to rank.",
    )


def test_the_header_counts_the_policys_own_faults_apart_from_errors(tmp_path):
    from rsb_mj.evaluation.faults import policy_fault

    run = tmp_path / "run"
    run.mkdir()
    raised = dataclasses.replace(
        rec(0, grasped=False, success=False, error="PolicyError: policy p: act() raised X"),
        error_kind="policy",
    )
    for r in (policy_fault(raised), rec(1, grasped=False, success=False, error="boom")):
        append_record(run / RECORDS_FILE, r)
    header = build_report([run], plots=False).header
    assert header[-3:] == (
        "Error episodes (faults outside the policy, not results; excluded from every rate): 1; "
        "rows above 5% errors are withheld",
        "",
        "Policy faults (episodes the policy failed itself: it raised, sent a bad action, hung, "
        "its server's reply was not an answer; scored as failures): 1",
    )
