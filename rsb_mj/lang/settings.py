"""Visual settings a task file asks for: VLA-Arena's ``:image_settings``, ``:random_color``,
``:camera`` and ``:noise`` blocks (their syntax, as VLA-Arena's ``bddl_utils`` reads it),
read from the parsed task.

Syntax (every key optional)::

    (:image_settings brightness 0.4 contrast -0.2 saturation -0.3 temperature 5000)
    (:random_color true)
    (:camera head 0.02 -0.03 0.01)
    (:noise gaussian 0 0.085)            ; or (:noise salt_pepper 0.01), or both keys

* ``brightness`` in [-1, 1]: light diffuse and ambient scaled by ``1 + brightness``;
  ``contrast`` in [-1, 1]: diffuse scaled by ``1 + contrast``, ambient by ``1 - contrast``;
  ``saturation`` in [-1, 1]: the saturation of the table, floor and distractor colors scaled
  by ``1 + saturation`` (candidates keep the color the instruction names);
  ``temperature`` in [2000, 10000] K: light color (6500 K is white).
* ``random_color true|false``: the V2 color draw (table, floor, distractors; candidates only
  jittered within their named color) at any level (``false`` adds nothing; V2+ still draws).
* ``camera NAME [dx dy dz]``: offset [m] of that camera's position in its parent frame
  (``head``: world frame, x right, y forward, z up; wrist cameras: their gripper's frame).
* ``gaussian MEAN VAR``: additive noise on intensities in [0, 1] (VLA-Arena's V4 is
  ``gaussian 0 0.085``, sigma 0.29); ``salt_pepper P``: fraction of pixels set to 0 or 255.

A block switches its effect on at every visual level; values it gives replace the random draw
of that parameter (see :mod:`rsb_mj.perturb.visual`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from rsb_mj.errors import TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.expr import Number, Section, Symbol
from rsb_mj.workspace import CAMERAS

#: image_settings key -> valid range.
IMAGE_KEYS: dict[str, tuple[float, float]] = {
    "brightness": (-1.0, 1.0),
    "contrast": (-1.0, 1.0),
    "saturation": (-1.0, 1.0),
    "temperature": (2000.0, 10000.0),
}
#: noise key -> ranges of its numbers.
NOISE_KEYS: dict[str, tuple[tuple[float, float], ...]] = {
    "gaussian": ((-1.0, 1.0), (0.0, 1.0)),  # mean, variance (intensities in [0, 1])
    "salt_pepper": ((0.0, 1.0),),  # fraction of pixels
}
#: Blocks read here.
BLOCKS = ("image_settings", "random_color", "camera", "noise")
#: Largest camera offset per axis [m].
MAX_CAMERA_OFFSET_M = 0.5


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


class SettingError(TaskError):
    """A visual block the scene cannot apply.

    Attributes:
        span: where in the task file (:class:`rsb_mj.lang.Span`; line 0 when unknown).
        detail: the message without the ``path:line:col:`` prefix.
    """

    def __init__(self, where: str, span: Any, detail: str) -> None:
        super().__init__(f"{where}: {detail}")
        self.span, self.detail = span, detail


def _fail(problem: Problem, node: Any, detail: str) -> SettingError:
    return SettingError(_where(problem, node), getattr(node, "span", None), detail)


def _where(problem: Problem, node: Any) -> str:
    span = getattr(node, "span", None)
    return f"{problem.path}:{span}" if span and span.line else str(problem.path)


def _number(problem: Problem, node: Any, what: str, lo: float, hi: float) -> float:
    if not isinstance(node, Number) or not lo <= float(node.value) <= hi:
        raise _fail(problem, node, f"{what} takes a number in [{lo:g}, {hi:g}]")
    return float(node.value)


def _choice(problem: Problem, node: Any, valid: Collection[str], block: str, noun: str) -> str:
    """The symbol ``node`` names, one of ``valid``; else an error naming the choices."""
    if isinstance(node, Symbol) and node.value in valid:
        return node.value
    name = node.value if isinstance(node, Symbol) else type(node).__name__
    choices = ", ".join(valid)
    raise _fail(problem, node, f"({block}) has no {noun} {name!r}; valid choices: {choices}")


def _pairs(problem: Problem, section: Section) -> dict[str, Any]:
    values: dict[str, Any] = {}
    items = list(section.items)
    i = 0
    while i < len(items):
        key = items[i]
        _choice(problem, key, IMAGE_KEYS, ":image_settings", "key")
        if i + 1 >= len(items):
            raise _fail(problem, key, f"{key.value} needs a value")
        values[key.value] = _number(problem, items[i + 1], key.value, *IMAGE_KEYS[key.value])
        i += 2
    return values


def _noise(problem: Problem, section: Section) -> dict[str, Any]:
    values: dict[str, Any] = {}
    items = list(section.items)
    i = 0
    while i < len(items):
        key = items[i]
        _choice(problem, key, NOISE_KEYS, ":noise", "kind")
        ranges = NOISE_KEYS[key.value]
        args = items[i + 1 : i + 1 + len(ranges)]
        if len(args) < len(ranges):
            usage = "MEAN VAR" if key.value == "gaussian" else "P"
            raise _fail(problem, key, f"{key.value} takes {usage}")
        nums = tuple(_number(problem, a, key.value, *r) for a, r in zip(args, ranges, strict=True))
        values[key.value] = nums if len(nums) > 1 else nums[0]
        i += 1 + len(ranges)
    return values


def _cameras(problem: Problem, section: Section) -> dict[str, Any]:
    values: dict[str, Any] = {}
    items = list(section.items)
    i = 0
    while i < len(items):
        name = items[i]
        _choice(problem, name, CAMERAS, ":camera", "camera")
        rest = items[i + 1 : i + 4]
        if rest and isinstance(rest[0], Number):
            if len(rest) < 3 or not all(isinstance(x, Number) for x in rest):
                raise _fail(problem, name, f"{name.value} takes dx dy dz [m]")
            lim = MAX_CAMERA_OFFSET_M
            values[name.value] = tuple(
                _number(problem, x, f"{name.value} offset", -lim, lim) for x in rest
            )
            i += 4
        else:
            values[name.value] = (0.0, 0.0, 0.0)
            i += 1
    return values


def _random_color(problem: Problem, section: Section) -> dict[str, Any]:
    items = list(section.items)
    ok = len(items) == 1 and isinstance(items[0], Symbol)
    if not ok or items[0].value.lower() not in ("true", "false"):
        raise _fail(problem, section, "(:random_color) takes true or false")
    return {"enabled": items[0].value.lower() == "true"}


def read_settings(problem: Problem) -> VisualSettings:
    """The visual blocks of ``problem`` (a :class:`rsb_mj.lang.Problem`).

    Raises:
        SettingError: (a TaskError) ``path:line:col`` with the unknown key or camera (and the
            valid ones), a missing or non-numeric value, a value out of range, or a block
            given twice.
    """
    readers = {
        "image_settings": _pairs,
        "noise": _noise,
        "camera": _cameras,
        "random_color": _random_color,
    }
    blocks: dict[str, dict[str, Any]] = {}
    for section in problem.sections:
        if not isinstance(section, Section) or section.keyword not in readers:
            continue
        if section.keyword in blocks:
            raise _fail(problem, section, f"(:{section.keyword}) appears twice; give it once")
        blocks[section.keyword] = readers[section.keyword](problem, section)
    return VisualSettings(blocks)
