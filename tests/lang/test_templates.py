"""Instruction template files: placeholders, leakage and the shipped template files."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.errors import TaskError
from rsb_mj.lang import lint_file, lint_template
from rsb_mj.lang.templates import choices_from_name
from rsb_mj.resources import tasks_dir

GOOD_4 = "{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}. place the correct block in the gray zone."
GOOD_10 = "{Q} options: {OPTIONS}. place the correct block in the gray zone."


def _one(text, choices):
    (d,) = lint_template(text, "t.txt", choices)
    return d.code, (d.span.line, d.span.column), d.message


def test_good_templates_are_clean_and_comments_are_skipped():
    assert lint_template(f"# comment\n\n{GOOD_4}\n{GOOD_4} {{OPTIONS}}\n", "t.txt", 4) == []
    assert lint_template(GOOD_10, "t.txt", 10) == []


@pytest.mark.parametrize(
    ("text", "choices", "expected"),
    [
        (
            GOOD_4.replace("{Q}", "{Q} {QUESTON}"),
            4,
            (
                "RSB430",
                (1, 5),
                "unknown placeholder {QUESTON}; valid choices for 4 options: {Q}, {MAPA}, "
                "{MAPB}, {MAPC}, {MAPD}, {OPTIONS}",
            ),
        ),
        (
            GOOD_10 + " (hint: {ANSWER})",
            10,
            (
                "RSB431",
                (1, 74),
                "placeholder {ANSWER} could put the answer into the instruction; the answer "
                "must stay in episode metadata",
            ),
        ),
        (
            GOOD_4.replace(" {MAPD}", ""),
            4,
            ("RSB432", (1, 1), "template lacks {MAPD}, which every 4-choice template needs"),
        ),
        (
            GOOD_10 + " {MAPA}",
            10,
            (
                "RSB433",
                (1, 67),
                "placeholder {MAPA} is not a mapping of 10 choices; 10-choice templates list "
                "the options with {OPTIONS}",
            ),
        ),
        (
            GOOD_10.replace("{OPTIONS}.", "{OPTIONS}. {"),
            10,
            ("RSB434", (1, 25), "unbalanced '{': a placeholder is written {NAME}"),
        ),
    ],
    ids=["unknown", "leak", "missing", "wrong-count", "brace"],
)
def test_each_template_rule(text, choices, expected):
    assert _one(text, choices) == expected


def test_did_you_mean_for_close_placeholders():
    (d,) = lint_template(GOOD_10.replace("{OPTIONS}", "{OPTIONS} {OPTION}"), "t.txt", 10)
    assert d.fix == "{OPTIONS}"
    assert "did you mean {OPTIONS}?" in d.message


def test_line_numbers_count_comments_and_blank_lines():
    text = f"# one\n\n{GOOD_4}\n{GOOD_4.replace('{Q}', '{X}')}\n"
    codes = [(d.code, d.span.line) for d in lint_template(text, "t.txt", 4)]
    assert codes == [("RSB430", 4), ("RSB432", 4)]


def test_choice_count_comes_from_the_file_name():
    assert choices_from_name("seen_4.txt") == 4
    assert choices_from_name("unseen_10.txt") == 10
    assert choices_from_name("seen_6.txt") == 6
    assert choices_from_name("seen_40.txt") is None
    assert choices_from_name("seen_1.txt") is None
    with pytest.raises(TaskError, match=r"^t\.txt: 11 choices; valid choices: 2\.\.10$"):
        lint_template(GOOD_4, "t.txt", 11)


def test_lint_file_routes_template_files(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "seen_10.txt").write_text(GOOD_10 + " {CORRECT}\n", encoding="utf-8")
    _, diagnostics = lint_file(folder / "seen_10.txt")
    assert [d.code for d in diagnostics] == ["RSB431"]
    (folder / "seen.txt").write_text(GOOD_10, encoding="utf-8")
    _, diagnostics = lint_file(folder / "seen.txt")
    assert [(d.code, d.name) for d in diagnostics] == [("RSB435", "template-choice-count-unknown")]
    assert diagnostics[0].message.startswith("cannot tell the choice count of a template file")


def test_shipped_template_files_are_clean():
    files = sorted((tasks_dir() / "templates").glob("*.txt"))
    answers = [f"a2a-{s}-{f}.txt" for s in ("seen", "unseen") for f in ("picture", "text")]
    assert sorted(p.name for p in files) == sorted(
        [*(f"{s}_{n}.txt" for s in ("seen", "unseen") for n in range(2, 11)), *answers]
    )
    for path in files:
        assert lint_file(path)[1] == [], path


@pytest.mark.parametrize(
    ("choices", "text", "expected"),
    [
        (6, "{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}, {MAPE}. go", [("RSB432", "{MAPF},")]),
        (6, "{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}, {MAPE}, {MAPF}. {OPTIONS} go", []),
        (3, "{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}. go", [("RSB433", "{MAPD}")]),
        (9, "{Q} {OPTIONS} {MAPA}", [("RSB433", "{MAPA}")]),
        (2, "{Q} {MAPA} and {MAPB}. go", []),
    ],
)
def test_placeholders_follow_the_choice_count(choices, text, expected):
    found = [
        (d.code, d.message.split()[2 if d.code == "RSB432" else 1])
        for d in lint_template(text, "t.txt", choices)
    ]
    assert found == expected


def test_generated_template_files_are_up_to_date():
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(repo / "tools" / "make_templates.py"), "--check"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_answer_templates_take_only_the_question():
    """``a2a-{set}-{form}.txt`` (candidates that show their answers) are binary and take
    {Q} alone: a mapping or an option list would describe options nobody needs to map."""
    from rsb_mj.lang.templates import choices_from_name

    assert choices_from_name("a2a-unseen-text.txt") == 2
    clean = lint_template("put the cube on {Q}.\n", "a2a-seen-picture.txt", 2)
    assert clean == []
    (finding,) = lint_template("{Q} {MAPA} {MAPB}\n", "a2a-seen-text.txt", 2)[:1]
    assert finding.code == "RSB430"
    assert finding.message.startswith(
        "unknown placeholder {MAPA}; valid choices for 2 options: {Q}"
    )
    (missing,) = lint_template("put the cube on the plate.\n", "a2a-seen-text.txt", 2)
    assert (missing.code, missing.message) == (
        "RSB432",
        "template lacks {Q}, which every 2-choice template needs",
    )
