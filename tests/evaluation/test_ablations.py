"""Instruction ablations and counterfactual twins on fixed frozen rows (exact texts)."""

import dataclasses

import numpy as np
import pytest

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.ablations import (
    GOAL_INSTRUCTION_MODES,
    INSTRUCTION_MODES,
    ablate,
    command_part,
    counterfactual_twin,
    goal_vocabulary,
    vocabulary,
    without_mapping,
)
from rsb_mj.lang import load_task
from rsb_mj.lang.parser import parse_file
from rsb_mj.resources import tasks_dir
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode


@pytest.fixture(scope="module")
def math4():
    return load_task(get_suite("RSB-Math-4").path)


@pytest.fixture(scope="module")
def math10():
    return load_task(get_suite("RSB-Math-10").path)


def test_command_part_keeps_the_command_and_drops_every_placeholder():
    assert command_part("{Q} options: {OPTIONS}. place the correct block in the gray zone.") == (
        "place the correct block in the gray zone."
    )
    assert command_part("read the question first. {Q} {OPTIONS}. set it down in the zone.") == (
        "read the question first. set it down in the zone."
    )
    assert command_part("{Q} ({OPTIONS}) place the object of the answer in the zone.") == (
        "place the object of the answer in the zone."
    )


def test_without_mapping_removes_the_list_with_its_punctuation():
    assert without_mapping("{Q} {MAPA}, {MAPB}, {MAPC}, and {MAPD}. place it in the zone.") == (
        "{Q}. place it in the zone."
    )
    assert without_mapping("{MAPA}. {MAPB}. {MAPC}. {MAPD}. {Q} put it in the zone.") == (
        "{Q} put it in the zone."
    )
    assert without_mapping("{Q} ({MAPA}, {MAPB}, {MAPC}, {MAPD}) place it.") == "{Q} place it."


def _question_part(episode):
    return episode.instruction[episode.instruction.index(episode.question) :].split(". ")[0]


def test_each_mode_on_a_fixed_row(math4):
    ep = load_episode("RSB-Math-4", "eval", 0)
    assert ablate(ep, math4, "original") is ep
    blank = ablate(ep, math4, "blank")
    assert (blank.instruction, blank.extra["variant"]) == ("", "blank")
    tokens = ablate(ep, math4, "tokens")
    assert len(tokens.instruction.split()) == len(ep.instruction.split())
    assert set(tokens.instruction.split()) <= set(vocabulary())
    assert ablate(ep, math4, "tokens") == tokens  # seeded: same row, same words
    command = ablate(ep, math4, "command-only").instruction
    assert ep.question not in command and "block" not in command
    assert ep.instruction.endswith(command)
    nomap = ablate(ep, math4, "no-mapping").instruction
    assert " is the " not in nomap and ep.question in nomap
    for mode in INSTRUCTION_MODES:  # the scene and the answer's candidate never change
        out = ablate(ep, math4, mode)
        assert (out.layout, out.colors, out.target) == (ep.layout, ep.colors, ep.target)


def test_shuffled_options_relabel_every_option_and_keep_each_options_candidate(math4):
    ep = load_episode("RSB-Math-4", "eval", 3)
    out = ablate(ep, math4, "shuffled-options")
    assert out.target == ep.target and out.correct != ep.correct
    text_to_candidate = {t: ep.mapping[ep.letters[i]] for i, t in enumerate(ep.options)}
    assert {t: out.mapping[out.letters[i]] for i, t in enumerate(out.options)} == (
        text_to_candidate
    )
    assert all(a != b for a, b in zip(ep.options, out.options, strict=True))  # a derangement
    assert out.options[out.letters.index(out.correct)] == ep.options[ep.letters.index(ep.correct)]
    for letter in out.letters:
        text = out.options[out.letters.index(letter)]
        assert f"({letter}) {text}" in out.instruction


def test_no_mapping_is_refused_where_the_instruction_states_no_mapping(math10):
    ep = load_episode("RSB-Math-10", "eval", 0)
    with pytest.raises(EvalError, match=r"RSB-Math-10 instructions do not state the option"):
        ablate(ep, math10, "no-mapping")
    with pytest.raises(EvalError, match=r"unknown instruction mode 'loud'; valid choices: orig"):
        ablate(ep, math10, "loud")


