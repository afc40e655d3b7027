"""The one episode lookup: frozen rows for suites, seeded draws for task files; a missing or
damaged table is an error, never a silent fresh draw."""

import pytest

import rsb_mj.tables.files
from rsb_mj.errors import EpisodeError, EvalError
from rsb_mj.tables import episode_source
from rsb_mj.tables.episode_source import (
    check_rows,
    label,
    load_episode,
    row_seed,
    step_limit,
    table_size,
)
from rsb_mj.tables.families import load_table


def test_a_damaged_table_is_an_error_never_a_silent_fresh_draw(monkeypatch, tmp_path):
    import shutil

    from rsb_mj.tables.files import MANIFEST, episodes_dir

    shutil.copy(episodes_dir() / MANIFEST, tmp_path / MANIFEST)
    lines = (episodes_dir() / "RSB-Math-4.eval.jsonl").read_text().splitlines(keepends=True)
    lines[2] = "{not a JSON row\n"
    (tmp_path / "RSB-Math-4.eval.jsonl").write_text("".join(lines))
    episode_source._table.cache_clear()
    monkeypatch.setattr(rsb_mj.tables.files, "episodes_dir", lambda: tmp_path)
    try:
        with pytest.raises(EpisodeError, match=r"RSB-Math-4.eval.jsonl:3: not an episode row"):
            load_episode("RSB-Math-4", "eval", 0)
    finally:
        episode_source._table.cache_clear()


def test_a_suite_row_is_its_table_row_and_rows_past_the_table_are_refused():
    assert load_episode("RSB-General-4", "eval", 7) == load_table("RSB-General-4")[7]
    with pytest.raises(
        EvalError, match=r"^episode index 500 is outside the RSB-General-4 eval table "
        r"\(valid: 0\.\.499\)$",
    ):  # fmt: skip
        load_episode("RSB-General-4", "eval", 500)
    with pytest.raises(
        EvalError,
        match=r"^--start 490 -n 20: the RSB-Math-10 eval table has 500 rows "
        r"\(valid: --start \+ -n <= 500\)$",
    ):
        check_rows("RSB-Math-10", "eval", 20, 490)
    check_rows("RSB-Math-10", "eval", 10, 490)


def test_a_task_files_row_is_seeded_by_file_name_split_and_row(tmp_path):
    task = "tasks/rsb_math_4_objects.bddl"
    episode = load_episode(task, "train", 5)
    moved = "elsewhere/" + label(task)
    assert episode.seed == row_seed(task, "train", 5) == row_seed(moved, "train", 5)
    assert (episode.suite, episode.split, episode.index) == (task, "train", 5)
    assert row_seed(task, "eval", 5) != episode.seed
    assert (table_size(task, "eval"), step_limit(task), step_limit("RSB-Math-4")) == (
        100_000, 400, 400,
    )  # fmt: skip
