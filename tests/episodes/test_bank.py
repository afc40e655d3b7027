"""User question banks: schema, line-numbered problems, the hashed split, drawing episodes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rsb_mj.episodes.sources.bank import BankSource, hashed_split, read_bank
from rsb_mj.errors import EpisodeError


def _write(tmp_path, rows, name="questions.jsonl"):
    path = tmp_path / name
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _q(i, n=3, **extra):
    options = [f"opt{i}-{k}" for k in range(n)]
    return {"question": f"question number {i}?", "options": options, "answer": options[1], **extra}


def test_every_bad_line_is_reported_with_its_line_number(tmp_path):
    path = _write(
        tmp_path,
        [
            _q(1, split="train"),
            "# a comment",
            "{not json",
            {"question": "q?", "options": ["a", "b"]},
            {"question": "q2?", "options": ["a", "b"], "answer": "c"},
            {"question": "q3?", "options": ["a", "a"], "answer": "a"},
            {"question": "q4?", "options": ["a", "b"], "answer": "a", "split": "test"},
            {"question": "q5?", "answer": "Lima"},
            {"question": "Question number 1?", "options": ["x", "y"], "answer": "x"},
            {"question": "q6?", "options": ["a", "b"], "answer": "a", "level": 3},
            _q(7, split="eval"),
        ],
    )
    bank = read_bank(path)
    assert bank.problems == (
        (3, "not valid JSON: Expecting property name enclosed in double quotes (column 2)"),
        (4, "missing field 'answer'"),
        (5, "'answer' 'c' is not one of the options"),
        (6, "option 2 ('a') repeats option 1"),
        (7, "'split' is 'test'; valid choices: train, eval"),
        (
            8,
            "missing field 'options' (only a numeric answer may leave it out; 'Lima' is not a "
            "number)",
        ),
        (9, "the same question as line 1"),
        (10, "unknown field 'level'; valid fields: question, options, answer, subject, split, id"),
    )
    assert [q.qid for q in bank.questions] == ["file-questions-1", "file-questions-11"]
    with pytest.raises(EpisodeError, match=r"questions\.jsonl:3: not valid JSON"):
        BankSource(path)


def test_split_is_the_field_or_a_hash_of_the_text(tmp_path):
    rows = [_q(i) for i in range(60)]
    bank = read_bank(_write(tmp_path, rows))
    splits = [bank.splits[q.qid] for q in bank.questions]
    assert splits == [hashed_split(r["question"]) for r in rows]
    assert 10 <= splits.count("eval") <= 30  # about a third
    assert hashed_split("  Question   NUMBER 3? ") == hashed_split("question number 3?")
    # adding a question never moves another one
    more = read_bank(_write(tmp_path, [_q(99), *rows], "more.jsonl"))
    assert {q.text: more.splits[q.qid] for q in more.questions[1:]} == {
        q.text: bank.splits[q.qid] for q in bank.questions
    }


def test_a_bank_without_eval_questions_is_refused(tmp_path):
    bank = read_bank(_write(tmp_path, [_q(1, split="train"), _q(2, split="train")]))
    assert bank.problems == ((0, 'no eval questions; add more, or give some a "split": "eval"'),)


def test_numeric_answers_get_generated_options_and_ids_may_be_given(tmp_path):
    path = _write(
        tmp_path,
        [
            {"question": "How many legs has a spider?", "answer": "8", "id": "spider"},
            {"question": "q?", "options": ["a", "b", "c"], "answer": "b", "split": "eval"},
            {"question": "r?", "options": ["a", "b", "c"], "answer": "c", "split": "train"},
        ],
    )
    source = BankSource(path)
    spider = source.get("file-questions-spider")
    assert (spider.numeric, spider.answer, spider.distractors) == (True, "8", ())
    assert source.split_of("file-questions-3") == "train"
    assert source.pool("eval")[0].qid == "file-questions-2"
    question = source.draw("eval", np.random.default_rng(0))
    assert question.qid in {q.qid for q in source.pool("eval")}


def test_too_few_options_for_the_choice_count_name_the_line(tmp_path):
    path = _write(tmp_path, [_q(1, 6, split="train"), _q(2, 4, split="eval")])
    source = BankSource(path)
    source.check_choices(4)
    with pytest.raises(EpisodeError, match=r"questions\.jsonl:2: 4 options; the task's 6 choices"):
        source.check_choices(6)


def test_numeric_answers_out_of_range_are_problems_at_their_lines(tmp_path):
    path = _write(
        tmp_path,
        [
            _q(1, split="train"),
            {"question": "How many atoms?", "answer": "1e30", "split": "eval"},
            {"question": "How many more atoms?", "answer": 1e308, "split": "eval"},
            {"question": "How many legs?", "answer": "8", "split": "eval"},
        ],
    )
    limits = "a numeric answer has at most 15 digits before the point and 6 after it"
    assert read_bank(path).problems == (
        (2, f"answer '1e30' is out of range: {limits} (give it options to use another text)"),
        (3, f"answer '1e+308' is out of range: {limits} (give it options to use another text)"),
    )
    with pytest.raises(EpisodeError, match=r"questions\.jsonl:2: answer '1e30' is out of range"):
        BankSource(path)


def test_placeholders_in_question_and_option_texts_are_listed_with_line_and_column(tmp_path):
    rows = [
        _q(1, split="train"),
        {"question": "Is {MAPB} right?", "options": ["{Q}", "no"], "answer": "no"},
        {"question": "Is {x} in {1, 2} or \\mathbb{R}?", "options": ["a", "b"], "answer": "a"},
    ]
    path = _write(tmp_path, rows)
    line = json.dumps(rows[1])
    assert read_bank(path).placeholders == (
        (2, line.index("{MAPB}") + 1, "{MAPB}"),
        (2, line.index("{Q}") + 1, "{Q}"),
    )


def test_a_fifo_bank_is_not_a_regular_file_and_reading_it_does_not_block(tmp_path):
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "q.jsonl")
    code = (
        "from pathlib import Path\n"
        "from rsb_mj.episodes.sources.bank import read_bank\n"
        f"print(read_bank(Path({str(tmp_path / 'q.jsonl')!r})).problems)\n"
    )
    # in a child process: a reader that opened the FIFO would wait for a writer forever
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    message = f"question bank {tmp_path / 'q.jsonl'} is not a regular file (a FIFO)"
    assert run.stdout.strip() == repr(((0, message),))
