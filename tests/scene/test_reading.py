"""Tests of rsb_mj.scene.reading and ``rsb legibility``: candidates read from the head image."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.evaluation.legibility import check_source
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.legibility import resize_with_pad
from rsb_mj.scene.reading import TEMPLATE, YAWS, View, _templates, read_candidates, read_letter
from rsb_mj.suites import SUITES
from rsb_mj.tables.episode_source import load_episode, task_path

OBJECTS = ("rsb_math_4_objects.bddl", "rsb_math_10_objects.bddl")


@pytest.fixture(scope="module")
def render():
    """render(source, row) -> (env, episode, head image); one env per source per module."""
    envs: dict[str, RsbEnv] = {}

    def _render(source: str, row: int):
        if source not in envs:
            envs[source] = RsbEnv(task_path(source), cameras=("head",))
        env = envs[source]
        episode = load_episode(source, "eval", row)
        obs, _ = env.reset(options={"episode": episode})
        return env, episode, obs["images"]["head"]

    yield _render
    for env in envs.values():
        env.close()


@pytest.mark.parametrize(
    ("source", "row"),
    [
        ("RSB-Math-10", 0),
        ("RSB-Math-10", 7),
        (str(tasks_dir() / OBJECTS[0]), 1),
        (str(tasks_dir() / OBJECTS[1]), 2),
    ],
)
def test_every_candidate_is_read_exactly_at_320x240_and_224x224(render, source, row):
    env, episode, image = render(source, row)
    truth = {obj: letter for letter, obj in episode.mapping.items()}
    reads = read_candidates(env.scene, env.data, image, episode)
    assert [r.candidate for r in reads] == list(env.scene.candidates)
    small, frame = resize_with_pad(image)
    reads224 = read_candidates(env.scene, env.data, small, episode, View("head", 320, 240, frame))
    for r in (*reads, *reads224):
        expected = truth[r.candidate] if r.kind == "letter" else episode.colors[r.candidate]
        assert (r.truth, r.read) == (expected, expected)
        assert r.margin > 0.05
    kinds = {r.kind for r in reads}
    assert kinds == ({"color"} if source.endswith(OBJECTS[0]) else {"letter"})


def test_the_reader_reads_the_image_not_the_episode(render):
    """Told a mapping with two letters swapped, it still reads what the blocks show."""
    env, episode, image = render("RSB-Math-10", 4)
    swapped = dict(episode.mapping)
    swapped["A"], swapped["B"] = swapped["B"], swapped["A"]
    lie = episode.rebound(mapping=swapped)
    reads = {r.candidate: r for r in read_candidates(env.scene, env.data, image, lie)}
    a, b = episode.mapping["A"], episode.mapping["B"]
    assert (reads[a].truth, reads[a].read) == ("B", "A")
    assert (reads[b].truth, reads[b].read) == ("A", "B")
    assert sum(not r.correct for r in reads.values()) == 2
    # A blank image (the table only) has no letters to read: no confident reads.
    blank = np.zeros_like(image) + np.array([150, 125, 98], dtype=np.uint8)
    assert all(r.score < 0.3 for r in read_candidates(env.scene, env.data, blank, episode))


def test_a_letter_template_reads_as_itself_at_every_yaw():
    letters = ("A", "B", "C", "D", "E", "F", "G", "H", "I", "K")
    for letter in letters:
        for k in (0, len(YAWS) // 2, len(YAWS) - 1):
            tpl = _templates(letter, (40, 40))[k]
            patch = np.full((72, 72, 3), 255.0, dtype=np.float32)
            lo = 36 - TEMPLATE // 2
            patch[lo : lo + TEMPLATE, lo : lo + TEMPLATE] = tpl[:, :, None]
            read, score, margin = read_letter(patch, letters, (40, 40))
            assert read == letter and score > 0.999 and margin > 0.05


def test_legibility_cli_prints_and_writes_figures(tmp_path, capsys):
    out = tmp_path / "leg.json"
    assert main(["legibility", "RSB-Math-4", "-n", "2", "--json", str(out)]) == 0
    line = capsys.readouterr().out
    assert "RSB-Math-4" in line and "read 8/8 = 100.00% (2/2 rows all right;" in line
    (figures,) = json.loads(out.read_text())
    assert figures["source"] == "RSB-Math-4" and figures["image"] == "320x240"
    assert (figures["reads"], figures["correct"], figures["passed"]) == (8, 8, True)
    assert figures["min_height_px"] >= 12.0 and figures["misses"] == []


def test_legibility_cli_rejects_unknown_sources(capsys):
    assert main(["legibility", "RSB-Nope", "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown suite 'RSB-Nope'; valid choices: RSB-Math-4," in err
    assert "all, objects, or a task file (.bddl)" in err
    with pytest.raises(SystemExit) as exit_:
        main(["legibility", "RSB-Math-4", "-n", "0"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: rsb legibility ")
    assert err.endswith("rsb legibility: error: argument -n/--episodes: 0: must be at least 1\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    [
        *SUITES,
        *(
            str(tasks_dir() / name)
            for name in (*OBJECTS, "rsb_general_4_objects.bddl", "rsb_hardmath_4_objects.bddl")
        ),
    ],
)
def test_full_reading_check_on_200_eval_rows(source):
    """The done-when bar: >= 99% of candidates read right on 200 rows of every suite."""
    result = check_source(source, n=200)
    assert result.rows == 200 and result.accuracy >= 0.99, result.misses[:5]
    assert result.passed
