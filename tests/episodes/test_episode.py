"""Episode value: validation and the table-row round trip."""

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
    return Episode(**base)


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
