"""Text-only heuristics pick what they say on hand-built episodes."""

from rsb_mj.choices import LETTERS
from rsb_mj.episodes.episode import Episode
from rsb_mj.lang.layout import Pose2D
from rsb_mj.tables.heuristics import (
    BALANCED,
    HELD_OUT,
    numeric_rank,
    pick_closest_to_mean,
    pick_closest_to_midrange,
    pick_closest_to_question_number,
    pick_largest,
    pick_longest,
    pick_median,
    pick_most_isolated,
    pick_roundest,
    pick_similar_to_others,
    pick_smallest,
    pick_trigram_overlap,
    pick_word_overlap,
    target_position,
)


def make(question: str, options: tuple[str, ...], correct: str = "A") -> Episode:
    letters = LETTERS[len(options)]
    mapping = {letter: f"obj_{letter.lower()}" for letter in letters}
    layout = {
        obj: Pose2D(0.1 * (len(letters) - i), 0.0, 0.0) for i, obj in enumerate(mapping.values())
    }
    return Episode.bound(
        "",
        "eval",
        0,
        0,
        "t.bddl",
        "x-1",
        question,
        options,
        correct,
        mapping,
        dict.fromkeys(mapping.values(), "red"),
        layout,
        "seen-4-00",
        question,
    )


def test_numeric_heuristics():
    e = make("what is 27 minus 17?", ("4", "10", "11", "14"), "B")
    assert pick_median(e) == "B"
    assert pick_largest(e) == "D" and pick_smallest(e) == "A"
    assert pick_closest_to_question_number(e) == "D"  # 14 is 3 from 17
    assert pick_closest_to_mean(e) == "B"  # mean 9.75
    assert pick_most_isolated(e) == "A"  # 4 is 6 from 10
    assert pick_closest_to_midrange(e) == "B"  # midrange 9
    assert numeric_rank(e) == 1


def test_text_heuristics_and_abstaining():
    e = make("Which organ filters blood?", ("kidney", "the big heart", "lung", "skin"))
    assert pick_longest(e) == "B"
    assert pick_median(e) is None  # not numeric
    assert pick_word_overlap(e) is None  # no option shares a word: the feature says nothing
    e2 = make("which gas do plants take in?", ("carbon dioxide gas", "oxygen", "gas giant", "air"))
    assert pick_word_overlap(e2) == "A"  # "gas" (first of the tied best)
    assert pick_similar_to_others(e2) == "A"
    assert pick_trigram_overlap(e2) == "C"  # "gas", "as " and the "ant" of "plants"


def test_roundest_and_ties():
    assert pick_roundest(make("?", ("48", "50", "51", "53"))) == "B"
    assert pick_roundest(make("?", ("41", "43", "47", "49"))) is None


def test_target_position_is_left_to_right_in_x():
    e = make("?", ("1", "2", "3", "4"), "A")  # obj_a has the largest x: rightmost
    assert target_position(e) == 3


def test_the_issue_heuristics_are_all_balanced():
    required = {
        "median",
        "largest",
        "smallest",
        "longest",
        "word_overlap",
        "closest_to_question_number",
    }
    assert required <= set(BALANCED)
    assert not set(BALANCED) & set(HELD_OUT)
