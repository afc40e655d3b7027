"""RSB45x on real files: a question bank and a template file next to the task file."""

from __future__ import annotations

import json

from rsb_mj.cli import main
from rsb_mj.episodes import sample_episode
from rsb_mj.lang import lint_file, load_task
from tests.lang.lang_samples import BASE

BANK_TASK = BASE.replace(
    "(:source arithmetic) (:choices 4)", '(:source (:file "q.jsonl")) (:choices 3)'
)
for _old, _new in (
    ("block_a block_b block_c block_d - letter_block", "block_a block_b block_c - letter_block"),
    ("(:candidates block_a block_b block_c block_d)", "(:candidates block_a block_b block_c)"),
    ("\n    (On block_d table_candidates)", ""),
    ("(:templates seen)", '(:templates (:train seen) (:eval (:file "mine.txt")))'),
):
    BANK_TASK = BANK_TASK.replace(_old, _new)


def _bank(n_train=3, n_eval=2, options=3):
    rows = []
    for i in range(n_train + n_eval):
        opts = [f"answer {i}-{k}" for k in range(options)]
        split = "train" if i < n_train else "eval"
        rows.append(
            {"question": f"Which is right {i}?", "options": opts, "answer": opts[0], "split": split}
        )
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def _files(tmp_path, bank, templates="{Q} {MAPA}, {MAPB}, {MAPC}. put it in the gray zone.\n"):
    (tmp_path / "q.jsonl").write_text(bank, encoding="utf-8")
    (tmp_path / "mine.txt").write_text(templates, encoding="utf-8")
    task = tmp_path / "bank_3.bddl"
    task.write_text(BANK_TASK, encoding="utf-8")
    return task


def test_a_clean_bank_task_lints_clean_and_draws_from_its_files(tmp_path):
    task = _files(tmp_path, _bank(n_train=5, n_eval=5))
    assert lint_file(task)[1] == []
    problem = load_task(task)
    episode = sample_episode(problem, suite="", split="eval", index=0, seed=3)
    assert episode.question_id in {f"file-q-{n}" for n in range(6, 11)}
    assert episode.template_id == "mine-3-00"
    assert episode.instruction.endswith("put it in the gray zone.")
    train = sample_episode(problem, suite="", split="train", index=0, seed=3)
    assert train.template_id.startswith("seen-3-")
    assert train.question_id in {f"file-q-{n}" for n in range(1, 6)}


def test_a_split_of_fewer_than_five_questions_is_a_warning_with_the_counts(tmp_path):
    task = _files(tmp_path, _bank(n_train=12, n_eval=2))
    found = [(d.code, d.severity, d.path, d.span.line, d.message) for d in lint_file(task)[1]]
    assert found == [
        (
            "RSB459",
            "warning",
            str(task),
            4,
            "the eval split of q.jsonl holds 2 of its 14 questions: the 500 eval rows rsb eval "
            "draws ask only these, so at least 498 rows repeat a question; mark more questions "
            '"split": "eval" (at least 5)',
        )
    ]
    task = _files(tmp_path, _bank(n_train=1, n_eval=9))
    assert [(d.code, d.message.split(":")[0]) for d in lint_file(task)[1]] == [
        ("RSB459", "the train split of q.jsonl holds 1 of its 10 questions")
    ]
    assert "at least 999 rows repeat" in lint_file(task)[1][0].message


def test_bank_problems_point_at_their_lines(tmp_path):
    bank = _bank() + '{"question": "bad?", "options": ["a"], "answer": "a"}\n'
    task = _files(tmp_path, bank.replace('"answer 1-2"]', '"answer 1-1"]', 1))
    found = [
        (d.code, d.path.rsplit("/", 1)[-1], d.span.line, d.message)
        for d in lint_file(task)[1]
        if d.code == "RSB453"  # (and RSB459: 3 train, 2 eval questions)
    ]
    assert found == [
        ("RSB453", "q.jsonl", 2, "option 3 ('answer 1-1') repeats option 2"),
        ("RSB453", "q.jsonl", 6, "'options' needs at least 2 options"),
    ]


def test_too_few_options_and_template_lines_are_reported_in_their_files(tmp_path):
    bank = _bank(n_train=5, n_eval=5) + json.dumps(
        {"question": "Short?", "options": ["a", "b"], "answer": "a", "split": "train"}
    )
    task = _files(tmp_path, bank, templates="{Q} {MAPA}, {MAPB}. go\n")
    found = sorted((d.code, d.path.rsplit("/", 1)[-1], d.span.line) for d in lint_file(task)[1])
    assert found == [("RSB432", "mine.txt", 1), ("RSB453", "q.jsonl", 11)]


