"""Round objects built from surfaces of revolution (fruit, bowls): generated, no assets.

A :class:`RevolvedObject` is one or more convex pieces, each a ``(radius, z)`` profile turned
about body z (see :func:`~rsb_mj.scene.categories.shapes.revolve`), z measured up from the
object's bottom. Every piece collides with its own mesh (convex, so MuJoCo's convex-hull
collision matches what is drawn) and takes the episode color; a flat bottom keeps it from
rolling. :data:`FRUIT` is the table of the question tasks' fruit: an apple (4.9 cm wide,
4.6 cm tall, widest above its middle, a brown stem), a mandarin-sized orange (5 cm wide,
4.4 cm tall, a green calyx on top) and a pear (4.7 cm wide, 6.9 cm tall: a round bottom and a
tapering neck it is grasped by, and a stem).
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.shapes import (
    LEAF_GREEN,
    STEM_BROWN,
    add_mesh,
    hull,
    revolve,
    solid,
    visual,
)

Profile = tuple[tuple[float, float], ...]


class RevolvedObject(Category):
    """Convex revolved pieces; the body origin is at half the object's height.

    Made with ``name``, ``pieces`` (profiles [m], z from the object's bottom), ``density``
    [kg/m^3] and optionally ``stem`` or ``calyx``.
    """

    pieces: tuple[Profile, ...] = ()
    density: float = 500.0
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    #: A brown capsule stem on top: (radius, half length, x offset, centre above the top [m],
    #: tilt about y [rad]); None for none.
    stem: tuple[float, float, float, float, float] | None = None
    #: A green disc on top: (radius, half thickness) [m]; None for none.
    calyx: tuple[float, float] | None = None

    def __init__(
        self,
        name: str,
        pieces: tuple[Profile, ...],
        density: float,
        *,
        stem: tuple[float, float, float, float, float] | None = None,
        calyx: tuple[float, float] | None = None,
        about: str = "",
    ) -> None:
        self.name, self.pieces, self.density = name, pieces, density
        self.stem, self.calyx, self.about = stem, calyx, about

    @property
    def description(self) -> str:
        """What this row builds."""
        return self.about

    def __repr__(self) -> str:
        return f"RevolvedObject({self.name!r})"

    @property
    def height(self) -> float:
        """Object height [m] (top of the highest piece)."""
        return max(z for piece in self.pieces for _, z in piece) * self.scale[2]

    @property
    def rest_height(self) -> float:  # type: ignore[override]
        """Height [m] of the body origin above the table: half the object's height."""
        return self.height / 2

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        color: list[str] = []
        width = 0.0
        for i, profile in enumerate(self.pieces):
            verts, faces = revolve(profile)
            verts = verts - np.array([0.0, 0.0, self.height / 2 / self.scale[2]])
            mesh = add_mesh(spec, f"{self.name}_piece{i}", verts, faces, self.scale)
            geom = solid(
                body,
                f"{obj}/piece{i}",
                self.density,
                type=mujoco.mjtGeom.mjGEOM_MESH,
                meshname=mesh,
            )
            color.append(geom.name)
            width = max(width, 2 * max(r for r, _ in profile) * self.scale[1])
        self.details(body, obj)
        return BuiltObject(color_geoms=tuple(color), letter_geoms=(), grip_width=width)

    def details(self, body: mujoco.MjsBody, obj: str) -> None:
        """Add fixed-color, non-colliding details: the :attr:`stem` and :attr:`calyx` if set."""
        if self.calyx is not None:
            visual(
                body,
                f"{obj}/calyx",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[*self.calyx, 0],
                pos=[0.0, 0.0, self.height / 2],
                rgba=list(LEAF_GREEN),
            )
        if self.stem is not None:
            radius, half_length, x, above, tilt = self.stem
            visual(
                body,
                f"{obj}/stem",
                type=mujoco.mjtGeom.mjGEOM_CAPSULE,
                size=[radius, half_length, 0],
                pos=[x, 0.0, self.height / 2 + above],
                euler=[0.0, tilt, 0.0],
                rgba=list(STEM_BROWN),
            )


def hollow_vessel(
    spec: mujoco.MjSpec,
    body: mujoco.MjsBody,
    obj: str,
    name: str,
    outer: Profile,
    drawn: Profile,
    height: float,
    density: float,
) -> mujoco.MjsGeom:
    """A vessel (bowl, mug) drawn hollow that collides as its solid outer shape.

    Args:
        spec, body: the scene being built and the object's body (origin at half ``height``).
        obj: the object's name (geoms are ``{obj}/hull`` and ``{obj}/shell``).
        name: the category name (meshes are ``{name}_hull`` and ``{name}_shell``).
        outer: convex outer profile (radius, z) [m], z from the bottom: the collision shape.
        drawn: the drawn profile (outer side up to the rim, then the inside down).
        height: the vessel's height [m].
        density: of the collision hull [kg/m^3].

    Returns:
        The drawn shell geom (it takes the episode color).
    """
    down = np.array([0.0, 0.0, height / 2])
    outer_verts, outer_faces = revolve(outer)
    drawn_verts, drawn_faces = revolve(drawn)
    mesh = mujoco.mjtGeom.mjGEOM_MESH
    hull(
        body,
        f"{obj}/hull",
        density,
        type=mesh,
        meshname=add_mesh(spec, f"{name}_hull", outer_verts - down, outer_faces),
    )
    return visual(
        body,
        f"{obj}/shell",
        type=mesh,
        meshname=add_mesh(spec, f"{name}_shell", drawn_verts - down, drawn_faces),
    )


#: The question tasks' fruit (profiles from the bottom up, metres).
FRUIT: tuple[RevolvedObject, ...] = (
    RevolvedObject(
        "apple",
        (
            (
                (0.0, 0.0),
                (0.011, 0.0),
                (0.017, 0.003),
                (0.0215, 0.009),
                (0.024, 0.017),
                (0.0245, 0.025),
                (0.0235, 0.033),
                (0.020, 0.040),
                (0.013, 0.0448),
                (0.005, 0.046),
                (0.0, 0.046),
            ),
        ),
        800.0,
        stem=(0.0016, 0.005, 0.001, 0.004, 0.3),
        about="``apple``: a small procedural apple (4.9 cm wide, 4.6 cm tall) with a brown stem.",
    ),
    RevolvedObject(
        "orange",
        (
            (
                (0.0, 0.0),
                (0.010, 0.0),
                (0.0175, 0.0035),
                (0.0225, 0.010),
                (0.0248, 0.017),
                (0.025, 0.022),
                (0.0248, 0.027),
                (0.0225, 0.034),
                (0.0175, 0.0405),
                (0.009, 0.0435),
                (0.0, 0.044),
            ),
        ),
        850.0,
        calyx=(0.003, 0.0006),
        about="``orange``: a small procedural orange (a mandarin: 5 cm wide, 4.4 cm tall).",
    ),
    RevolvedObject(
        "pear",
        (
            (
                (0.0, 0.0),
                (0.010, 0.0),
                (0.018, 0.004),
                (0.0225, 0.012),
                (0.0235, 0.021),
                (0.021, 0.031),
                (0.016, 0.040),
                (0.0, 0.040),
            ),
            (
                (0.0, 0.033),
                (0.0175, 0.033),
                (0.0145, 0.049),
                (0.0105, 0.061),
                (0.005, 0.068),
                (0.0, 0.069),
            ),
        ),
        800.0,
        stem=(0.0015, 0.006, -0.001, 0.005, -0.25),
        about="``pear``: a small procedural pear (4.7 cm wide, 6.9 cm tall), graspable by its "
        "neck.",
    ),
)
