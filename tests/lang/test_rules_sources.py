"""RSB45x on real files: a question bank and a template file next to the task file."""

from __future__ import annotations

import json

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
    task = _files(tmp_path, _bank())
    assert lint_file(task)[1] == []
    problem = load_task(task)
    episode = sample_episode(problem, suite="", split="eval", index=0, seed=3)
    assert episode.question_id in ("file-q-4", "file-q-5")
    assert episode.template_id == "mine-3-00"
    assert episode.instruction.endswith("put it in the gray zone.")
    train = sample_episode(problem, suite="", split="train", index=0, seed=3)
    assert train.template_id.startswith("seen-3-") and train.question_id in (
        "file-q-1",
        "file-q-2",
        "file-q-3",
    )


def test_bank_problems_point_at_their_lines(tmp_path):
    bank = _bank() + '{"question": "bad?", "options": ["a"], "answer": "a"}\n'
    task = _files(tmp_path, bank.replace('"answer 1-2"]', '"answer 1-1"]', 1))
    found = [
        (d.code, d.path.rsplit("/", 1)[-1], d.span.line, d.message) for d in lint_file(task)[1]
    ]
    assert found == [
        ("RSB453", "q.jsonl", 2, "option 3 ('answer 1-1') repeats option 2"),
        ("RSB453", "q.jsonl", 6, "'options' needs at least 2 options"),
    ]


def test_too_few_options_and_template_lines_are_reported_in_their_files(tmp_path):
    task = _files(tmp_path, _bank(options=2), templates="{Q} {MAPA}, {MAPB}. go\n")
    found = sorted((d.code, d.path.rsplit("/", 1)[-1], d.span.line) for d in lint_file(task)[1])
    assert found == [
        ("RSB432", "mine.txt", 1),
        ("RSB453", "q.jsonl", 1),
        ("RSB453", "q.jsonl", 2),
        ("RSB453", "q.jsonl", 3),
        ("RSB453", "q.jsonl", 4),
        ("RSB453", "q.jsonl", 5),
    ]


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