@pytest.mark.parametrize("suite", ["RSB-Math-4", "RSB-General-10"])
def test_a_counterfactual_twin_keeps_the_scene_and_moves_the_answer(suite):
    from rsb_mj.env import RsbEnv
    from rsb_mj.tables.families import load_table

    problem = load_task(get_suite(suite).path)
    rows = tuple(load_table(suite, "eval"))
    ep = rows[5]
    twin = counterfactual_twin(ep, problem, rows)
    row = rows[twin.extra["question_row"]]
    assert twin.extra["counterfactual_of"] == 5 and twin.extra["question_row"] > 5
    assert (twin.question_id, twin.options, twin.correct) == (
        row.question_id,
        row.options,
        row.correct,
    )
    assert twin.target != ep.target and twin.target == ep.mapping[row.correct]
    assert (twin.layout, twin.colors, twin.mapping, twin.template_id, twin.seed) == (
        ep.layout,
        ep.colors,
        ep.mapping,
        ep.template_id,
        ep.seed,
    )
    assert row.question in twin.instruction and ep.question not in twin.instruction
    env = RsbEnv(get_suite(suite).path, suite=suite, cameras=("head",))
    try:
        first, _ = env.reset(options={"episode": ep})
        state = env.data.qpos.copy()
        second, _ = env.reset(options={"episode": twin})
        np.testing.assert_array_equal(env.data.qpos, state)  # identical scene bytes
        assert first["images"]["head"].tobytes() == second["images"]["head"].tobytes()
    finally:
        env.close()


def test_the_twin_rule_is_deterministic_and_needs_another_answer(math4):
    from rsb_mj.tables.families import load_table

    rows = tuple(load_table("RSB-Math-4", "eval"))
    assert counterfactual_twin(rows[7], math4, rows) == counterfactual_twin(rows[7], math4, rows)
    same = tuple(r.rebound(correct="A") for r in rows[:3])
    with pytest.raises(EvalError, match=r"no row with another correct option"):
        counterfactual_twin(same[0], math4, same)


GOAL_FILE = (
    "vla_arena/safety_dynamic_obstacles/level_0/pick_up_the_apple_and_put_it_on_the_bowl.bddl"
)


def test_a_goal_task_runs_blank_and_tokens_and_refuses_the_rest_saying_why():
    problem = parse_file(tasks_dir() / GOAL_FILE)
    assert problem.language.strip() == "Pick up the apple and put it on the bowl"
    row = load_episode(f"vla-arena::{GOAL_FILE}", "eval", 2)
    assert isinstance(row, Episode) and row.binding is None and row.frozen
    assert ablate(row, problem, "original") is row
    blank = ablate(row, problem, "blank")
    assert (blank.instruction, blank.variant) == ("", "blank")
    assert (blank.seed, blank.layout, blank.index) == (row.seed, row.layout, row.index)
    tokens = ablate(row, problem, "tokens")
    words = tokens.instruction.split()
    assert tokens.variant == "tokens" and len(words) == 10
    assert set(words) <= set(goal_vocabulary()) and tokens == ablate(row, problem, "tokens")
    assert ablate(dataclasses.replace(row, seed=row.seed + 1), problem, "tokens") != tokens
    vocab = goal_vocabulary()
    assert {"pick", "put", "bowl", "plate", "basket"} <= set(vocab) and vocab == tuple(
        sorted(vocab)
    )
    assert GOAL_INSTRUCTION_MODES == ("original", "blank", "tokens")
    for mode, why in (
        ("direct", "a goal task has no answer to state"),
        ("command-only", "a goal's :language is a command already"),
        ("shuffled-options", "a goal task has no options to shuffle"),
        ("no-mapping", "a goal task has no option->object mapping to remove"),
    ):
        with pytest.raises(EvalError) as info:
            ablate(row, problem, mode)
        message = str(info.value)
        assert message.startswith(f"instruction mode {mode}: {why}")
        assert message.endswith("; valid choices for goal tasks: original, blank, tokens")
