"""Choice counts 2..10: letters, styles, placeholders, and real episodes through env + expert."""

from __future__ import annotations

import pytest

from rsb_mj.choices import (
    CHOICE_COUNTS,
    LETTERS,
    counts_text,
    placeholders,
    required_placeholders,
    style,
)
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.evaluation.metrics import nsg
from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.lang import load_task
from rsb_mj.policies.scripted import ExpertPolicy

_NAMES = "abcdefghik"


def task_text(n: int, category: str = "letter_block") -> str:
    """A lint-clean arithmetic task with ``n`` candidates of ``category``."""
    names = [f"obj_{x}" for x in _NAMES[:n]]
    init = "\n".join(f"    (On {x} table_candidates)" for x in names)
    return f"""(define (problem choices_{n})
  (:domain rsb)
  (:question (:source arithmetic) (:choices {n}))
  (:instruction (:templates unseen))
  (:regions
    (candidates (:target table) (:ranges ((-0.28 -0.14 0.28 0.05))))
    (answer_zone (:target table) (:ranges ((-0.06 0.1 0.06 0.22))) (:rgba (0.5 0.5 0.5 1))))
  (:fixtures table - table)
  (:objects {" ".join(names)} - {category})
  (:candidates {" ".join(names)})
  (:options (:map shuffle))
  (:init
{init})
  (:grasp (Grasped ?c - candidate))
  (:goal (And (In ?answer table_answer_zone) (Released ?answer)))
  (:layout (:min_spacing 0.07) (:yaw_range (-0.3 0.3))))
"""


def test_letters_skip_j_and_grow_with_the_count():
    assert CHOICE_COUNTS == (2, 3, 4, 5, 6, 7, 8, 9, 10)
    assert LETTERS[2] == ("A", "B")
    assert LETTERS[4] == ("A", "B", "C", "D")
    assert "".join(LETTERS[10]) == "ABCDEFGHIK"
    assert counts_text() == "2..10"


def test_style_and_placeholders_per_count():
    assert [style(n) for n in CHOICE_COUNTS] == ["colors"] * 7 + ["letters"] * 2
    assert placeholders(3) == ("Q", "MAPA", "MAPB", "MAPC", "OPTIONS")
    assert required_placeholders(3) == ("Q", "MAPA", "MAPB", "MAPC")
    assert placeholders(9) == required_placeholders(9) == ("Q", "OPTIONS")


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_a_task_of_n_choices_resets_and_the_expert_solves_it(tmp_path, n):
    path = tmp_path / f"choices_{n}.bddl"
    path.write_text(task_text(n), encoding="utf-8")
    problem = load_task(path)
    env = RsbEnv(task=problem, split="eval", cameras=())
    try:
        _obs, info = env.reset(seed=7)
        episode = env.episode
        assert len(info["candidates"]) == len(episode.options) == episode.choices == n
        assert episode.letters == LETTERS[n]
        assert sorted(episode.mapping) == list(LETTERS[n])
        assert episode.template_id.startswith(f"unseen-{n}-")
        colors = set(episode.colors.values())
        if n <= 8:
            assert len(colors) == n  # one palette color each, stated in the instruction
            for letter in LETTERS[n]:
                assert (
                    f"{letter} is the {episode.colors[episode.mapping[letter]]} block"
                    in (info["instruction"])
                )
        else:
            assert colors == {"yellow"}
            assert f"({LETTERS[n][-1]}) " in info["instruction"]
        run = Rollout(env, ExpertPolicy(), episode, problem, max_steps=400).run()
    finally:
        env.close()
    assert (run.success, run.grasped, run.choice) == (True, True, episode.target), (
        run.failure_reason
    )
    assert nsg(1.0, 1.0, episode.choices) == 1.0
    assert nsg(1.0 / n, 1.0, episode.choices) == pytest.approx(0.0)
