"""The head-camera reading check over frozen rows (behind ``rsb legibility``).

For each row, the environment is reset to the row's episode with only the head camera; the
reset image is read candidate by candidate by its display kind
(:func:`rsb_mj.scene.reading.read_displays`: a letter, a color, or the answer a plate
shows; the reader gets the image, the candidates' positions and the episode's choice set,
never their letters or yaws), and the letters' projected heights are measured with the
camera model (:func:`rsb_mj.scene.legibility.letter_heights`). Answer-showing candidates are
read at the policy's 224 x 224 input by default and compared with ``OTHERS`` more pictures
of their source besides their own (:func:`answer_references`); :func:`answer_reader` is the
same read as the build-time filter of the paired tables (:mod:`rsb_mj.tables.paired`).

Rows: a suite's frozen table, or a task file's rows as
:mod:`rsb_mj.tables.episode_source` draws them (seeded by source, split and index), so
``rsb legibility``, ``rsb eval`` and ``rsb expert-check`` see the same episodes.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.question import Question
from rsb_mj.episodes.sources import get_source
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.display import answer_candidates
from rsb_mj.lang.task import task_of
from rsb_mj.scene.legibility import (
    MIN_HEIGHT_PX,
    MIN_POLICY_HEIGHT_PX,
    POLICY_SIZE,
    letter_heights,
    policy_scale,
    resize_with_pad,
)
from rsb_mj.scene.reading import View, read_answer, read_displays
from rsb_mj.tables.episode_source import is_task_file, label, load_episode, task_path
from rsb_mj.tables.paired import ARRANGEMENTS, paired_row

#: Other pictures of its source an answer-showing candidate is also compared with.
OTHERS = 8


@dataclass
class LegibilityResult:
    """Figures of one source.

    Attributes:
        label: suite name or task file name.
        rows: episodes checked.
        reads: candidates read (rows x candidates).
        correct: reads equal to the truth.
        rows_all_correct: rows where every candidate was read right.
        kinds: ``"letter"``, ``"color"`` and/or ``"answer"``: what was read.
        min_margin: smallest margin of a correct read over the runner-up choice.
        min_height: smallest letter height [px] at the rendered size (None: no letters).
        min_policy_height: the same in the 224x224 policy input.
        image: ``"WxH"`` of the images read.
        rendered: ``"WxH"`` of the head camera's rendering.
        misses: one dict per wrong read (row, candidate, truth, read, score, margin).
        seconds: wall time of the check.
        min_accuracy: pass mark of ``accuracy``.
    """

    label: str
    rows: int = 0
    reads: int = 0
    correct: int = 0
    rows_all_correct: int = 0
    kinds: tuple[str, ...] = ()
    min_margin: float = float("inf")
    min_height: float | None = None
    min_policy_height: float | None = None
    image: str = ""
    rendered: str = ""
    misses: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    min_accuracy: float = 0.99

    @property
    def accuracy(self) -> float:
        """Share of candidates read right."""
        return self.correct / self.reads if self.reads else 0.0

    @property
    def passed(self) -> bool:
        """Accuracy at the pass mark and, at 320x240 with letters, heights >= 12 / 8 px."""
        ok = self.accuracy >= self.min_accuracy
        if self.min_height is not None and self.rendered == "320x240":
            ok &= self.min_height >= MIN_HEIGHT_PX
            ok &= self.min_policy_height is not None
            ok &= (self.min_policy_height or 0.0) >= MIN_POLICY_HEIGHT_PX
        return bool(ok)

    def line(self) -> str:
        """One printable line."""
        heights = (
            f"letters >= {self.min_height:.1f} px ({self.min_policy_height:.1f} px at 224x224)"
            if self.min_height is not None
            else "no letters"
        )
        return (
            f"{self.label:<28} {'/'.join(self.kinds):<12} read {self.correct}/{self.reads} "
            f"= {100 * self.accuracy:.2f}% ({self.rows_all_correct}/{self.rows} rows all right; "
            f"min margin {self.min_margin:.3f}) on {self.image}; {heights}; "
            f"{'PASS' if self.passed else 'FAIL'} ({self.seconds:.0f} s)"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "source": self.label,
            "rows": self.rows,
            "reads": self.reads,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "rows_all_correct": self.rows_all_correct,
            "kinds": list(self.kinds),
            "min_margin": self.min_margin,
            "min_height_px": self.min_height,
            "min_policy_height_px": self.min_policy_height,
            "image": self.image,
            "passed": self.passed,
            "misses": self.misses,
        }


def answer_references(source: str, own: tuple[str, ...]) -> tuple[str, ...]:
    """The first ``OTHERS`` distinct pictures of question source ``source`` (its eval then
    train pool, in order) that are not in ``own``."""
    return tuple(s for s in _source_pictures(source) if s not in own)[:OTHERS]


def _source_pictures(source: str) -> tuple[str, ...]:

    found = _PICTURES.get(source)
    if found is None:
        specs: dict[str, None] = {}
        for split in ("eval", "train"):
            for q in get_source(source).pool(split) or ():
                specs.update(dict.fromkeys(q.displays))
        found = _PICTURES[source] = tuple(specs)
    return found


_PICTURES: dict[str, tuple[str, ...]] = {}


def _references(episode: Episode) -> tuple[str, ...]:
    shown = tuple(str(v) for v in episode.extra.get("plates", {}).values())
    if not shown:
        return ()
    return answer_references(str(episode.extra["source"]), shown)


def _shows_answers(env: Any) -> bool:

    return bool(answer_candidates(env.unwrapped.problem))


def check_source(
    source: str,
    *,
    split: str = "eval",
    n: int = 200,
    start: int = 0,
    width: int = 320,
    height: int = 240,
    policy_input: bool | None = None,
) -> LegibilityResult:
    """Read rows ``start .. start + n - 1`` of ``source`` (a suite name or task file path).

    Args:
        width, height: head image size [px].
        policy_input: read from the 224x224 ``resize_with_pad`` image instead; None: for
            candidates that show their answers, else from the rendered image.
    """

    t0 = time.perf_counter()
    suite = "" if is_task_file(source) else source
    env = RsbEnv(
        task_path(source), suite=suite, split=split, cameras=("head",), width=width, height=height
    )
    result = LegibilityResult(label(source))
    kinds: set[str] = set()
    heights: list[float] = []
    scale = policy_scale(width, height)
    if policy_input is None:
        policy_input = _shows_answers(env)
    try:
        for row in range(start, start + n):
            episode = load_episode(source, split, row)
            obs, _ = env.reset(options={"episode": episode})
            image = obs["images"]["head"]
            view = View("head", width, height)
            if policy_input:
                image, frame = resize_with_pad(image)
                view = View("head", width, height, frame)
            refs = _references(episode)
            reads = read_displays(env.scene, env.data, image, episode, view, refs)
            letters = {obj: letter for letter, obj in episode.mapping.items()}
            heights.extend(
                letter_heights(env.scene, env.data, letters, width=width, height=height).values()
            )
            result.rows += 1
            result.reads += len(reads)
            good = [r for r in reads if r.accepted]
            result.correct += len(good)
            result.rows_all_correct += len(good) == len(reads)
            for r in reads:
                kinds.add(r.kind)
                if r.accepted:
                    result.min_margin = min(result.min_margin, r.margin)
                else:
                    result.misses.append(
                        {
                            "row": row,
                            "candidate": r.candidate,
                            "truth": r.truth,
                            "read": r.read,
                            "score": round(r.score, 4),
                            "margin": round(r.margin, 4),
                        }
                    )
    finally:
        env.close()
    result.kinds = tuple(sorted(kinds))
    if heights:
        result.min_height = min(heights)
        result.min_policy_height = min(heights) * scale
    result.rendered = f"{width}x{height}"
    result.image = "224x224 (policy input)" if policy_input else f"{width}x{height}"
    result.seconds = time.perf_counter() - t0
    return result


_READER_ENVS: dict[str, Any] = {}


def answer_reader(problem: Problem, item: Question) -> str | None:
    """The build-time legibility filter of a paired table: read ``item``'s pictures on the
    answer-showing candidates in both arrangements from the 224 x 224 policy input; the
    reason to drop it (which candidate was read as what, with the scores), or None when
    every one reads (:attr:`rsb_mj.scene.reading.Read.accepted`)."""

    key = str(problem.path)
    if key not in _READER_ENVS:
        os.environ.setdefault("MUJOCO_GL", "egl")
        # deferred: MUJOCO_GL is set just above, before MuJoCo loads
        from rsb_mj.env import RsbEnv

        _READER_ENVS[key] = RsbEnv(problem, cameras=("head",), width=320, height=240)
    env = _READER_ENVS[key]
    refs = answer_references(item_source(problem), item.displays)
    for arrangement in ARRANGEMENTS:
        episode = paired_row(
            problem,
            item,
            suite="",
            split="eval",
            index=0,
            seed=0,
            correct="A",
            arrangement=arrangement,
        )
        obs, _ = env.reset(options={"episode": episode})
        image, frame = resize_with_pad(obs["images"]["head"], POLICY_SIZE)
        view = View("head", 320, 240, frame)
        scene, data = env.unwrapped.scene, env.unwrapped.data
        for obj in answer_candidates(problem):
            r = read_answer(scene, data, image, episode, obj, view, refs)
            if not r.accepted:
                return (
                    f"{arrangement} layout: {obj} showing {r.truth!r} read as {r.read!r} "
                    f"(NCC {r.score:.3f}, margin {r.margin:+.3f}) at 224x224"
                )
    return None


def item_source(problem: Problem) -> str:
    """The question source id of ``problem``."""

    return task_of(problem).asked().source.name
