"""Diagnostics over stdio are exactly ``rsb lint``'s findings for the same text: code, name,
severity, range, message and fix (``data`` is the ``--format json`` object), for task files,
a template file and a question bank's line; changes are debounced; quick fixes remove the
finding; hover on a finding shows its rule's ``--explain`` text."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from rsb_mj.lang.linter import lint_source
from rsb_mj.lang.rules.base import RULES

from .conftest import ROOT, TASKS, change_doc, open_doc, position_of, published, server_env

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: (file written, shipped source, text replaced, replacement).
BROKEN = [
    ("unknown_block.bddl", "rsb_math_4.bddl", "(:goal", "(:goall"),
    ("category.bddl", "rsb_math_4.bddl", "- letter_block", "- leter_block"),
    ("predicate.bddl", "rsb_general_4.bddl", "(On block_b", "(Onn block_b"),
    ("unclosed.bddl", "a2a_color.bddl", "(:yaw_range (0 0))))", "(:yaw_range (0 0)))"),
    (
        "parameter.bddl",
        "rsb_general_4.bddl",
        "(:source mmlu_pro)",
        "(:source (mmlu_pro (:topic biology)))",
    ),
    ("clean.bddl", "rsb_math_4_safety.bddl", "", ""),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The broken task files, a broken question bank beside a task, and a broken template
    file, written to a scratch folder."""
    root = tmp_path_factory.mktemp("lsp_diagnostics")
    out = {}
    for name, source, old, new in BROKEN:
        text = (TASKS / source).read_text(encoding="utf-8")
        assert old in text
        out[name] = root / name
        out[name].write_text(text.replace(old, new, 1), encoding="utf-8")
    shutil.copy(TASKS / "examples" / "geography_6.bddl", root / "geography_6.bddl")
    bank = (TASKS / "examples" / "geography.jsonl").read_text(encoding="utf-8").splitlines()
    bank[2] = bank[2].replace('"answer": "Ottawa"', '"answer": "Ottawa City"')
    (root / "geography.jsonl").write_text("\n".join(bank) + "\n", encoding="utf-8")
    out["geography_6.bddl"] = root / "geography_6.bddl"
    (root / "templates").mkdir()
    template = (TASKS / "templates" / "seen_4.txt").read_text(encoding="utf-8")
    out["seen_4.txt"] = root / "templates" / "seen_4.txt"
    out["seen_4.txt"].write_text(template + "Put {MAPE} in the zone: {Q\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def lint_json(files: dict[str, Path]) -> dict[str, list[dict]]:
    """``rsb lint --format json`` of every file (one run), by the task or template file."""
    run = subprocess.run(
        [sys.executable, "-m", "rsb_mj", "lint", "--format", "json"]
        + [str(p) for p in files.values()],
        capture_output=True,
        text=True,
        env=server_env(),
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    by_path: dict[str, list[dict]] = {str(p): [] for p in files.values()}
    bank = str(files["geography_6.bddl"].parent / "geography.jsonl")
    for entry in json.loads(run.stdout):
        owner = str(files["geography_6.bddl"]) if entry["path"] == bank else entry["path"]
        by_path[owner].append(entry)
    return by_path


def _range(entry: dict) -> types.Range:
    """The LSP range of a JSON finding (ASCII files: columns are UTF-16 units)."""
    return types.Range(
        types.Position(entry["line"] - 1, entry["column"] - 1),
        types.Position(entry["end_line"] - 1, entry["end_column"] - 1),
    )


@pytest.mark.parametrize("name", [b[0] for b in BROKEN] + ["geography_6.bddl", "seen_4.txt"])
async def test_diagnostics_are_rsb_lint_findings(client, files, lint_json, name):
    path = files[name]
    uri = open_doc(client, path)
    shown = await published(client, uri, 1)
    expected = lint_json[str(path)]
    assert [d.data for d in shown] == expected
    if name == "clean.bddl":
        assert shown == []
        return
    assert expected, "each broken file has findings"
    for d, entry in zip(shown, expected, strict=True):
        assert d.code == entry["code"]
        assert d.source == "rsb"
        assert d.severity == {"error": 1, "warning": 2}[entry["severity"]]
        fix = f" (fix: {entry['fix']})" if entry["fix"] else ""
        if entry["path"] == str(path):
            assert d.range == _range(entry)
            assert d.message == f"{entry['name']}: {entry['message']}{fix}"
        else:  # a line of the question bank: shown at the task's (:file ...) reference
            where = f"{entry['path']}:{entry['line']}:{entry['column']}"
            assert d.message == f"{entry['name']}: {where}: {entry['message']}{fix}"
            text = path.read_text(encoding="utf-8")
            assert d.range.start == position_of(text, '(:source (:file "geography.jsonl"))')
            assert d.related_information[0].location.uri == Path(entry["path"]).as_uri()
            assert d.related_information[0].location.range.start.line == entry["line"] - 1


async def test_expected_codes(files, lint_json):
    """The fixtures exercise what they claim (a guard on the cases themselves)."""
    codes = {name: [e["code"] for e in lint_json[str(p)]] for name, p in files.items()}
    assert codes["unknown_block.bddl"] == ["RSB401", "RSB201"]
    assert codes["category.bddl"] == ["RSB203"] * 4
    assert "RSB204" in codes["predicate.bddl"]
    assert codes["unclosed.bddl"] == ["RSB103"]
    assert codes["parameter.bddl"] == ["RSB451"]
    assert codes["geography_6.bddl"] == ["RSB453"]
    assert codes["seen_4.txt"] == ["RSB433", "RSB434", "RSB432"]


async def test_changes_are_debounced_and_follow_the_text(client, tmp_path):
    path = tmp_path / "typing.bddl"
    text = (TASKS / "rsb_math_4.bddl").read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    uri = open_doc(client, path)
    assert await published(client, uri, 1) == []
    before = len(client.published)
    broken = text.replace("(:goal", "(:goall")
    for version, typed in enumerate(["(:goal", "(:goa", "(:go", "(:goal", "(:goall"], start=2):
        change_doc(client, uri, text.replace("(:goal", typed), version)
    shown = await published(client, uri, 6)
    assert [d.code for d in shown] == [d.code for d in lint_source(broken, path)[1]]
    mine = [p for p in client.published[before:] if p.uri == uri]
    # Five changes sent at once: the 30 ms wait after each lets the burst be linted once (on
    # a loaded machine a change may arrive after the wait: a stale result is never shown).
    assert [p.version for p in mine][-1:] == [6]
    assert len(mine) <= 2
    change_doc(client, uri, text, 7)
    assert await published(client, uri, 7) == []


async def test_quick_fix_removes_the_finding(client, files):
    path = files["unknown_block.bddl"]
    uri = open_doc(client, path, version=1)
    shown = await published(client, uri, 1)
    target = next(d for d in shown if d.code == "RSB201")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), target.range, types.CodeActionContext([target])
        )
    )
    assert [a.title for a in actions] == ["RSB201 unknown-block: Replace ':goall' with ':goal'"]
    (edit,) = actions[0].edit.changes[uri]
    text = path.read_text(encoding="utf-8")
    assert edit.range.start == position_of(text, ":goall")
    assert edit.range.end == position_of(text, ":goall", len(":goall"))
    assert edit.new_text == ":goal"
    assert actions[0].kind == types.CodeActionKind.QuickFix
    fixed = text.replace(":goall", ":goal", 1)
    assert lint_source(fixed, path)[1] == []


async def test_advice_is_no_quick_fix(client, files):
    """RSB103's fix is advice ("add the missing ')'"), not text: no action is offered."""
    path = files["unclosed.bddl"]
    uri = open_doc(client, path, version=1)
    shown = await published(client, uri, 1)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), shown[0].range, types.CodeActionContext(shown)
        )
    )
    assert list(actions) == []


async def test_hover_on_a_finding_explains_its_rule(client, files):
    path = files["category.bddl"]
    uri = open_doc(client, path, version=1)
    await published(client, uri, 1)
    text = path.read_text(encoding="utf-8")
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, "block_a", 2))
    )
    value = hover.contents.value
    assert value.startswith("**RSB203 unknown-category** (error): object 'block_a' has unknown")
    assert RULES["RSB203"].explain().rstrip("\n") in value
