"""Can the plates be told apart from the head camera at a policy's 224 x 224?

:func:`read_plates` renders an A2A episode's head image (320 x 240), resizes it as openpi's
``resize_with_pad`` does to 224 x 224, rectifies each plate's top face from that image (the
plate corners projected with the camera model, :class:`rsb_mj.scene.reading.View`) into a
``PATCH_W`` x ``PATCH_H`` patch, and picks, by normalized cross-correlation over the RGB
pixels, which of the *reference pictures* it shows: the item's two pictures plus up to
``OTHERS`` other pictures of the same category (so the reader must recognise the picture,
not only tell two apart). A plate is read when the best reference is its own picture with a
margin of at least ``MIN_MARGIN`` over the runner-up.

:func:`plate_reader` is the build-time filter of :mod:`rsb_mj.a2a.table`: it reads an item in
both plate orders and returns the reason it is dropped, or None.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from typing import Any

import cv2
import numpy as np

from rsb_mj.a2a.episodes import make_episode
from rsb_mj.a2a.items import Item, item_pool
from rsb_mj.episode import Episode
from rsb_mj.evaluation.legibility import LegibilityResult
from rsb_mj.lang.ast import Problem
from rsb_mj.scene.categories.answer_plate import HALF_SIZE
from rsb_mj.scene.legibility import POLICY_SIZE, resize_with_pad
from rsb_mj.scene.pictures import content_image
from rsb_mj.scene.reading import View

#: Size [px] of a rectified plate patch (16 x 12 cm: 2.5 mm per pixel).
PATCH_W, PATCH_H = 64, 48
#: Other pictures of the category each plate is also compared with.
OTHERS = 8
#: Smallest NCC margin of the right picture over the runner-up.
MIN_MARGIN = 0.02
#: Head image size rendered [px].
WIDTH, HEIGHT = 320, 240


@dataclass(frozen=True)
class PlateRead:
    """One plate read: ``plate``, its true ``spec``, the ``read`` spec, NCC ``score`` of the
    read one and ``margin`` over the runner-up."""

    plate: str
    spec: str
    read: str
    score: float
    margin: float

    @property
    def ok(self) -> bool:
        """The plate's own picture won by at least ``MIN_MARGIN``."""
        return self.read == self.spec and self.margin >= MIN_MARGIN


def _unit(img: np.ndarray) -> np.ndarray:
    v = img.astype(np.float64).ravel()
    v = v - v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


