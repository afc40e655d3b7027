"""The object-category interface: how one candidate object is built into a scene.

A :class:`Category` adds the geoms of one object to a free body of the scene spec. It reports
which geoms take the episode's appearance: ``color_geoms`` get the color's rgba, and
``letter_geoms`` get the material that shows the option letter (black Hershey strokes,
see :mod:`rsb_mj.scene.letters`) tinted with the color. Appearance is applied per episode
without recompiling (see :meth:`rsb_mj.scene.compiler.Scene.apply_episode`).

Geometry is in the object's body frame: origin at the object's center, z up; metres. The
body rests on the table with its origin ``rest_height`` above the table top.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import mujoco

from rsb_mj.lang.categories import RSB_CATEGORIES, CategoryInfo


@dataclass(frozen=True)
class BuiltObject:
    """What :meth:`Category.build` made.

    Attributes:
        color_geoms: geom names whose rgba becomes the episode color.
        letter_geoms: geom names whose material becomes the letter material of the color.
        grip_width: object extent [m] along its body y axis, where a gripper closes on it
            (every category puts its narrowest horizontal side along body y).
    """

    color_geoms: tuple[str, ...]
    letter_geoms: tuple[str, ...]
    grip_width: float


class Category(ABC):
    """One object category (a module per category in this package)."""

    #: Category name as task files use it (``- letter_block``).
    name: str = ""
    #: Height [m] of the body origin above the table top when the object rests upright.
    rest_height: float = 0.0

    @property
    def info(self) -> CategoryInfo:
        """Noun, footprint radius and letter support from the task-language vocabulary."""
        return RSB_CATEGORIES[self.name]

    @abstractmethod
    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        """Add the geoms of object ``obj`` to ``body`` (names prefixed ``{obj}/``)."""


def collision_defaults(geom: mujoco.MjsGeom, density: float) -> None:
    """Contact and mass settings shared by every candidate's collision geoms."""
    geom.condim = 4
    geom.friction = [1.0, 0.01, 0.0002]
    geom.density = density
    geom.solref = [0.005, 1.0]
    geom.solimp = [0.95, 0.99, 0.001, 0.5, 2.0]
