"""``toy_car``: a procedural toy car (9 cm long along body x, 4.4 cm wide)."""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults

HALF_LENGTH, HALF_WIDTH = 0.045, 0.022
WHEEL_RADIUS = 0.011


class ToyCar(Category):
    """Colored chassis and cabin, black wheels; one box collides."""

    name = "toy_car"
    rest_height = 0.02

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        box = mujoco.mjtGeom.mjGEOM_BOX
        hull = body.add_geom(
            name=f"{obj}/hull", type=box, size=[HALF_LENGTH, HALF_WIDTH, 0.02], group=3
        )
        collision_defaults(hull, density=400.0)
        hull.rgba = [0, 0, 0, 0]
        chassis = body.add_geom(
            name=f"{obj}/chassis",
            type=box,
            size=[HALF_LENGTH, HALF_WIDTH, 0.008],
            pos=[0, 0, -0.002],
            group=2,
            contype=0,
            conaffinity=0,
            density=0,
        )
        cabin = body.add_geom(
            name=f"{obj}/cabin",
            type=box,
            size=[0.022, 0.019, 0.009],
            pos=[-0.006, 0, 0.013],
            group=2,
            contype=0,
            conaffinity=0,
            density=0,
        )
        body.add_geom(
            name=f"{obj}/windows",
            type=box,
            size=[0.0225, 0.0195, 0.004],
            pos=[-0.006, 0, 0.014],
            group=2,
            contype=0,
            conaffinity=0,
            density=0,
            rgba=[0.15, 0.2, 0.3, 1],
        )
        for i, (sx, sy) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
            body.add_geom(
                name=f"{obj}/wheel{i}",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[WHEEL_RADIUS, 0.004, 0],
                pos=[sx * 0.028, sy * HALF_WIDTH, -0.009],
                quat=[0.7071068, 0.7071068, 0, 0],
                group=2,
                contype=0,
                conaffinity=0,
                density=0,
                rgba=[0.08, 0.08, 0.08, 1],
            )
        return BuiltObject(
            color_geoms=(chassis.name, cabin.name), letter_geoms=(), grip_width=2 * HALF_WIDTH
        )
