"""``rsb fmt``: rewrite, --check, exit codes, atomic writes."""

import stat
import subprocess
import sys

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


def _limit_file_size() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))  # bytes; the file is ~1,000


def test_a_failed_write_leaves_the_file_intact_with_a_one_line_error(tmp_path):
    """``ulimit -f 1; rsb fmt FILE``: the write fails, FILE keeps its bytes, exit 2."""
    path = tmp_path / "t.bddl"
    path.write_text(MESSY, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "rsb_mj", "fmt", str(path)],
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"rsb fmt: error: {path}: cannot write (File too large); the file is unchanged\n"
    )
    assert path.read_text(encoding="utf-8") == MESSY
    assert [p.name for p in tmp_path.iterdir()] == ["t.bddl"]  # no temporary file left


def test_rewrite_goes_through_a_rename(tmp_path):
    """Atomic: the rewritten file is a new inode (a reader holding the old one sees it whole)."""
    path = tmp_path / "t.bddl"
    path.write_text(MESSY, encoding="utf-8")
    before = path.stat().st_ino
    assert main(["fmt", str(path)]) == 0
    assert path.stat().st_ino != before
    assert path.read_text(encoding="utf-8") == BASE


def test_a_symlink_stays_a_symlink_and_its_target_is_formatted(tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "real.bddl"
    target.write_text(MESSY, encoding="utf-8")
    link = tmp_path / "t.bddl"
    link.symlink_to(target)
    assert main(["fmt", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8") == BASE
    assert capsys.readouterr().out == f"reformatted {link}\n1 file checked, 1 reformatted\n"
    assert sorted(p.name for p in shared.iterdir()) == ["real.bddl"]  # no temporary file left


def test_a_rewritten_file_keeps_its_permission_bits(tmp_path):
    for mode in (0o600, 0o755, 0o640):
        path = tmp_path / f"t{mode:o}.bddl"
        path.write_text(MESSY, encoding="utf-8")
        path.chmod(mode)
        assert main(["fmt", str(path)]) == 0
        assert path.read_text(encoding="utf-8") == BASE
        assert stat.S_IMODE(path.stat().st_mode) == mode
