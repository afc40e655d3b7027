"""Frozen Act2Answer tables: pairs of layouts, balance, the manifest, byte-for-byte check."""

from collections import Counter

import pytest

from rsb_mj.a2a.audit import audit_a2a, correct_on_left
from rsb_mj.a2a.table import (
    A2A_MANIFEST,
    build_a2a,
    check_a2a,
    read_a2a_manifest,
)
from rsb_mj.episodes.table import episodes_dir, load_table
from rsb_mj.suites import A2A_SUITES


def test_every_suite_ships_eval_and_train_tables_of_1720_items_or_more():
    manifest = read_a2a_manifest()
    items = 0
    for suite in A2A_SUITES:
        for split, rows in (("eval", 300), ("train", None)):
            entry = manifest[f"{suite}.{split}.jsonl"]
            if rows is not None:
                assert entry["rows"] == rows, suite
            items += entry["rows"] // (2 if split == "eval" else 1)
    assert items >= 1720


@pytest.mark.parametrize("suite", ["A2A-Color", "A2A-Cultural"])
def test_eval_rows_come_in_layout_pairs_with_the_answer_on_each_side(suite):
    rows = load_table(suite, "eval")
    assert len(rows) == 300
    for a, b in zip(rows[::2], rows[1::2], strict=True):
        assert a.question_id == b.question_id and a.options == b.options
        assert (a.extra["layout"], b.extra["layout"]) == ("original", "swapped")
        assert correct_on_left(a) != correct_on_left(b)
    assert Counter(e.correct for e in rows) == {"A": 150, "B": 150}
    assert sum(map(correct_on_left, rows)) == 150
    train = load_table(suite, "train")
    assert not {e.question_id for e in rows} & {e.question_id for e in train}


@pytest.mark.parametrize("suite", list(A2A_SUITES))
def test_audit_passes_every_table(suite):
    report = audit_a2a(load_table(suite, "eval"), f"{suite} eval", None, load_table(suite, "train"))
    assert report.passed, report.format()
    assert {c.name for c in report.checks} >= {"side", "side:original", "letter", "pairs", "split"}


def test_check_passes_on_the_shipped_tables_and_names_a_damaged_one(tmp_path):
    assert check_a2a(["A2A-Time"]) == []
    (tmp_path / A2A_MANIFEST).write_text((episodes_dir() / A2A_MANIFEST).read_text())
    for split in ("eval", "train"):
        src = episodes_dir() / f"A2A-Time.{split}.jsonl"
        (tmp_path / src.name).write_bytes(src.read_bytes())
    path = tmp_path / "A2A-Time.eval.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines[:3], lines[4], lines[3], *lines[5:]]))
    problems = check_a2a(["A2A-Time"], tmp_path)
    assert problems[0].startswith("A2A-Time.eval.jsonl: sha256 ")
    assert problems[1] == "A2A-Time.eval.jsonl: rows differ from the items, first at row 3"


def test_build_without_reader_drops_nothing_and_is_byte_stable(tmp_path):
    first = build_a2a(["A2A-Counting"], ("train",), tmp_path, reader=lambda p, i: None, log=print)
    again = build_a2a(["A2A-Counting"], ("train",), tmp_path, reader=lambda p, i: None, log=print)
    assert first[0].rows == 100 and first[0].dropped == {}
    assert (first[0].changed, again[0].changed) == (True, False)
    assert first[0].sha256 == again[0].sha256
