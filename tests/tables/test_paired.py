"""Paired (Act2Answer) tables: pairs of arrangements, balance, the one manifest, byte-for-byte
check, rows made by the sampler with pinned semantics."""

from collections import Counter

import pytest

from rsb_mj.episodes.sources import get_source
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.layout import Pose2D
from rsb_mj.suites import A2A_SUITES, get_suite
from rsb_mj.tables.families import family_of_rows, load_table
from rsb_mj.tables.files import MANIFEST, episodes_dir, load_suite_problem, read_manifest
from rsb_mj.tables.paired import (
    arrangement_layout,
    build_paired,
    check_paired,
    paired_row,
)
from rsb_mj.tables.paired_audit import audit_paired, correct_on_left


def test_every_suite_ships_eval_and_train_tables_of_1720_items_or_more_in_the_one_manifest():
    manifest = read_manifest()
    assert not (episodes_dir() / "a2a_manifest.json").exists()
    items = 0
    for suite in A2A_SUITES:
        for split, rows in (("eval", 300), ("train", None)):
            entry = manifest[f"{suite}.{split}.jsonl"]
            assert set(entry) == {"suite", "split", "rows", "sha256", "dropped"}
            if rows is not None:
                assert entry["rows"] == rows, suite
            items += entry["rows"] // (2 if split == "eval" else 1)
    assert items >= 1720
    assert set(manifest["RSB-Math-4.eval.jsonl"]) == {"suite", "split", "rows", "sha256"}


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


def test_a_row_is_the_samplers_episode_with_pinned_item_answer_and_arrangement():
    suite = get_suite("A2A-Physical")
    problem = load_suite_problem(suite)
    item = get_source("a2a_physical").pool("eval")[0]
    row = paired_row(
        problem,
        item,
        suite=suite.name,
        split="eval",
        index=0,
        seed=2423516609,
        correct="A",
        arrangement="original",
    )
    assert row == load_table(suite.name, "eval")[0]
    assert row.options == ("Jupiter", "Venus") and row.mapping == {"A": "plate_a", "B": "plate_b"}
    assert row.colors == {"plate_a": "yellow", "plate_b": "yellow"}
    assert row.template_id == "a2a-unseen-text-02"
    assert list(row.extra) == ["source", "category", "item", "layout", "plates"]
    assert row.extra["plates"] == {"A": "text:Jupiter", "B": "text:Venus"}
    swapped = paired_row(
        problem,
        item,
        suite=suite.name,
        split="train",
        index=0,
        seed=1,
        correct="B",
        arrangement="swapped",
    )
    assert swapped.options == ("Venus", "Jupiter") and swapped.template_id.startswith("a2a-seen-")
    assert swapped.layout == {
        "plate_a": Pose2D(0.11, 0.12, 0.0),
        "plate_b": Pose2D(-0.11, 0.12, 0.0),
    }
    with pytest.raises(
        EpisodeError, match=r"unknown arrangement 'mirrored'; valid choices: original, swapped"
    ):
        arrangement_layout(problem, "mirrored")


@pytest.mark.parametrize("suite", list(A2A_SUITES))
def test_audit_passes_every_table(suite):
    rows = load_table(suite, "eval")
    assert family_of_rows(rows).name == "a2a"
    report = audit_paired(rows, f"{suite} eval", None, load_table(suite, "train"))
    assert report.passed, report.format()
    assert {c.name for c in report.checks} >= {"side", "side:original", "letter", "pairs", "split"}


def test_check_passes_on_the_shipped_tables_and_names_a_damaged_one(tmp_path):
    assert check_paired([get_suite("A2A-Time")]) == []
    (tmp_path / MANIFEST).write_text((episodes_dir() / MANIFEST).read_text())
    for split in ("eval", "train"):
        src = episodes_dir() / f"A2A-Time.{split}.jsonl"
        (tmp_path / src.name).write_bytes(src.read_bytes())
    path = tmp_path / "A2A-Time.eval.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([*lines[:3], lines[4], lines[3], *lines[5:]]))
    problems = check_paired([get_suite("A2A-Time")], tmp_path)
    assert problems[0].startswith("A2A-Time.eval.jsonl: sha256 ")
    assert problems[1].startswith("A2A-Time.eval.jsonl:4: row 3 differs from its item's row in ")


def test_build_without_reader_drops_nothing_and_is_byte_stable(tmp_path):
    first = build_paired(["A2A-Counting"], ("train",), tmp_path, reader=None, log=print)
    again = build_paired(["A2A-Counting"], ("train",), tmp_path, reader=None, log=print)
    assert first[0].rows == 100 and first[0].dropped == {}
    assert (first[0].changed, again[0].changed) == (True, False)
    assert first[0].sha256 == again[0].sha256
    assert read_manifest(tmp_path)["A2A-Counting.train.jsonl"]["dropped"] == {}
    assert check_paired([get_suite("A2A-Counting")], tmp_path, complete=False) == []


def test_a_reader_drops_items_and_the_manifest_replays_it(tmp_path):
    pool = get_source("a2a_shape").pool("train")
    dropped = {pool[1].qid, pool[4].qid}
    logged = []
    (result,) = build_paired(
        ["A2A-Shape"],
        ("train",),
        tmp_path,
        reader=lambda problem, item: "unreadable" if item.qid in dropped else None,
        log=logged.append,
    )
    assert result.dropped == dict.fromkeys((pool[1].qid, pool[4].qid), "unreadable")
    assert logged == [f"A2A-Shape train: dropped {q}: unreadable" for q in result.dropped]
    assert result.rows == 100
    assert check_paired([get_suite("A2A-Shape")], tmp_path, complete=False) == []


def test_a_question_that_ends_mid_sentence_reads_as_a_sentence():
    """Issue 24, item 4 (the tables were rebuilt for it): "... has order pick up the cube"
    became "... has order ___. pick up the cube"."""
    row = load_table("A2A-Quantitative", "eval")[0]
    assert row.question == "The element (4, 2) of Z_12 x Z_8 has order ___."
    assert row.instruction == (
        "The element (4, 2) of Z_12 x Z_8 has order ___. pick up the cube and set it on the "
        "plate that answers this."
    )