@cache
def _reference(spec: str) -> np.ndarray:
    small = cv2.resize(content_image(spec), (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)
    return _unit(small)


@cache
def _others(category: str) -> tuple[str, ...]:
    """Distinct pictures of the category's pool, in pool order (the comparison set)."""
    specs: list[str] = []
    eval_items, train_items = item_pool(category)
    for item in (*eval_items, *train_items):
        for spec in (item.answer_spec, item.distractor_spec):
            if spec not in specs:
                specs.append(spec)
    return tuple(specs)


def references(item: Item) -> tuple[str, ...]:
    """The item's two pictures, then up to ``OTHERS`` others of its category."""
    own = (item.answer_spec, item.distractor_spec)
    rest = [s for s in _others(item.category) if s not in own][:OTHERS]
    return (*own, *rest)


def plate_patch(env: Any, image: np.ndarray, plate: str, view: View) -> np.ndarray:
    """The rectified top face of ``plate`` (PATCH_H, PATCH_W, 3) from ``image`` seen as
    ``view``; row 0 at the plate's far (+y) edge, column 0 at its -x edge."""
    u = env.unwrapped
    pos = u.data.xpos[u.model.body(plate).id]
    hx, hy, hz = HALF_SIZE
    corners = pos + np.array([[-hx, hy, hz], [hx, hy, hz], [hx, -hy, hz], [-hx, -hy, hz]])
    src = (view.pixels(u.model, u.data, corners) - 0.5).astype(np.float32)
    dst = np.array([[0, 0], [PATCH_W, 0], [PATCH_W, PATCH_H], [0, PATCH_H]], np.float32) - 0.5
    hom = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        image, hom, (PATCH_W, PATCH_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def read_plates(
    env: Any, episode: Episode, refs: tuple[str, ...], policy: bool = True
) -> list[PlateRead]:
    """Reset ``env`` to ``episode`` and read every plate from the head image (``policy``:
    from the 224 x 224 policy input, else from the 320 x 240 image)."""
    obs, _ = env.reset(options={"episode": episode})
    image = obs["images"]["head"]
    view = View("head", WIDTH, HEIGHT)
    if policy:
        image, frame = resize_with_pad(image, POLICY_SIZE)
        view = View("head", WIDTH, HEIGHT, frame)
    out = []
    for letter, plate in episode.mapping.items():
        spec = episode.extra["plates"][letter]
        patch = _unit(plate_patch(env, image, plate, view))
        scores = sorted(((float(patch @ _reference(r)), r) for r in refs), reverse=True)
        best, runner = scores[0], scores[1]
        own = next(s for s, r in scores if r == spec)
        rival = max(s for s, r in scores if r != spec)
        out.append(
            PlateRead(
                plate,
                spec,
                best[1],
                best[0],
                own - rival if best[1] == spec else best[0] - runner[0],
            )
        )
    return out


_ENVS: dict[str, Any] = {}


def _env(problem: Problem) -> Any:
    key = str(problem.path)
    if key not in _ENVS:
        os.environ.setdefault("MUJOCO_GL", "egl")
        from rsb_mj.env import RsbEnv

        _ENVS[key] = RsbEnv(problem, cameras=("head",), width=WIDTH, height=HEIGHT)
    return _ENVS[key]


def plate_reader(problem: Problem, item: Item) -> str | None:
    """Read ``item``'s plates in both plate orders at 224 x 224; the reason to drop it
    (which plate was read as what, with the scores), or None when every plate reads."""
    env = _env(problem)
    refs = references(item)
    for layout in ("original", "swapped"):
        episode = make_episode(
            problem, item, suite="", split="eval", index=0, seed=0, correct="A", layout=layout
        )
        for r in read_plates(env, episode, refs):
            if not r.ok:
                return (
                    f"{layout} layout: {r.plate} showing {r.spec!r} read as {r.read!r} "
                    f"(NCC {r.score:.3f}, margin {r.margin:+.3f}) at 224x224"
                )
    return None


__all__ = ["MIN_MARGIN", "PlateRead", "plate_reader", "read_plates", "references"]


@dataclass
class A2ALegibility(LegibilityResult):
    """Figures of ``rsb legibility`` on one A2A table: the plates read, with the accuracy and
    pass mark of :class:`~rsb_mj.evaluation.legibility.LegibilityResult` (no letters, so no
    height checks); its own line and JSON name plates."""

    def line(self) -> str:
        """One printable line."""
        return (
            f"{self.label:<28} plates read {self.correct}/{self.reads} = "
            f"{100 * self.accuracy:.2f}% over {self.rows} rows (min margin {self.min_margin:.3f}) "
            f"on {self.image}; {'PASS' if self.passed else 'FAIL'} ({self.seconds:.0f} s)"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "source": self.label,
            "rows": self.rows,
            "reads": self.reads,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "min_margin": self.min_margin,
            "image": self.image,
            "misses": self.misses,
        }


def check_a2a_source(
    suite: str, *, split: str = "eval", n: int = 200, start: int = 0, policy_input: bool = True
) -> A2ALegibility:
    """Read every plate of rows ``start .. start + n - 1`` of an A2A table from the head
    image (at 224 x 224 with ``policy_input``, else 320 x 240)."""
    import time

    from rsb_mj.a2a.items import Item
    from rsb_mj.a2a.table import load_problem
    from rsb_mj.episodes.table import load_table

    t0 = time.perf_counter()
    problem = load_problem(suite)
    env = _env(problem)
    rows = load_table(suite, split)[start : start + n]
    reads = correct = 0
    margin = float("inf")
    misses: list[dict[str, Any]] = []
    for e in rows:
        wrong = "B" if e.correct == "A" else "A"
        item = Item(
            e.question_id,
            e.extra["category"],
            e.question,
            e.options[e.letters.index(e.correct)],
            e.options[e.letters.index(wrong)],
            e.extra["plates"][e.correct],
            e.extra["plates"][wrong],
        )
        for r in read_plates(env, e, references(item), policy=policy_input):
            reads += 1
            if r.ok:
                correct += 1
                margin = min(margin, r.margin)
            else:
                misses.append(
                    {"row": e.index, "candidate": r.plate, "truth": r.spec, "read": r.read}
                )
    image = "224x224 policy input" if policy_input else f"{WIDTH}x{HEIGHT}"
    return A2ALegibility(
        suite,
        rows=len(rows),
        reads=reads,
        correct=correct,
        min_margin=margin,
        image=image,
        seconds=time.perf_counter() - t0,
        misses=misses,
    )
