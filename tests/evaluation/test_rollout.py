"""The record builder of :mod:`rsb_mj.evaluation.rollout`: one function for both task kinds,
scored or an error, on real table rows and a real goal task file."""

from __future__ import annotations

import json

from rsb_mj.env.task_env import task_env
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.rollout import episode_record, run_goal_episode
from rsb_mj.evaluation.worker import error_record
from rsb_mj.policies.spec import make_policy
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.tables.episode_source import load_episode
from rsb_mj.version import versions

APPLE = "tasks/vla_arena/safety_static_obstacles/level_0/" + (
    "pick_the_apple_and_place_it_on_the_plate_0.bddl"
)
GOAL_FIELDS = {"tier", "semantics", "objects", "objects_fingerprint", "failure_class"}


def test_a_question_record_names_its_row_its_letters_and_the_act2answer_fields():
    """Row 1 of A2A-Color (plate_a at x=0.11, plate_b at x=-0.11, B correct): the chosen
    plate's letter and side, the option the text names, the row's draws; no goal field."""
    episode = load_episode("A2A-Color", "eval", 1)
    out = Outcome(grasped=True, choice="plate_b", grasp_step=40, grasped_candidates=["cube"],
                  correct_choice=True, success=True, success_step=90, goal_final=True,
                  in_zone=["plate_b"])  # fmt: skip
    record = episode_record(
        episode, "p", out, "success", 90, 400, privileged=True, wall_s=1.25,
        sim={"control_hz": 20}, text="the answer is (B)", instruction="put it on B",
    )  # fmt: skip
    assert (record.suite, record.index, record.seed, record.task) == (
        "A2A-Color", 1, 3693855265, "a2a_color.bddl"
    )  # fmt: skip
    assert (record.question_id, record.template_id, record.choices, record.correct) == (
        "a2a-color-0000", "a2a-unseen-picture-00", 2, "B"
    )  # fmt: skip
    assert (record.choice, record.chosen_option, record.text_choice) == ("plate_b", "B", "B")
    assert (record.item, record.layout, record.category, record.chosen_side) == (
        "a2a-color-0000", "swapped", "COLOR", "left"
    )  # fmt: skip
    assert (record.variant, record.versions, record.sim) == (
        "original", versions(), {"control_hz": 20}
    )  # fmt: skip
    assert (record.cost, record.cost_terms, record.failure_class) == (None, {}, None)
    assert GOAL_FIELDS.isdisjoint(json.loads(record.to_json()))


def test_error_records_of_both_kinds_come_from_the_one_builder():
    """The worker's error record (no episode rolled out): the job's variant, the message as
    error and reason, nothing scored; a goal's names its file, tier and semantics (no
    objects: no environment was built) and leaves the question columns empty."""
    question = error_record(Job("A2A-Color", "eval", 1, "p", 400, variant="blank"), "infra", "X: y")
    assert (question.suite, question.question_id, question.variant) == (
        "A2A-Color", "a2a-color-0000", "blank"
    )  # fmt: skip
    assert (question.termination, question.error, question.error_kind, question.failure_reason) == (
        "error", "X: y", "infra", "X: y"
    )  # fmt: skip
    assert (question.item, question.chosen_side, question.steps, question.max_steps) == (
        "a2a-color-0000", None, 0, 400
    )  # fmt: skip
    goal = error_record(Job(APPLE, "eval", 1, "p", 600), "policy", "X: y")
    assert (goal.suite, goal.task, goal.index, goal.seed, goal.variant) == (
        APPLE, "pick_the_apple_and_place_it_on_the_plate_0.bddl", 1, 1, "original"
    )  # fmt: skip
    assert (goal.question_id, goal.choices, goal.correct, goal.target, goal.chosen_option) == (
        "", 0, "", "", None
    )  # fmt: skip
    assert (goal.tier, goal.semantics, goal.objects, goal.failure_class) == (
        "A0", "vla_arena", None, "error"
    )  # fmt: skip
    assert (goal.error_kind, goal.failure_reason, goal.versions) == ("policy", "X: y", versions())
    row = json.loads(goal.to_json())
    assert GOAL_FIELDS - set(row) == {"objects", "objects_fingerprint"}


class _FailingStep:
    """A real goal environment whose simulator fails at the first step."""

    def __init__(self, env):
        self.env = env

    @property
    def unwrapped(self):
        return self.env.unwrapped

    def reset(self, **kwargs):
        return self.env.reset(**kwargs)

    def step(self, action):
        raise RuntimeError("the simulator went unstable")


def test_a_goal_rollouts_error_record_differs_from_the_workers_only_in_what_the_run_saw():
    """Seed 1 of the apple file, its simulator failing at the first step: the rollout's
    error record and the worker's for the same row agree but for what only a built
    environment knows (the objects, sim settings, the instruction), who ran (privileged)
    and the message."""
    env = task_env(APPLE, split="eval", cameras=())
    try:
        ran = run_goal_episode(_FailingStep(env), make_policy("expert"), 1, max_steps=600)
    finally:
        env.close()
    message = "InfraError: env.step failed: RuntimeError: the simulator went unstable"
    assert (ran.termination, ran.error, ran.failure_reason, ran.failure_class) == (
        "error", message, message, "error"
    )  # fmt: skip
    assert (ran.objects, ran.objects_fingerprint, ran.privileged) == ("standins", "", True)
    assert ran.instruction == "Pick the apple and place it on the plate"
    worker = json.loads(
        error_record(Job(APPLE, "eval", 1, "expert", 600), "infra", message).to_json()
    )
    rolled = json.loads(ran.to_json())
    differ = {k for k in rolled.keys() | worker.keys() if rolled.get(k) != worker.get(k)}
    assert differ == {
        "objects",
        "objects_fingerprint",
        "sim",
        "instruction",
        "privileged",
        "wall_s",
    }
