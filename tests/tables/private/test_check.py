"""The check of a private folder without its secret (rsb_mj.tables.private.check): it
passes on a draw and names a changed row, a shipped question, another secret or builder
version, and a level that no longer matches its base."""

from __future__ import annotations

import json
import shutil

from rsb_mj.cli import main
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.check import check_private
from rsb_mj.tables.private.secret import Secret

from .private_draws import SECRET


def test_check_passes_and_names_a_changed_row_and_a_shipped_question(drawn, tmp_path):
    assert check_private(drawn) == []
    assert check_private(drawn, ["RSB-Math-4"], Secret(SECRET)) == []
    assert check_private(drawn, None, Secret(SECRET + b"?"))[0].startswith(
        f"{drawn / 'manifest.json'}: drawn from another secret"
    )
    broken = tmp_path / "broken"
    shutil.copytree(drawn, broken)
    path = broken / "RSB-Math-4.eval.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[2])
    row["correct"] = "A" if row["correct"] != "A" else "B"
    lines[2] = json.dumps(row)
    asked = json.loads(lines[4])
    asked["question_id"] = "arith-add-87-58"  # the shipped RSB-Math-4 eval row 1 asks it
    lines[4] = json.dumps(asked)
    path.write_text("\n".join(lines) + "\n")
    problems = check_private(broken)
    assert problems[0].startswith("RSB-Math-4.eval.jsonl: sha256 ")
    assert "RSB-Math-4.eval.jsonl:3: row 2 drifted in correct" in problems
    assert "RSB-Math-4.eval.jsonl:5: row 4 drifted in question_id" in problems
    assert (
        "RSB-Math-4.eval.jsonl:5: question arith-add-87-58 is not in the held-out reserve of "
        "arithmetic (a shipped table asks it)"
    ) in problems
    assert main(["episodes", "check", "--tables", str(broken)]) == 1
    assert main(["episodes", "check", "--tables", str(drawn)]) == 0


def _edit_rows(path, index, **fields):
    """Set ``fields`` of row ``index`` (0-based) of the table at ``path``."""
    lines = path.read_text().splitlines()
    row = json.loads(lines[index])
    row.update({k: (v(row[k]) if callable(v) else v) for k, v in fields.items()})
    lines[index] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")


def test_check_names_another_version_and_a_level_apart_from_its_base(tmp_path):
    out = tmp_path / "levels"
    build_private(["RSB-Math-4-L1"], Secret(SECRET), out, rows=6, log=lambda _: None)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    body = json.loads((copy / "manifest.json").read_text())
    body["private"]["version"] = 2
    (copy / "manifest.json").write_text(json.dumps(body))
    assert check_private(copy, None, Secret(SECRET + b"x")) == [
        f"{copy / 'manifest.json'}: drawn from another secret (id {Secret(SECRET).id[:12]}, "
        f"the secret file's {Secret(SECRET + b'x').id[:12]})",
        f"{copy / 'manifest.json'}: drawn by private builder version 2; this rsb_mj draws "
        "version 1 and cannot re-draw its rows",
    ]
    shutil.rmtree(copy)
    shutil.copytree(out, copy)
    level = copy / "RSB-Math-4-L1.eval.jsonl"
    _edit_rows(level, 1, split="train")
    _edit_rows(level, 3, seed=lambda seed: seed + 1)
    problems = check_private(copy, ["RSB-Math-4-L1"])
    assert problems[0].startswith("RSB-Math-4-L1.eval.jsonl: sha256 ")
    assert problems[1:] == [
        "RSB-Math-4-L1.eval.jsonl:2: split 'train'; a private table has eval rows",
        "RSB-Math-4-L1.eval.jsonl:4: row 3 drifted in question_id, question, options, "
        "mapping, colors, layout, instruction, distractors",
        "RSB-Math-4-L1.eval.jsonl:2: differs from RSB-Math-4.eval.jsonl in split",
        "RSB-Math-4-L1.eval.jsonl:4: differs from RSB-Math-4.eval.jsonl in seed",
    ]
    base = copy / "RSB-Math-4.eval.jsonl"
    base.write_text("\n".join(base.read_text().splitlines()[:5]) + "\n")
    assert check_private(copy, ["RSB-Math-4-L1"])[-1] == (
        "RSB-Math-4-L1.eval.jsonl: 6 rows, its base table RSB-Math-4.eval.jsonl 5"
    )
    base.unlink()
    assert check_private(copy, ["RSB-Math-4-L1"])[-1] == (
        "RSB-Math-4-L1.eval.jsonl: its base table RSB-Math-4.eval.jsonl is missing"
    )
