"""Visual settings a task file asks for: ``:image_settings``, ``:random_color``, ``:camera``,
``:noise`` (VLA-Arena's blocks, flat ``key value`` pairs), read from the parsed task.

Syntax (every key optional; values are numbers, ``offset`` a list of three)::

    (:image_settings brightness 0.4 contrast -0.2 saturation -0.3 temperature 5000)
    (:random_color low 0.2 high 0.8)
    (:camera offset (0.02 -0.03 0.01) range 0.05)
    (:noise gaussian 0.05 salt_pepper 0.01)

* ``brightness`` in [-1, 1]: light diffuse and ambient scaled by ``2 ** brightness``;
  ``contrast`` in [-1, 1]: diffuse scaled by ``1 + contrast``, ambient by ``1 - contrast``;
  ``saturation`` in [-1, 1]: the saturation of the scene's non-candidate colors scaled by
  ``1 + saturation``; ``temperature`` in [2000, 10000] K: light color (6500 K is white).
* ``low``, ``high`` in [0, 1]: range of each rgb channel of table, floor and distractor colors.
* ``offset`` [m]: head camera position offset (world frame, x right, y forward, z up);
  ``range`` [m]: an extra offset drawn from U(-range, range) per axis.
* ``gaussian`` in [0, 1]: noise standard deviation as a fraction of full scale (255);
  ``salt_pepper`` in [0, 1]: fraction of pixels set to black or white.

A block switches its effect on at every visual level; keys it gives replace the random draw
of that parameter (see :mod:`rsb_mj.perturb.visual`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rsb_mj.errors import TaskError
from rsb_mj.lang.ast import Number, Section, SList, Symbol

#: block -> key -> (low, high) valid range, or "xyz" for a three-number list.
KEYS: dict[str, dict[str, tuple[float, float] | str]] = {
    "image_settings": {
        "brightness": (-1.0, 1.0),
        "contrast": (-1.0, 1.0),
        "saturation": (-1.0, 1.0),
        "temperature": (2000.0, 10000.0),
    },
    "random_color": {"low": (0.0, 1.0), "high": (0.0, 1.0)},
    "camera": {"offset": "xyz", "range": (0.0, 0.5)},
    "noise": {"gaussian": (0.0, 1.0), "salt_pepper": (0.0, 1.0)},
}


@dataclass(frozen=True)
class VisualSettings:
    """The task file's visual blocks: block -> key -> value (absent block: not in ``blocks``)."""

    blocks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def has(self, block: str) -> bool:
        """Whether the task file has ``block``."""
        return block in self.blocks

    def get(self, block: str, key: str) -> Any:
        """The value of ``key`` in ``block``, or None."""
        return self.blocks.get(block, {}).get(key)


def _where(problem: Any, node: Any) -> str:
    span = getattr(node, "span", None)
    return (
        f"{getattr(problem, 'path', '<task>')}:{span}"
        if span and span.line
        else str(getattr(problem, "path", "<task>"))
    )


def read_settings(problem: Any) -> VisualSettings:
    """The visual blocks of ``problem`` (a :class:`rsb_mj.lang.Problem`).

    Raises:
        TaskError: ``path:line:col`` with the unknown key (and the valid ones), a missing or
            non-numeric value, or a value out of range, or a block given twice.
    """
    blocks: dict[str, dict[str, Any]] = {}
    for section in getattr(problem, "sections", ()):
        if not isinstance(section, Section) or section.keyword not in KEYS:
            continue
        where = _where(problem, section)
        if section.keyword in blocks:
            raise TaskError(f"{where}: (:{section.keyword}) appears twice; give it once")
        valid = KEYS[section.keyword]
        values: dict[str, Any] = {}
        items = list(section.items)
        i = 0
        while i < len(items):
            key = items[i]
            if not isinstance(key, Symbol) or key.value not in valid:
                name = key.value if isinstance(key, Symbol) else type(key).__name__
                raise TaskError(
                    f"{_where(problem, key)}: (:{section.keyword}) has no key {name!r}; "
                    f"valid choices: {', '.join(valid)}"
                )
            if i + 1 >= len(items):
                raise TaskError(f"{_where(problem, key)}: {key.value} needs a value")
            value, kind = items[i + 1], valid[key.value]
            if kind == "xyz":
                ok = isinstance(value, SList) and len(value.items) == 3
                ok = ok and all(isinstance(v, Number) for v in value.items)
                if not ok:
                    raise TaskError(
                        f"{_where(problem, key)}: {key.value} takes three numbers (dx dy dz) [m]"
                    )
                values[key.value] = tuple(float(v.value) for v in value.items)
            else:
                lo, hi = kind
                if not isinstance(value, Number) or not lo <= float(value.value) <= hi:
                    raise TaskError(
                        f"{_where(problem, key)}: {key.value} takes a number in [{lo:g}, {hi:g}]"
                    )
                values[key.value] = float(value.value)
            i += 2
        if section.keyword == "random_color" and values.get("low", 0.2) > values.get("high", 0.8):
            raise TaskError(f"{where}: (:random_color) low must not exceed high")
        blocks[section.keyword] = values
    return VisualSettings(blocks)
