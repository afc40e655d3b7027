"""Display kinds: a candidate shows a letter, a color or its answer; each is applied at
reset and read back from the head camera by its registered reader."""

import pytest

from rsb_mj.env import RsbEnv
from rsb_mj.errors import SceneError
from rsb_mj.lang import load_task
from rsb_mj.lang.display import DISPLAY_KINDS, answer_candidates, display_kind
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.reading import MIN_MARGIN, READERS, read_displays
from rsb_mj.suites import get_suite
from rsb_mj.tables.families import load_table


def test_every_kind_has_a_reader_and_categories_name_their_kind():
    assert set(READERS) == set(DISPLAY_KINDS) == {"letter", "color", "answer"}
    plates = load_task(get_suite("A2A-Time").path)
    assert [display_kind(plates, c) for c in plates.candidates] == ["answer", "answer"]
    assert answer_candidates(plates) == ("plate_a", "plate_b")
    blocks = load_task(tasks_dir() / "rsb_math_4_objects.bddl")
    kinds = {display_kind(blocks, c) for c in blocks.candidates}
    assert kinds <= {"letter", "color"} and answer_candidates(blocks) == ()


@pytest.fixture(scope="module")
def size_env():
    suite = get_suite("A2A-Size")
    env = RsbEnv(suite.path, suite=suite.name, cameras=("head",))
    yield env
    env.close()


def test_the_plates_show_and_read_back_the_rows_answers(size_env):
    from rsb_mj.evaluation.legibility import answer_references

    episode = load_table("A2A-Size", "eval")[1]
    obs, _ = size_env.reset(options={"episode": episode})
    u = size_env.unwrapped
    refs = answer_references("a2a_size", tuple(episode.extra["plates"].values()))
    assert len(refs) == 8 and not set(refs) & set(episode.extra["plates"].values())
    reads = read_displays(u.scene, u.data, obs["images"]["head"], episode, references=refs)
    assert [r.kind for r in reads] == ["answer", "answer"]
    for read, letter in zip(reads, "AB", strict=True):
        assert read.candidate == episode.mapping[letter]
        assert read.read == read.truth == episode.extra["plates"][letter]
        assert read.accepted and read.margin >= MIN_MARGIN


def test_an_episode_without_the_plates_pictures_is_refused(size_env):
    import dataclasses

    episode = load_table("A2A-Size", "eval")[0]
    bare = dataclasses.replace(episode, extra={"source": "a2a_size"})
    with pytest.raises(
        SceneError,
        match=r"candidate 'plate_a' shows its answer, but the episode gives no picture for "
        r"option 'A' \(extra\['plates'\]: none\)",
    ):
        size_env.reset(options={"episode": bare})
    stray = dataclasses.replace(episode, extra={**episode.extra, "plates": {"C": "text:x"}})
    with pytest.raises(SceneError, match=r"episode plates name option 'C'; valid choices: A, B"):
        size_env.reset(options={"episode": stray})
