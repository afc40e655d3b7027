"""Articulated fixtures as LIBERO and VLA-Arena model them: drawers, a door and a knob.

Project-made stand-ins (boxes and capsules, no third-party meshes) with the originals'
bodies, joints, ranges, damping, handles and region sites (``libero/libero/assets/
articulated_objects/*.xml`` at 8f1084e; VLA-Arena's are the same bodies;
``shared/reference/articulated_fixtures.md`` section 1.3):

* ``wooden_cabinet`` / ``white_cabinet``: a carcass and three drawer bodies, each on a
  ``slide`` joint ``{obj}/top_level``, ``{obj}/middle_level``, ``{obj}/bottom_level`` along
  the fixture's +y axis, range -0.16..0.01 m, damping 50 N s/m, mass 3 kg; a negative qpos
  pulls the drawer out of the front (-y). Each drawer has a horizontal handle bar 8.9 cm long,
  1.5 cm deep and 1.6 cm tall on two standoffs (a 1.6 cm gap behind it, 5.5 cm between the
  standoffs) and its region site (``{obj}_top_region`` ...) on the drawer body, so the region
  moves with the drawer.
* ``microwave``: a box and a door body on a vertical ``hinge`` ``{obj}/microjoint`` at the
  front-left corner, range -2.094..0 rad (negative opens it, out to the front), damping
  0.5 N m s/rad; a vertical bar handle (capsule, radius 1 cm, 13 cm long) 0.244 m from the
  hinge axis; ``heating_region`` inside, ``top_side`` on top.
* ``flat_stove``: a burner box and, 0.15 m from it along the fixture's -x, a knob on a
  vertical ``hinge`` ``{obj}/button``, range -0.005..2.1 rad, damping 1, mass 3 kg with
  LIBERO's diaginertia of 1 kg m^2; ``cook_region`` on the burner (LIBERO's half-size
  0.075 m) and the site ``{obj}/burner``, a red disc whose alpha is 1 while the stove is on
  and 0 while it is not (:func:`light_burners`).

Frames: every part is authored in the original's frame (z up from the fixture's bottom);
the body origin is then the centre of the declared box (:attr:`ArticulatedFixture.size`), as
every stand-in fixture's (:class:`~rsb_mj.scene.categories.parts.StandinCategory`), so the
goal scene stands it on the table by its footprint's centre (LIBERO's stove stands on its
knob: here the knob is 0.099 m off the footprint's centre along the fixture's -x).

Tier A (A0/A1) files keep the static props of :mod:`rsb_mj.scene.categories.standins`
(their records are unchanged); the goal scene builds these for tier B files
(:func:`rsb_mj.scene.compiler.compile_scene`). The joints' ``:init`` ranges
(LIBERO's ``default_open_ranges`` ...) are :attr:`ArticulatedFixture.init_ranges`; the
predicates' thresholds are :mod:`rsb_mj.scoring.predicates.fixture_state`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mujoco
import numpy as np

from rsb_mj.scene.categories.base import (
    BuiltObject,
    Category,
    RegionSpec,
    add_region_site,
    collision_defaults,
)

RGBA = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]

WOOD = (0.72, 0.53, 0.32, 1.0)
WHITE = (0.92, 0.92, 0.9, 1.0)
METAL = (0.62, 0.64, 0.67, 1.0)
DARK = (0.12, 0.12, 0.13, 1.0)
GLASS = (0.08, 0.08, 0.1, 1.0)
#: The lit burner's colour (LIBERO's ``burner`` site rgba); its alpha is 0 while off.
BURNER_RGBA = (0.9, 0.05, 0.05, 1.0)


@dataclass(frozen=True)
class Box:
    """One box (or capsule, ``kind="capsule"``: size = (radius, half length, 0)) of a part,
    in the original's frame (z up from the fixture's bottom) [m]."""

    half: Vec3
    pos: Vec3
    rgba: RGBA
    collide: bool = True
    kind: str = "box"
    euler: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Moving:
    """A moving part: a child body on one joint.

    Attributes:
        name: the body's name suffix (``{obj}/{name}``).
        joint: the joint's name suffix (``{obj}/{joint}``, LIBERO's name: ``top_level``).
        kind: ``"slide"`` or ``"hinge"``.
        axis: the joint axis in the fixture frame.
        pos: the body's origin in the original's frame [m] (the joint is at it).
        range: joint limits [m or rad].
        damping: [N s/m or N m s/rad].
        boxes: its geoms, in the body's own frame (its origin at ``pos``; the drawers' is the
            original's origin, so theirs are in the original's frame).
        regions: region sites on this body (the region moves with it), the body's frame.
        mass: [kg]; ``inertia``: diagonal inertia [kg m^2] (explicit, as the originals').
    """

    name: str
    joint: str
    kind: str
    axis: Vec3
    pos: Vec3
    range: tuple[float, float]
    damping: float
    boxes: tuple[Box, ...]
    regions: tuple[RegionSpec, ...] = ()
    mass: float = 0.0
    inertia: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class ArticulatedFixture:
    """One articulated fixture category (module docstring).

    Attributes:
        name: category name (``wooden_cabinet``).
        noun: what instructions call it.
        size: declared bounding box (x, y, z) [m] with every joint at 0, centred on the body
            origin (it bounds the parts).
        shift: (x, y) [m] subtracted from the original's frame to put the body origin at
            the box's centre (the cabinets keep LIBERO's origin, which is within 4 mm of it).
        boxes: the static carcass, original's frame.
        moving: the moving parts.
        regions: region sites on the carcass, original's frame.
        init_ranges: ``:init`` state (``open``, ``close``, ``turnon``, ``turnoff``) ->
            the range [lo, hi] its joint positions are drawn from uniformly (LIBERO's
            ``default_*_ranges``).
        lights: (site name suffix, position (original's frame), radius, half height) of a
            site lit while the fixture is on, or None.
    """

    name: str
    noun: str
    size: Vec3
    shift: tuple[float, float]
    boxes: tuple[Box, ...]
    moving: tuple[Moving, ...]
    regions: tuple[RegionSpec, ...] = ()
    init_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    lights: tuple[str, Vec3, float, float] | None = None


class ArticulatedCategory(Category):
    """A category built from an :class:`ArticulatedFixture` (no free joint: a fixture)."""

    fixture = True
    grasp = "none"
    #: Marks a fixture with joints (the goal scene samples its ``:init`` states).
    articulated = True

    def __init__(self, spec: ArticulatedFixture) -> None:
        self.spec = spec
        self.name = spec.name
        self.rest_height = spec.size[2] / 2
        #: The region sites, body frame, every joint at 0 (a drawer's moves with it).
        self.regions = tuple(
            RegionSpec(r.name, self._local(_add(part.pos, r.center)), r.half_size, r.quat)
            for part in spec.moving
            for r in part.regions
        ) + tuple(
            RegionSpec(r.name, self._local(r.center), r.half_size, r.quat) for r in spec.regions
        )

    def __repr__(self) -> str:
        return f"ArticulatedCategory({self.name!r})"

    @property
    def description(self) -> str:
        """What the stand-in is: noun, size, its joints."""
        s = self.spec
        size = " x ".join(f"{v * 100:.1f}" for v in s.size)
        joints = ", ".join(f"{m.joint} ({m.kind} {m.range[0]:g}..{m.range[1]:g})" for m in s.moving)
        return (
            f"``{s.name}``: the project's articulated stand-in for LIBERO / VLA-Arena's {s.noun} "
            f"({size} cm; joints {joints})."
        )

    @property
    def half_extents(self) -> tuple[float, float, float]:
        """Half the declared size (x, y, z) [m], every joint at 0."""
        x, y, z = self.spec.size
        return (x / 2, y / 2, z / 2)

    def joint_names(self, obj: str) -> tuple[str, ...]:
        """The joints of object ``obj`` (``{obj}/top_level`` ...), in build order."""
        return tuple(f"{obj}/{m.joint}" for m in self.spec.moving)

    def _local(self, p: Vec3) -> Vec3:
        """Point ``p`` of the original's frame in the body frame (origin: the declared
        box's centre)."""
        sx, sy = self.spec.shift
        return (p[0] - sx, p[1] - sy, p[2] - self.spec.size[2] / 2)

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        s = self.spec
        _add_boxes(body, obj, "c", s.boxes, self._local)
        sites = [_add_region(body, obj, r, self._local(r.center)) for r in s.regions]
        for m in s.moving:
            child = body.add_body(name=f"{obj}/{m.name}", pos=list(self._local(m.pos)))
            if m.mass:
                child.explicitinertial = True
                child.mass = m.mass
                child.inertia = list(m.inertia)
            hinge = m.kind == "hinge"
            unit = 180.0 / math.pi if hinge and spec.compiler.degree else 1.0  # rad -> spec's
            joint = child.add_joint(
                name=f"{obj}/{m.joint}",
                type=mujoco.mjtJoint.mjJNT_HINGE if hinge else mujoco.mjtJoint.mjJNT_SLIDE,
                axis=list(m.axis),
                range=[m.range[0] * unit, m.range[1] * unit],
                damping=m.damping,
            )
            joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE

            _add_boxes(child, obj, m.name, m.boxes, _same)
            sites += [_add_region(child, obj, r, r.center) for r in m.regions]
        if s.lights is not None:
            name, pos, radius, half = s.lights
            body.add_site(
                name=f"{obj}/{name}",
                type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                size=[radius, half, 0.0],
                pos=list(self._local(pos)),
                rgba=[*BURNER_RGBA[:3], 0.0],
                group=1,
            )
        x, y, _ = self.half_extents
        return BuiltObject((), (), grip_width=2 * min(x, y), sites=tuple(sites))


def _add(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _same(p: Vec3) -> Vec3:
    return p


def _add_boxes(body: mujoco.MjsBody, obj: str, tag: str, boxes: tuple[Box, ...], local) -> None:
    for i, b in enumerate(boxes):
        kw: dict = {
            "name": f"{obj}/{tag}{i}",
            "pos": list(local(b.pos)),
            "rgba": list(b.rgba),
            "group": 2,
        }
        if b.kind == "capsule":
            kw["type"] = mujoco.mjtGeom.mjGEOM_CAPSULE
            kw["size"] = [b.half[0], b.half[1], 0.0]
        elif b.kind == "cylinder":
            kw["type"] = mujoco.mjtGeom.mjGEOM_CYLINDER
            kw["size"] = [b.half[0], b.half[1], 0.0]
        else:
            kw["type"] = mujoco.mjtGeom.mjGEOM_BOX
            kw["size"] = list(b.half)
        if b.euler != (0.0, 0.0, 0.0):
            quat = np.zeros(4)
            mujoco.mju_euler2Quat(quat, np.asarray(b.euler, float), "xyz")
            kw["quat"] = quat.tolist()
        if b.collide:
            geom = body.add_geom(**kw)
            collision_defaults(geom, density=400.0)
        else:
            body.add_geom(contype=0, conaffinity=0, density=0.0, **kw)


def _add_region(body: mujoco.MjsBody, obj: str, r: RegionSpec, center: Vec3) -> str:
    return add_region_site(body, f"{obj}_{r.name}", r.half_size, center, r.quat)


# --- the cabinets -------------------------------------------------------------------------
#: Drawer (LIBERO's body suffix, joint, floor centre z, wall centre z, handle bar z,
#: region centre z) [m] up from the cabinet's bottom.
_DRAWERS = (
    ("cabinet_top", "top_level", "top_region", 0.1551, 0.1836, 0.1839, 0.1856),
    ("cabinet_middle", "middle_level", "middle_region", 0.0854, 0.1139, 0.1104, 0.1169),
    ("cabinet_bottom", "bottom_level", "bottom_region", 0.0168, 0.0453, 0.0411, 0.0470),
)
#: A drawer's region: half-size (x, y, z) [m] and centre (x, y) (LIBERO's site after its quat).
_DRAWER_REGION = ((0.1022, 0.0756, 0.0299), (0.0033, 0.0113))


def _cabinet(name: str, noun: str, rgba: RGBA, extra_regions: tuple[RegionSpec, ...] = ()):
    front = (*tuple(v * 0.92 for v in rgba[:3]), 1.0)
    carcass = (
        Box((0.119, 0.002, 0.1095), (0.004, 0.1095, 0.1125), rgba),  # back
        Box((0.123, 0.0896, 0.002), (0.004, 0.0164, 0.0069), rgba),  # bottom
        Box((0.0052, 0.0954, 0.1058), (-0.1122, 0.0163, 0.1143), rgba),  # left side
        Box((0.0052, 0.0954, 0.1058), (0.119, 0.0163, 0.1143), rgba),  # right side
        Box((0.1273, 0.0941, 0.0014), (0.0039, 0.0158, 0.2216), rgba),  # top
        Box((0.1117, 0.0894, 0.0009), (0.0038, 0.0187, 0.1494), rgba),  # dividers
        Box((0.1117, 0.0894, 0.0009), (0.0039, 0.0187, 0.0793), rgba),
    )
    drawers = []
    (hx, hy, hz), (cx, cy) = _DRAWER_REGION
    for body, joint, region, floor, wall, bar, rz in _DRAWERS:
        boxes = (
            Box((0.107, 0.081, 0.004), (0.0035, 0.0105, floor), front),  # floor
            Box((0.1093, 0.0027, 0.0343), (0.0033, -0.0752, wall), front),  # front
            Box((0.1068, 0.0036, 0.0321), (0.0033, 0.0908, wall), front),  # back
            Box((0.0024, 0.0815, 0.0317), (-0.1019, 0.011, wall), front),  # sides
            Box((0.0024, 0.0815, 0.0317), (0.1089, 0.011, wall), front),
            Box((0.0445, 0.0077, 0.0082), (-0.0028, -0.1016, bar), METAL),  # handle bar
            Box((0.0051, 0.0106, 0.0055), (0.0292, -0.0835, bar), METAL),  # standoffs
            Box((0.0051, 0.0106, 0.0055), (-0.0356, -0.0835, bar), METAL),
        )
        drawers.append(
            Moving(
                body,
                joint,
                "slide",
                (0.0, 1.0, 0.0),
                (0.0, 0.0, 0.0),
                (-0.16, 0.01),
                50.0,
                boxes,
                (RegionSpec(region, (cx, cy, rz), (hx, hy, hz)),),
                mass=3.0,
                inertia=(1.0, 1.0, 1.0),
            )
        )
    return ArticulatedFixture(
        name,
        noun,
        # x -0.1234..0.1312 (the top), y -0.1093 (handles)..0.1115, z 0..0.223: the box
        # centred on LIBERO's origin (as the static stand-in's, whose regions these match)
        (0.2624, 0.223, 0.223),
        (0.0, 0.0),
        carcass,
        tuple(drawers),
        (
            RegionSpec("top_side", (0.0035, 0.0157, 0.2215), (0.1253, 0.0944, 0.0015)),
            *extra_regions,
        ),
        {"open": (-0.16, -0.14), "close": (0.0, 0.005)},
    )


WOODEN_CABINET = _cabinet("wooden_cabinet", "wooden cabinet", WOOD)
WHITE_CABINET = _cabinet(
    "white_cabinet",
    "white cabinet",
    WHITE,
    (  # VLA-Arena's white_cabinet.xml adds these
        RegionSpec("top_side_1", (-0.0354, 0.0367, 0.2215), (0.1253, 0.0944, 0.0015)),
        RegionSpec("top_side_2", (0.0454, -0.0267, 0.2215), (0.1253, 0.0944, 0.0015)),
    ),
)

# --- the microwave ------------------------------------------------------------------------
_GREY = (0.85, 0.85, 0.86, 1.0)
MICROWAVE = ArticulatedFixture(
    "microwave",
    "microwave",
    # x -0.1725..0.1725, y -0.152 (the handle)..0.1105, z 0..0.187
    (0.345, 0.2625, 0.187),
    (0.0, -0.02075),
    (
        Box((0.0145, 0.09955, 0.0935), (-0.158, 0.0115, 0.0935), _GREY),  # left wall
        Box((0.0545, 0.09955, 0.0935), (0.118, 0.0115, 0.0935), _GREY),  # right, the panel
        Box((0.1035, 0.015, 0.0935), (-0.0405, 0.0955, 0.0935), _GREY),  # back
        Box((0.1035, 0.0845, 0.0095), (-0.04, -0.0035, 0.1775), _GREY),  # top
        Box((0.1035, 0.084, 0.012), (-0.04, -0.004, 0.012), _GREY),  # bottom
        Box((0.0425, 0.012, 0.0935), (0.13, -0.0985, 0.0935), (0.3, 0.3, 0.32, 1.0)),  # panel
    ),
    (
        Moving(
            "microdoorroot",
            "microjoint",
            "hinge",
            (0.0, 0.0, 1.0),
            (-0.1725, -0.088, 0.096),
            (-2.094, 0.0),
            0.5,
            (  # door-local, as the original's
                Box((0.1295, 0.012, 0.0925), (0.1295, -0.013, 0.0), _GREY),  # door
                Box((0.1, 0.001, 0.07), (0.12, -0.0255, 0.0), GLASS, False),  # window
                Box((0.01, 0.065, 0.0), (0.2375, -0.054, 0.0), METAL, kind="capsule"),  # bar
                Box(
                    (0.01, 0.015, 0.0),
                    (0.2375, -0.0375, 0.065),
                    METAL,
                    kind="capsule",
                    euler=(1.5708, 0.0, 0.0),
                ),
                Box(
                    (0.01, 0.015, 0.0),
                    (0.2375, -0.0375, -0.065),
                    METAL,
                    kind="capsule",
                    euler=(1.5708, 0.0, 0.0),
                ),
            ),
            mass=0.5,
            inertia=(0.004, 0.004, 0.004),
        ),
    ),
    (
        RegionSpec("heating_region", (0.0, 0.01, 0.096), (0.12, 0.0835, 0.08)),
        RegionSpec("top_side", (0.0, 0.01, 0.20), (0.12, 0.0835, 0.005)),
    ),
    {"open": (-2.094, -1.3), "close": (-0.005, 0.0)},
)

# --- the stove ----------------------------------------------------------------------------
_KNOB = (0.1, 0.1, 0.1, 1.0)
FLAT_STOVE = ArticulatedFixture(
    "flat_stove",
    "stove",
    # x -0.047 (the knob)..0.245 (the burner box), y -0.095..0.095, z 0..0.0655 (the ridge)
    (0.292, 0.19, 0.0655),
    (0.099, 0.0),
    (  # z up from the bottom: LIBERO's origin (the knob's) is 0.02 above it
        Box((0.095, 0.095, 0.02), (0.15, 0.0, 0.02), METAL),  # the burner box
        Box((0.09, 0.09, 0.0005), (0.15, 0.0, 0.0405), DARK, False),  # its plate
    ),
    (
        Moving(
            "button",
            "button",
            "hinge",
            (0.0, 0.0, 1.0),
            (0.0, 0.0, 0.02),
            (-0.005, 2.1),
            1.0,
            (  # knob-local: a square base and a grip ridge across it
                Box((0.034, 0.034, 0.0062), (0.0, 0.0, 0.0066), _KNOB),
                Box((0.012, 0.034, 0.0173), (0.0, 0.0, 0.0255), (0.8, 0.8, 0.8, 1.0)),
                Box((0.004, 0.02, 0.001), (0.0, -0.018, 0.0428), (0.9, 0.2, 0.1, 1.0), False),
            ),
            mass=3.0,
            inertia=(1.0, 1.0, 1.0),
        ),
    ),
    (RegionSpec("cook_region", (0.15, 0.0, 0.02), (0.075, 0.075, 0.0025)),),
    {"turnon": (0.5, 2.1), "turnoff": (-0.005, 0.0)},
    ("burner", (0.15, 0.0, 0.042), 0.0625, 0.0005),
)

#: Category name -> its articulated stand-in (the fixtures tier-B files operate or fill).
ARTICULATED_FIXTURES: dict[str, ArticulatedCategory] = {
    f.name: ArticulatedCategory(f) for f in (WOODEN_CABINET, WHITE_CABINET, MICROWAVE, FLAT_STOVE)
}


def light_burners(model: mujoco.MjModel, sites: dict[int, bool]) -> None:
    """Show (alpha 1) or hide (alpha 0) each burner site id of ``sites`` by its on state,
    as LIBERO's ``set_visualization`` does every step (rendering only; no physics)."""
    for sid, on in sites.items():
        model.site_rgba[sid, 3] = 1.0 if on else 0.0


__all__ = [
    "ARTICULATED_FIXTURES",
    "ArticulatedCategory",
    "ArticulatedFixture",
    "Box",
    "Moving",
    "light_burners",
]
