"""The audit of a private folder (rsb_mj.tables.private.audit): each table's family audit
with the shipped train table's fitted probes, plus the no-shipped-question check."""

from __future__ import annotations

import hashlib
import json
import shutil

from rsb_mj.cli import main
from rsb_mj.tables.private.audit import audit_private


def test_audit_passes_and_adds_the_shipped_question_check(drawn, capsys):
    reports = audit_private(drawn)
    assert [r.label for r in reports] == ["A2A-Color private eval", "RSB-Math-4 private eval"]
    assert all(r.passed for r in reports), [r.failures for r in reports]
    for report in reports:
        check = report.checks[-1]
        assert (check.name, check.detail) == (
            "private (no question of a shipped table)",
            "0 of 50 rows ask a question a shipped table asks",
        )
    assert "fitted on train:value_prior" in [c.name for c in reports[1].checks]
    assert main(["audit", "--tables", str(drawn), "RSB-Math-4"]) == 0
    assert capsys.readouterr().out.endswith("PASSED: 1 tables\n")


def test_audit_fails_a_table_that_asks_a_shipped_question(drawn, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(drawn, copy)
    path = copy / "RSB-Math-4.eval.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[4])
    row["question_id"] = "arith-add-87-58"  # the shipped RSB-Math-4 eval row 1 asks it
    lines[4] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    body = json.loads((copy / "manifest.json").read_text())
    body["tables"][path.name]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    (copy / "manifest.json").write_text(json.dumps(body))  # so that the table loads
    (report,) = audit_private(copy, ["RSB-Math-4"])
    assert not report.passed
    assert [c.name for c in report.failures] == ["private (no question of a shipped table)"]
    check = report.checks[-1]
    assert (check.passed, check.detail, check.value) == (
        False,
        "1 of 50 rows ask a question a shipped table asks (rows [4])",
        1,
    )


def test_a_task_files_private_table_is_audited_against_its_own_question_bank(tmp_path, capsys):
    """A task with its own bank (question ids ``file-...``, no built-in source of that name):
    the split checks read the task's bank instead of failing on the id's prefix."""
    from pathlib import Path

    from rsb_mj.tables.private.build import build_private
    from rsb_mj.tables.private.secret import Secret

    from .private_draws import SECRET

    task = Path(__file__).resolve().parents[3] / "tasks" / "examples" / "geography_6.bddl"
    out = tmp_path / "draw"
    build_private([str(task)], Secret(SECRET), out, rows=5, log=lambda _: None)
    (report,) = audit_private(out)
    checks = {c.name: (c.passed, c.detail) for c in report.checks}
    assert checks["split (question ids in the row's split)"] == (
        True,
        "0 of 5 rows outside their split",
    )
    assert checks["split (no near-duplicate of a train question)"] == (True, "0 of 5 rows")
    assert checks["private (no question of a shipped table)"] == (
        True,
        "0 of 5 rows ask a question a shipped table asks",
    )
    assert main(["audit", "--tables", str(out)]) == (0 if report.passed else 1)
    assert "geography_6.bddl private eval" in capsys.readouterr().out