def test_one_cause_is_one_error_at_the_tasks_choices_not_one_per_question(tmp_path):
    task = _files(tmp_path, _bank(n_train=9, n_eval=5, options=2))
    found = [(d.code, d.path, d.span.line, d.span.column, d.message) for d in lint_file(task)[1]]
    assert found == [
        (
            "RSB453",
            str(task),
            4,
            42,  # (:choices 3)
            "(:choices 3) needs questions of at least 3 options, and no question of q.jsonl "
            "has more than 2 (all 14 have fewer): lower :choices to 2 or give the questions "
            "more options",
        )
    ]


def test_rsb_lint_shows_the_line_of_the_file_a_finding_is_in(tmp_path, capsys):
    bank = _bank(n_train=6, n_eval=5).replace('"answer": "answer 3-0"', '"answer": "nope"')
    task = _files(tmp_path, bank)
    assert main(["lint", str(task)]) == 1
    bank_line = bank.splitlines()[3]
    assert capsys.readouterr().out == (
        f"{tmp_path / 'q.jsonl'}:4:1: RSB453 question-bank: 'answer' 'nope' is not one of the "
        f"options\n    4 | {bank_line}\n      | ^\n1 file checked: 1 error, 0 warnings\n"
    )


def test_rsb_lint_of_a_bank_says_it_is_one_and_which_task_to_lint(tmp_path, capsys):
    task = _files(tmp_path, _bank(n_train=5, n_eval=5) + '{"question": "x?"}\n')
    bank = tmp_path / "q.jsonl"
    assert main(["lint", str(bank)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"{bank}:1:1: RSB453 question-bank: q.jsonl is a question bank (JSON lines), not a "
        f"task file; it is linted with the task that names it: rsb lint {task}"
    )
    assert out[3].startswith(f"{bank}:11:1: RSB453 question-bank: ")
    assert out[-1] == "1 file checked: 2 errors, 0 warnings"
    assert "RSB101" not in "\n".join(out)


def test_missing_files_are_errors_at_the_task_position(tmp_path):
    task = tmp_path / "bank_3.bddl"
    task.write_text(BANK_TASK, encoding="utf-8")
    found = [(d.code, d.span.line, d.message.split(" (looked")[0]) for d in lint_file(task)[1]]
    assert found == [
        ("RSB453", 4, "question bank 'q.jsonl' not found"),
        ("RSB455", 5, "template file 'mine.txt' not found"),
    ]


def test_ablations_and_language_levels_find_the_tasks_own_templates(tmp_path):
    from rsb_mj.evaluation.ablations import ablate
    from rsb_mj.perturb.language import perturb_instruction

    problem = load_task(_files(tmp_path, _bank()))
    episode = sample_episode(problem, suite="", split="eval", index=0, seed=3)
    assert episode.template_id == "mine-3-00"
    shuffled = ablate(episode, problem, "shuffled-options")
    assert shuffled.instruction.endswith("put it in the gray zone.")
    assert shuffled.instruction != episode.instruction
    text, _ = perturb_instruction(episode, problem, 4)
    prefix = episode.instruction.split(" put it")[0]
    assert text.startswith(prefix) and text != episode.instruction


def test_the_explained_good_bank_line_is_good_for_four_choices(tmp_path):
    from rsb_mj.episodes.sources.bank import read_bank
    from rsb_mj.lang import RULES

    line = RULES["RSB453"].good.split("  ;")[0]
    (tmp_path / "q.jsonl").write_text(line + "\n", encoding="utf-8")
    bank = read_bank(tmp_path / "q.jsonl")
    assert [q.answer for q in bank.questions] == ["Lima"]
    assert bank.too_few_options(4) == []  # the default :choices (it had 2 options)


def test_rsb_lint_of_an_episode_table_says_what_it_is(capsys):
    assert main(["lint", "tasks/episodes/RSB-Math-4.eval.jsonl"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "tasks/episodes/RSB-Math-4.eval.jsonl:1:1: RSB101 unexpected-character: "
        "RSB-Math-4.eval.jsonl is an episode table (JSON lines), not a task file; check it "
        "with rsb episodes check (or rsb audit --table FILE)"
    )
