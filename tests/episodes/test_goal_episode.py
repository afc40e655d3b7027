"""GoalEpisode: a goal-task row as a value, read back bit for bit."""

from __future__ import annotations

import json

import pytest

from rsb_mj.episodes.goal_episode import GoalEpisode
from rsb_mj.errors import EpisodeError

ROW = GoalEpisode(
    "vla-arena",
    "eval",
    "vla_arena/a/level_0/x.bddl",
    2,
    3,
    1,
    {"apple_1": (0.1 + 0.2, -1 / 3, 0.8249619007110596, -2.9707963267948965)},
    (2,),
)


def test_a_row_reads_back_bit_for_bit():
    line = ROW.dumps()
    back = GoalEpisode.from_dict(json.loads(line))
    assert back == ROW and back.layout["apple_1"][0] == 0.30000000000000004
    assert json.loads(line)["skipped"] == [2] and back.frozen


def test_a_bare_seed_has_no_layout_and_no_skipped_field():
    bare = GoalEpisode.seeded("my.bddl", 7)
    assert (bare.suite, bare.split, bare.index, bare.seed, bare.frozen) == ("", "eval", 7, 7, False)
    assert "skipped" not in bare.to_dict()
    assert bare.target == ROW.target == ""  # no candidate ?answer binds: no choice to pace


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"seed": -1}, "goal row field 'seed': a whole number >= 0, got -1"),
        ({"draw": "0"}, "goal row field 'draw': a whole number >= 0, got '0'"),
        ({"layout": {"apple_1": [0, 0, 0]}}, "'apple_1' is not [x, y, z, yaw] (4 numbers)"),
        ({"colour": "red"}, "goal row has unknown field(s) colour"),
        ({"skipped": "1"}, "goal row field 'skipped': a list of seeds"),
        ({"instruction": 3}, "goal row field 'instruction': a string or absent"),
        ({"variant": None}, "goal row field 'variant': a string or absent"),
    ],
)
def test_a_malformed_row_is_refused_naming_its_field(edit, message):
    row = {**ROW.to_dict(), **edit}
    with pytest.raises(EpisodeError) as info:
        GoalEpisode.from_dict(row)
    assert message in str(info.value)


def test_a_row_without_a_field_names_it():
    row = ROW.to_dict()
    del row["task"], row["layout"]
    with pytest.raises(EpisodeError, match=r"^goal row lacks the field\(s\) task, layout$"):
        GoalEpisode.from_dict(row)


def test_an_ablated_episode_carries_its_instruction_and_variant_a_table_row_has_neither():
    assert "instruction" not in ROW.to_dict() and "variant" not in ROW.to_dict()
    assert (ROW.instruction, ROW.variant) == (None, "original")
    blank = GoalEpisode("", "eval", "my.bddl", 4, 4, instruction="", variant="blank")
    row = blank.to_dict()
    assert (row["instruction"], row["variant"]) == ("", "blank")
    assert GoalEpisode.from_dict(json.loads(blank.dumps())) == blank
