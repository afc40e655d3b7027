"""sample_episode: one episode per (suite, split, index, seed), every suite, exact rules."""

from __future__ import annotations

import re

import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE, TEN_CHOICE_COLOR
from rsb_mj.episodes import get_source, sample_episode
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.instructions import template_set_for
from rsb_mj.errors import EpisodeError
from rsb_mj.suites import SUITES

from .conftest import make_problem


def _suite_problem(name: str):
    suite = SUITES[name]
    return make_problem(suite.source, suite.choices, path=suite.task_file)


@pytest.mark.parametrize("name", list(SUITES))
@pytest.mark.parametrize("split", ["train", "eval"])
def test_every_suite_gives_a_valid_episode(name, split):
    suite = SUITES[name]
    episode = sample_episode(_suite_problem(name), suite=name, split=split, index=7, seed=11)
    assert (episode.suite, episode.split, episode.index, episode.seed) == (name, split, 7, 11)
    assert episode.task == suite.task_file
    assert episode.choices == suite.choices
    assert len(set(episode.options)) == suite.choices
    assert sorted(episode.mapping.values()) == sorted(episode.layout) == sorted(episode.colors)
    expected_set = "unseen" if split == "eval" else "seen"
    assert episode.template_id.startswith(f"{expected_set}-{suite.choices}-")
    assert episode.question in episode.instruction
    answer = episode.options[episode.letters.index(episode.correct)]
    if suite.choices == 10:
        assert set(episode.colors.values()) == {TEN_CHOICE_COLOR}
        assert "(A) " + episode.options[0] + " (B) " in episode.instruction
    else:
        assert len(set(episode.colors.values())) == 4
        assert set(episode.colors.values()) <= set(PALETTE)
        for letter, obj in episode.mapping.items():
            assert f"{letter} is the {episode.colors[obj]} block" in episode.instruction
    assert answer in episode.options


def test_same_seed_same_episode_and_row_round_trip():
    problem = _suite_problem("RSB-General-4")
    a = sample_episode(problem, suite="RSB-General-4", split="eval", index=0, seed=5)
    b = sample_episode(problem, suite="RSB-General-4", split="eval", index=0, seed=5)
    assert a == b
    assert Episode.from_dict(a.to_dict()) == a
    c = sample_episode(problem, suite="RSB-General-4", split="eval", index=0, seed=6)
    assert c != a


def test_index_does_not_change_the_draws():
    problem = _suite_problem("RSB-Math-10")
    a = sample_episode(problem, suite="RSB-Math-10", split="eval", index=0, seed=9)
    b = sample_episode(problem, suite="RSB-Math-10", split="eval", index=3, seed=9)
    assert a.to_dict() | {"index": 0} == b.to_dict() | {"index": 0}


def test_math_eval_episode_is_exact_for_a_known_seed():
    episode = sample_episode(
        _suite_problem("RSB-Math-4"), suite="RSB-Math-4", split="eval", index=0, seed=3
    )
    assert episode.question_id == "arith-mul-2-26"
    assert episode.question == "what is 2 times 26?"
    assert episode.options == ("52", "54", "60", "64")  # multiples of 2: 2 x (26, 27, 30, 32)
    assert episode.correct == "A"


def test_layout_is_rounded_and_inside_the_candidate_region():
    episode = sample_episode(
        _suite_problem("RSB-Math-10"), suite="RSB-Math-10", split="train", index=0, seed=1
    )
    for pose in episode.layout.values():
        assert -0.30 <= pose.x <= 0.30 and -0.14 <= pose.y <= 0.04
        assert pose.x == round(pose.x, 6) and pose.yaw == round(pose.yaw, 6)
        assert -0.3 <= pose.yaw <= 0.3


def test_beyond_blocks_uses_the_category_noun():
    problem = make_problem("arithmetic", 4, category="can")
    episode = sample_episode(problem, suite="", split="eval", index=0, seed=2)
    assert re.search(r"A is the \w+ can\b", episode.instruction)


def test_the_instruction_block_selects_the_templates_and_override_wins():
    problem = make_problem("arithmetic", 4, templates="unseen")
    assert template_set_for(problem, "train") == "unseen"
    assert template_set_for(problem, "eval", "seen") == "seen"
    for suite in ("", "RSB-Math-4"):  # a suite run obeys the block too
        episode = sample_episode(problem, suite=suite, split="train", index=0, seed=4)
        assert episode.template_id.startswith("unseen-4-")
    per_split = make_problem("arithmetic", 4)
    assert template_set_for(per_split, "train") == "seen"
    assert template_set_for(per_split, "eval") == "unseen"


def test_candidate_count_must_match_choices():
    problem = make_problem("arithmetic", 4)
    broken = make_problem("arithmetic", 10)
    broken = type(broken)(**{**broken.__dict__, "question": problem.question})
    with pytest.raises(EpisodeError, match="10 candidates for 4 choices"):
        sample_episode(broken, suite="", split="eval", index=0, seed=0)


def test_mmlu_source_refuses_ten_choices():
    with pytest.raises(EpisodeError, match="'mmlu' cannot make 10 options; valid choices: 2, 3, 4"):
        sample_episode(make_problem("mmlu", 10), suite="", split="eval", index=0, seed=0)


def test_unknown_split_and_source_name_the_valid_choices():
    with pytest.raises(EpisodeError, match="unknown split 'test'; valid choices: train, eval"):
        sample_episode(make_problem(), suite="", split="test", index=0, seed=0)
    with pytest.raises(EpisodeError, match="unknown question source 'trivia'; valid choices"):
        sample_episode(make_problem("trivia"), suite="", split="eval", index=0, seed=0)


