"""Seeded synthetic run directories that fill every section of ``rsb report``.

:func:`write_runs` writes two run folders whose records exercise the whole report: the six
suites and an L1 level with costs, an Act2Answer suite, an instruction ablation and
counterfactual twins, a policy that writes text, error records, and a second folder at
visual level V2 (so the perturbation-axis table appears). Every value is drawn from one
seeded generator: the same seed writes the same bytes. :func:`write_goal_run` writes a run
folder of goal tasks' records (two shipped VLA-Arena files run from their frozen rows).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.evaluation.failure import goal_failure_class
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.rollout import episode_record
from rsb_mj.evaluation.run_folder import RECORDS_FILE
from rsb_mj.scoring.outcome import Outcome
from rsb_mj.suites import SUITES

LETTERS = "ABCDEFGHIK"


def _record(
    rng: np.random.Generator,
    *,
    suite: str,
    index: int,
    policy: str,
    skill: float,
    choices: int,
    variant: str = "original",
    visual_level: int = 0,
    cost: bool = False,
    text: bool = False,
    error: bool = False,
    a2a: bool = False,
) -> EpisodeRecord:
    """One record: the policy grasps with probability 0.9 and picks the correct candidate
    with probability ``skill`` (else a uniformly random other one)."""
    letters = LETTERS[:choices]
    correct = letters[int(rng.integers(choices))]
    mapping = {letter: f"block_{letter.lower()}" for letter in letters}
    grasped = bool(rng.random() < 0.9)
    right = bool(rng.random() < skill)
    if grasped:
        others = [x for x in letters if x != correct]
        chosen = correct if right else others[int(rng.integers(len(others)))]
    else:
        chosen = None
    placed = grasped and chosen == correct and bool(rng.random() < 0.9)
    if error:
        termination = "error"
    elif placed:
        termination = "success"
    elif grasped and chosen != correct:
        termination = "wrong_choice"
    else:
        termination = "step_limit"
    if termination == "success":
        reason = None
    elif error:
        reason = "InfraError: env.step failed: RuntimeError: synthetic"
    elif termination == "wrong_choice":
        reason = f"grasped {mapping[chosen]} instead of {mapping[correct]}"
    elif grasped:
        reason = "target not released in the zone (in zone: none)"
    else:
        reason = "no grasp detected"
    if error:
        grasped, chosen, placed = False, None, False
    wrote = None
    if text and not error:
        wrote = f"The answer is {correct if rng.random() < 0.7 else letters[0]}."
    steps = int(rng.integers(40, 400))
    extra = {}
    if a2a:
        extra = {
            "item": f"color-{index // 2}",
            "layout": ("original", "swapped")[index % 2],
            "category": "color",
            "chosen_side": None if chosen is None else ("left" if chosen == "A" else "right"),
        }
    return EpisodeRecord(
        suite=suite,
        split="eval",
        index=index,
        seed=1000 + index,
        policy=policy,
        task="t.bddl",
        question_id=f"q-{index}",
        template_id="unseen-00",
        choices=choices,
        correct=correct,
        target=mapping[correct],
        choice=None if chosen is None else mapping[chosen],
        chosen_option=chosen,
        grasped_candidates=[] if chosen is None else [mapping[chosen]],
        in_zone=[mapping[correct]] if placed else [],
        grasp_step=int(rng.integers(20, 40)) if grasped else None,
        success_step=steps if placed else None,
        grasped=grasped,
        correct_choice=bool(grasped and chosen == correct),
        success=placed,
        goal_final=placed,
        termination=termination,
        steps=0 if error else steps,
        max_steps=400,
        wall_s=0.5,
        privileged=policy == "expert",
        variant=variant,
        text=wrote,
        text_choice=wrote[-2] if wrote else None,
        error=reason if error else None,
        error_kind="infra" if error else None,
        failure_reason=reason,
        versions={"rsb_mj": "0.1.0", "mujoco": "3.8.1"},
        sim={
            "quality": "fast",
            "control_hz": 20,
            "mujoco": "3.8.1",
            "perturbation": {"visual_level": visual_level, "language_level": 0},
        },
        cost=float(rng.integers(0, 30)) if cost and not error else None,
        instruction=f"what is {index} plus 1? {' '.join(f'{x} is {mapping[x]}.' for x in letters)}",
        **extra,
    )


POLICIES = {"expert": 0.98, "random-grasp": None, "talker": 0.6}


def records_of(
    rng: np.random.Generator,
    *,
    episodes: int,
    suites: tuple[str, ...] = (*SUITES, "RSB-Math-4-L1", "A2A-Color"),
    policies: tuple[str, ...] = ("expert", "random-grasp", "talker"),
    visual_level: int = 0,
    variants: tuple[str, ...] = ("original", "blank", "counterfactual"),
) -> list[EpisodeRecord]:
    """Records of every (suite, row, policy, variant), ordered like a run's."""
    out = []
    for suite in suites:
        a2a = suite.startswith("A2A-")
        choices = 2 if a2a else (10 if suite.split("-")[2].startswith("10") else 4)
        for index in range(episodes):
            for policy in policies:
                skill = POLICIES.get(policy) or 1 / choices
                for variant in variants:
                    if variant != "original" and (a2a or suite.endswith("-L1")):
                        continue
                    worse = skill if variant == "original" else 1 / choices
                    out.append(
                        _record(
                            rng,
                            suite=suite,
                            index=index,
                            policy=policy,
                            skill=worse,
                            choices=choices,
                            variant=variant,
                            visual_level=visual_level,
                            cost=suite.endswith("-L1"),
                            text=policy == "talker",
                            error=index == 1 and policy == "talker" and variant == "original",
                            a2a=a2a,
                        )
                    )
    return out


