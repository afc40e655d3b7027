"""The object-category interface: how one candidate object is built into a scene.

A :class:`Category` adds the geoms of one object to a free body of the scene spec. It reports
which geoms take the episode's appearance: ``color_geoms`` get the color's rgba, and
``letter_geoms`` get the material that shows the option letter (black Hershey strokes,
see :mod:`rsb_mj.scene.letters`) tinted with the color. Appearance is applied per episode
without recompiling (see :meth:`rsb_mj.scene.compiler.Scene.apply_episode`).

Geometry is in the object's body frame: origin at the object's center, z up; metres. The
body rests on the table with its origin ``rest_height`` above the table top.

For goal tasks (LIBERO / VLA-Arena layouts) a category also says whether it is a ``fixture``
(a static prop: the compiler adds no free joint), which ``regions`` it carries (MJCF sites
``{obj}_{region}``, :class:`RegionSpec`), its bounding box ``half_extents`` and the ``grasp``
the expert should use.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import mujoco
import numpy as np

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
    #: Names of the region sites it made (``{obj}_{region}``, see :attr:`Category.regions`).
    sites: tuple[str, ...] = ()


@dataclass(frozen=True)
class RegionSpec:
    """A region a task file names on an object or fixture (``basket_1_contain_region``).

    Attributes:
        name: the region's name (``contain_region``, ``top_side``, ``cook_region``, ...).
        center: (x, y, z) [m] of the region box's centre in the object's body frame.
        half_size: (x, y, z) half extents [m] of the region box, along ``quat``'s axes.
        quat: orientation (w, x, y, z) of the region box in the body frame (identity by
            default; the wine rack's slanted top is turned).
    """

    name: str
    center: tuple[float, float, float]
    half_size: tuple[float, float, float]
    quat: tuple[float, float, float, float] = (1.0, 0.0, 0.0, 0.0)


def add_region_site(
    body: mujoco.MjsBody,
    name: str,
    half_size: Sequence[float],
    pos: Sequence[float],
    quat: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
) -> str:
    """Region site ``name`` on ``body``: an invisible box (group 5) of ``half_size`` [m]
    centred at ``pos`` [m, body frame], turned by ``quat`` (w, x, y, z), the site a task's
    ``{object}_{region}`` names; returns its name."""
    site = body.add_site(
        name=name,
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=list(half_size),
        pos=list(pos),
        quat=list(quat),
        group=5,
        rgba=[0.0, 1.0, 0.0, 0.0],
    )
    return site.name


class Category(ABC):
    """One object category (a module of its own, or a row of a table: blocks, fruit, robosuite
    meshes, stand-ins)."""

    #: Category name as task files use it (``- letter_block``).
    name: str = ""
    #: Height [m] of the body origin above the table top when the object rests upright.
    rest_height: float = 0.0
    #: True for a static prop (cabinet, stove, shelf): posed, not operated, no free joint.
    fixture: bool = False
    #: Regions built as sites ``{obj}_{region}`` (body frame).
    regions: tuple[RegionSpec, ...] = ()
    #: How the expert should grasp it: ``"top"`` (close across body y from above),
    #: ``"rim"`` (a bowl's or plate's edge), ``"handle"`` (a mug's or pan's handle),
    #: ``"edge"`` (a book's or board's edge) or ``"none"`` (never grasped: fixtures).
    grasp: str = "top"

    @property
    def description(self) -> str:
        """One paragraph on what is built (an editor's hover shows it): the first paragraph of
        the category's module docstring unless the category says more."""

        doc = getattr(sys.modules.get(type(self).__module__), "__doc__", None) or ""
        return doc.strip().split("\n\n")[0]

    @property
    def half_extents(self) -> tuple[float, float, float]:
        """Half extents (x, y, z) [m] of the object's bounding box in its body frame (what
        collides and what is drawn), measured once by compiling the object alone."""
        return _measured_half_extents(self)

    @property
    def info(self) -> CategoryInfo:
        """Noun, footprint radius and letter support from the task-language vocabulary."""
        return RSB_CATEGORIES[self.name]

    @abstractmethod
    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        """Add the geoms of object ``obj`` to ``body`` (names prefixed ``{obj}/``)."""


@cache
def _measured_half_extents(category: Category) -> tuple[float, float, float]:
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(name="obj")
    category.build(spec, body, "obj")
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return bounding_half_extents(model, data)


def bounding_half_extents(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, float, float]:
    """Half extents [m] of the world-axis box around every geom of ``model`` (mesh vertices,
    or each primitive's local bounding box), symmetric about the world origin."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    reach = np.zeros(3)
    for g in range(model.ngeom):
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            adr = model.mesh_vertadr[model.geom_dataid[g]]
            local = model.mesh_vert[adr : adr + model.mesh_vertnum[model.geom_dataid[g]]]
        else:
            local = model.geom_aabb[g, :3] + signs * model.geom_aabb[g, 3:]
        world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        reach = np.maximum(reach, np.abs(world).max(axis=0))
    x, y, z = (round(float(v), 4) for v in reach)
    return (x, y, z)


def collision_defaults(geom: mujoco.MjsGeom, density: float) -> None:
    """Contact and mass settings shared by every candidate's collision geoms."""
    geom.condim = 4
    geom.friction = [1.0, 0.01, 0.0002]
    geom.density = density
    geom.solref = [0.005, 1.0]
    geom.solimp = [0.95, 0.99, 0.001, 0.5, 2.0]
