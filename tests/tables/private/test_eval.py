"""Private tables in ``rsb eval`` and vla-eval: the expert at 100%, records that name the
private manifest and no row, nothing a policy receives that names a row, and the look-up
cheat (lookup_cheat.py) right on every public RSB-Math-4 row and at chance on private ones."""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.env.views import PolicyEnv, policy_seed
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.policies.base import Policy
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import read_table
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.manifest import read_private
from rsb_mj.tables.private.secret import Secret

from .lookup_cheat import shipped_answers
from .private_draws import SECRET

#: Candidate order of the RSB-Math-4 scene (the task file's ``:candidates``).
CANDIDATES = ("block_a", "block_b", "block_c", "block_d")
#: The cheat as ``rsb eval --policy`` names it (its records and its view's seed use the spec).
CHEAT = "inprocess:tables.private.lookup_cheat:LookupCheat"


def guess(row) -> str:
    """The cheat's pick when the look-up fails: the first draw of its generator, seeded by
    its view's seed (episode seed and policy name)."""
    return CANDIDATES[int(np.random.default_rng(policy_seed(row.seed, CHEAT)).integers(4))]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """RSB-Math-4 (100 rows, drawn in Python) and A2A-Color (8 rows, drawn by the command,
    legibility check included) in one private folder of one secret."""
    root = tmp_path_factory.mktemp("private_eval")
    out, secret = root / "tables", root / "secret.txt"
    secret.write_bytes(SECRET + b"\n")
    build_private(["RSB-Math-4"], Secret(SECRET), out, rows=100)
    argv = ["episodes", "build", "A2A-Color", "--private", "--secret-file", str(secret)]
    assert main([*argv, "-o", str(out), "--rows", "8"]) == 0
    return out


@pytest.fixture(scope="module")
def secret_file(tables):
    """The secret the private tables were drawn from (a sealed run signs with it)."""
    return tables.parent / "secret.txt"


def test_the_lookup_cheat_knows_every_public_row_and_no_private_one(tables):
    answers = shipped_answers()
    public = load_table("RSB-Math-4", "eval")
    assert sum(answers[r.instruction] == r.target for r in public) == 500
    # Act2Answer target descriptions repeat across items, so a look-up of the text alone
    # is right on 254 of 300 public A2A-Color rows (the description names the answer anyway)
    color = load_table("A2A-Color", "eval")
    assert sum(answers[r.instruction] == r.target for r in color) == 254
    private = read_table(tables / "RSB-Math-4.eval.jsonl")
    assert [r.instruction for r in private if r.instruction in answers] == []
    # left to guess, it is at chance
    rate = sum(guess(r) == r.target for r in private) / len(private)
    half = 1.96 * math.sqrt(0.25 * 0.75 / len(private))
    assert 0.25 - half <= rate <= 0.25 + half, rate


def _config(out, tables, suites=("RSB-Math-4", "A2A-Color"), policy="expert", episodes=2):
    secret = None if tables is None else tables.parent / "secret.txt"
    return EvalConfig(
        suites=suites,
        policies=(policy,),
        episodes=episodes,
        out=out,
        workers=1,
        progress=False,
        tables=tables,
        secret_file=secret,
    )


def test_the_expert_succeeds_and_records_name_the_manifest_not_the_row(tables, tmp_path):
    out = tmp_path / "run"
    records = run_eval(_config(out, tables))
    assert [(r.suite, r.index, r.success) for r in records] == [
        ("RSB-Math-4", 0, True),
        ("RSB-Math-4", 1, True),
        ("A2A-Color", 0, True),
        ("A2A-Color", 1, True),
    ]
    digest = read_private(tables).sha256
    assert {(r.tables, r.seed) for r in records} == {(digest, 0)}
    assert [r.question_id for r in records] == [
        "private-0000",
        "private-0001",
        "private-0000",
        "private-0000",
    ]
    assert [r.item for r in records] == [None, None, "private-0000", "private-0000"]
    assert [r.layout for r in records[2:]] == ["original", "swapped"]
    assert {r.instruction for r in records} == {None}  # it holds the private question
    written = (out / "episodes.jsonl").read_text()
    for name in ("RSB-Math-4.eval.jsonl", "A2A-Color.eval.jsonl"):
        for row in read_table(tables / name)[:2]:
            assert row.question_id not in written and str(row.seed) not in written
            assert row.question not in written and row.instruction not in written
    assert json.loads((out / "run.json").read_text())["tables"] == digest
    assert len(run_eval(_config(out, tables))) == 4  # resumed: nothing runs again
    assert len(written.splitlines()) == len((out / "episodes.jsonl").read_text().splitlines())
    with pytest.raises(EvalError) as err:
        run_eval(_config(out, None))
    assert str(err.value) == (
        f"{out / 'run.json'}: this run directory holds records of private tables "
        f"{digest[:16]}; use another --out for the shipped tables"
    )
    with pytest.raises(EvalError, match="private tables hold eval rows only"):
        EvalConfig(("RSB-Math-4",), ("expert",), 1, out, split="train", tables=tables,
                   secret_file=tables.parent / "secret.txt")  # fmt: skip