def write_runs(root: Path, *, episodes: int = 6, seed: int = 0) -> list[Path]:
    """Two run folders under ``root`` (``base`` at V0, ``v2`` at V2); returns them."""
    rng = np.random.default_rng(seed)
    base, v2 = root / "base", root / "v2"
    for folder, records in (
        (base, records_of(rng, episodes=episodes)),
        (
            v2,
            records_of(
                rng,
                episodes=episodes,
                suites=("RSB-Math-4", "RSB-General-4"),
                policies=("random-grasp",),
                visual_level=2,
                variants=("original",),
            ),
        ),
    ):
        folder.mkdir(parents=True)
        text = "".join(r.to_json() + "\n" for r in records)
        (folder / RECORDS_FILE).write_text(text, encoding="utf-8")
    return [base, v2]


def many_records(n: int, seed: int = 0) -> list[EpisodeRecord]:
    """``n`` records (two policies on the six suites, original instructions) for load tests."""
    rng = np.random.default_rng(seed)
    per = -(-n // (len(SUITES) * 2))
    recs = records_of(rng, episodes=per, suites=SUITES, policies=("expert", "random-grasp"),
                      variants=("original",))  # fmt: skip
    return recs[:n]


def markdown_tables(text: str) -> dict[str, list[list[str]]]:
    """The tables of a Markdown report, keyed by the ``##`` or ``###`` heading above each
    (cells stripped of their padding)."""
    tables: dict[str, list[list[str]]] = {}
    heading = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("|") and heading is not None:
            cells = [c.strip() for c in line.strip()[1:-1].split(" | ")]
            if set(line) <= set("|-"):
                continue
            tables.setdefault(heading, []).append(cells)
    return tables


#: The goal files of :func:`write_goal_run`: (row source, :cost or not).
GOAL_FILES = (
    ("vla-arena::vla_arena/safety_dynamic_obstacles/level_0/"
     "pick_up_the_apple_and_put_it_on_the_bowl.bddl", True),
    ("vla-arena::vla_arena/robustness_static_distractors/level_1/"
     "pick_the_apple_on_the_table_and_place_it_on_the_plate.bddl", False),
)  # fmt: skip
#: Per row index: termination and failure reason of the expert's goal episodes.
GOAL_OUTCOMES = (
    ("success", None),
    ("step_limit", "expert: lift: object 'apple_1' not held: it rose 3 mm"),
    ("step_limit", "goal not held (On apple_1 bowl_1: False)"),
    ("error", "InfraError: env.step failed: RuntimeError: synthetic"),
)


def goal_records() -> list[EpisodeRecord]:
    """The expert's records of rows 0-3 of :data:`GOAL_FILES`, as the rollout writes them:
    a success, a grasp and a placement failure, an error record; a file's cost where it
    has one."""
    out = []
    for source, has_cost in GOAL_FILES:
        for index, (termination, reason) in enumerate(GOAL_OUTCOMES):
            success = termination == "success"
            outcome = Outcome(success=success, success_step=90 if success else None,
                              goal_final=success)  # fmt: skip
            error = reason if termination == "error" else None
            record = episode_record(
                Episode("vla-arena", "eval", index, 10 + index, source), "expert", outcome,
                termination, 0 if error else 100 + index, 600, error=error,
                error_kind="infra" if error else None, privileged=True, reason=reason,
                goal={"tier": "A0", "semantics": "vla_arena", "objects": "standins",
                      "objects_fingerprint": ""},
            )  # fmt: skip
            cost = float(index) if has_cost and not error else None
            terms = {"1 (InContact apple_1 mickey_1)": {"kind": "step", "violations": index,
                                                         "cost": float(index)}}  # fmt: skip
            out.append(
                dataclasses.replace(
                    record, cost=cost, cost_terms=terms if cost is not None else {},
                    instruction=f"Pick up the apple ({index})", wall_s=1.5,
                    failure_class=goal_failure_class(reason, policy="expert",
                                                     termination=termination),
                )
            )  # fmt: skip
    return out


def write_goal_run(folder: Path) -> Path:
    """A run folder of :func:`goal_records`; returns it."""
    folder.mkdir(parents=True)
    (folder / RECORDS_FILE).write_text("".join(r.to_json() + "\n" for r in goal_records()))
    return folder
