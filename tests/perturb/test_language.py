"""Language perturbations W0-W4 (rsb_mj/perturb/language.py) and the shipped synonym table."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.templates import option_list, template_by_id
from rsb_mj.errors import EpisodeError
from rsb_mj.lang import load_task
from rsb_mj.lang.layout import Pose2D
from rsb_mj.perturb.language import (
    command_slots,
    goal_slots,
    perturb_goal_instruction,
    perturb_instruction,
    synonym_table,
)
from rsb_mj.resources import assets_dir, tasks_dir
from rsb_mj.splits import SPLITS
from rsb_mj.suites import SUITES

REPO = Path(__file__).resolve().parents[2]
MATH4 = load_task(tasks_dir() / "rsb_math_4.bddl")
MATH10 = load_task(tasks_dir() / "rsb_math_10.bddl")
QUESTION = "what is 75 minus 65?"
OPTIONS = ("4", "7", "8", "10")
MAPPING = {"A": "block_d", "B": "block_a", "C": "block_c", "D": "block_b"}
COLORS = {"block_a": "green", "block_b": "purple", "block_c": "yellow", "block_d": "red"}
INSTRUCTION = (
    "A is the red block. B is the green block. C is the yellow block. D is the purple block. "
    "what is 75 minus 65? options: (A) 4 (B) 7 (C) 8 (D) 10. relocate the object of the true "
    "answer to the gray region on the table."
)


def math4_episode(seed: int = 2960763217, instruction: str = INSTRUCTION) -> Episode:
    """A 4-choice episode with template unseen-4-04 (its instruction written out)."""
    return Episode.bound(
        suite="RSB-Math-4", split="eval", index=0, seed=seed, task="rsb_math_4.bddl",
        question_id="arith-sub-75-65", question=QUESTION, options=OPTIONS, correct="D",
        mapping=MAPPING, colors=COLORS,
        layout={c: Pose2D(0.0, 0.0, 0.0) for c in COLORS},
        template_id="unseen-4-04", instruction=instruction,
    )  # fmt: skip


def math10_episode(seed: int = 7) -> Episode:
    """A 10-choice episode with template unseen-10-00."""
    letters = LETTERS[10]
    options = tuple(str(n) for n in range(10, 20))
    listed = option_list(options)
    instruction = (
        f"what is 9 plus 5? candidates: {listed}. deliver the object whose letter is correct to "
        "the gray target area."
    )
    blocks = [f"block_{x}" for x in "abcdefghik"]
    return Episode.bound(
        suite="RSB-Math-10", split="eval", index=0, seed=seed, task="rsb_math_10.bddl",
        question_id="arith-add-9-5", question="what is 9 plus 5?", options=options,
        correct="E", mapping=dict(zip(letters, blocks, strict=True)),
        colors=dict.fromkeys(blocks, "yellow"),
        layout={b: Pose2D(0.0, 0.0, 0.0) for b in blocks},
        template_id="unseen-10-00", instruction=instruction,
    )  # fmt: skip


def test_w0_is_the_episode_instruction_unchanged():
    text, record = perturb_instruction(math4_episode(), MATH4, 0)
    assert text == INSTRUCTION
    assert record == {"level": 0, "slots": 0, "substituted": 0, "substitutions": []}


def test_exact_substituted_instructions_for_a_fixed_seed():
    head = INSTRUCTION[: INSTRUCTION.index("relocate")]
    expected = {
        1: "relocate the object of the true answer to the grey region on the table.",
        2: "relocate the object of the true answer to the grayish region on the furniture.",
        3: "relocate the physical object of the true reply to the greyish region on the table.",
        4: "relocate the physical object of the true reply to the gray part on the piece of "
        "furniture.",
    }
    for level, tail in expected.items():
        text, record = perturb_instruction(math4_episode(), MATH4, level)
        assert text == head + tail
        assert record["slots"] == 6  # relocate object answer gray region table
        assert record["substituted"] == level
    _, record = perturb_instruction(math4_episode(), MATH4, 4)
    assert record["substitutions"] == [
        {"word": "object", "substitute": "physical object", "offset": 49},
        {"word": "answer", "substitute": "reply", "offset": 68},
        {"word": "region", "substitute": "part", "offset": 87},
        {"word": "table", "substitute": "piece of furniture", "offset": 101},
    ]


def test_ten_choice_substitutions_leave_question_and_options_alone():
    ep = math10_episode()
    text, record = perturb_instruction(ep, MATH10, 4)
    listed = option_list(ep.options)
    assert text.startswith(f"what is 9 plus 5? candidates: {listed}. ")
    assert record["substituted"] == 4 and record["slots"] == 7
    assert text == (
        f"what is 9 plus 5? candidates: {listed}. deliver the physical object whose grapheme is "
        "right to the grey target area."
    ), text


def test_same_seed_same_text_other_seeds_differ():
    texts = {perturb_instruction(math4_episode(seed=s), MATH4, 2)[0] for s in range(20)}
    again = {perturb_instruction(math4_episode(seed=s), MATH4, 2)[0] for s in range(20)}
    assert texts == again
    assert len(texts) >= 8


def test_fewer_slots_than_the_level_substitutes_them_all():
    # seen-4-15: "{MAPA}, {MAPB}, {MAPC}, {MAPD}. {Q} put the object of the correct option in
    # the gray answer zone." has 7 slots; a hand-made template with 2 shows the cap.
    from rsb_mj.episodes import templates

    template = template_by_id("unseen-4-04")
    short = templates.Template("x", "{MAPA}. {MAPB}. {MAPC}. {MAPD}. {Q} gray table.", "-", 1)
    assert [w for _, _, w in command_slots(short)] == ["gray", "table"]
    assert [w for _, _, w in command_slots(template)] == [
        "relocate", "object", "answer", "gray", "region", "table",
    ]  # fmt: skip


def test_question_options_and_mapping_are_byte_identical_on_every_table_row():
    """Every frozen row of every suite at W4: the filled {Q}/{OPTIONS}/{MAP*} values appear
    unchanged and in order, and only command words changed."""
    table = synonym_table()
    problems: dict[str, object] = {}
    rows = 0
    # The six suites' tables; a level's rows have its suite's instructions (rsb episodes check).
    paths = [tasks_dir() / "episodes" / f"{s}.{split}.jsonl" for s in SUITES for split in SPLITS]
    for path in sorted(paths):
        for line in path.read_text(encoding="utf-8").splitlines()[:100]:
            ep = Episode.from_dict(json.loads(line))
            if ep.task not in problems:
                problems[ep.task] = load_task(tasks_dir() / ep.task)
            problem = problems[ep.task]
            text, record = perturb_instruction(ep, problem, 4)
            rows += 1
            pieces = [ep.question, option_list(ep.options)]
            if ep.choices == 4:
                pieces += [f"{x} is the {ep.colors[ep.mapping[x]]} " for x in ep.letters]
            for piece in pieces:
                assert piece in text, (ep.suite, ep.index, piece)
            assert record["substituted"] == min(4, record["slots"])
            for sub in record["substitutions"]:
                assert sub["substitute"] in table[sub["word"]]
            if record["substituted"]:
                assert text != ep.instruction
    assert rows == 12 * 100


def test_an_instruction_not_made_from_its_template_is_refused():
    ep = math4_episode(instruction=INSTRUCTION.replace("relocate", "move"))
    with pytest.raises(EpisodeError, match=r"not template unseen-4-04 filled with its question"):
        perturb_instruction(ep, MATH4, 1)
    # W0 never needs to locate the command part
    assert perturb_instruction(ep, MATH4, 0)[0] == ep.instruction


@pytest.mark.parametrize("level", [-1, 5, 1.5, True, "2"])
def test_invalid_levels_are_refused(level):
    with pytest.raises(EpisodeError, match="language_level"):
        perturb_instruction(math4_episode(), MATH4, level)


def test_the_table_screens_colors_letters_and_the_words_themselves():
    table = synonym_table()
    assert len(table) == 41
    assert table["answer"] == ("reply",)  # the lemma shared by the noun and verb senses
    assert table["gray"] == ("grey", "greyish", "grayish")
    banned = set(PALETTE) | {x.lower() for x in LETTERS[10]}
    for word, subs in table.items():
        assert word not in subs
        assert not banned & set(subs), word
        assert all(re.fullmatch(r"[a-z' -]+", s) for s in subs), subs


def test_the_table_ships_with_wordnet_license():
    license_text = (assets_dir() / "wordnet" / "LICENSE").read_text(encoding="utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University." in license_text
    data = json.loads((assets_dir() / "wordnet" / "synonyms.json").read_text(encoding="utf-8"))
    assert data["source"].startswith("WordNet 3.0, Princeton University")
    # put.v.01: put, set, place, pose, position, lay
    assert data["words"]["place"]["senses"][0]["offset"] == "01494328"


@pytest.mark.skipif(
    not Path("/usr/share/wordnet/data.noun").is_file(),
    reason="the WordNet database is a build-time dependency: apt-get install -y wordnet-base",
)
def test_the_shipped_table_is_what_the_build_script_makes():
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_synonyms.py"), "--check"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "up to date" in result.stdout


# ---- goal tasks: the whole :language is the command -----------------------------------------


def test_goal_instruction_substitutes_verbs_and_phrases_not_objects_or_sides():
    """Goal table slots: "pick up" as one phrase, "put", "table"; never "right" (a side),
    object names or colours; a capitalised first word keeps its capital."""
    assert [w for _, _, w in goal_slots("Pick up the orange and put it in the box")] == [
        "pick up", "put",
    ]  # fmt: skip
    text = "Put the bowl on the right of the table"
    assert [w for _, _, w in goal_slots(text)] == ["put", "table"]
    out, record = perturb_goal_instruction(text, 1, 2)
    assert out == "Pose the bowl on the right of the furniture"
    assert (record["level"], record["slots"], record["substituted"]) == (2, 2, 2)
    assert record["substitutions"] == [
        {"word": "put", "substitute": "Pose", "offset": 0},
        {"word": "table", "substitute": "furniture", "offset": 33},
    ]


def test_goal_instruction_is_unchanged_at_w0_and_the_same_per_seed():
    text = "Pick up the orange and put it in the box"
    assert perturb_goal_instruction(text, 3, 0) == (
        text, {"level": 0, "slots": 0, "substituted": 0, "substitutions": []},
    )  # fmt: skip
    drawn = [perturb_goal_instruction(text, 3, k)[0] for k in range(1, 5)]
    assert drawn == [
        "Raise the orange and put it in the box",
        "Raise the orange and lay it in the box",
        "Elevate the orange and lay it in the box",
        "Lift up the orange and displace it in the box",
    ]
    assert drawn == [perturb_goal_instruction(text, 3, k)[0] for k in range(1, 5)]
    # two slots: level 4 substitutes two, as a short command does for question tasks
    assert perturb_goal_instruction(text, 3, 4)[1]["substituted"] == 2
    with pytest.raises(EpisodeError, match="valid choices: 0, 1, 2, 3, 4"):
        perturb_goal_instruction(text, 3, 5)


def test_every_shipped_goal_instruction_has_a_slot():
    """Each LIBERO / VLA-Arena :language of tasks/ has at least one word or phrase of the
    goal table (so W1 changes every goal instruction)."""
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import task_family, task_of

    empty = []
    for path in sorted((tasks_dir() / "vla_arena").rglob("*.bddl")) + sorted(
        (tasks_dir() / "libero").rglob("*.bddl")
    ):
        problem = parse_file(path)
        if task_family(problem) != "goal":
            continue
        instruction = task_of(problem, expect="goal").instruction
        if not goal_slots(instruction):
            empty.append(instruction)
    assert empty == []


@pytest.mark.skipif(
    not Path("/usr/share/wordnet/data.noun").is_file(),
    reason="the WordNet database is a build-time dependency: apt-get install -y wordnet-base",
)
def test_the_shipped_goal_table_is_what_the_build_script_makes():
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "build_synonyms.py"), "--goal", "--check"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "goal_synonyms.json: up to date" in result.stdout