class Recorder(Policy):
    """Keeps what it is handed at reset, holds still and says it is done."""

    name = "recorder"
    seen: ClassVar[list[tuple[Any, dict[str, Any]]]] = []

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        Recorder.seen.append((env, info))
        self._hold = np.asarray(obs["state"], dtype=np.float64)

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return self._hold

    @property
    def done(self) -> bool:
        return True


def test_a_policy_receives_nothing_that_names_the_row(tables, tmp_path):
    Recorder.seen.clear()
    spec = "inprocess:tables.private.test_eval:Recorder"
    run_eval(_config(tmp_path / "run", tables, ("RSB-Math-4",), spec, episodes=1))
    ((view, info),) = Recorder.seen
    row = read_table(tables / "RSB-Math-4.eval.jsonl")[0]
    assert isinstance(view, PolicyEnv) and view.instruction == row.instruction
    assert not hasattr(view, "seed")
    assert "episode" not in info and info["instruction"] == row.instruction
    received = repr((vars(view), info))
    for value in (row.question_id, str(row.seed), row.question_id.split("-", 1)[1]):
        assert value not in received


@pytest.mark.slow
def test_the_lookup_cheat_scores_on_public_rows_and_guesses_on_private_ones(tables, tmp_path):
    public = run_eval(_config(tmp_path / "public", None, ("RSB-Math-4",), CHEAT, episodes=16))
    assert [(r.success, r.text) for r in public] == [(True, "looked up")] * 16  # TSR 16/16
    private = run_eval(_config(tmp_path / "private", tables, ("RSB-Math-4",), CHEAT, episodes=16))
    assert [r.text for r in private] == ["guessed"] * 16
    rows = read_table(tables / "RSB-Math-4.eval.jsonl")[:16]
    assert [r.choice for r in private] == [guess(row) for row in rows]
    # the expert's motions carry the guess: it succeeds exactly where the guess is right,
    # 6 of 16 here (chance 25%; the 100-row test above holds the rate to chance)
    assert [r.success for r in private] == [guess(row) == row.target for row in rows]
    assert sum(r.success for r in private) == 6


def test_vla_eval_runs_private_tables_and_sends_only_the_suite(tables, secret_file, tmp_path):
    pytest.importorskip("vla_eval", reason="the vla-eval plugin needs the extra: .[vla-eval]")
    from rsb_mj.integrations.vla_eval import RsbBenchmark

    # A private draw is a sealed run: its outcomes go to a file, never to the model server,
    # and its rows run in the secret's order
    outcomes = tmp_path / "outcomes.jsonl"
    bench = RsbBenchmark(
        "RSB-Math-4", tables=str(tables), outcomes=str(outcomes), width=32, height=24,
        secret_file=str(secret_file),
    )  # fmt: skip
    try:
        (task,) = bench.get_tasks()
        assert task == {"name": "RSB-Math-4", "suite": "RSB-Math-4"}
        assert bench.get_metadata() == {"max_steps": 400, "max_episodes_per_task": 100}
        raw = bench.reset({**task, "episode_idx": 3})
        obs = bench.make_obs(raw, task)
        row = read_table(tables / "RSB-Math-4.eval.jsonl")[bench._row_index[3]]
        assert obs["task_description"] == row.instruction
        assert sorted(obs) == ["images", "state", "task_description"]
    finally:
        bench.cleanup()


def test_rsb_eval_on_private_tables_names_the_report_command_with_its_secret(
    tables, secret_file, tmp_path, capsys
):
    out = tmp_path / "run"
    argv = ["eval", "--tables", str(tables), "--secret-file", str(secret_file), "--suite",
            "RSB-Math-4", "--policy", "noop", "-n", "1", "--max-steps", "2"]  # fmt: skip
    argv.append("--no-progress")
    assert main([*argv, "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == (
        f"records: {out / 'episodes.jsonl'}; report: rsb report {out} --secret-file {secret_file}"
    )
    assert main(["report", str(out), "--stdout", "--secret-file", str(secret_file)]) == 0


def test_tables_that_are_a_file_say_so(tmp_path, secret_file, capsys):
    # the message was 'FILE/manifest.json: no private manifest; draw tables with: ... -o FILE'
    given, out = tmp_path / "tables.jsonl", tmp_path / "run"
    given.write_text("{}\n")
    argv = ["eval", "--suite", "RSB-Math-4", "--policy", "noop", "--tables", str(given),
            "--secret-file", str(secret_file), "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"rsb eval: error: {given}: not a folder; private tables are the folder rsb episodes "
        "build SUITE --private --secret-file FILE -o DIR wrote"
    )  # after the fixture secret's warning (mode 0644)
    assert not out.exists()
