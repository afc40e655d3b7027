"""Act2Answer picture items: every combination of a small closed vocabulary, per category.

COLOR, SHAPE, COUNTING (dots, 1-9), SIZE (the bigger or smaller of two shapes), SPATIAL
(which of two shapes is left of / right of / above / below the other) and TIME (analog clock
faces, quarter hours). Each raw item is (answer, distractor, target phrase, answer picture,
distractor picture), pictures as :mod:`.picture_specs` specs; the target phrase
("the red shape") names the picture the robot acts on. The order here is generation order;
:mod:`rsb_mj.episodes.sources.act2answer` shuffles it with a fixed seed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from rsb_mj.colors import PALETTE
from rsb_mj.episodes.sources.picture_specs import RELATIONS, SHAPES

#: Colors pictures use (the scene palette).
COLORS = tuple(PALETTE)
#: SIZE: radii (fraction of the plate's height) of the shapes compared.
SIZES = (0.16, 0.24, 0.32, 0.40)

#: One raw item: (answer, distractor, target phrase, answer spec, distractor spec).
Raw = tuple[str, str, str, str, str]


def _color_pool() -> Iterator[Raw]:
    for shape in SHAPES:
        for a, d in itertools.permutations(COLORS, 2):
            yield a, d, f"the {a} {shape}", f"color:{a}:{shape}", f"color:{d}:{shape}"


def _shape_pool() -> Iterator[Raw]:
    for color in COLORS:
        for a, d in itertools.permutations(SHAPES, 2):
            article = "an" if a[0] in "aeiou" else "a"
            yield a, d, f"the picture of {article} {a}", f"shape:{a}:{color}", f"shape:{d}:{color}"


def _count_pool() -> Iterator[Raw]:
    for color in COLORS:
        for a, d in itertools.permutations(range(1, 10), 2):
            noun = "dot" if a == 1 else "dots"
            yield (
                str(a),
                str(d),
                f"the picture with {a} {noun}",
                f"count:{a}:{color}",
                f"count:{d}:{color}",
            )


def _size_pool() -> Iterator[Raw]:
    for shape, color in itertools.product(SHAPES, COLORS):
        for a, d in itertools.permutations(SIZES, 2):
            word = "bigger" if a > d else "smaller"
            yield (
                f"{word} {shape}",
                f"{'smaller' if a > d else 'bigger'} {shape}",
                f"the {word} {color} {shape}",
                f"size:{a:.2f}:{shape}:{color}",
                f"size:{d:.2f}:{shape}:{color}",
            )


_OPPOSITE = {"left": "right", "right": "left", "above": "below", "below": "above"}
_PHRASE = {"left": "left of", "right": "right of", "above": "above", "below": "below"}


def _spatial_pool() -> Iterator[Raw]:
    for s1, s2 in itertools.permutations(("circle", "square", "triangle", "star", "heart"), 2):
        for c1, c2 in itertools.permutations(COLORS[:4], 2):
            for rel in RELATIONS:
                other = _OPPOSITE[rel]
                yield (
                    f"{s1} {_PHRASE[rel]} {s2}",
                    f"{s1} {_PHRASE[other]} {s2}",
                    f"the picture where the {c1} {s1} is {_PHRASE[rel]} the {c2} {s2}",
                    f"spatial:{rel}:{s1}:{c1}:{s2}:{c2}",
                    f"spatial:{other}:{s1}:{c1}:{s2}:{c2}",
                )


def _time_pool() -> Iterator[Raw]:
    times = [(h, m) for h in range(1, 13) for m in range(0, 60, 15)]
    for (h, m), (h2, m2) in itertools.permutations(times, 2):
        if h == h2 or abs(h - h2) in (6,):
            continue
        yield (
            f"{h}:{m:02d}",
            f"{h2}:{m2:02d}",
            f"the clock showing {h}:{m:02d}",
            f"clock:{h}:{m:02d}",
            f"clock:{h2}:{m2:02d}",
        )


#: Picture category -> its raw items in generation order.
PICTURE_POOLS: dict[str, Callable[[], Iterator[Raw]]] = {
    "COLOR": _color_pool,
    "SHAPE": _shape_pool,
    "COUNTING": _count_pool,
    "SIZE": _size_pool,
    "SPATIAL": _spatial_pool,
    "TIME": _time_pool,
}


__all__ = ["COLORS", "PICTURE_POOLS", "SIZES", "Raw"]
