"""Runner: plan order, resume without loss or duplicates, chunks, user policies, errors.

These tests run in-process against :mod:`fakes` (a signals-only stand-in for the env; its
toy policies read the answer, so they run as ``inprocess:`` specs); the real environment
and a killed subprocess are exercised in ``test_eval_cli.py``.
"""

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation import worker
from rsb_mj.evaluation.records import read_records
from rsb_mj.evaluation.runner import EvalConfig, plan, run_eval
from rsb_mj.tables.episode_source import Source

from .fakes import fake_env_factory, fake_source_episode, make_episode

FAKES = "inprocess:evaluation.fakes"


@pytest.fixture(autouse=True)
def _fake_tables(monkeypatch):
    monkeypatch.setattr(Source, "episode", fake_source_episode)
    yield
    worker.close_all()


def _config(tmp_path, policies=("inprocess:evaluation.fakes:oracle",), episodes=3, **kw):
    return EvalConfig(
        suites=("RSB-Math-4",), policies=policies, episodes=episodes, out=tmp_path / "run",
        progress=False, **kw,
    )  # fmt: skip


def test_plan_orders_by_suite_then_index_then_policy(tmp_path):
    cfg = EvalConfig(
        suites=("RSB-Math-10", "RSB-Math-4"), policies=("noop", "expert"), episodes=2,
        out=tmp_path, start=5, videos=(6,),
    )  # fmt: skip
    jobs = plan(cfg)
    assert [(j.suite, j.index, j.policy) for j in jobs[:4]] == [
        ("RSB-Math-10", 5, "noop"),
        ("RSB-Math-10", 5, "expert"),
        ("RSB-Math-10", 6, "noop"),
        ("RSB-Math-10", 6, "expert"),
    ]
    assert jobs[0].max_steps == 400 and jobs[0].video == ""
    assert jobs[2].video.endswith("videos/RSB-Math-10_noop_eval_0006.mp4")


def test_unknown_policy_and_split_are_refused_up_front(tmp_path):
    with pytest.raises(EvalError, match=r"unknown policy 'oracle'; valid choices: noop, expert"):
        plan(_config(tmp_path, policies=("oracle",)))
    with pytest.raises(EvalError, match=r"split 'test'; valid choices: train, eval"):
        _config(tmp_path, split="test")


def test_oracle_succeeds_and_wrong_choice_fails(tmp_path):
    records = run_eval(
        _config(tmp_path, policies=(f"{FAKES}:oracle", f"{FAKES}:always_a")),
        env_factory=fake_env_factory,
    )
    oracle = [r for r in records if r.policy.endswith("oracle")]
    fixed = [r for r in records if r.policy.endswith("always_a")]
    assert [(r.success, r.termination, r.grasp_step, r.success_step) for r in oracle] == [
        (True, "success", 1, 12)  # placed at step 3, resting 0.5 s: decided at step 12
    ] * 3
    # episode 0's correct option is A: always_a succeeds there only
    assert [(r.index, r.grasped, r.success, r.chosen_option) for r in fixed] == [
        (0, True, True, "A"),
        (1, True, False, "A"),
        (2, True, False, "A"),
    ]
    # one attempt: the wrong first grasp decides the episode at once
    assert (fixed[1].termination, fixed[1].steps, fixed[1].in_zone) == ("wrong_choice", 1, [])
    assert records[0].versions["mujoco"]


def test_rerunning_resumes_without_rerunning_or_duplicating(tmp_path):
    cfg = _config(tmp_path, episodes=2)
    run_eval(cfg, env_factory=fake_env_factory)
    path = cfg.out / "episodes.jsonl"
    first = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"suite": "RSB-Math-4", "ind')  # a kill mid-append
    more = _config(tmp_path, episodes=4)
    records = run_eval(more, env_factory=fake_env_factory)
    assert [r.index for r in records] == [0, 1, 2, 3]
    assert path.read_bytes().startswith(first)
    assert [r.index for r in read_records(path)] == [0, 1, 2, 3]
    assert path.read_text().count("\n") == 4


def test_a_bad_action_shape_ends_the_episode_as_the_policys_failure(tmp_path, monkeypatch):
    from . import fakes

    monkeypatch.setattr(fakes.ToyPickPolicy, "act", lambda self, obs: [0.0] * 13)
    (record,) = run_eval(_config(tmp_path, episodes=1), env_factory=fake_env_factory)
    assert (record.termination, record.error_kind, record.grasped, record.success) == (
        "policy_fault", "policy", False, False
    )  # fmt: skip
    assert record.error == (
        "PolicyError: policy inprocess:evaluation.fakes:oracle: act() returned shape (1, 13); "
        "expected (14,) or (H, 14)"
    )


def test_a_run_directory_keeps_its_split(tmp_path):
    run_eval(_config(tmp_path, episodes=1), env_factory=fake_env_factory)
    with pytest.raises(EvalError, match=r"holds split 'eval'; use another --out for split 'train'"):
        run_eval(_config(tmp_path, episodes=1, split="train"), env_factory=fake_env_factory)


