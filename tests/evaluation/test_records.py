"""Records: atomic appends, torn last lines, duplicates and malformed lines."""

import dataclasses
import json

import pytest

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import EpisodeRecord, append_record, read_records, repair

from .test_metrics import rec


def test_append_then_read_round_trips(tmp_path):
    path = tmp_path / "episodes.jsonl"
    a, b = (
        rec(0, grasped=True, success=True, choice_letter="A"),
        rec(1, grasped=False, success=False),
    )
    append_record(path, a)
    append_record(path, b)
    assert read_records(path) == [a, b]
    assert path.read_text().count("\n") == 2
    assert json.loads(path.read_text().splitlines()[0])["chosen_option"] == "A"


def test_a_torn_last_line_is_ignored_then_cut_off(tmp_path):
    path = tmp_path / "episodes.jsonl"
    append_record(path, rec(0, grasped=False, success=False))
    whole = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"suite": "RSB-Ma')  # killed mid-write
    assert len(read_records(path)) == 1
    assert repair(path) == len(b'{"suite": "RSB-Ma')
    assert path.read_bytes() == whole and repair(path) == 0
    append_record(path, rec(1, grasped=False, success=False))
    assert [r.index for r in read_records(path)] == [0, 1]


def test_duplicate_keys_keep_the_first_record(tmp_path):
    path = tmp_path / "episodes.jsonl"
    append_record(path, rec(0, grasped=True, success=True, choice_letter="A"))
    append_record(path, rec(0, grasped=False, success=False))
    assert [r.success for r in read_records(path)] == [True]


def test_a_later_scored_record_supersedes_an_error_but_never_the_reverse(tmp_path):
    path = tmp_path / "episodes.jsonl"
    append_record(path, rec(0, grasped=False, success=False, error="InfraError: timeout"))
    append_record(path, rec(1, grasped=False, success=False))
    assert [(r.index, r.is_error) for r in read_records(path)] == [(0, True), (1, False)]
    append_record(path, rec(0, grasped=True, success=True, choice_letter="A"))
    append_record(path, rec(0, grasped=False, success=False, error="InfraError: again"))
    assert [(r.index, r.success, r.is_error) for r in read_records(path)] == [
        (0, True, False),
        (1, False, False),
    ]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("index", "7", r"field 'index' is \"7\"; it must be int"),
        ("grasped", 1, r"field 'grasped' is 1; it must be bool"),
        ("choice", 3, r"field 'choice' is 3; it must be str or null"),
        ("in_zone", [1], r"field 'in_zone' is \[1\]; it must be list"),
    ],
)
def test_hand_edited_fields_of_the_wrong_type_are_named(field, value, message):
    row = json.loads(rec(0, grasped=False, success=False).to_json())
    row[field] = value
    with pytest.raises(EvalError, match=r"x:4: " + message):
        EpisodeRecord.from_dict(row, where="x:4")


def test_a_malformed_complete_line_names_file_and_line(tmp_path):
    path = tmp_path / "episodes.jsonl"
    append_record(path, rec(0, grasped=False, success=False))
    with open(path, "a") as fh:
        fh.write("garbage\n")
    with pytest.raises(EvalError, match=r"episodes.jsonl:2: not a JSON record"):
        read_records(path)


def test_missing_fields_are_named():
    with pytest.raises(EvalError, match=r"x:3: record lacks fields \['choice', "):
        EpisodeRecord.from_dict({k: 0 for k in ("suite", "split")}, where="x:3")


def test_cost_fields_round_trip_and_default_to_no_cost(tmp_path):
    path = tmp_path / "episodes.jsonl"
    plain = rec(0, grasped=False, success=False)
    assert (plain.cost, plain.cost_terms, plain.cost_implicit_and) == (None, {}, False)
    terms = {"1 (Fall block_a)": {"kind": "end", "violations": 1, "cost": 10.0}}
    costly = dataclasses.replace(
        rec(1, grasped=False, success=False), cost=13.0, cost_terms=terms, cost_implicit_and=True
    )
    append_record(path, plain)
    append_record(path, costly)
    assert read_records(path) == [plain, costly]
    row = json.loads(path.read_text().splitlines()[1])
    assert (row["cost"], row["cost_terms"], row["cost_implicit_and"]) == (13.0, terms, True)


def test_a_record_without_cost_fields_still_reads():
    row = json.loads(rec(0, grasped=False, success=False).to_json())
    for key in ("cost", "cost_terms", "cost_implicit_and"):
        del row[key]
    assert EpisodeRecord.from_dict(row).cost is None


def test_goal_fields_are_absent_from_a_question_record_and_round_trip_on_a_goal_one(tmp_path):
    """A question task's line has no goal keys (its bytes are those of before goal tasks
    ran through the runner); a goal record's fields come back as written."""
    from rsb_mj.evaluation.records import GOAL_FIELDS

    path = tmp_path / "episodes.jsonl"
    question = rec(0, grasped=False, success=False)
    goal = dataclasses.replace(
        rec(1, grasped=False, success=True),
        tier="A1",
        semantics="libero",
        objects="standins",
        objects_fingerprint="",
        failure_class="",
    )
    append_record(path, question)
    append_record(path, goal)
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    assert not set(GOAL_FIELDS) & set(first)
    assert {k: second[k] for k in GOAL_FIELDS} == {
        "tier": "A1", "semantics": "libero", "objects": "standins", "objects_fingerprint": "",
        "failure_class": "",
    }  # fmt: skip
    assert read_records(path) == [question, goal]
    assert (question.is_goal, goal.is_goal) == (False, True)
