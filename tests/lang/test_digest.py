"""The task digest: the task file and every file it names, independent of where they lie."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from rsb_mj.lang.digest import task_digest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tasks" / "examples"


def _copy(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in ("geography_6.bddl", "geography.jsonl"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder / "geography_6.bddl"


def test_a_task_naming_no_file_keeps_the_sha256_of_its_bytes():
    path = ROOT / "tasks" / "rsb_math_4.bddl"
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert task_digest(path).sha256 == sha
    assert task_digest(path).files == (("rsb_math_4.bddl", sha),)


def test_editing_the_bank_changes_the_digest_and_names_the_file(tmp_path):
    task = _copy(tmp_path / "a")
    before = task_digest(task)
    assert [name for name, _ in before.files] == ["geography_6.bddl", "geography.jsonl"]
    assert before.sha256 != before.files[0][1]  # not the task file's alone
    assert task_digest(_copy(tmp_path / "b")) == before  # where the folder lies does not count
    bank = task.parent / "geography.jsonl"
    bank.write_text(bank.read_text().replace('"Lima"', '"Lime"'))
    after = task_digest(task)
    assert after.sha256 != before.sha256
    assert after.changed_files(dict(before.files)) == ["geography.jsonl"]


def test_a_template_file_counts_too_and_a_missing_one_is_marked(tmp_path):
    task = _copy(tmp_path / "a")
    text = task.read_text().replace(
        "(:templates (:train seen) (:eval unseen))",
        '(:templates (:train seen) (:eval (:file "mine_6.txt")))',
    )
    task.write_text(text)
    assert task_digest(task).files[2] == ("mine_6.txt", "missing")
    (task.parent / "mine_6.txt").write_text("{Q} {MAPA} {MAPB} {MAPC} {MAPD} {MAPE} {MAPF}\n")
    first = task_digest(task)
    (task.parent / "mine_6.txt").write_text("{Q} {MAPA} {MAPB} {MAPC} {MAPD} {MAPE} {MAPF}.\n")
    assert task_digest(task).changed_files(dict(first.files)) == ["mine_6.txt"]
