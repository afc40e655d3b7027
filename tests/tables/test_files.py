"""Frozen table files: the shipped manifest, reading rows, a listed table against its entry."""

import json

import pytest

from rsb_mj.errors import EpisodeError
from rsb_mj.splits import EVAL_ROWS, TRAIN_ROWS
from rsb_mj.suites import A2A_SUITES, ALL_SUITES
from rsb_mj.tables.files import (
    episodes_dir,
    read_listed_table,
    read_manifest,
    read_table,
    sha256,
)


def test_manifest_lists_all_tables_with_their_sizes():
    manifest = read_manifest()
    goal = [n for n, e in manifest.items() if e.get("family") == "goal"]  # tables/layouts.py
    assert sorted(goal) == [f"{s}.{split}.jsonl" for s in ("libero-layouts", "libero", "vla-arena")
                            for split in ("eval", "train")]  # fmt: skip
    assert len(manifest) - len(goal) == 2 * (len(ALL_SUITES) + len(A2A_SUITES)) == 60
    for name, suite in ALL_SUITES.items():
        assert manifest[f"{name}.eval.jsonl"]["rows"] == EVAL_ROWS == 500
        assert manifest[f"{name}.train.jsonl"]["rows"] == TRAIN_ROWS
        data = (episodes_dir() / f"{name}.eval.jsonl").read_bytes()
        assert sha256(data) == manifest[f"{name}.eval.jsonl"]["sha256"]
        assert suite.choices == len(json.loads(data.splitlines()[0])["options"])


def test_read_table_names_the_bad_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"suite": "x"}\n')
    with pytest.raises(EpisodeError, match=r"t.jsonl:1: episode row: missing fields"):
        read_table(path)
    with pytest.raises(EpisodeError, match="not found; build it with: rsb episodes build"):
        read_table(tmp_path / "none.jsonl")


def test_a_listed_table_is_read_against_its_manifest_entry(tmp_path):
    name = "RSB-Math-4.eval.jsonl"
    entry = read_manifest()[name]
    shipped = (episodes_dir() / name).read_bytes()
    assert read_listed_table(tmp_path, name, entry) == ([f"{name}: file missing"], None)
    (tmp_path / name).write_bytes(shipped)
    problems, rows = read_listed_table(tmp_path, name, entry)
    assert problems == [] and len(rows) == entry["rows"] == 500
    (tmp_path / name).write_bytes(b"".join(shipped.splitlines(keepends=True)[:3]))
    problems, rows = read_listed_table(tmp_path, name, entry)
    digest = sha256((tmp_path / name).read_bytes())
    assert problems == [
        f"{name}: sha256 {digest[:12]} differs from manifest {entry['sha256'][:12]}",
        f"{name}: 3 rows, manifest says 500",
    ]
    assert len(rows) == 3
