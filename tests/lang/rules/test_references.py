"""RSB470-472 on real files: a question bank or template file outside the task's folder (``..``,
an absolute path, a symlink out), one that is not a regular file (FIFO, device, folder) or is
over the size cap, and placeholders in a bank's texts. The linter flags each at its position
without opening the file; the runtime refuses the same files with the same message; an
explicitly allowed root (``--allow-root``, :func:`rsb_mj.lang.allow_roots`) lets them in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.episodes import sample_episode
from rsb_mj.errors import RsbError
from rsb_mj.lang import allow_roots, lint_file, parse_file
from rsb_mj.lang.files import ALLOW_ROOTS_ENV, MAX_REFERENCED_BYTES

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = (ROOT / "tasks" / "examples" / "geography_6.bddl").read_text(encoding="utf-8")
BANK = (ROOT / "tasks" / "examples" / "geography.jsonl").read_text(encoding="utf-8")
TEMPLATES = "(:templates (:train seen) (:eval unseen))"


@pytest.fixture(autouse=True)
def _no_inherited_roots(monkeypatch):
    monkeypatch.delenv(ALLOW_ROOTS_ENV, raising=False)


def _task(folder: Path, bank: str = "geography.jsonl", templates: str = TEMPLATES) -> Path:
    """The geography example in ``folder`` with its bank path and template selection."""
    folder.mkdir(parents=True, exist_ok=True)
    text = EXAMPLE.replace('"geography.jsonl"', json.dumps(bank)).replace(TEMPLATES, templates)
    path = folder / "geo_6.bddl"
    path.write_text(text, encoding="utf-8")
    return path


def _findings(path: Path) -> list[tuple[str, str, int, int, str]]:
    return [
        (d.code, Path(d.path).name, d.span.line, d.span.column, d.message)
        for d in lint_file(path)[1]
    ]


def _outside(name: str, resolved: Path, folder: Path, what: str = "question bank") -> str:
    return (
        f"{what} {name!r} resolves to {resolved}, outside the task file's folder "
        f"{folder.resolve()}; files a task names must lie in its folder (or allow another "
        "with --allow-root DIR)"
    )


def test_a_bank_up_the_tree_an_absolute_path_and_a_symlink_out_are_refused(tmp_path):
    (tmp_path / "geography.jsonl").write_text("{broken json\n", encoding="utf-8")
    folder = tmp_path / "task"
    for name in ("../geography.jsonl", str(tmp_path / "geography.jsonl"), "link.jsonl"):
        if name == "link.jsonl":
            (folder / "link.jsonl").symlink_to(tmp_path / "geography.jsonl")
        path = _task(folder, bank=name)
        # one finding at the (:source ...) form; the file itself is never read (its broken
        # line would be an RSB453 finding)
        assert _findings(path) == [
            (
                "RSB470",
                "geo_6.bddl",
                6,
                14,
                _outside(name, tmp_path / "geography.jsonl", folder),
            )
        ]


def test_a_template_file_outside_is_refused_at_its_selection(tmp_path):
    folder = tmp_path / "task"
    up = "../" * 16 + "etc/passwd"  # more steps than folders: the root's /etc/passwd
    path = _task(folder, templates=f'(:templates (:train seen) (:eval (:file "{up}")))')
    (folder / "geography.jsonl").write_text(BANK, encoding="utf-8")
    assert _findings(path) == [
        ("RSB470", "geo_6.bddl", 7, 43, _outside(up, Path("/etc/passwd"), folder, "template file"))
    ]


def test_a_symlink_inside_the_folder_and_an_allowed_root_are_fine(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "geography.jsonl").write_text(BANK, encoding="utf-8")
    folder = tmp_path / "task"
    path = _task(folder, bank="../shared/geography.jsonl")
    (folder / "banks").mkdir()
    (folder / "banks" / "geo.jsonl").write_text(BANK, encoding="utf-8")
    (folder / "inside.jsonl").symlink_to(folder / "banks" / "geo.jsonl")
    assert _findings(_task(folder, bank="inside.jsonl")) == []
    path = _task(folder, bank="../shared/geography.jsonl")
    assert [f[0] for f in _findings(path)] == ["RSB470"]
    with allow_roots([shared]):
        assert _findings(path) == []
        episode = sample_episode(parse_file(path), suite="", split="eval", index=0, seed=1)
        assert episode.question_id.startswith("file-geography-")
    assert main(["lint", "--allow-root", str(shared), str(path)]) == 0
    assert main(["lint", str(path)]) == 1
    assert "RSB470 referenced-file-outside" in capsys.readouterr().out


def test_the_runtime_refuses_what_lint_refuses_with_the_position(tmp_path):
    (tmp_path / "geography.jsonl").write_text(BANK, encoding="utf-8")
    path = _task(tmp_path / "task", bank="../geography.jsonl")
    problem = parse_file(path)  # syntax only: the runtime checks on its own
    with pytest.raises(RsbError) as err:
        sample_episode(problem, suite="", split="eval", index=0, seed=1)
    assert str(err.value) == f"{path}:6:14: " + _outside(
        "../geography.jsonl", tmp_path / "geography.jsonl", tmp_path / "task"
    )


def test_a_fifo_is_not_a_regular_file_and_nothing_blocks_on_it(tmp_path):
    folder = tmp_path / "task"
    path = _task(folder, bank="fifo.jsonl")
    os.mkfifo(folder / "fifo.jsonl")
    message = "question bank 'fifo.jsonl' is not a regular file (a FIFO)"
    assert _findings(path) == [("RSB471", "geo_6.bddl", 6, 14, message)]
    # The runtime, in a child process: opening a FIFO for reading would wait for a writer.
    code = (
        "import sys\n"
        "from rsb_mj.episodes import sample_episode\n"
        "from rsb_mj.lang import parse_file\n"
        "try:\n"
        f"    sample_episode(parse_file({str(path)!r}), suite='', split='eval', index=0, seed=1)\n"
        "except Exception as exc:\n"
        "    print(exc)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert run.stdout.strip() == f"{path}:6:14: {message}"


def test_a_device_and_a_folder_are_not_regular_files(tmp_path):
    folder = tmp_path / "task"
    path = _task(folder, bank="/dev/null")
    with allow_roots(["/dev"]):
        assert _findings(path) == [
            ("RSB471", "geo_6.bddl", 6, 14, "question bank '/dev/null' is not a regular file "
             "(a character device)")
        ]  # fmt: skip
    (folder / "banks").mkdir()
    path = _task(folder, bank="banks")
    assert _findings(path) == [
        ("RSB471", "geo_6.bddl", 6, 14, "question bank 'banks' is not a regular file (a folder)")
    ]


def test_a_bank_over_the_size_cap_is_refused_without_reading_it(tmp_path):
    folder = tmp_path / "task"
    path = _task(folder)
    with open(folder / "geography.jsonl", "wb") as fh:  # sparse: no disk is used
        fh.truncate(MAX_REFERENCED_BYTES + 1)
    message = (
        f"question bank 'geography.jsonl' is {MAX_REFERENCED_BYTES + 1:,} bytes; files a task "
        f"names are capped at {MAX_REFERENCED_BYTES:,} bytes (32 MiB)"
    )
    assert _findings(path) == [("RSB471", "geo_6.bddl", 6, 14, message)]
    with open(folder / "geography.jsonl", "wb") as fh:  # 2 GB (sparse): as fast
        fh.truncate(2 << 30)
    assert [f[0] for f in _findings(path)] == ["RSB471"]


def test_placeholders_in_bank_texts_are_flagged_at_their_line_and_column(tmp_path):
    folder = tmp_path / "task"
    path = _task(folder)
    rows = [json.loads(line) for line in BANK.splitlines()]
    rows[1]["question"] = "Which block is {MAPA}, the capital of Kenya?"
    rows[2]["options"][3] = "{ANSWER}"
    rows[3]["question"] = r"Is {x} in \mathbb{R} the capital of {1, 2}?"  # not placeholders
    lines = [json.dumps(r) for r in rows]
    (folder / "geography.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    column_a = lines[1].index("{MAPA}") + 1
    column_b = lines[2].index("{ANSWER}") + 1
    tail = " in a question bank text is shown as written (only templates fill placeholders); "
    tail += "write the text the policy should read"
    assert _findings(path) == [
        ("RSB472", "geography.jsonl", 2, column_a, "{MAPA}" + tail),
        ("RSB472", "geography.jsonl", 3, column_b, "{ANSWER}" + tail),
    ]
    assert lint_file(path)[1][0].severity == "warning"


def test_a_huge_numeric_answer_is_a_finding_in_lint_and_an_error_in_eval(tmp_path, capsys):
    folder = tmp_path / "task"
    path = _task(folder)
    bank = BANK + '{"question": "How many atoms?", "answer": "1e30", "split": "eval"}\n'
    (folder / "geography.jsonl").write_text(bank, encoding="utf-8")
    line = bank.count("\n")
    finding = (
        f"{folder / 'geography.jsonl'}:{line}:1: RSB453 question-bank: answer '1e30' is out of "
        "range: a numeric answer has at most 15 digits before the point and 6 after it (give it "
        "options to use another text)"
    )
    assert main(["lint", str(path)]) == 1  # not 2, "internal error"
    assert capsys.readouterr().out.startswith(finding + "\n")
    out = tmp_path / "run"
    argv = ["eval", str(path), "--policy", "noop", "--episodes", "1", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rsb eval: error: ") and finding in err
    assert "Traceback" not in err and not out.exists()
