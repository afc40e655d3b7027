"""Private draws (rsb_mj.tables.private.build): same bytes for the same secret, no question of
a shipped table, a level from its base, a task file from its bank's held-out questions, and
the command's usage errors (the secret, manifest, check and audit have their own modules)."""

from __future__ import annotations

import hashlib
import re
import stat

import pytest

from rsb_mj.cli import main
from rsb_mj.episodes.dedup import DuplicateIndex, normalize
from rsb_mj.episodes.sources.arithmetic import canonical
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import diff_rows, episodes_dir, read_table
from rsb_mj.tables.levels import LEVEL_FIELDS
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.check import check_private
from rsb_mj.tables.private.manifest import read_private
from rsb_mj.tables.private.secret import VERSION, Secret

from ..test_reserve import shipped_rows
from .private_draws import ROWS, SECRET


def test_same_secret_same_bytes_another_secret_other_rows(drawn, tmp_path):
    again = tmp_path / "again"
    build_private(["A2A-Color", "RSB-Math-4"], Secret(SECRET), again, rows=ROWS)
    files = sorted(p.name for p in drawn.iterdir())
    assert files == ["A2A-Color.eval.jsonl", "RSB-Math-4.eval.jsonl", "manifest.json"]
    for name in files:
        assert (again / name).read_bytes() == (drawn / name).read_bytes(), name
    other = tmp_path / "other"
    build_private(["RSB-Math-4"], Secret(SECRET + b"!"), other, rows=5)
    theirs, ours = (
        read_table(other / "RSB-Math-4.eval.jsonl"),
        read_table(drawn / "RSB-Math-4.eval.jsonl"),
    )
    assert [r.seed for r in theirs] != [r.seed for r in ours[:5]]
    assert [r.instruction for r in theirs] != [r.instruction for r in ours[:5]]
    # The bytes this secret draws at builder version 1. A change of the sampler, the layout
    # sampler or a reserve that moves them must bump rsb_mj.tables.private.secret.VERSION
    # (it is in every seed), so that one (secret, version) never names two different draws.
    pinned = {
        "A2A-Color.eval.jsonl": "c01f3351bf8aa8c4ebebd94bfbca0888f1305903936950ccb2e8ed46858a1d2f",
        "RSB-Math-4.eval.jsonl": "61a1546534a8cd86252a32e59ba5e7455f35f4507c6d64c3a00a074c3a6047da",
    }
    digests = {n: hashlib.sha256((drawn / n).read_bytes()).hexdigest() for n in pinned}
    assert (VERSION, digests) == (1, pinned), "same secret, other bytes: bump VERSION"
    assert {n: e["sha256"] for n, e in read_private(drawn).tables.items()} == pinned


#: The arithmetic question text: "what is 82 minus 30?" (the source's words for its ops).
ARITH = re.compile(r"what is (\d+) (plus|minus|times) (\d+)\?")
OPS = {"plus": "add", "minus": "sub", "times": "mul"}


def _key(row) -> str:
    """What makes a question the same question, computed from the row's question text (and
    for a picture item the pictures it shows), never from its id."""
    arith = ARITH.fullmatch(row.question)
    if arith:
        a, op, b = arith.groups()
        return "arith " + " ".join(map(str, canonical(OPS[op], int(a), int(b))))
    plates = row.extra.get("plates")
    if plates and row.extra.get("category") in ("COLOR", "SHAPE", "COUNTING"):
        return f"{row.question} | {sorted(plates.values())}"
    return " ".join(normalize(row.question))


def test_private_rows_share_no_question_with_the_shipped_tables(drawn):
    shipped = shipped_rows()
    ids = {r.question_id for r in shipped}
    keys = {_key(r) for r in shipped}
    index = DuplicateIndex(r.question for r in shipped)
    # the key reads the text: a shipped sum asked the other way round is the same question
    commuted = load_table("RSB-Math-4", "eval")[1].rebound(question="what is 58 plus 87?")
    assert commuted.question_id == "arith-add-87-58" and _key(commuted) in keys
    assert _key(commuted.rebound(question_id="arith-add-1-2")) in keys
    for name in ("RSB-Math-4.eval.jsonl", "A2A-Color.eval.jsonl"):
        rows = read_table(drawn / name)
        assert len(rows) == ROWS
        assert not ids & {r.question_id for r in rows}, name
        assert not keys & {_key(r) for r in rows}, name
        if name.startswith("RSB"):
            assert all(ARITH.fullmatch(r.question) for r in rows)  # keyed by its text
            assert all(index.match(r.question) is None for r in rows)
            assert len({r.question_id for r in rows}) == ROWS  # each question once
            assert {r.split for r in rows} == {"eval"} and [r.index for r in rows] == list(
                range(ROWS)
            )
    pairs = read_table(drawn / "A2A-Color.eval.jsonl")
    assert [r.extra["layout"] for r in pairs[:4]] == ["original", "swapped"] * 2
    assert len({r.question_id for r in pairs}) == ROWS // 2


