"""A private folder's manifest (rsb_mj.tables.private.manifest): what it holds (never the
secret), and the manifest check before a private table's rows are read."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil

import pytest

from rsb_mj.errors import EpisodeError
from rsb_mj.tables.files import read_table
from rsb_mj.tables.private.manifest import (
    BUILDER,
    load_private,
    manifest_bytes,
    read_private,
    wanted_files,
)
from rsb_mj.tables.private.secret import VERSION, Secret

from .private_draws import ROWS, SECRET


def test_the_manifest_holds_the_secret_hash_and_version_never_the_secret(drawn):
    body = json.loads((drawn / "manifest.json").read_text())
    assert body["private"] == {
        "builder": "rsb_mj.episodes.private",
        "version": 1,
        "secret_sha256": Secret(SECRET).id,
    }
    math = body["tables"]["RSB-Math-4.eval.jsonl"]
    assert {k: math[k] for k in ("suite", "task", "split", "rows", "source", "reserve")} == {
        "suite": "RSB-Math-4",
        "task": "rsb_math_4.bddl",
        "split": "eval",
        "rows": 50,
        "source": "arithmetic",
        "reserve": None,
    }
    assert body["tables"]["A2A-Color.eval.jsonl"]["reserve"] == 113
    for path in drawn.iterdir():
        assert SECRET not in path.read_bytes()
        assert hmac.new(SECRET, b"", hashlib.sha256).hexdigest().encode() not in path.read_bytes()


def test_the_manifest_text_is_what_manifest_bytes_writes_and_read_private_reads(drawn):
    manifest = read_private(drawn)
    text = (drawn / "manifest.json").read_text()
    assert manifest_bytes(Secret(SECRET), manifest.tables) == text
    assert (BUILDER, manifest.version, manifest.secret_id) == (
        "rsb_mj.episodes.private",
        VERSION,
        Secret(SECRET).id,
    )
    assert manifest.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert wanted_files(manifest, None) == ["A2A-Color.eval.jsonl", "RSB-Math-4.eval.jsonl"]
    assert wanted_files(manifest, ["RSB-Math-4"]) == ["RSB-Math-4.eval.jsonl"]
    unlisted = (
        f"{drawn / 'manifest.json'}: no private table RSB-Math-10.eval.jsonl; it holds "
        "A2A-Color.eval.jsonl, RSB-Math-4.eval.jsonl (draw it with: rsb episodes build ... "
        f"--private --secret-file FILE -o {drawn})"
    )
    with pytest.raises(EpisodeError) as err:
        wanted_files(manifest, ["RSB-Math-10"])
    assert str(err.value) == unlisted
    with pytest.raises(EpisodeError) as err:
        load_private(drawn, "RSB-Math-10.eval.jsonl")
    assert str(err.value) == unlisted


def test_a_missing_or_foreign_manifest_is_refused(tmp_path):
    with pytest.raises(EpisodeError) as err:
        read_private(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'manifest.json'}: no private manifest; draw tables with: rsb episodes "
        f"build SUITE --private --secret-file FILE -o {tmp_path}"
    )
    (tmp_path / "manifest.json").write_text('{"format": 1, "tables": {}}\n')  # shipped kind
    with pytest.raises(EpisodeError) as err:
        read_private(tmp_path)
    assert str(err.value) == (
        f"{tmp_path / 'manifest.json'}: not a private manifest (expected {{'format', "
        "'private': {'builder', 'version', 'secret_sha256'}, 'tables'}); a folder of shipped "
        "tables is checked with rsb episodes check --dir"
    )


def test_a_table_is_loaded_only_while_its_bytes_are_the_manifests(drawn, tmp_path):
    file = "RSB-Math-4.eval.jsonl"
    manifest, rows = load_private(drawn, file)
    assert manifest == read_private(drawn) and rows == read_table(drawn / file)
    assert len(rows) == ROWS
    copy = tmp_path / "copy"
    shutil.copytree(drawn, copy)
    path = copy / file
    path.write_bytes(path.read_bytes().replace(b'"split": "eval"', b'"split":  "eval"', 1))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(EpisodeError) as err:
        load_private(copy, file)
    assert str(err.value) == (
        f"{path}: sha256 {digest[:12]} is not the manifest's "
        f"{manifest.tables[file]['sha256'][:12]}: the table was changed by hand, so its rows "
        "would score the wrong episodes; restore it, or draw it again with its secret: rsb "
        f"episodes build RSB-Math-4 --private --secret-file FILE -o {copy}"
    )
    path.unlink()
    with pytest.raises(EpisodeError) as err:
        load_private(copy, file)
    assert str(err.value) == f"{path}: private table missing (the manifest lists it)"
