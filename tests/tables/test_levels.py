"""Level tables: a level's table is its base table plus distractors, and is checked against it."""

import json
import shutil

import pytest

from rsb_mj.suites import LEVEL_SUITES
from rsb_mj.tables.check import check_tables
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import diff_rows, dumps, episodes_dir
from rsb_mj.tables.levels import LEVEL_FIELDS, derive_table


@pytest.mark.parametrize("name", list(LEVEL_SUITES))
def test_level_table_is_its_base_table_plus_distractors(name):
    base = load_table(LEVEL_SUITES[name].base, "eval")
    stored = (episodes_dir() / f"{name}.eval.jsonl").read_bytes().splitlines(keepends=True)
    assert dumps(derive_table(name, base[:20])) == b"".join(stored[:20])
    table = load_table(name, "eval")
    assert len(table) == len(base)
    for row, ref in zip(table, base, strict=True):
        assert set(diff_rows(ref, row)) == set(LEVEL_FIELDS)
        extra = ["bottle_1"] if LEVEL_SUITES[name].level == 2 else []
        assert sorted(row.distractors) == [*extra, "can_1", "lemon_1", "toy_car_1"]


def test_check_names_a_level_row_that_left_its_base(tmp_path):
    names = ("RSB-Math-4.eval.jsonl", "RSB-Math-4-L1.eval.jsonl", "manifest.json")
    for name in names:
        shutil.copy(episodes_dir() / name, tmp_path / name)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["tables"] = {n: manifest["tables"][n] for n in names[:2]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    base = tmp_path / "RSB-Math-4.eval.jsonl"
    lines = base.read_text().splitlines()
    row = json.loads(lines[2])
    row["template_id"] = "unseen-4-00"
    lines[2] = json.dumps(row, ensure_ascii=False)
    base.write_text("\n".join(lines) + "\n")
    problems = [p for p in check_tables(["RSB-Math-4-L1"], tmp_path, complete=False)]
    assert problems == [
        "RSB-Math-4-L1.eval.jsonl:3: differs from RSB-Math-4.eval.jsonl in template_id"
    ]
