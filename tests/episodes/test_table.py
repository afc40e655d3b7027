"""Frozen tables: seeds, prefix reproduction, byte-identical rebuild, drift reports."""

import hashlib
import json
import shutil

import pytest

from rsb_mj.episodes.table import build_table, check_tables, row_seed
from rsb_mj.episodes.table_files import dumps, episodes_dir, load_table
from rsb_mj.errors import EpisodeError
from rsb_mj.suites import SUITES


def test_row_seed_is_a_fixed_hash():
    digest = hashlib.sha256(b"rsb_mj/RSB-Math-4/eval/0/0").digest()
    assert row_seed("RSB-Math-4", "eval", 0, 0) == int.from_bytes(digest[:4], "big") == 2960763217
    assert row_seed("RSB-Math-4", "eval", 0, 1) != row_seed("RSB-Math-4", "eval", 0, 0)


@pytest.mark.parametrize("name", list(SUITES))
def test_eval_table_prefix_is_rebuilt_byte_for_byte(name):
    fresh, _ = build_table(name, "eval", rows=25, train=load_table(name, "train"))
    stored = (episodes_dir() / f"{name}.eval.jsonl").read_bytes().splitlines(keepends=True)
    assert dumps(fresh) == b"".join(stored[:25])


def test_eval_tables_use_unseen_templates_and_distinct_eval_questions():
    for name in SUITES:
        table = load_table(name, "eval")
        assert len({e.question_id for e in table}) == len(table)
        assert all(e.template_id.startswith("unseen-") for e in table)
        assert all(e.split == "eval" for e in table)
        train = load_table(name, "train")
        assert all(e.template_id.startswith("seen-") for e in train)
        assert not {e.question_id for e in train} & {e.question_id for e in table}


def test_check_names_the_drifted_row_and_the_bad_checksum(tmp_path):
    for name in ("RSB-Math-4.eval.jsonl", "manifest.json"):
        shutil.copy(episodes_dir() / name, tmp_path / name)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["tables"] = {"RSB-Math-4.eval.jsonl": manifest["tables"]["RSB-Math-4.eval.jsonl"]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert check_tables(["RSB-Math-4"], tmp_path) == ["RSB-Math-4.train.jsonl: not in the manifest"]
    lines = (tmp_path / "RSB-Math-4.eval.jsonl").read_text().splitlines()
    row = json.loads(lines[6])
    row["layout"]["block_a"][0] += 0.01
    row["instruction"] = row["instruction"].replace("gray", "grey")
    lines[6] = json.dumps(row, ensure_ascii=False)
    (tmp_path / "RSB-Math-4.eval.jsonl").write_text("\n".join(lines) + "\n")
    problems = check_tables(["RSB-Math-4"], tmp_path)
    assert problems[1].startswith("RSB-Math-4.eval.jsonl: sha256 ")
    assert problems[2] == (
        "RSB-Math-4.eval.jsonl:7: RSB-Math-4 eval row 6 drifted in layout, instruction"
    )


@pytest.mark.slow
def test_full_rebuild_is_byte_identical(tmp_path):
    from rsb_mj.episodes.table import build_all

    build_all(out_dir=tmp_path)
    for path in sorted(episodes_dir().glob("*.json*")):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_check_reports_template_lint_findings(monkeypatch, tmp_path):
    import rsb_mj.episodes.templates as templates

    for path in templates.templates_dir().glob("*.txt"):
        (tmp_path / path.name).write_text(path.read_text())
    with (tmp_path / "unseen_10.txt").open("a") as handle:
        handle.write("{Q} {OPTIONS} {ANSWER}\n")
    monkeypatch.setattr(templates, "templates_dir", lambda: tmp_path)
    from rsb_mj.episodes.table import lint_templates

    (finding,) = lint_templates()
    assert finding.startswith(f"{tmp_path / 'unseen_10.txt'}:8:15: RSB431")


def test_a_level_is_not_balanced_on_its_own():
    with pytest.raises(
        EpisodeError, match=r"RSB-Math-4-L1 is level L1 of RSB-Math-4: its table is derived"
    ):
        build_table("RSB-Math-4-L1", "eval", rows=1)