def test_letters_of_ten_choices_skip_j():
    episode = sample_episode(
        _suite_problem("RSB-HardMath-10"), suite="RSB-HardMath-10", split="eval", index=0, seed=0
    )
    assert episode.letters == LETTERS[10]
    assert "(J)" not in episode.instruction and "(K) " in episode.instruction


def test_sentence_stems_get_a_blank_in_the_instruction():
    from rsb_mj.episodes.instructions import display_text

    assert display_text("The issue above was") == "The issue above was ___."
    assert display_text("what is 2 times 3?") == "what is 2 times 3?"
    assert display_text("Fill in: ____") == "Fill in: ____"


def test_a_task_file_can_name_mmlu_for_four_choices():
    episode = sample_episode(make_problem("mmlu", 4), suite="", split="eval", index=0, seed=8)
    assert episode.question_id.startswith("mmlu-") and episode.extra == {"source": "mmlu"}
    original = get_source("mmlu").get(episode.question_id)
    assert sorted(episode.options) == sorted((original.answer, *original.distractors))
    assert episode.options[episode.letters.index(episode.correct)] == original.answer


@pytest.mark.parametrize("name", ["RSB-Math-4", "RSB-General-10"])
def test_a_level_draws_its_base_episode_then_the_distractors(name):
    from rsb_mj.lang import load_task
    from rsb_mj.suites import get_suite

    base, level = get_suite(name), get_suite(f"{name}-L1")
    for seed in (1, 2, 3):
        a = sample_episode(load_task(base.path), suite=base.name, split="eval", index=0, seed=seed)
        b = sample_episode(
            load_task(level.path), suite=level.name, split="eval", index=0, seed=seed
        )
        row_a, row_b = a.to_dict(), b.to_dict()
        assert (row_b.pop("suite"), row_b.pop("task")) == (level.name, level.task_file)
        distractors = row_b.pop("distractors")
        assert {k: v for k, v in row_a.items() if k not in ("suite", "task")} == row_b
        assert list(distractors) == ["can_1", "lemon_1", "toy_car_1"]
        assert {d["color"] for d in distractors.values()} <= set(PALETTE)


def test_a_color_that_is_a_candidates_noun_is_never_drawn():
    problem = make_problem("arithmetic", 6, category="orange")
    colors = set()
    for seed in range(30):
        episode = sample_episode(problem, suite="", split="eval", index=0, seed=seed)
        colors |= set(episode.colors.values())
        assert "orange orange" not in episode.instruction
    assert "orange" not in colors and len(colors) == 7


def test_an_act2answer_free_draw_is_the_samplers_draw_with_answers_on_the_plates():
    """No family branch: question, options, mapping, template and layout come from the one
    draw order; the plates show the options' pictures and share one color."""
    from rsb_mj.lang import load_task
    from rsb_mj.suites import get_suite

    problem = load_task(get_suite("A2A-Color").path)
    episode = sample_episode(problem, suite="A2A-Color", split="eval", index=3, seed=5)
    assert episode == sample_episode(problem, suite="A2A-Color", split="eval", index=3, seed=5)
    item = get_source("a2a_color").get(episode.question_id)
    assert item in get_source("a2a_color").pool("eval")
    assert sorted(episode.options) == sorted((item.answer, *item.distractors))
    assert episode.colors == {"plate_a": TEN_CHOICE_COLOR, "plate_b": TEN_CHOICE_COLOR}
    assert re.fullmatch(r"a2a-unseen-picture-0[0-2]", episode.template_id)
    assert item.text in episode.instruction and "options" not in episode.instruction
    assert list(episode.extra) == ["source", "category", "item", "plates"]
    assert episode.extra["plates"] == {
        letter: item.display_of(episode.options[k]) for k, letter in enumerate("AB")
    }
    assert episode.distractors == {}  # the cube is the goal's mover, not a distractor
    for plate, pose in episode.layout.items():  # plates near the centres of their regions
        centre = -0.11 if plate == "plate_a" else 0.11
        assert abs(pose.x - centre) <= 0.0025 and abs(pose.y - 0.12) <= 0.0025
    train = sample_episode(problem, suite="A2A-Color", split="train", index=0, seed=5)
    assert train.template_id.startswith("a2a-seen-picture-")


def test_an_act2answer_question_reads_as_a_sentence_and_a_target_as_written():
    """Issue 24, item 4: a question that ends without punctuation gets the blank before the
    instruction goes on (as every question does); target descriptions are not sentences."""
    from rsb_mj.episodes.instructions import display_text
    from rsb_mj.lang import load_task
    from rsb_mj.suites import get_suite

    problem = load_task(get_suite("A2A-Quantitative").path)
    stems = 0
    for seed in range(40):
        episode = sample_episode(
            problem, suite="A2A-Quantitative", split="eval", index=0, seed=seed
        )
        written = get_source("a2a_quantitative").get(episode.question_id).text
        assert episode.question == display_text(written) and episode.question in episode.instruction
        stems += episode.question != written
    assert stems > 0
    problem = load_task(get_suite("A2A-Color").path)
    episode = sample_episode(problem, suite="A2A-Color", split="eval", index=0, seed=1)
    assert episode.question == get_source("a2a_color").get(episode.question_id).text
    assert "___" not in episode.instruction


def test_answer_showing_candidates_need_pictures_from_their_source(tmp_path):
    from rsb_mj.lang import parse_text

    text = (get_suite_path("A2A-Color")).read_text().replace("a2a_color", "arithmetic")
    problem = parse_text(text, str(tmp_path / "plates_arithmetic.bddl"))
    with pytest.raises(EpisodeError, match=r"the candidates show their answers, but question"):
        sample_episode(problem, suite="", split="eval", index=0, seed=0)


def get_suite_path(name):
    from rsb_mj.suites import get_suite

    return get_suite(name).path
