"""Attack 4 of issue 34 through a policy server: a plain openpi server that learns each
episode's outcome from its length (:mod:`evaluation.hostile_server`), against ``rsb eval``.

Unsealed, on the shipped rows, the attack is real: a wrong first grasp ends the episode at
once, so the server, replaying a language-blind scripted policy's tapes, tells every right
choice from every wrong one by the number of ``infer`` calls. Sealed, on a private draw
(``--tables``, ``--secret-file``), every episode asks as many ``infer`` calls as it would
have had its choice been right, no request holds anything but the observation and the
prompt, and the server's guess is no better than always guessing the majority.
(The same defence at the rollout's level: ``test_sealed_pace.py``; the records half of
attack 4: ``test_sealed.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.cli import main
from rsb_mj.env.task_env import task_env
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.evaluation.runner import EvalConfig, plan
from rsb_mj.evaluation.sealed import Seal, sealed_order
from rsb_mj.tables.episode_source import load_episode, load_problem
from rsb_mj.tables.private.build import build_private
from rsb_mj.tables.private.secret import Secret

from .hostile_server import (
    HORIZON,
    LengthAttackServer,
    Tape,
    accuracy,
    guesses,
    infers_of,
    majority,
    record_tape,
)

SUITE = "RSB-Math-4"
SECRET = b"issue-34 hostile server test secret, 32+ bytes"
ROWS = 4
#: Enough for a right choice to rest in the zone (about 125 steps on these rows).
MAX_STEPS = 200
#: What every request holds: the observation and the prompt, nothing else.
REQUEST_KEYS = ["images", "prompt", "state"]
CAMERA_KEYS = {"cam_high", "cam_left_wrist", "cam_right_wrist"}


@pytest.fixture(scope="module")
def draw(tmp_path_factory) -> Path:
    """A private draw of :data:`ROWS` rows of RSB-Math-4 and its secret, in one folder."""
    root = tmp_path_factory.mktemp("server")
    (root / "secret.txt").write_bytes(SECRET + b"\n")
    (root / "secret.txt").chmod(0o600)
    build_private([SUITE], Secret(SECRET), root / "tables", rows=ROWS, log=lambda _: None)
    return root


@pytest.fixture(scope="module")
def env():
    made = task_env(SUITE, cameras=())
    yield made
    made.close()


@pytest.fixture(scope="module")
def tapes(draw, env) -> dict[str, list[Tape]]:
    """``nearest-to-zone``'s tapes on the shipped rows 0..3 and on the private rows."""
    problem = load_problem(SUITE)
    return {
        which: [
            record_tape(env, load_episode(SUITE, "eval", i, tables), problem, MAX_STEPS)
            for i in range(ROWS)
        ]
        for which, tables in (("public", None), ("private", str(draw / "tables")))
    }


@pytest.fixture
def server():
    made = LengthAttackServer()
    made.start()
    yield made
    made.stop()


def _eval(out: Path, spec: str, *extra: str) -> int:
    return main([
        "eval", "--suite", SUITE, "--episodes", str(ROWS), "--out", str(out), "--workers", "1",
        "--no-progress", "--max-steps", str(MAX_STEPS), "--policy", spec, *extra,
    ])  # fmt: skip


def _spec(server: LengthAttackServer) -> str:
    return f"openpi:127.0.0.1:{server.port}:{HORIZON}"


def _clean_requests(server: LengthAttackServer) -> None:
    """Every request is an observation and a prompt: no outcome, score or answer field."""
    image = ((3, 224, 224), "uint8")  # the client's default image_size
    assert {tuple(r["keys"]) for r in server.requests} == {tuple(REQUEST_KEYS)}
    assert {r["state"] for r in server.requests} == {((14,), "float32")}
    assert {tuple(sorted(r["images"].items())) for r in server.requests} == {
        tuple((k, image) for k in sorted(CAMERA_KEYS))
    }
    # one connection for the whole run (the first was the start-up check, no request)
    assert {r["connection"] for r in server.requests} == {2} and server.connections == 2


