"""The fast reader gives exactly Lark's AST (every span included) or hands the text to Lark."""

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from rsb_mj.lang.fastparse import Fallback, fast_parse
from rsb_mj.lang.parser import grammar
from rsb_mj.resources import tasks_dir

from .lang_samples import BASE, LIBERO
from .test_property import edited

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = [
    *(
        p
        for folder in ("bddl_corpus", "bddl_suites", "lang_fmt")
        for p in sorted((DATA / folder).rglob("*.bddl"))
    ),
    *sorted(tasks_dir().glob("*.bddl")),
]


def deep(node):
    """A node as nested tuples of *all* its fields, spans included (``path`` aside)."""
    if dataclasses.is_dataclass(node):
        fields = dataclasses.fields(node)
        return (
            type(node).__name__,
            tuple((f.name, deep(getattr(node, f.name))) for f in fields if f.name != "path"),
        )
    if isinstance(node, tuple | list):
        return tuple(deep(x) for x in node)
    return node


def lark_or_none(text):
    try:
        return grammar().parse(text)
    except Exception:
        return None


def _same_as_lark(paths):
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert deep(fast_parse(text)) == deep(grammar().parse(text)), path


def test_real_files_take_the_fast_road_with_the_same_ast():
    """The sample corpus, the shipped tasks and every fifth file of the full suites."""
    suites = [p for p in FILES if "bddl_suites" in p.parts]
    _same_as_lark([p for p in FILES if "bddl_suites" not in p.parts] + suites[::5])


@pytest.mark.slow
def test_every_real_file_takes_the_fast_road_with_the_same_ast():
    assert len(FILES) > 360
    _same_as_lark(FILES)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_random_edits_are_read_as_lark_reads_them_or_handed_over(text):
    expected = lark_or_none(text)
    try:
        got = fast_parse(text)
    except Fallback:
        return
    assert expected is not None, "the fast reader accepted what Lark rejects"
    assert deep(got) == deep(expected)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("(On bowl_1 main_table_bowl_region)", '(On bowl_1 "main_table_bowl_region")'),
        ("(On bowl_1 main_table_bowl_region)", "(On and main_table_bowl_region)"),
        ("(:target main_table)", "(:goal main_table)"),
        ("(:domain robosuite)", "(:domain robosuite extra)"),
        ("(:ranges ((-0.1 -0.01 -0.08 0.01)))", "(:ranges ((-0.1 -0.01 -0.08)))"),
        ("(:ranges ((-0.1 -0.01 -0.08 0.01)))", "(:ranges ((-0.1 -0.01 -0.08 1e300)))"),
        ("plate_1 - plate", "plate_1 -plate"),
        ("(:language Put", "(:language (Put)"),
        ("(:language Put", "(:language \x0bPut"),  # Lark's WORD stops at any whitespace
        ("(On bowl_1 main_table_bowl_region)", "(On bowl_1\x0bmain_table_bowl_region)"),
    ],
)
def test_unusual_text_goes_to_lark(old, new):
    assert old in LIBERO
    with pytest.raises(Fallback):
        fast_parse(LIBERO.replace(old, new, 1))
    with pytest.raises(Fallback):
        fast_parse(LIBERO + "(extra)")


def test_a_clean_file_is_linted_without_importing_lark(tmp_path):
    path = tmp_path / "t.bddl"
    path.write_text(BASE, encoding="utf-8")
    code = (
        "import sys; from rsb_mj.lang import lint_file; "
        f"assert lint_file({str(path)!r})[1] == []; print('lark' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout == "False\n"


def _lint_broken(tmp_path, env):
    path = tmp_path / "broken.bddl"
    path.write_text(BASE.replace("(:choices 4)", "(:choices four)"), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "rsb_mj", "lint", "--no-cache", str(path)],  # Lark runs each time
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


def test_the_lalr_tables_are_cached_under_rsb_mj_cache(tmp_path):
    cache = tmp_path / "cache"
    first = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
    assert first.returncode == 1 and "RSB102 unexpected-token" in first.stdout
    (tables,) = (cache / "lang").glob("rsb-lalr-*.pickle")
    stamp = tables.stat().st_mtime_ns
    second = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
    assert second.stdout == first.stdout and second.stderr == ""
    assert tables.stat().st_mtime_ns == stamp  # read, not rebuilt
    tables.write_bytes(b"damaged")
    third = _lint_broken(tmp_path, {"RSB_MJ_CACHE": str(cache)})
    assert third.stdout == first.stdout and third.stderr == ""
    assert tables.read_bytes() != b"damaged"  # rebuilt and rewritten


def test_an_unwritable_home_falls_back_to_building_in_memory(tmp_path):
    home = tmp_path / "home-is-a-file"
    home.write_text("", encoding="utf-8")  # ~/.cache cannot be created, even as root
    env = {"HOME": str(home), "RSB_MJ_CACHE": ""}
    result = _lint_broken(tmp_path, env)
    assert result.returncode == 1
    assert "RSB102 unexpected-token" in result.stdout
    assert result.stderr == ""
