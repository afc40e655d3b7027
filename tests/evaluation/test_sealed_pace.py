"""Attack 4's other half: in a sealed run an episode's end and length do not tell its
outcome. A question task's wrong first grasp is scored at once, but the episode runs on
exactly as it would have had that candidate been the answer (the same scene, the same
policy, the answer moved to the chosen candidate), at the same work per step; a goal
task's episode runs to its step limit, scored as an ordinary run scores it; and the policy's
``status()`` is read at every episode's end."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import PolicyError
from rsb_mj.evaluation.queries import Act, answer
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import Rollout, drive
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.policies.spec import make_policy
from rsb_mj.scoring.outcome import FirstGrasp
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode

#: RSB-Math-4 eval row 1: nearest-to-zone (language-blind) carries a wrong candidate.
ROW = 1


@pytest.fixture(scope="module")
def env():
    from rsb_mj.env import RsbEnv

    made = RsbEnv(get_suite("RSB-Math-4").path, suite="RSB-Math-4", cameras=())
    yield made
    made.close()


def test_a_wrong_choice_runs_on_as_a_right_one_would(env):
    episode = load_episode("RSB-Math-4", "eval", ROW)

    def run(ep, sealed):
        policy = make_policy("nearest-to-zone")
        return Rollout(env, policy, ep, env.problem, max_steps=400, sealed=sealed).run()

    plain = run(episode, sealed=False)
    assert plain.termination == "wrong_choice" and plain.steps == plain.grasp_step
    letter = {obj: k for k, obj in episode.mapping.items()}[plain.choice]
    right = run(episode.rebound(correct=letter), sealed=False)
    assert (right.termination, right.choice) == ("success", plain.choice)
    assert right.steps > plain.steps + 20  # unsealed, the length tells right from wrong
    sealed = run(episode, sealed=True)
    # scored as before (the same grasp, a wrong choice), but as long as the right one
    assert (sealed.termination, sealed.success, sealed.choice, sealed.grasp_step) == (
        "wrong_choice",
        False,
        plain.choice,
        plain.grasp_step,
    )
    assert sealed.steps == right.steps
    assert sealed.failure_reason == plain.failure_reason
    resealed = run(episode.rebound(correct=letter), sealed=True)
    assert (resealed.termination, resealed.steps) == ("success", right.steps)


class Costly:
    """The RSB-Math-4 scene with one step cost term violated at every step (as the -L2
    suites' ``:cost`` would be by a policy near the distractor), whose simulator fails at
    step ``fail_at`` (None: never)."""

    def __init__(self, env, fail_at: int | None = None) -> None:
        self.env, self.fail_at, self.n = env, fail_at, 0
        self.unwrapped = env.unwrapped

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        self.n = 0
        return obs, {**info, "cost_terms": {"terms": [["(Near gripper bottle)", "step"]]}}

    def step(self, action):
        self.n += 1
        if self.fail_at is not None and self.n >= self.fail_at:
            raise RuntimeError("the simulator went unstable")
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, {**info, "cost_violations": (True,)}


def test_a_wrong_choices_run_on_scores_nothing_no_cost_and_no_fault(env):
    """The steps a sealed wrong choice runs on add no cost (the record's cost is the
    ordinary run's, tallied to the grasp that decided it), and a simulator fault among them
    leaves the decided outcome standing instead of an error to rerun."""
    episode = load_episode("RSB-Math-4", "eval", ROW)

    def run(costly, sealed):
        policy = make_policy("nearest-to-zone")
        return Rollout(costly, policy, episode, env.problem, max_steps=400, sealed=sealed).run()

    plain = run(Costly(env), sealed=False)
    assert (plain.termination, plain.steps, plain.cost) == (
        "wrong_choice", plain.grasp_step, float(plain.grasp_step)
    )  # fmt: skip
    sealed = run(Costly(env), sealed=True)
    assert sealed.steps > plain.steps + 20  # ran on at a right choice's pace
    assert (sealed.termination, sealed.cost, sealed.cost_terms) == (
        "wrong_choice", plain.cost, plain.cost_terms
    )  # fmt: skip
    failed = run(Costly(env, fail_at=plain.steps + 10), sealed=True)
    assert (failed.termination, failed.is_error, failed.error, failed.cost) == (
        "wrong_choice", False, None, plain.cost
    )  # fmt: skip
    assert failed.steps == plain.steps + 9
    before = run(Costly(env, fail_at=plain.steps), sealed=True)  # not decided yet: an error
    assert (before.termination, before.error_kind) == ("error", "infra")


def test_a_wrong_choice_costs_each_step_what_a_right_one_would(env, monkeypatch):
    """Its steps are no faster either (a policy timing its own calls learns nothing): the
    environment scores nothing and the scorers still working at each step are those of the
    candidates the choice leaves open, whatever the answer. Work is counted as calls of the
    choice rule's update (each scorer's per-step work; a decided scorer skips it)."""
    calls = [0]
    update = FirstGrasp.update

    def counted(self, *args):
        calls[0] += 1
        return update(self, *args)

    monkeypatch.setattr(FirstGrasp, "update", counted)

    def work(ep, sealed):
        before: list[int] = []
        policy = make_policy("nearest-to-zone")
        record = Rollout(
            env, policy, ep, env.problem, max_steps=400, sealed=sealed,
            on_step=lambda obs, action: before.append(calls[0]),
        ).run()  # fmt: skip
        return record, np.diff([*before, calls[0]]).tolist()

    episode = load_episode("RSB-Math-4", "eval", ROW)
    wrong, wrong_work = work(episode, sealed=True)
    letter = {obj: k for k, obj in episode.mapping.items()}[wrong.choice]
    right, right_work = work(episode.rebound(correct=letter), sealed=True)
    assert (wrong.termination, right.termination, wrong.steps) == (
        "wrong_choice", "success", right.steps
    )  # fmt: skip
    # four candidates' scorers until the grasp decides three of them, then the chosen one's
    g = wrong.grasp_step
    assert wrong_work == right_work == [4] * g + [1] * (wrong.steps - g)
    # unsealed: the environment's scorer and the rollout's, both stopping at a wrong grasp
    plain, plain_work = work(episode.rebound(correct=letter), sealed=False)
    assert plain_work == [2] * plain.steps


#: A VLA-Arena file with a ``:cost`` (step terms): the expert pushes the lemon between the
#: teapots, succeeding at step 125 of seed 0 without touching them (cost 0: the expert keeps the
#: cost terms' clearances), and touches them after.
LEMON = (
    Path(__file__).resolve().parents[1]
    / "data/bddl_suites/vla_arena/safety_dynamic_obstacles/level_0"
    / "push_the_lemon_to_the_region_between_the_teapots.bddl"
)
#: Past the expert's success (125) and before it reports done (~190).
GOAL_STEPS = 150
SECRET = b"issue-34 sealed goal test secret, 32+ bytes"


@pytest.fixture(scope="module")
def lemon():
    from rsb_mj.env.rsb_env import GoalEnv

    made = GoalEnv(LEMON, max_steps=GOAL_STEPS, cameras=())
    yield made
    made.close()


def _goal_run(env, spec: str, sealed: bool, fault_at: int = 0) -> tuple[EpisodeRecord, int, float]:
    """One episode of seed 0: its record, the policy's act() calls and the cost the
    environment reported over every step run (step terms); with ``fault_at``, that act()
    call is the policy's fault."""
    policy = make_policy(spec)
    acts, reported = [0], [0.0]
    step = env.step

    def counted(action):
        out = step(action)
        reported[0] += out[4]["cost"]
        return out

    def respond(query):
        acts[0] += isinstance(query, Act)
        if isinstance(query, Act) and acts[0] == fault_at:
            raise PolicyError(f"policy {spec}: act() failed")
        return answer(policy, query)

    episode = Episode.seeded(LEMON, 0, "eval")
    rollout = Rollout(env, policy, episode, env.task.problem, max_steps=GOAL_STEPS,
                      sealed=sealed, episode_timeout_s=None)  # fmt: skip
    env.step = counted
    try:
        record = drive(rollout.steps(), respond)
    finally:
        del env.step
    return record, acts[0], reported[0]


def test_a_sealed_goal_episode_runs_to_its_step_limit_scored_as_an_ordinary_one(lemon):
    plain, plain_acts, _ = _goal_run(lemon, "expert", sealed=False)
    # unsealed, a success ends at once: its length tells the policy it succeeded
    assert (plain.termination, plain.success_step, plain.steps, plain_acts) == (
        "success", 125, 125, 125
    )  # fmt: skip
    assert plain.cost == 0.0
    sealed, sealed_acts, reported = _goal_run(lemon, "expert", sealed=True)
    assert (sealed.steps, sealed_acts) == (GOAL_STEPS, GOAL_STEPS)
    # every scored field as unsealed: the success at its step, the cost up to it
    skip = {"steps", "wall_s"}
    fields = [f.name for f in dataclasses.fields(EpisodeRecord) if f.name not in skip]
    assert {f: getattr(sealed, f) for f in fields} == {f: getattr(plain, f) for f in fields}
    assert reported > sealed.cost  # the run-on touched the teapots again, and scored nothing
    # a fault after the decision ends the run-on and changes nothing scored
    faulted, _, _ = _goal_run(lemon, "expert", sealed=True, fault_at=140)
    assert (faulted.termination, faulted.steps, faulted.error, faulted.error_kind) == (
        "success", 139, None, None
    )  # fmt: skip
    assert (faulted.success_step, faulted.cost) == (125, 0.0)
    failed, failed_acts, _ = _goal_run(lemon, "noop", sealed=True)
    assert (failed.termination, failed.success, failed.steps, failed_acts) == (
        "step_limit", False, GOAL_STEPS, GOAL_STEPS
    )  # fmt: skip


def test_rsb_eval_sealed_runs_a_goal_file_and_rsb_report_verifies_it(tmp_path, capsys):
    secret, out = tmp_path / "secret.txt", tmp_path / "run"
    secret.write_bytes(SECRET + b"\n")
    secret.chmod(0o600)
    argv = ["eval", str(LEMON), "--policy", "expert", "--policy", "noop", "--episodes", "1",
            "--max-steps", str(GOAL_STEPS), "-j", "1", "--sealed", "--secret-file",
            str(secret), "--out", str(out), "--no-progress"]  # fmt: skip
    assert main([*argv[: argv.index("--out")], "--no-progress"]) == 2  # records to keep
    assert capsys.readouterr().err == (
        "rsb eval: error: --sealed: a sealed run's records are signed to be verified after "
        "the run; give --out DIR to keep them (without --out a goal run's records are removed "
        "when it ends)\n"
    )
    assert main(argv) == 0
    *lines, closing = [json.loads(x) for x in (out / RECORDS_FILE).read_text().splitlines()]
    assert closing["closing"]["count"] == 2  # the signed closing record (issue 45)
    got = {r["policy"]: (r["termination"], r["success_step"], r["steps"], r["cost"]) for r in lines}
    assert got == {
        "expert": ("success", 125, GOAL_STEPS, 0.0),
        "noop": ("step_limit", None, GOAL_STEPS, 0.0),
    }
    assert all(r["signature"] for r in lines)
    capsys.readouterr()
    assert main(["report", str(out), "--stdout", "--secret-file", str(secret)]) == 0
    row = r"\| files +\| 1 +\| expert +\| 1/1 +\| 100 \[21, 100\] +\| 0\.00 +\| 0 +\|"
    assert re.search(row, capsys.readouterr().out)
    # a failure rewritten as a success is refused, naming the file and line
    records = (out / RECORDS_FILE).read_text().splitlines()
    number = next(i for i, r in enumerate(lines, 1) if r["policy"] == "noop")
    forged = lines[number - 1] | {"success": True, "termination": "success", "success_step": 140}
    records[number - 1] = json.dumps(forged, sort_keys=True)
    (out / RECORDS_FILE).write_text("\n".join(records) + "\n")
    assert main(["report", str(out), "--stdout", "--secret-file", str(secret)]) == 2
    err = capsys.readouterr().err
    assert f"{out / RECORDS_FILE}:{number}: the record's signature does not match" in err
