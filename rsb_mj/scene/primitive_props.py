"""Simple stand-ins for goal-task objects and fixtures that have no rsb model yet.

Goal tasks (LIBERO / VLA-Arena files) name categories rsb_mj's object registry
(:mod:`rsb_mj.scene.categories`) may not build. Until the full stand-in table lands there, a
category without a model is built here as one primitive (box, cylinder or sphere) of a size
close to the original's, picked by the category name's words (``plate``, ``bowl``, ``mug``,
``knife`` ...); fixtures (cabinets, stove, shelves, racks) are static boxes with their
LIBERO / VLA-Arena regions as sites ``{fixture}_{region}`` on top. Records name the stand-in
source (``"rsb-primitive"``) so runs on different stand-ins are not pooled.

Geometry is in the body frame: origin at the centre of the object's footprint on the
surface it rests on (z = 0 the bottom), metres. The narrowest horizontal side of an object
lies along body y, where the gripper closes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco


@dataclass(frozen=True)
class Prop:
    """One primitive stand-in.

    Attributes:
        shape: ``"box"``, ``"cylinder"`` or ``"sphere"``.
        half: half extents (x, y, z) [m] of its bounding box.
        rgba: colour.
        regions: region name -> (centre (x, y, z), half-size (x, y, z)) [m], body frame.
    """

    shape: str
    half: tuple[float, float, float]
    rgba: tuple[float, float, float, float]
    regions: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = field(
        default_factory=dict
    )

    @property
    def height(self) -> float:
        """Full height [m]."""
        return 2 * self.half[2]


def _top(half: tuple[float, float, float], margin: float = 0.02) -> dict:
    """A ``top_side`` region covering the top face (minus ``margin``)."""
    hx, hy, hz = half
    return {"top_side": ((0.0, 0.0, 2 * hz), (hx - margin, hy - margin, 0.005))}


#: Object stand-ins by a word of the category name, first match wins.
OBJECT_WORDS: tuple[tuple[str, Prop], ...] = (
    ("cutting_board", Prop("box", (0.17, 0.105, 0.01), (0.72, 0.55, 0.35, 1))),
    (
        "tray",
        Prop(
            "box",
            (0.15, 0.085, 0.015),
            (0.65, 0.45, 0.25, 1),
            {"contain_region": ((0.0, 0.0, 0.05), (0.13, 0.07, 0.02))},
        ),
    ),
    ("plate", Prop("cylinder", (0.09, 0.09, 0.008), (0.93, 0.93, 0.9, 1))),
    (
        "basket",
        Prop(
            "box",
            (0.12, 0.09, 0.04),
            (0.6, 0.45, 0.3, 1),
            {"contain_region": ((0.0, 0.0, 0.1), (0.1, 0.07, 0.02))},
        ),
    ),
    ("box", Prop("box", (0.08, 0.06, 0.05), (0.7, 0.55, 0.4, 1))),
    ("ramekin", Prop("cylinder", (0.04, 0.04, 0.025), (0.95, 0.95, 0.92, 1))),
    ("bowl", Prop("box", (0.06, 0.026, 0.03), (0.92, 0.92, 0.95, 1))),
    ("mug", Prop("box", (0.045, 0.025, 0.045), (0.3, 0.55, 0.9, 1))),
    ("bottle", Prop("cylinder", (0.025, 0.025, 0.12), (0.35, 0.1, 0.15, 1))),
    ("teapot", Prop("cylinder", (0.06, 0.06, 0.06), (0.85, 0.85, 0.8, 1))),
    ("vase", Prop("cylinder", (0.04, 0.04, 0.09), (0.5, 0.7, 0.9, 1))),
    ("knife", Prop("box", (0.09, 0.012, 0.008), (0.75, 0.75, 0.78, 1))),
    ("fork", Prop("box", (0.08, 0.012, 0.008), (0.75, 0.75, 0.78, 1))),
    ("scissors", Prop("box", (0.08, 0.02, 0.008), (0.85, 0.2, 0.2, 1))),
    ("cookies", Prop("box", (0.06, 0.024, 0.03), (0.9, 0.75, 0.4, 1))),
    ("cheese", Prop("box", (0.04, 0.022, 0.02), (0.95, 0.95, 0.9, 1))),
    ("candle", Prop("cylinder", (0.025, 0.025, 0.04), (0.95, 0.9, 0.8, 1))),
    ("carrot", Prop("box", (0.07, 0.014, 0.014), (0.95, 0.5, 0.1, 1))),
    ("banana", Prop("box", (0.08, 0.018, 0.018), (0.95, 0.85, 0.2, 1))),
    ("tomato", Prop("sphere", (0.025, 0.025, 0.025), (0.85, 0.15, 0.1, 1))),
    ("apple", Prop("sphere", (0.027, 0.027, 0.027), (0.8, 0.1, 0.1, 1))),
    ("onion", Prop("sphere", (0.026, 0.026, 0.026), (0.85, 0.7, 0.5, 1))),
    ("peach", Prop("sphere", (0.026, 0.026, 0.026), (0.98, 0.6, 0.45, 1))),
    ("mango", Prop("sphere", (0.026, 0.026, 0.026), (0.95, 0.7, 0.2, 1))),
    ("kiwi", Prop("sphere", (0.023, 0.023, 0.023), (0.45, 0.35, 0.2, 1))),
    ("lemon", Prop("sphere", (0.025, 0.025, 0.025), (0.98, 0.92, 0.2, 1))),
    ("orange", Prop("sphere", (0.026, 0.026, 0.026), (0.98, 0.55, 0.1, 1))),
    ("egg", Prop("sphere", (0.02, 0.02, 0.02), (0.97, 0.95, 0.88, 1))),
    ("ball", Prop("sphere", (0.025, 0.025, 0.025), (0.2, 0.5, 0.9, 1))),
)
#: The stand-in of a category no word matches.
DEFAULT_OBJECT = Prop("box", (0.03, 0.022, 0.03), (0.6, 0.6, 0.6, 1))

_CABINET = (0.13, 0.11, 0.10)
_STOVE = (0.14, 0.14, 0.025)
_SHELF = (0.15, 0.09, 0.09)
_RACK = (0.1, 0.09, 0.07)
#: Fixture stand-ins (static boxes) by category; their regions are sites on top.
FIXTURES: dict[str, Prop] = {
    "wooden_cabinet": Prop("box", _CABINET, (0.55, 0.38, 0.22, 1), _top(_CABINET)),
    "white_cabinet": Prop("box", _CABINET, (0.93, 0.93, 0.9, 1), _top(_CABINET)),
    "short_cabinet": Prop("box", (0.13, 0.11, 0.07), (0.8, 0.8, 0.75, 1), _top((0.13, 0.11, 0.07))),
    "flat_stove": Prop(
        "box",
        _STOVE,
        (0.15, 0.15, 0.15, 1),
        {"cook_region": ((0.0, 0.0, 0.05), (0.08, 0.08, 0.005))},
    ),
    "wooden_shelf": Prop("box", _SHELF, (0.6, 0.42, 0.25, 1), _top(_SHELF)),
    "wooden_two_layer_shelf": Prop("box", _SHELF, (0.6, 0.42, 0.25, 1), _top(_SHELF)),
    "wine_rack": Prop(
        "box", _RACK, (0.45, 0.3, 0.18, 1), {"top_region": ((0.0, 0.0, 0.14), (0.06, 0.05, 0.005))}
    ),
    "desk_caddy": Prop("box", (0.1, 0.06, 0.05), (0.3, 0.3, 0.3, 1), _top((0.1, 0.06, 0.05), 0.01)),
    "microwave": Prop("box", (0.16, 0.12, 0.13), (0.85, 0.85, 0.85, 1), _top((0.16, 0.12, 0.13))),
}


def object_prop(category: str) -> Prop:
    """The primitive stand-in of object ``category`` (:data:`DEFAULT_OBJECT` when no word of
    :data:`OBJECT_WORDS` matches)."""
    for word, prop in OBJECT_WORDS:
        if word in category:
            return prop
    return DEFAULT_OBJECT


def fixture_prop(category: str) -> Prop | None:
    """The static stand-in of fixture ``category``, or None for one rsb_mj has none of."""
    return FIXTURES.get(category)


def build_prop(body: mujoco.MjsBody, name: str, prop: Prop, *, density: float = 400.0) -> None:
    """Add ``prop``'s collision geom (``{name}/geom``) and region sites (``{name}_{region}``)
    to ``body`` (body frame: origin at the footprint centre, z = 0 the bottom)."""
    hx, hy, hz = prop.half
    geom = body.add_geom(name=f"{name}/geom", rgba=list(prop.rgba))
    if prop.shape == "box":
        geom.type = mujoco.mjtGeom.mjGEOM_BOX
        geom.size = [hx, hy, hz]
    elif prop.shape == "cylinder":
        geom.type = mujoco.mjtGeom.mjGEOM_CYLINDER
        geom.size = [hx, hz, 0.0]
    else:
        geom.type = mujoco.mjtGeom.mjGEOM_SPHERE
        geom.size = [hx, 0.0, 0.0]
    geom.pos = [0.0, 0.0, hz]
    geom.condim = 4
    geom.friction = [1.0, 0.01, 0.0002]
    geom.density = density
    geom.solref = [0.005, 1.0]
    for region, (center, half) in prop.regions.items():
        body.add_site(
            name=f"{name}_{region}",
            pos=list(center),
            size=list(half),
            type=mujoco.mjtGeom.mjGEOM_BOX,
            rgba=[0, 0, 0, 0],
            group=5,
        )
