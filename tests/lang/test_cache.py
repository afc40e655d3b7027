"""The lint result cache (rsb_mj.lang.cache): cached runs print the same bytes as fresh ones,
skip the parser and the rules, and never serve a stale result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.lang.cache import LintCache, fingerprint

from .lang_samples import BASE

SUITES = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"


@pytest.fixture
def cache_root(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("RSB_MJ_CACHE", str(root))
    return root


@pytest.mark.parametrize("form", ["text", "json"])
def test_cached_output_is_the_fresh_output_byte_for_byte(cache_root, capsys, form):
    args = ["lint", str(SUITES), "--format", form]
    assert main([*args, "--no-cache"]) == 1
    fresh = capsys.readouterr().out
    assert not (cache_root / "lint").exists()  # --no-cache writes nothing
    assert main(args) == 1
    assert capsys.readouterr().out == fresh
    stored = json.loads((cache_root / "lint" / f"{fingerprint()}.json").read_text())
    assert len(stored) == 300
    assert main(args) == 1
    assert capsys.readouterr().out == fresh


def test_a_cached_run_imports_neither_parser_nor_rules(cache_root, tmp_path):
    task = tmp_path / "t.bddl"
    task.write_text(BASE, encoding="utf-8")
    probe = (
        "import sys; from rsb_mj.cli import main; code = main(['lint', sys.argv[1]]); "
        "print(code, 'rsb_mj.lang.linter' in sys.modules, 'rsb_mj.lang.parser' in sys.modules)"
    )
    env = {**os.environ, "RSB_MJ_CACHE": str(cache_root)}
    run = [sys.executable, "-c", probe, str(task)]
    first = subprocess.run(run, capture_output=True, text=True, env=env, check=True)
    assert first.stdout.splitlines()[-1] == "0 True True"
    second = subprocess.run(run, capture_output=True, text=True, env=env, check=True)
    assert second.stdout.splitlines() == ["1 file checked: 0 errors, 0 warnings", "0 False False"]


def test_an_edited_file_is_linted_again(cache_root, tmp_path, capsys):
    task = tmp_path / "t.bddl"
    task.write_text(BASE, encoding="utf-8")
    assert main(["lint", str(task)]) == 0
    capsys.readouterr()
    task.write_text(BASE.replace("(:choices 4)", "(:choices four)"), encoding="utf-8")
    assert main(["lint", str(task)]) == 1
    assert "RSB102 unexpected-token" in capsys.readouterr().out
    task.write_text(BASE, encoding="utf-8")
    assert main(["lint", str(task)]) == 0


def test_files_naming_other_files_and_a_corrupt_cache(cache_root, tmp_path, capsys):
    quoted = tmp_path / "q.bddl"
    quoted.write_text(BASE.replace("; a valid", '; "a" valid'), encoding="utf-8")
    assert main(["lint", str(quoted)]) == 0
    assert not (cache_root / "lint").exists()  # nothing cacheable: nothing written
    path = cache_root / "lint" / f"{fingerprint()}.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    plain = tmp_path / "p.bddl"
    plain.write_text(BASE, encoding="utf-8")
    assert main(["lint", str(plain)]) == 0
    assert list(json.loads(path.read_text())) == [LintCache.key(plain, None, BASE)]
    capsys.readouterr()


def test_the_fingerprint_covers_the_linter_and_the_key_the_target(tmp_path):
    assert len(fingerprint()) == 32 and fingerprint() == fingerprint()
    assert LintCache.key(tmp_path, None, "x") != LintCache.key(tmp_path, "rsb", "x")
    assert LintCache.key(tmp_path, None, "x") != LintCache.key(tmp_path, None, "y")
