"""Expert episodes come from the frozen tables; a damaged table is an error, not a new draw."""

import pytest

import rsb_mj.episodes
from rsb_mj.errors import EpisodeError
from rsb_mj.expert import episodes


def test_a_damaged_table_is_an_error_never_a_silent_fresh_draw(monkeypatch):
    def damaged(suite, split):
        raise EpisodeError(f"tasks/episodes/{suite}.{split}.jsonl:3: not a JSON row")

    episodes._table.cache_clear()
    monkeypatch.setattr(rsb_mj.episodes, "load_table", damaged)
    try:
        with pytest.raises(EpisodeError, match=r"RSB-Math-4.eval.jsonl:3: not a JSON row"):
            episodes.episode_for("RSB-Math-4", "eval", 0)
    finally:
        episodes._table.cache_clear()


def test_a_suite_row_is_its_table_row():
    from rsb_mj.episodes.table import load_table

    assert episodes.episode_for("RSB-General-4", "eval", 7) == load_table("RSB-General-4")[7]
