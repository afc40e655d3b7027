"""``rsb lint``: text and JSON output, exit codes, --explain, no tracebacks."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.lang import RULES

from .lang_samples import BASE

BROKEN = BASE.replace("(:choices 4)", "(:choices four)")


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "good.bddl"
    good.write_text(BASE, encoding="utf-8")
    broken = tmp_path / "broken.bddl"
    broken.write_text(BROKEN, encoding="utf-8")
    warn = tmp_path / "warn.bddl"
    warn.write_text(BASE.replace("(Released ?answer)))", "(Released ?answer) (Or)))"))
    return good, broken, warn


def test_clean_file_exits_0(files, capsys):
    good, _, _ = files
    assert main(["lint", str(good)]) == 0
    assert capsys.readouterr().out == "1 file checked: 0 errors, 0 warnings\n"


def test_broken_file_gives_coded_text_with_caret_and_exit_1(files, capsys):
    _, broken, _ = files
    assert main(["lint", str(broken)]) == 1
    out = capsys.readouterr().out
    assert out == (
        f"{broken}:4:45: RSB102 unexpected-token: unexpected 'four'; expected a number\n"
        "    4 |   (:question (:source arithmetic) (:choices four))\n"
        "      |                                             ^^^^\n"
        "1 file checked: 1 error, 0 warnings\n"
    )


def test_warnings_alone_also_exit_1(files, capsys):
    _, _, warn = files
    assert main(["lint", str(warn)]) == 1
    assert "RSB421 empty-connective: empty (Or) in :goal is never true" in capsys.readouterr().out


def test_json_output_fields(files, capsys):
    good, broken, _ = files
    assert main(["lint", "--format", "json", str(good), str(broken)]) == 1
    (row,) = json.loads(capsys.readouterr().out)
    assert row == {
        "code": "RSB102",
        "name": "unexpected-token",
        "severity": "error",
        "message": "unexpected 'four'; expected a number",
        "path": str(broken),
        "line": 4,
        "column": 45,
        "end_line": 4,
        "end_column": 49,
        "fix": None,
    }


def test_folders_are_searched_recursively(files, capsys):
    good, _, _ = files
    assert main(["lint", str(good.parent)]) == 1
    assert capsys.readouterr().out.endswith("3 files checked: 1 error, 1 warning\n")


def test_explain_prints_doc_with_bad_and_good_examples(capsys):
    assert main(["lint", "--explain", "RSB414"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("RSB414 cost-without-and (warning)\n\nA ``:cost`` (or ``:goal``)")
    assert "Bad:\n    (:cost (Fall teapot_1) (CheckGripperContact teapot_1))" in out
    assert "Good:\n    (:cost (And (Fall teapot_1) (CheckGripperContact teapot_1)))" in out
    assert main(["lint", "--explain", "region-capacity"]) == 0
    assert capsys.readouterr().out.startswith("RSB304 region-capacity (error)")


def test_every_rule_can_be_explained(capsys):
    for code in RULES:
        assert main(["lint", "--explain", code]) == 0
    assert main(["lint", "--rules"]) == 0
    assert len(capsys.readouterr().out.splitlines()) > len(RULES)


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["lint", "--explain", "RSB999"]) == 2
    assert "unknown rule 'RSB999'; valid choices: RSB101" in capsys.readouterr().err
    assert main(["lint", str(tmp_path / "nope.bddl")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["lint", str(tmp_path)]) == 2
    assert "no task files" in capsys.readouterr().err
    assert main(["lint"]) == 2


def test_the_installed_command_shows_no_traceback(files):
    _, broken, _ = files
    proc = subprocess.run(
        [sys.executable, "-m", "rsb_mj", "lint", str(broken)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr == ""
    assert "Traceback" not in proc.stdout and "RSB102" in proc.stdout


def test_jobs_is_deprecated_and_changes_nothing(capsys):
    """The full LIBERO and VLA-Arena suites: ``--jobs N`` prints a note and the same text."""
    suites = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
    assert main(["lint", str(suites)]) == 1
    plain = capsys.readouterr()
    assert plain.err == ""
    assert plain.out.endswith("300 files checked: 0 errors, 136 warnings\n")
    for jobs in ("1", "2"):
        assert main(["lint", "--jobs", jobs, str(suites)]) == 1
        out, err = capsys.readouterr()
        assert out == plain.out
        assert err == (
            "rsb lint: note: --jobs is deprecated and ignored; files are linted in this "
            "process (a second process gained nothing on 2 cores)\n"
        )


def test_an_internal_error_names_the_file_and_exits_2(files, capsys, monkeypatch):
    good, _, _ = files

    def boom(path, target=None):
        raise RuntimeError("bug")

    monkeypatch.setattr("rsb_mj.cli.lint.lint_file", boom)
    assert main(["lint", str(good)]) == 2
    assert capsys.readouterr().err == (f"rsb lint: internal error on {good}: RuntimeError('bug')\n")


def test_an_internal_error_stops_at_the_first_failing_file(files, monkeypatch):
    good, broken, warn = files
    from rsb_mj.cli import lint

    real = lint.lint_file

    def boom(path, target=None):
        if path == warn:
            raise RuntimeError("bug")
        return real(path, target=target)

    monkeypatch.setattr("rsb_mj.cli.lint.lint_file", boom)
    assert lint.lint_all([good, broken])[0][1] == []
    with pytest.raises(lint.InternalError, match=r"warn\.bddl: RuntimeError\('bug'\)"):
        lint.lint_all([good, warn, broken])


def test_target_rsb_checks_libero_files_as_the_goal_tasks_they_are(capsys):
    """Without --target the 20 LIBERO files are linted as LIBERO's loader reads them; with
    --target rsb as scenes rsb_mj must build and run: goal tasks (not question scenes, no
    RSB510), and every one builds, the 4 of tier B (a drawer or the stove) too: no RSB53x
    error."""
    corpus = Path(__file__).resolve().parents[1] / "data" / "bddl_corpus" / "libero"
    assert main(["lint", str(corpus)]) == 1  # warnings
    plain = capsys.readouterr().out
    assert "RSB510" not in plain and "RSB53" not in plain
    assert main(["lint", str(corpus), "--target", "rsb"]) == 1
    out = capsys.readouterr().out
    assert "RSB510" not in out
    assert [line for line in out.splitlines() if " RSB53" in line] == []
    assert out.endswith("20 files checked: 0 errors, " + plain.rsplit("0 errors, ", 1)[1])


def test_linting_imports_neither_numpy_nor_the_sampler():
    """`rsb lint` starts fast: the LIBERO / VLA-Arena suites are linted without numpy; the
    shipped tasks and the guide's task with its own question bank load numpy and the layout
    sampler (RSB503 runs its trials) but not the episode sampler, the built-in question banks
    or the other subcommands. (The shipped LIBERO / VLA-Arena files, unchanged upstream files
    with warnings of their own, are left out: tests/test_suites.py lints them.)"""
    data = Path(__file__).resolve().parents[1] / "data" / "bddl_suites"
    root = Path(__file__).resolve().parents[2] / "tasks"
    tasks = [
        str(p)
        for p in sorted(root.iterdir())
        if p.name not in ("libero", "vla_arena") and (p.is_dir() or p.suffix == ".bddl")
    ]
    loaded = (
        "sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('rsb_mj.lang.layout', "
        "'rsb_mj.episodes.sampler', 'rsb_mj.episodes.sources.gsm8k', 'rsb_mj.cli.eval')))"
    )
    code = (
        "import sys; from rsb_mj.cli import main; "
        f"status = main(['lint', {str(data)!r}]); print(status, {loaded}); "
        f"status = main(['lint', *{tasks!r}]); print(status, {loaded})"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    lines = [line for line in out.stdout.splitlines() if line[:2] in ("0 ", "1 ")]
    assert lines == ["1 []", "0 ['numpy', 'rsb_mj.lang.layout']"]
