"""Frozen RSB tables: row seeds, prefix reproduction, byte-identical rebuild, levels refused."""

import hashlib

import pytest

from rsb_mj.errors import EpisodeError
from rsb_mj.suites import SUITES
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import dumps, episodes_dir
from rsb_mj.tables.rsb import build_table, row_seed


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


@pytest.mark.slow
def test_full_rebuild_is_byte_identical(tmp_path):
    from rsb_mj.tables.rsb import build_all

    """Every RSB table (levels included) rebuilt into an empty folder equals the shipped file,
    and its manifest entry the shipped entry (the A2A tables are the paired builder's:
    tests/tables/test_paired.py)."""
    from rsb_mj.suites import ALL_SUITES
    from rsb_mj.tables.files import read_manifest

    results = build_all(out_dir=tmp_path)
    names = sorted(r.path.name for r in results)
    assert len(names) == 2 * len(ALL_SUITES)
    for name in names:
        assert (tmp_path / name).read_bytes() == (episodes_dir() / name).read_bytes(), name
    shipped, built = read_manifest(), read_manifest(tmp_path)
    assert sorted(built) == names
    assert {n: shipped[n] for n in names} == built


def test_a_level_is_not_balanced_on_its_own():
    with pytest.raises(
        EpisodeError, match=r"RSB-Math-4-L1 is level L1 of RSB-Math-4: its table is derived"
    ):
        build_table("RSB-Math-4-L1", "eval", rows=1)
