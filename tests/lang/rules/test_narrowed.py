"""RSB458 on real task files and the real question data: a narrowed source that leaves a split
empty is flagged at its ``(:source ...)`` form, the runtime agrees (sampling that split
fails), and the minimally widened file lints clean and draws episodes of both splits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.episodes import sample_episode
from rsb_mj.errors import EpisodeError
from rsb_mj.lang import lint_file, parse_file
from rsb_mj.lang.rules import RULES

ROOT = Path(__file__).resolve().parents[3]
TASKS = ROOT / "tasks"

HARDMATH_10 = ("rsb_hardmath_10.bddl", "(:source gsm8k)")
GENERAL_4 = ("rsb_general_4.bddl", "(:source mmlu_pro)")
MATH_10 = ("rsb_math_10.bddl", "(:source arithmetic)")

#: (base file, flagged source, message, fix, the splits whose sampling fails and the runtime's
#: message, the minimally widened source).
FLAGGED = [
    pytest.param(
        HARDMATH_10,
        "(:source (gsm8k (:answer_range -100 -11)))",
        "(gsm8k (:answer_range -100 -11)) leaves no eval question at 10 choices (2 train, "
        "0 eval); gsm8k eval answers run from -10 to 2880000; (:answer_range -100 -10) keeps "
        "2 train and 1 eval",
        "(:source (gsm8k (:answer_range -100 -10)))",
        {"eval": "source (gsm8k (:answer_range -100 -11)): no eval questions are left"},
        "(:source (gsm8k (:answer_range -100 -10)))",
        id="empty-answer-range",
    ),
    pytest.param(
        HARDMATH_10,
        "(:source (gsm8k (:answer_range -1000000 -50)))",
        "(gsm8k (:answer_range -1000000 -50)) leaves no train or eval question at 10 choices "
        "(0 train, 0 eval); gsm8k train answers run from -47 to 192000000; gsm8k eval answers "
        "run from -10 to 2880000; (:answer_range -1000000 -10) keeps 2 train and 1 eval",
        "(:source (gsm8k (:answer_range -1000000 -10)))",
        {
            "train": "source (gsm8k (:answer_range -1000000 -50)): no train questions are left",
            "eval": "source (gsm8k (:answer_range -1000000 -50)): no eval questions are left",
        },
        "(:source (gsm8k (:answer_range -1000000 -10)))",
        id="answer-range-empty-in-both-splits",
    ),
    pytest.param(
        GENERAL_4,
        "(:source (mmlu (:subject abstract_algebra)))",
        "(mmlu (:subject abstract_algebra)) leaves no train or eval question at 4 choices "
        "(0 train, 0 eval); subjects of the stem group with questions in both splits: "
        "astronomy, college_biology, college_chemistry, college_computer_science, "
        "college_physics, computer_security, conceptual_physics, electrical_engineering, "
        "high_school_biology, high_school_chemistry, high_school_computer_science, "
        "high_school_physics, machine_learning",
        None,
        {
            "train": "source (mmlu (:subject abstract_algebra)): no train questions are left",
            "eval": "source (mmlu (:subject abstract_algebra)): no eval questions are left",
        },
        "(:source (mmlu (:subject abstract_algebra astronomy)))",
        id="subject-not-in-the-pool",
    ),
    pytest.param(
        GENERAL_4,
        "(:source (mmlu (:subject moral_scenarios)))",
        "(mmlu (:subject moral_scenarios)) leaves no train question at 4 choices (0 train, "
        "69 eval); subjects of the humanities group with questions in both splits: "
        "formal_logic, high_school_european_history, high_school_us_history, "
        "high_school_world_history, international_law, jurisprudence, logical_fallacies, "
        "moral_disputes, philosophy, prehistory, professional_law, world_religions",
        None,
        {"train": "source (mmlu (:subject moral_scenarios)): no train questions are left"},
        "(:source (mmlu (:subject moral_scenarios moral_disputes)))",
        id="subject-without-train-questions",
    ),
    pytest.param(
        MATH_10,
        "(:source (arithmetic (:operators sub) (:operand_range 0 10)))",
        "(arithmetic (:operators sub) (:operand_range 0 10)) leaves no train or eval question "
        "at 10 choices (0 train, 0 eval); 1 distinct question cannot be split into train and "
        "eval; (:operand_range 0 11) gives 3",
        "(:source (arithmetic (:operators sub) (:operand_range 0 11)))",
        {
            split: "source (arithmetic (:operators sub) (:operand_range 0 10)): too few "
            "distinct questions to split"
            for split in ("train", "eval")
        },
        "(:source (arithmetic (:operators sub) (:operand_range 0 11)))",
        id="arithmetic-range-too-narrow-for-10-choices",
    ),
]


def _task(tmp_path: Path, base: tuple[str, str], source: str) -> Path:
    name, old = base
    text = (TASKS / name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, source, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("base", "source", "message", "fix", "fails", "widened"), FLAGGED)
def test_flagged_at_the_source_form_and_the_runtime_agrees(
    tmp_path, base, source, message, fix, fails, widened
):
    path = _task(tmp_path, base, source)
    found = [(d.code, d.span.line, d.span.column, d.message, d.fix) for d in lint_file(path)[1]]
    assert found == [("RSB458", 5, 14, message, fix)]
    problem = parse_file(path)
    for split in ("train", "eval"):
        if split in fails:
            with pytest.raises(EpisodeError) as caught:
                sample_episode(problem, suite="", split=split, index=0, seed=0)
            assert str(caught.value) == fails[split]
        else:
            assert sample_episode(problem, suite="", split=split, index=0, seed=0).question_id

    assert fix is None or fix == widened
    wide = _task(tmp_path, base, widened)
    assert lint_file(wide)[1] == []
    problem = parse_file(wide)
    for split in ("train", "eval"):
        for seed in range(3):
            episode = sample_episode(problem, suite="", split=split, index=seed, seed=seed)
            assert episode.correct in episode.mapping and len(episode.options) == len(
                episode.mapping
            )


def test_the_widened_answer_range_draws_only_answers_in_it(tmp_path):
    from rsb_mj.episodes.sources import get_source

    problem = parse_file(_task(tmp_path, HARDMATH_10, "(:source (gsm8k (:answer_range -100 -10)))"))
    drawn = {
        split: {
            sample_episode(problem, suite="", split=split, index=0, seed=s).question_id
            for s in range(6)
        }
        for split in ("train", "eval")
    }
    answers = {
        split: sorted(int(get_source("gsm8k").get(qid).answer) for qid in ids)
        for split, ids in drawn.items()
    }
    assert answers == {"train": [-47, -12], "eval": [-10]}
    assert all(qid.startswith("gsm8k-train-") for qid in drawn["train"])
    assert all(qid.startswith("gsm8k-test-") for qid in drawn["eval"])


def test_bad_parameters_are_left_to_rsb452_and_an_unfilled_count_to_rsb520(tmp_path):
    typo = _task(tmp_path, GENERAL_4, "(:source (mmlu (:subject moral_scenarioz)))")
    assert [d.code for d in lint_file(typo)[1]] == ["RSB452"]
    inverted = _task(tmp_path, HARDMATH_10, "(:source (gsm8k (:answer_range -11 -100)))")
    assert [d.code for d in lint_file(inverted)[1]] == ["RSB452"]
    ten = _task(tmp_path, ("rsb_general_10.bddl", "(:source mmlu_pro)"), "(:source (mmlu))")
    assert "RSB458" not in [d.code for d in lint_file(ten)[1]]
    ten = _task(
        tmp_path,
        ("rsb_general_10.bddl", "(:source mmlu_pro)"),
        "(:source (mmlu (:subject moral_scenarios)))",
    )
    assert [d.code for d in lint_file(ten)[1]] == ["RSB520"]


def test_a_bank_with_an_empty_split_is_rsb453_and_the_runtime_agrees(tmp_path):
    rows = [
        {"question": f"Which is {i}?", "options": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"]}
        | {"answer": f"{i}a", "split": "train"}
        for i in range(5)  # 5: no RSB459 for a small train split
    ]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    path = _task(tmp_path, GENERAL_4, '(:source (:file "q.jsonl"))')
    found = [(d.code, d.span.line, d.span.column, d.message) for d in lint_file(path)[1]]
    assert found == [
        ("RSB453", 5, 3, 'q.jsonl: no eval questions; add more, or give some a "split": "eval"')
    ]
    with pytest.raises(EpisodeError) as caught:
        sample_episode(parse_file(path), suite="", split="eval", index=0, seed=0)
    assert str(caught.value) == (
        f'{tmp_path / "q.jsonl"}: no eval questions; add more, or give some a "split": "eval"'
    )


def test_files_without_source_parameters_do_not_load_the_question_data():
    code = (
        "import sys\n"
        "from rsb_mj.lang import lint_file\n"
        f"assert lint_file({str(TASKS / 'rsb_hardmath_10.bddl')!r})[1] == []\n"
        "print(sorted(m for m in sys.modules if m.startswith('rsb_mj.episodes')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_the_rule_is_documented():
    rule = RULES["RSB458"]
    assert (rule.name, rule.severity) == ("empty-narrowed-source", "error")
    assert "moral_scenarios" in rule.doc and "(:answer_range -100 -10)" in rule.good