def test_chosen_episodes_get_a_head_camera_video(tmp_path):
    import cv2

    cfg = _config(tmp_path, episodes=2, videos=(1,))
    records = run_eval(cfg, env_factory=fake_env_factory)
    videos = sorted((cfg.out / "videos").iterdir())
    assert [v.name for v in videos] == [
        "RSB-Math-4_inprocess_evaluation.fakes_oracle_eval_0001.mp4"
    ]
    cap = cv2.VideoCapture(str(videos[0]))
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    assert (frames, int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))) == (records[1].steps + 1, 32)
    cap.release()


def test_a_different_step_limit_does_not_mix_into_a_run(tmp_path):
    run_eval(_config(tmp_path, episodes=1, max_steps=30), env_factory=fake_env_factory)
    with pytest.raises(EvalError, match=r"1 of these episodes were run with a step limit of 30, "
                       r"this command asks 400; use another --out"):  # fmt: skip
        run_eval(_config(tmp_path, episodes=2), env_factory=fake_env_factory)


def test_ablations_and_counterfactual_twins_are_their_own_records_and_resume(tmp_path):
    cfg = _config(
        tmp_path,
        episodes=2,
        policies=("inprocess:evaluation.fakes:oracle",),
        instructions=("blank", "shuffled-options"),
        counterfactual=True,
    )
    records = run_eval(cfg, env_factory=fake_env_factory)
    assert [(r.index, r.variant) for r in records] == [
        (i, v) for i in (0, 1) for v in ("original", "blank", "shuffled-options", "counterfactual")
    ]
    by = {(r.index, r.variant): r for r in records}
    assert by[0, "shuffled-options"].target == by[0, "original"].target
    assert by[0, "shuffled-options"].correct != by[0, "original"].correct
    assert by[0, "counterfactual"].target != by[0, "original"].target
    # each record holds the instruction its policy was given (the fake env reports the row's)
    assert by[0, "original"].instruction == make_episode(index=0).instruction
    assert by[0, "blank"].instruction == ""
    assert all(r.success for r in records)  # the privileged toy oracle reads the answer
    again = run_eval(cfg, env_factory=fake_env_factory)
    assert again == records and (cfg.out / "episodes.jsonl").read_text().count("\n") == 8
    with pytest.raises(EvalError, match=r"--instruction 'loud'; valid choices: original, blank"):
        _config(tmp_path, instructions=("loud",))


def test_a_run_directory_keeps_its_perturbation_levels(tmp_path):
    run_eval(_config(tmp_path, episodes=1, visual_level=2), env_factory=fake_env_factory)
    with pytest.raises(
        EvalError, match=r"holds --visual-level 2; use another --out for --visual-level 0"
    ):
        run_eval(_config(tmp_path, episodes=1), env_factory=fake_env_factory)


def test_jobs_carry_the_source_the_plan_resolved_and_pickle_with_it(tmp_path):
    """Each job holds its resolved source (what the plan's checks learned of it: family,
    step limit, rows), so a worker process reads the row and the task from it instead of
    looking the suite up again; the facts travel with the pickled job."""
    import pickle

    from rsb_mj.evaluation.jobs import Job
    from rsb_mj.evaluation.runner import resolve_sources

    cfg = EvalConfig(suites=("rsb-math-4",), policies=("noop", "expert"), episodes=2, out=tmp_path)
    (source,) = resolve_sources(cfg)
    jobs = plan(cfg, [source])
    assert {id(j.source) for j in jobs} == {id(source)}
    assert (source.given, source.name, jobs[0].suite) == ("rsb-math-4", "RSB-Math-4", "RSB-Math-4")
    copy = pickle.loads(pickle.dumps(jobs[1]))
    assert copy == jobs[1] and copy.key == ("RSB-Math-4", "eval", 0, "expert", "original")
    assert {k: copy.source.__dict__[k] for k in ("goal", "max_steps", "rows")} == {
        "goal": False,
        "max_steps": 400,
        "rows": 500,
    }
    by_hand = Job("RSB-Math-4", "eval", 3, "noop", 400)
    assert (by_hand.source.name, by_hand.source.split, by_hand.source.tables) == (
        "RSB-Math-4",
        "eval",
        "",
    )
    with pytest.raises(
        ValueError, match=r"job of RSB-Math-4 train .* given the source RSB-Math-4 eval"
    ):
        Job("RSB-Math-4", "train", 0, "noop", 400, source=source)


def test_jobs_carry_the_runs_sandbox_settings_not_the_environment(tmp_path, monkeypatch):
    """The sandbox settings of a run reach its policy processes through the jobs (pickled
    to workers and Ray with them); run_eval sets no environment variable for them."""
    import os
    import pickle

    from rsb_mj.evaluation.runner import sandbox_settings
    from rsb_mj.policies import sandbox

    monkeypatch.delenv(sandbox.ENV_VAR, raising=False)
    cfg = _config(tmp_path, sandbox_network=True, sandbox_processes=7)
    jobs = plan(cfg)
    settings = sandbox_settings(cfg)
    assert {j.sandbox for j in jobs} == {settings}
    assert (settings.network, settings.processes, settings.sealed) == (True, 7, False)
    assert settings.hide == (str((tmp_path / "run").absolute()),)
    assert pickle.loads(pickle.dumps(jobs[0])).sandbox == settings
    before = dict(os.environ)
    run_eval(cfg, env_factory=fake_env_factory)
    assert dict(os.environ) == before