def test_a_level_is_derived_from_its_base_and_a_folder_keeps_its_secret(tmp_path):
    out = tmp_path / "levels"
    logged = []
    build_private(["RSB-Math-4-L1"], Secret(SECRET), out, rows=6, log=logged.append)
    assert logged == ["RSB-Math-4-L1: drawing its base suite RSB-Math-4 too"]
    base = read_table(out / "RSB-Math-4.eval.jsonl")
    level = read_table(out / "RSB-Math-4-L1.eval.jsonl")
    assert len(level) == 6 and all(
        set(diff_rows(b, lv)) <= set(LEVEL_FIELDS) and lv.distractors
        for b, lv in zip(base, level, strict=True)
    )
    assert check_private(out) == []
    with pytest.raises(EpisodeError) as err:
        build_private(["RSB-Math-4"], Secret(SECRET + b"x"), out, rows=6)
    assert "drawn from another secret" in str(err.value) and "use another -o" in str(err.value)


def test_a_task_file_draws_from_its_bank_held_out_questions(tmp_path):
    task = "tasks/examples/geography_6.bddl"
    out = tmp_path / "task"
    (result,) = build_private([task], Secret(SECRET), out)
    rows = read_table(out / "geography_6.eval.jsonl")
    pool = read_private(out).tables["geography_6.eval.jsonl"]["reserve"]
    assert result.rows == len(rows) == pool // 2  # each held-out question once
    assert {r.suite for r in rows} == {""} and len({r.question_id for r in rows}) == len(rows)
    assert check_private(out) == []
    with pytest.raises(EpisodeError) as err:
        build_private([task], Secret(SECRET), out, rows=pool)
    assert str(err.value) == (
        f"tasks/examples/geography_6.bddl: the held-out reserve of source file holds {pool} "
        f"questions; a private table asks each once and keeps them drawn at random, so it has "
        f"at most {pool // 2} rows (--rows {pool})"
    )


def test_the_cli_needs_the_secret_the_folder_and_eval_tables(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    assert main(["episodes", "build", "RSB-Math-4", "--private", "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().out == ("rsb episodes: error: a private draw needs --secret-file\n")
    argv = ["episodes", "build", "RSB-Math-4", "--private", "--secret-file", str(secret)]
    assert main([*argv, "-o", str(tmp_path), "--split", "train"]) == 2
    assert "a private draw has eval tables only" in capsys.readouterr().out
    assert main([*argv]) == 2
    assert capsys.readouterr().out == "rsb episodes: error: a private draw needs -o DIR\n"
    assert main(["episodes", "check", "--tables", str(tmp_path / "none")]) == 2
    assert "no private manifest" in capsys.readouterr().err


def test_private_tables_are_0600_in_a_0700_folder_and_the_cli_warns(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(SECRET)
    secret.chmod(0o644)
    out = tmp_path / "private"
    argv = ["episodes", "build", "RSB-Math-4", "--private", "--rows", "3"]
    assert main([*argv, "--secret-file", str(secret), "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {
        "RSB-Math-4.eval.jsonl": 0o600,
        "manifest.json": 0o600,
    }
    captured = capsys.readouterr()
    assert captured.err == (
        f"rsb episodes: warning: --secret-file {secret}: other users can read it (mode 0644); "
        f"chmod 600 {secret}\n"
    )
    assert "drew 1 private tables" in captured.out
    # an existing open folder is kept as it is, with a warning; its tables are still 0600
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    secret.chmod(0o600)
    assert main([*argv, "--secret-file", str(secret), "-o", str(shared)]) == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert stat.S_IMODE((shared / "RSB-Math-4.eval.jsonl").stat().st_mode) == 0o600
    assert capsys.readouterr().err == (
        f"rsb episodes: warning: other users can enter {shared} (mode 0755); the tables in it "
        f"are 0600, chmod 700 {shared} to hide their names too\n"
    )


def test_a_copy_of_a_shipped_table_is_never_overwritten(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    shipped = episodes_dir() / "RSB-Math-4.eval.jsonl"
    copy = out / shipped.name
    copy.write_bytes(shipped.read_bytes())
    with pytest.raises(EpisodeError) as err:
        build_private(["RSB-Math-4"], Secret(SECRET), out, rows=3, log=lambda _: None)
    assert str(err.value) == (
        f"{copy}: exists and is a copy of the shipped table {shipped}; a private draw would "
        "overwrite it: move it away or name another -o"
    )
    copy.write_text("my notes\n")
    with pytest.raises(EpisodeError, match="exists and is a file no private manifest in the"):
        build_private(["RSB-Math-4"], Secret(SECRET), out, rows=3, log=lambda _: None)
    assert sorted(p.name for p in out.iterdir()) == [shipped.name]
    assert copy.read_text() == "my notes\n"
