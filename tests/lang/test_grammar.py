"""The one parser (rsb_mj.lang.grammar): grammar/rsb.lark compiled by Lark, LALR tables kept in
Lark's cache under the user cache folder, a cache that cannot be used costing only time."""

from __future__ import annotations

import os
import subprocess
import sys

from rsb_mj.lang.grammar import OPTIONS, grammar, tables_path
from rsb_mj.resources import grammar_path

from .lang_samples import BASE


def _lint_broken(tmp_path, env):
    """``rsb lint --no-cache`` (still accepted) of a broken file, in a fresh process."""
    path = tmp_path / "broken.bddl"
    path.write_text(BASE.replace("(:choices 4)", "(:choices four)"), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "rsb_mj", "lint", "--no-cache", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


def test_the_parser_is_strict_lalr_with_the_contextual_lexer():
    parser = grammar()
    assert parser.options.parser == "lalr"
    assert parser.options.lexer == "contextual"
    assert parser.options.strict is True
    assert OPTIONS["keep_all_tokens"] is True  # spans run from '(' to ')'


def test_the_tables_path_names_the_grammar_and_the_options(tmp_path, monkeypatch):
    monkeypatch.setenv("RSB_MJ_CACHE", str(tmp_path))
    text = grammar_path().read_text(encoding="utf-8")
    path = tables_path(text)
    assert path.parent == tmp_path / "lang"
    assert path.name.startswith("rsb-lalr-") and path.suffix == ".cache"
    assert tables_path(text) == path
    assert tables_path(text + "\n// edited\n") != path  # a changed grammar never reads old tables


def test_the_lalr_tables_are_cached_under_rsb_mj_cache(tmp_path):
    cache = tmp_path / "cache"
    first = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
    assert first.returncode == 1 and "RSB102 unexpected-token" in first.stdout
    assert first.stderr == ""
    (tables,) = (cache / "lang").glob("rsb-lalr-*.cache")
    stamp = tables.stat().st_mtime_ns
    second = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
    assert second.stdout == first.stdout and second.stderr == ""
    assert tables.stat().st_mtime_ns == stamp  # read, not rebuilt
    for damage in (b"damaged", tables.read_bytes()[:100]):  # garbage, a half-written file
        tables.write_bytes(damage)
        again = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
        assert again.stdout == first.stdout and again.stderr == ""
        assert tables.read_bytes() != damage  # rebuilt and rewritten


def test_an_unwritable_home_falls_back_to_building_in_memory(tmp_path):
    home = tmp_path / "home-is-a-file"
    home.write_text("", encoding="utf-8")  # ~/.cache cannot be created, even as root
    result = _lint_broken(tmp_path, {"HOME": str(home), "RSB_MJ_CACHE": ""})
    assert result.returncode == 1
    assert "RSB102 unexpected-token" in result.stdout
    assert result.stderr == ""


def test_importing_the_parser_and_linter_loads_neither_lark_nor_numpy():
    code = (
        "import sys, rsb_mj.lang.parser, rsb_mj.lang.linter; "
        "print(sorted(m for m in ('lark', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout == "[]\n"
