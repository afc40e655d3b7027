"""``rsb fmt``: rewrite, --check, exit codes."""

from rsb_mj.cli import main

from .lang_samples import BASE

MESSY = BASE.replace("  (:domain rsb)\n", "").replace("(:layout", "(:domain rsb) (:layout")


def test_check_lists_files_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "t.bddl"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", "--check", str(path)]) == 1
    assert (
        capsys.readouterr().out
        == f"would reformat {path}\n1 file checked, 1 would be reformatted\n"
    )
    assert path.read_text(encoding="utf-8") == MESSY


def test_rewrite_then_check_is_clean(tmp_path, capsys):
    path = tmp_path / "t.bddl"
    path.write_text(MESSY, encoding="utf-8")
    assert main(["fmt", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == BASE
    assert main(["fmt", "--check", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith("1 file checked, 0 would be reformatted\n")


def test_unparsable_file_is_reported_and_left_alone(tmp_path, capsys):
    path = tmp_path / "t.bddl"
    path.write_text("(define (problem p)", encoding="utf-8")
    assert main(["fmt", str(path)]) == 1
    assert "RSB103 unclosed-paren" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "(define (problem p)"


def test_missing_path_is_a_usage_error(tmp_path):
    assert main(["fmt", str(tmp_path / "nope")]) == 2