def test_unsealed_the_episode_length_tells_a_server_its_outcome(tapes, server, tmp_path):
    public = tapes["public"]
    assert [t.correct_choice for t in public] == [False, False, True, True]
    server.tapes = public  # an unsealed run goes row by row
    assert _eval(tmp_path / "run", _spec(server)) == 0
    records = sorted(read_records(tmp_path / "run" / RECORDS_FILE), key=lambda r: r.index)
    # the replay is the scripted policy's episode: the same choice, step for step
    assert [(r.choice, r.correct_choice) for r in records] == [
        (t.choice, t.correct_choice) for t in public
    ]
    assert [r.steps for r in records] == [
        t.steps if t.correct_choice else t.grasp_step for t in public
    ]
    assert [r.termination for r in records] == ["wrong_choice"] * 2 + ["success"] * 2
    # the attack: a wrong choice ended at its grasp, short of its tape; a right one asked
    # for all of it
    assert [e.infers for e in server.episodes] == [
        -(-(t.steps if t.correct_choice else t.grasp_step) // HORIZON) for t in public
    ]
    assert guesses(server) == [r.correct_choice for r in records]
    assert [e.prompts for e in server.episodes] == [{r.instruction} for r in records]
    _clean_requests(server)


def test_sealed_a_server_learns_nothing_from_the_episode_lengths(
    draw, env, tapes, server, tmp_path, monkeypatch
):
    tables, secret = draw / "tables", draw / "secret.txt"
    private = tapes["private"]
    outcomes = [t.correct_choice for t in private]
    assert outcomes.count(False) and outcomes.count(True)  # both kinds on the draw
    spec, out = _spec(server), tmp_path / "run"
    # the operator, who holds the secret, hands the tapes in the run's secret order
    config = EvalConfig((SUITE,), (spec,), ROWS, out, tables=tables, secret_file=secret)
    # (keyed by the run's nonce, fixed here so that the test knows it, and the spec, whose
    # port is random: 1 in 24 of these orders is the identity; test_sealed.py checks a
    # fixed run's order is not)
    nonce = "f" * 32
    monkeypatch.setattr("rsb_mj.evaluation.runner.new_nonce", lambda: nonce)
    order = [job.index for job in sealed_order(plan(config), Seal.read(secret), nonce)]
    server.tapes = [private[i] for i in order]
    assert _eval(out, spec, "--tables", str(tables), "--secret-file", str(secret)) == 0
    records = {r.index: r for r in read_records(out / RECORDS_FILE)}
    # the replay is the scripted policy's episode, run on as a right choice's would:
    # the same choice, step for step
    assert [(records[i].choice, records[i].correct_choice, records[i].steps) for i in order] == [
        (private[i].choice, private[i].correct_choice, private[i].steps) for i in order
    ]
    assert [records[i].termination for i in order] == [
        "success" if private[i].correct_choice else "wrong_choice" for i in order
    ]
    # each episode asked as many infer calls as it would have had its choice been right
    # (the same tape replayed in process, unsealed, with the chosen candidate the answer),
    # which for a wrong choice is more than an unsealed run would have asked
    problem = load_problem(SUITE)
    right, unsealed = [], []
    for i in order:
        episode = load_episode(SUITE, "eval", i, str(tables))
        letter = {obj: k for k, obj in episode.mapping.items()}[private[i].choice]
        chosen = episode.rebound(correct=letter)
        right.append(infers_of(env, private[i], chosen, problem, MAX_STEPS, sealed=False))
        unsealed.append(infers_of(env, private[i], episode, problem, MAX_STEPS, sealed=False))
    assert [e.infers for e in server.episodes] == right
    assert [u < r for u, r in zip(unsealed, right, strict=True)] == [
        not private[i].correct_choice for i in order
    ]
    # so the length-based guess says "right" every time: no better than the majority
    ran = [records[i].correct_choice for i in order]
    assert guesses(server) == [True] * ROWS
    assert accuracy(guesses(server), ran) <= majority(ran)
    instructions = [load_episode(SUITE, "eval", i, str(tables)).instruction for i in order]
    assert [e.prompts for e in server.episodes] == [{text} for text in instructions]
    _clean_requests(server)
