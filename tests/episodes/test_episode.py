"""Episode value: validation and the table-row round trip, of both kinds of row."""

import json

import pytest

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.layout import Pose2D


def _episode(**kw):
    base = dict(
        suite="RSB-Math-4",
        split="eval",
        index=0,
        seed=7,
        task="rsb_math_4.bddl",
        question_id="arith-eval-0",
        question="what is 27 minus 17?",
        options=("4", "10", "11", "14"),
        correct="B",
        mapping={"A": "block_c", "B": "block_a", "C": "block_d", "D": "block_b"},
        colors={"block_a": "red", "block_b": "blue", "block_c": "green", "block_d": "yellow"},
        layout={n: Pose2D(0.1 * i, -0.05, 0.0) for i, n in enumerate("abcd")},
        template_id="unseen-4-00",
        instruction="what is 27 minus 17? ...",
    )
    base.update(kw)
    return Episode.bound(**base)


def test_round_trip_through_a_row_is_the_identity():
    ep = _episode()
    assert Episode.from_dict(ep.to_dict()) == ep
    assert ep.target == "block_a"
    assert ep.letters == ("A", "B", "C", "D")


def test_ten_choices_skip_j():
    with pytest.raises(EpisodeError, match="correct option 'J'; valid choices: A, B, C, D"):
        _episode(correct="J")


def test_unknown_row_field_is_named():
    row = _episode().to_dict()
    row["answer"] = "B"
    with pytest.raises(EpisodeError, match=r"unknown fields \['answer'\]"):
        Episode.from_dict(row)


def test_distractors_round_trip_and_are_absent_when_empty():
    from rsb_mj.episodes.episode import Distractor

    plain = _episode().to_dict()
    assert "distractors" not in plain
    ep = _episode(distractors={"can_1": Distractor(Pose2D(0.2, 0.15, -1.5), "red")})
    row = ep.to_dict()
    assert row["distractors"] == {"can_1": {"pose": [0.2, 0.15, -1.5], "color": "red"}}
    assert list(row)[-1] == "distractors"
    assert Episode.from_dict(row) == ep


def test_malformed_distractor_is_named():
    row = _episode().to_dict()
    row["distractors"] = {"can_1": {"pose": [0.2, 0.15]}}
    with pytest.raises(
        EpisodeError,
        match=r"distractor 'can_1' is \{'pose': \[0.2, 0.15\]\}; expected "
        r'\{"pose": \[x, y, yaw\], "color": NAME\}',
    ):
        Episode.from_dict(row)


# a goal task's episode: a seed and its layout, no binding (a goal suite's table row)
ROW = Episode(
    "vla-arena",
    "eval",
    2,
    3,
    "vla_arena/a/level_0/x.bddl",
    {"apple_1": (0.1 + 0.2, -1 / 3, 0.8249619007110596, -2.9707963267948965)},
    draw=1,
    skipped=(2,),
)


def test_a_goal_row_reads_back_bit_for_bit():
    line = ROW.dumps()
    back = Episode.from_dict(json.loads(line))
    assert back == ROW and back.layout["apple_1"][0] == 0.30000000000000004
    assert json.loads(line)["skipped"] == [2] and back.frozen


def test_a_tier_b_row_keeps_its_drawn_fixture_states_bit_for_bit():
    """A tier-B layout holds each drawn ``:init`` joint state as ``{joint}: [qpos]``."""
    import dataclasses

    row = dataclasses.replace(
        ROW, layout={**ROW.layout, "wooden_cabinet_1/top_level": (-0.14712345678901234,)}
    )
    back = Episode.from_dict(json.loads(row.dumps()))
    assert back == row and back.layout["wooden_cabinet_1/top_level"] == (-0.14712345678901234,)


def test_a_bare_seed_has_no_layout_and_no_skipped_field():
    bare = Episode.seeded("my.bddl", 7)
    assert (bare.suite, bare.split, bare.index, bare.seed, bare.frozen) == ("", "eval", 7, 7, False)
    assert "skipped" not in bare.to_dict()
    assert bare.target == ROW.target == ""  # no candidate ?answer binds: no choice to pace


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"seed": -1}, "goal row field 'seed': a whole number >= 0, got -1"),
        ({"draw": "0"}, "goal row field 'draw': a whole number >= 0, got '0'"),
        ({"layout": {"apple_1": [0, 0, 0]}}, "'apple_1' is not [x, y, z, yaw] (4 numbers)"),
        (
            {"layout": {"cab_1/top_level": [0, 0, 0, 0]}},
            "'cab_1/top_level' is not [qpos] (a fixture joint's state)",
        ),
        ({"colour": "red"}, "goal row has unknown field(s) colour"),
        ({"skipped": "1"}, "goal row field 'skipped': a list of seeds"),
        ({"instruction": 3}, "goal row field 'instruction': a string or absent"),
        ({"variant": None}, "goal row field 'variant': a string or absent"),
    ],
)
def test_a_malformed_row_is_refused_naming_its_field(edit, message):
    row = {**ROW.to_dict(), **edit}
    with pytest.raises(EpisodeError) as info:
        Episode.from_dict(row)
    assert message in str(info.value)


def test_a_row_without_a_field_names_it():
    row = ROW.to_dict()
    del row["task"], row["layout"]
    with pytest.raises(EpisodeError, match=r"^goal row lacks the field\(s\) task, layout$"):
        Episode.from_dict(row)


def test_an_ablated_episode_carries_its_instruction_and_variant_a_table_row_has_neither():
    assert "instruction" not in ROW.to_dict() and "variant" not in ROW.to_dict()
    assert (ROW.instruction, ROW.variant) == (None, "original")
    blank = Episode("", "eval", 4, 4, "my.bddl", instruction="", extra={"variant": "blank"})
    row = blank.to_dict()
    assert (row["instruction"], row["variant"]) == ("", "blank")
    assert Episode.from_dict(json.loads(blank.dumps())) == blank


def test_a_goal_row_has_no_binding_and_its_fields_say_so():
    assert ROW.binding is None and ROW.target == ""
    with pytest.raises(EpisodeError, match=r"x.bddl/eval/2: options is a question task's"):
        _ = ROW.options
    with pytest.raises(EpisodeError, match=r"rebound is a question task's"):
        ROW.rebound(correct="A")


def test_a_question_episode_is_a_seed_and_a_layout_plus_its_binding():
    e = _episode()
    assert e.binding is not None and e.binding.target == e.target == "block_a"
    assert (e.options, e.correct, e.mapping["B"]) == (e.binding.options, "B", "block_a")
    other = e.rebound(correct="C", instruction="x")
    assert (other.correct, other.target, other.instruction, other.seed) == ("C", "block_d", "x", 7)
    with pytest.raises(EpisodeError, match=r"correct option 'E'; valid choices: A, B, C, D"):
        e.rebound(correct="E")
