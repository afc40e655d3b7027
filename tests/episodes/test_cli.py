"""``rsb episodes`` and ``rsb audit`` as a user runs them."""

from pathlib import Path

from rsb_mj.cli import main
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import dumps


def test_episodes_show(capsys):
    assert main(["episodes", "show", "RSB-Math-4", "--index", "3"]) == 0
    out = capsys.readouterr().out
    row = load_table("RSB-Math-4", "eval")[3]
    assert f"instruction: {row.instruction}" in out
    assert f"({row.correct}) " in out and "<- correct" in out


def test_episodes_check_one_suite(capsys):
    assert main(["episodes", "check", "RSB-Math-4"]) == 0
    assert "OK: every table matches its manifest" in capsys.readouterr().out


def test_audit_passes_on_a_shipped_table_and_fails_on_a_planted_one(tmp_path, capsys):
    assert main(["audit", "RSB-HardMath-4"]) == 0
    assert "PASSED: 1 tables" in capsys.readouterr().out
    rows = [e.rebound(correct="A") for e in load_table("RSB-Math-4", "eval")]
    path = tmp_path / "planted.jsonl"
    path.write_bytes(dumps(rows))
    assert main(["audit", "--table", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED: 1 of 1 tables" in out
    assert f"{path}: letter: chi2=1500.00" in out
    assert f"{path}: heuristic:smallest: 1.000 in [0.212, 0.288]" in out


def test_unknown_suite_is_a_usage_error(capsys):
    assert main(["audit", "RSB-Poetry-4"]) == 2
    assert "unknown suite 'RSB-Poetry-4'; valid choices: RSB-Math-4" in capsys.readouterr().err


def test_build_a_bigger_train_table_elsewhere_and_check_it(tmp_path, capsys):
    argv = ["episodes", "build", "RSB-Math-4", "--split", "train", "--rows", "40"]
    assert main(argv) == 2  # --rows without --out would change the shipped tables
    assert main([*argv, "--out", str(tmp_path)]) == 0
    assert "RSB-Math-4.train.jsonl" in capsys.readouterr().out
    assert len((tmp_path / "RSB-Math-4.train.jsonl").read_text().splitlines()) == 40
    assert main(["episodes", "check", "RSB-Math-4", "--dir", str(tmp_path)]) == 0


def test_jobs_build_tables_on_the_pool_with_the_same_bytes(tmp_path):
    """``--jobs 2`` runs the two suites' builds on the one pool's spawned workers."""
    argv = ["episodes", "build", "RSB-Math-4", "RSB-General-4", "--split", "train", "--rows"]
    assert main([*argv, "30", "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "30", "--out", str(tmp_path / "two"), "--jobs", "2"]) == 0
    names = ["RSB-Math-4.train.jsonl", "RSB-General-4.train.jsonl", "manifest.json"]
    for name in names:
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_audit_max_words_fails_long_instructions(capsys):
    assert main(["audit", "RSB-Math-10", "--max-words", "100"]) == 0
    assert main(["audit", "RSB-General-10", "--max-words", "200"]) == 1
    out = capsys.readouterr().out
    assert "RSB-General-10 eval: length (at most 200 words): " in out


def test_audit_fits_the_probes_on_the_given_train_table(capsys):
    from rsb_mj.tables.files import episodes_dir

    table = str(episodes_dir() / "RSB-HardMath-4.eval.jsonl")
    train = str(episodes_dir() / "RSB-HardMath-4.train.jsonl")
    assert main(["audit", "--table", table, "--train", train, "--train", train]) == 2
    assert "2 --train for 1 --table" in capsys.readouterr().out
    assert main(["audit", "--table", table, "--train", train]) == 0
    out = capsys.readouterr().out
    assert "PASS fitted on train:value_prior" in out and "1000 train rows" in out
    assert "INFO units digit: the answer's is unique among the options in 77.2% of 500 rows" in out
    assert main(["audit", "--table", table]) == 0  # no train table: no fitted probes
    assert "fitted on train" not in capsys.readouterr().out


def test_audit_of_a_task_file_audits_the_rows_rsb_eval_draws_from_its_own_bank(
    tmp_path, monkeypatch, capsys
):
    """``rsb audit TASK.bddl``: the task's rows (500 eval, its 1,000 train rows for the fitted
    probes) against the task's own bank. geography_6's free draws keep its bank's shortcut
    (the shortest option is the answer about twice as often as chance), and the audit says
    so; a table of such rows given by path is refused with the way to audit it."""
    from rsb_mj.tables.task import build_task_tables

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    task = "tasks/examples/geography_6.bddl"
    assert main(["audit", task]) == 1
    out = capsys.readouterr().out
    assert "PASS split (question ids in the row's split) 0 of 500 rows outside their split" in out
    shortest = "heuristic:shortest: 0.352 in [0.134, 0.199] (chance 0.167, n=500)"
    assert f"  {task} eval: {shortest}" in out
    assert "1000 train rows" in out
    assert out.endswith("\n") and "FAILED: 1 of 1 tables" in out
    (table,) = build_task_tables(task, ("eval",), tmp_path, rows=4)
    assert main(["audit", "--table", str(table.path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"rsb audit: error: {table.path}: row 0 asks 'file-geography-17', a question of a "
        "task's own bank; audit the task file instead (rsb audit TASK.bddl)\n"
    )
    assert main(["audit", task, "--table", str(table.path)]) == 2
    assert "a task file is audited by its own rows" in capsys.readouterr().out


def test_build_out_that_is_or_lies_under_a_file_names_it(tmp_path, capsys):
    blocker = tmp_path / "notes.txt"
    blocker.write_text("keep me")
    argv = ["episodes", "build", "RSB-Math-4", "--split", "eval", "--rows", "3", "-o"]
    assert main([*argv, str(blocker)]) == 2
    assert capsys.readouterr().err == (
        f"rsb episodes: error: {blocker}: cannot write the tables (-o) there: it is a file, "
        "not a folder\n"
    )
    assert main([*argv, str(blocker / "tables")]) == 2
    assert capsys.readouterr().err == (
        f"rsb episodes: error: {blocker / 'tables'}: cannot write the tables (-o) there: "
        f"{blocker} is a file, not a folder\n"
    )
    assert blocker.read_text() == "keep me" and sorted(tmp_path.iterdir()) == [blocker]
    task = ["episodes", "build", "tasks/examples/geography_6.bddl", "-o", str(blocker)]
    assert main(task) == 2
    assert "it is a file, not a folder" in capsys.readouterr().err
    # an unknown suite is refused before the folder is made
    assert main(["episodes", "build", "RSB-Poetry-4", "-o", str(tmp_path / "new")]) == 2
    assert "unknown suite 'RSB-Poetry-4'" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == [blocker]


def test_a_public_build_never_rewrites_a_folder_of_private_tables(tmp_path, capsys):
    folder = tmp_path / "private"
    folder.mkdir()
    manifest = folder / "manifest.json"
    manifest.write_text('{"format": 1, "private": {"version": 1}, "tables": {}}\n')
    argv = ["episodes", "build", "RSB-Math-4", "--split", "eval", "--rows", "3"]
    assert main([*argv, "-o", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"rsb episodes: error: -o {folder}: holds private tables ({manifest}); a public build "
        "would rewrite its manifest: name another folder\n"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["manifest.json"]
