"""The stand-in table: one :class:`Spec` per object and fixture category that LIBERO's and
VLA-Arena's table-top task files use and rsb_mj had no model of (the categories it already
builds, e.g. ``apple``, ``cereal``, keep their models, so question tasks are unchanged; goal
scenes build ``milk`` from :data:`GOAL_STANDINS`, LIBERO's carton lying on its side).

Each row is data: the category, its noun, a shape (a builder of
:mod:`rsb_mj.scene.categories.parts`, named in :data:`SHAPES`), its size (x, y, z) [m], its
colour and the shape's options (more colours, proportions), its printed label, regions and
the original's measured size. :func:`standin` turns a row into the
:class:`~rsb_mj.scene.categories.parts.Standin` the category builds; the shape decides the
expert's grasp hint (``rim`` for bowls, ``handle`` for mugs, ...) and whether it is a fixture.

Sizes follow the originals' MJCF (bounding boxes measured by compiling LIBERO 8f1084e's and
VLA-Arena ec1b978's object files; ``original`` records them where they compiled) within
about 20%, made narrower where the original is wider than the Aloha gripper opens and a
narrower one is still the same object. Nothing here comes from their meshes or textures:
every shape is a primitive or a surface of revolution made by
:mod:`rsb_mj.scene.categories.parts`, every label is drawn with OpenCV. Regions (``top_side``,
``contain_region``, ...) copy the originals' site boxes, in the object's frame with z up from
its bottom.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rsb_mj.scene.categories import parts
from rsb_mj.scene.categories.base import RegionSpec
from rsb_mj.scene.categories.parts import RGBA, Label, Part, Standin, Vec3, turned

# Colours (rgba).
WHITE = (0.92, 0.92, 0.9, 1.0)
PORCELAIN = (0.95, 0.95, 0.97, 1.0)
BLACK = (0.07, 0.07, 0.08, 1.0)
RED = (0.78, 0.1, 0.08, 1.0)
GREEN = (0.2, 0.55, 0.18, 1.0)
DARK_GREEN = (0.1, 0.3, 0.1, 1.0)
LEAF = (0.2, 0.45, 0.15, 1.0)
STEM = (0.35, 0.22, 0.1, 1.0)
YELLOW = (0.95, 0.8, 0.1, 1.0)
ORANGE = (0.95, 0.5, 0.08, 1.0)
BROWN = (0.45, 0.28, 0.13, 1.0)
WOOD = (0.72, 0.53, 0.32, 1.0)
LIGHT_WOOD = (0.85, 0.7, 0.48, 1.0)
METAL = (0.62, 0.64, 0.67, 1.0)
DARK_METAL = (0.2, 0.2, 0.22, 1.0)
BLUE = (0.15, 0.3, 0.75, 1.0)
PINK = (0.93, 0.55, 0.65, 1.0)
CARDBOARD = (0.7, 0.55, 0.35, 1.0)


@dataclass(frozen=True)
class Shape:
    """A shape builder of :mod:`rsb_mj.scene.categories.parts` and what it implies.

    Attributes:
        build: ``build(size, rgba, **options) -> parts`` (size (x, y, z) [m], z up from the
            object's bottom).
        grasp: the expert's hint for objects of this shape.
        fixture: True for a static prop.
    """

    build: Callable[..., tuple[Part, ...]]
    grasp: str = "top"
    fixture: bool = False


#: Shape name -> builder (the table's ``shape`` column).
SHAPES: dict[str, Shape] = {
    "fruit": Shape(parts.fruit),
    "lying": Shape(parts.lying),
    "can": Shape(parts.can),
    "carton": Shape(parts.carton),
    "lying_carton": Shape(parts.lying_carton),
    "bottle": Shape(parts.bottle),
    "lying_bottle": Shape(parts.lying_bottle),
    "squeeze_bottle": Shape(parts.squeeze_bottle),
    "bowl": Shape(parts.bowl, "rim"),
    "plate": Shape(parts.plate, "rim"),
    "mug": Shape(parts.mug, "handle"),
    "book": Shape(parts.book, "edge"),
    "container": Shape(parts.container, "rim"),
    "board": Shape(parts.board, "edge"),
    "utensil": Shape(parts.utensil),
    "vehicle": Shape(parts.vehicle),
    "frying_pan": Shape(parts.frying_pan, "handle"),
    "moka_pot": Shape(parts.moka_pot, "handle"),
    "teapot": Shape(parts.teapot, "handle"),
    "strawberry": Shape(parts.strawberry),
    "broccoli": Shape(parts.broccoli),
    "balls": Shape(parts.balls),
    "cake": Shape(parts.cake),
    "chiffon_cake": Shape(parts.chiffon_cake, "rim"),
    "ring_cake": Shape(parts.ring_cake, "rim"),
    "vase": Shape(parts.vase),
    "lidded_box": Shape(parts.lidded_box),
    "candle": Shape(parts.candle),
    "toy_mouse": Shape(parts.toy_mouse),
    "cabinet": Shape(parts.cabinet, "none", True),
    "shelf": Shape(parts.shelf, "none", True),
    "stove": Shape(parts.stove, "none", True),
    "microwave": Shape(parts.microwave, "none", True),
    "wine_rack": Shape(parts.wine_rack, "none", True),
    "caddy": Shape(parts.caddy, "none", True),
}


@dataclass(frozen=True)
class Spec:
    """One row of the table (see the module docstring); ``options`` are the shape's
    keyword arguments, ``grasp`` overrides the shape's hint, ``yaw`` [rad] turns it."""

    name: str
    noun: str
    shape: str
    size: Vec3
    rgba: RGBA
    options: tuple[tuple[str, Any], ...] = ()
    label: Label | None = None
    grasp: str | None = None
    regions: tuple[RegionSpec, ...] = ()
    original: tuple[float, ...] = ()
    yaw: float = 0.0


def row(name: str, noun: str, shape: str, size: Vec3, rgba: RGBA, **kw: Any) -> Spec:
    """A :class:`Spec`: keywords that are Spec fields fill them, the others are the shape's
    options."""
    fields = {k: kw.pop(k) for k in ("label", "grasp", "regions", "original", "yaw") if k in kw}
    return Spec(name, noun, shape, size, rgba, tuple(kw.items()), **fields)


def standin(spec: Spec) -> Standin:
    """The :class:`~rsb_mj.scene.categories.parts.Standin` a row describes (its parts built
    by its shape)."""
    shape = SHAPES[spec.shape]
    built = shape.build(spec.size, spec.rgba, **dict(spec.options))
    made = Standin(
        spec.name,
        spec.noun,
        spec.size,
        built,
        grasp=spec.grasp or shape.grasp,
        regions=spec.regions,
        fixture=shape.fixture,
        label=spec.label,
        original=spec.original,
    )
    return turned(made, spec.name, spec.yaw) if spec.yaw else made


def _region(
    name: str, center: tuple[float, float, float], half: tuple[float, float, float]
) -> RegionSpec:
    return RegionSpec(name, center, half)


_CAB = (
    _region("top_side", (0.0035, 0.0157, 0.2215), (0.1253, 0.0944, 0.0015)),
    _region("top_region", (0.0033, 0.0113, 0.1868), (0.1022, 0.0756, 0.0299)),
    _region("middle_region", (0.0033, 0.0113, 0.1169), (0.1022, 0.0756, 0.0299)),
    _region("bottom_region", (0.0033, 0.0113, 0.047), (0.1022, 0.0756, 0.0299)),
)
_HOPE = (0.0525, 0.131, 0.055)  # LIBERO's milk and juice cartons lying on their side

# One row per category, a few lines each: ruff leaves the table as written.
# fmt: off
#: The table (its order is the docs' and the vocabulary's).
TABLE: tuple[Spec, ...] = (
    # --- LIBERO groceries (HOPE originals: not shippable): labelled boxes, cans, bottles.
    row("alphabet_soup", "alphabet soup", "can", (0.052, 0.052, 0.071), RED,
        band=WHITE, band_z=(0.0, 0.5), original=(0.062, 0.062, 0.071),
        label=Label("ALPHABET SOUP", (200, 30, 30), (255, 255, 255))),
    row("tomato_sauce", "tomato sauce", "can", (0.052, 0.052, 0.087), (0.85, 0.25, 0.1, 1),
        band=GREEN, band_z=(0.12, 0.88), original=(0.083, 0.086, 0.087),
        label=Label("TOMATO SAUCE", (40, 110, 40), (255, 240, 200))),
    row("butter", "butter", "carton", (0.078, 0.04, 0.018), (1, 1, 1, 1),
        original=(0.078, 0.04, 0.018), label=Label("BUTTER", (250, 225, 90), (30, 60, 150))),
    row("cream_cheese", "cream cheese", "carton", (0.083, 0.043, 0.02), (1, 1, 1, 1),
        original=(0.083, 0.043, 0.02),
        label=Label("CREAM CHEESE", (200, 220, 240), (20, 40, 140))),
    row("chocolate_pudding", "chocolate pudding", "carton", (0.084, 0.051, 0.031), (1, 1, 1, 1),
        original=(0.084, 0.051, 0.031),
        label=Label("CHOCOLATE PUDDING", (90, 50, 25), (250, 230, 200))),
    row("cookies", "cookies", "carton", (0.085, 0.052, 0.021), (1, 1, 1, 1),
        original=(0.052, 0.085, 0.021), label=Label("COOKIES", (40, 80, 170), (255, 230, 120))),
    row("orange_juice", "orange juice", "lying_carton", (0.131, 0.052, 0.055), ORANGE,
        cap=(0.95, 0.95, 0.9, 1), original=_HOPE,
        label=Label("ORANGE JUICE", (250, 150, 20), (20, 90, 30))),
    row("ketchup", "ketchup", "squeeze_bottle", (0.149, 0.052, 0.045), RED, cap=WHITE,
        original=(0.0525, 0.149, 0.045), label=Label("KETCHUP", (255, 255, 255), (190, 20, 20))),
    row("salad_dressing", "salad dressing", "lying_bottle", (0.148, 0.052, 0.045),
        (0.85, 0.85, 0.7, 1), cap=DARK_GREEN, original=(0.0526, 0.148, 0.045),
        label=Label("SALAD DRESSING", (240, 240, 210), (30, 100, 40))),
    row("new_salad_dressing", "salad dressing", "lying_bottle", (0.148, 0.052, 0.045),
        (0.95, 0.75, 0.3, 1), cap=RED, original=(0.0526, 0.148, 0.045),
        label=Label("NEW DRESSING", (250, 200, 80), (140, 20, 20))),
    row("bbq_sauce", "bbq sauce", "bottle", (0.05, 0.034, 0.114), (0.35, 0.12, 0.05, 1),
        cap=BLACK, square=True, original=(0.05, 0.034, 0.114),
        label=Label("BBQ SAUCE", (80, 30, 10), (250, 200, 60))),
    # --- LIBERO kitchen and study objects.
    row("akita_black_bowl", "black bowl", "bowl", (0.107, 0.107, 0.051), BLACK,
        inside=(0.16, 0.16, 0.17, 1), original=(0.107, 0.107, 0.051)),
    row("white_bowl", "white bowl", "bowl", (0.09, 0.09, 0.037), PORCELAIN,
        inside=(0.85, 0.85, 0.87, 1), original=(0.09, 0.088, 0.037)),
    row("plate", "plate", "plate", (0.164, 0.164, 0.02), PORCELAIN, original=(0.164, 0.164, 0.02)),
    row("glazed_rim_porcelain_ramekin", "ramekin", "bowl", (0.12, 0.12, 0.044),
        (0.93, 0.9, 0.82, 1), rim=(0.55, 0.3, 0.12, 1), original=(0.124, 0.124, 0.044)),
    row("chefmate_8_frypan", "frying pan", "frying_pan", (0.36, 0.206, 0.07), DARK_METAL,
        inside=(0.12, 0.12, 0.13, 1), handle=BLACK, original=(0.361, 0.206, 0.07)),
    row("porcelain_mug", "white mug", "mug", (0.125, 0.093, 0.09), PORCELAIN),
    row("red_coffee_mug", "red mug", "mug", (0.125, 0.095, 0.1), RED),
    row("white_yellow_mug", "white and yellow mug", "mug", (0.125, 0.1, 0.09), WHITE,
        inside=(0.9, 0.75, 0.1, 1), band=YELLOW),
    row("wine_bottle", "wine bottle", "bottle", (0.044, 0.044, 0.159), (0.1, 0.25, 0.12, 1),
        cap=(0.5, 0.05, 0.1, 1), neck=0.4, original=(0.043, 0.045, 0.159),
        label=Label("WINE", (235, 225, 200), (110, 10, 30))),
    row("moka_pot", "moka pot", "moka_pot", (0.135, 0.081, 0.16), METAL, handle=BLACK,
        yaw=math.pi / 2, original=(0.081, 0.163, 0.182)),
    row("black_book", "black book", "book", (0.095, 0.031, 0.116), BLACK,
        original=(0.031, 0.114, 0.139), label=Label("BOOK", (20, 20, 22), (230, 230, 230))),
    row("yellow_book", "yellow book", "book", (0.085, 0.028, 0.105), YELLOW,
        original=(0.028, 0.102, 0.125), label=Label("BOOK", (240, 200, 30), (40, 40, 40))),
    row("basket", "basket", "container", (0.16, 0.15, 0.075), (0.62, 0.45, 0.25, 1), wall=0.01,
        regions=(_region("contain_region", (0.0, 0.0, 0.0719), (0.0611, 0.0611, 0.0695)),)),
    row("wooden_tray", "wooden tray", "container", (0.298, 0.167, 0.07), LIGHT_WOOD, wall=0.01,
        original=(0.298, 0.167, 0.083),
        regions=(_region("contain_region", (0.0, 0.0, 0.0426), (0.1355, 0.0784, 0.0404)),)),
    # --- VLA-Arena produce (RoboCasa / generated originals: not shippable).
    row("tomato", "tomato", "fruit", (0.052, 0.052, 0.046), (0.85, 0.12, 0.08, 1), top=LEAF,
        top_size=0.007, original=(0.09, 0.09, 0.065)),
    row("tomato_n", "tomato", "fruit", (0.05, 0.05, 0.044), (0.9, 0.2, 0.1, 1), top=LEAF,
        top_size=0.008),
    row("onion", "onion", "fruit", (0.052, 0.052, 0.046), (0.6, 0.3, 0.35, 1),
        top=(0.75, 0.6, 0.4, 1), original=(0.093, 0.094, 0.093)),
    row("onion_n", "onion", "fruit", (0.05, 0.05, 0.044), (0.85, 0.7, 0.45, 1),
        top=(0.6, 0.45, 0.25, 1), original=(0.077, 0.092, 0.087)),
    row("lime", "lime", "fruit", (0.05, 0.05, 0.044), (0.35, 0.7, 0.15, 1), top=STEM,
        top_size=0.003, original=(0.071, 0.079, 0.071)),
    row("peach", "peach", "fruit", (0.052, 0.052, 0.046), (0.98, 0.65, 0.4, 1), top=STEM,
        top_size=0.003, spots=(0.9, 0.35, 0.3, 1)),
    row("mango", "mango", "fruit", (0.08, 0.05, 0.05), (0.98, 0.75, 0.15, 1), top=STEM,
        top_size=0.003, spots=(0.9, 0.35, 0.15, 1)),
    row("kiwi", "kiwi", "fruit", (0.062, 0.05, 0.048), (0.5, 0.38, 0.2, 1),
        original=(0.067, 0.077, 0.062)),
    row("kiwi_n", "kiwi", "fruit", (0.062, 0.05, 0.048), (0.45, 0.35, 0.18, 1)),
    row("bell_pepper", "bell pepper", "fruit", (0.06, 0.052, 0.05), (0.85, 0.1, 0.05, 1),
        top=DARK_GREEN, top_size=0.006, flat=0.6, original=(0.113, 0.105, 0.083)),
    row("potato", "potato", "fruit", (0.08, 0.052, 0.048), (0.72, 0.55, 0.32, 1), flat=0.5,
        original=(0.106, 0.115, 0.112)),
    row("egg", "egg", "fruit", (0.056, 0.046, 0.046), (0.96, 0.93, 0.85, 1), flat=0.3,
        original=(0.055, 0.051, 0.056)),
    row("strawberry", "strawberry", "strawberry", (0.045, 0.045, 0.048), (0.85, 0.08, 0.12, 1),
        leaf=LEAF, stem=STEM),
    row("carrot", "carrot", "lying", (0.15, 0.034, 0.034), ORANGE, tip=LEAF, taper=0.25),
    row("cucumber", "cucumber", "lying", (0.18, 0.044, 0.044), DARK_GREEN),
    row("broccoli", "broccoli", "broccoli", (0.052, 0.052, 0.065), (0.15, 0.4, 0.12, 1),
        stalk=(0.55, 0.7, 0.35, 1), original=(0.127, 0.114, 0.129)),
    # VLA-Arena's water ball: a sphere of radius 16 mm
    row("water_ball", "water ball", "fruit", (0.032, 0.032, 0.032), (0.35, 0.6, 0.95, 0.75),
        flat=0.3, original=(0.032, 0.032, 0.032)),
    row("billiard_balls", "billiard balls", "balls", (0.072, 0.068, 0.066), (0, 0, 0, 0),
        colours=(YELLOW, RED, BLUE, BLACK), original=(0.078, 0.057, 0.078)),
    # --- Bakery (VLA-Arena; mostly floor scenes, built for completeness).
    row("cake", "cake", "cake", (0.048, 0.048, 0.09), (0.55, 0.3, 0.15, 1),
        icing=(0.96, 0.85, 0.88, 1), icing_h=0.012, cream=(0.98, 0.95, 0.9, 1), cherry=RED,
        original=(0.11, 0.115, 0.09)),
    row("cake_n", "cake", "cake", (0.048, 0.048, 0.056), (0.95, 0.9, 0.8, 1),
        icing=(0.45, 0.2, 0.1, 1), icing_h=0.012, original=(0.097, 0.115, 0.056)),
    row("chiffon_cake", "chiffon cake", "chiffon_cake", (0.12, 0.12, 0.075), (0.97, 0.85, 0.5, 1),
        hole=(0.3, 0.2, 0.1, 1)),
    row("donut", "donut", "ring_cake", (0.1, 0.1, 0.04), (0.85, 0.6, 0.3, 1),
        icing=(0.95, 0.55, 0.65, 1), hole=(0.25, 0.15, 0.08, 1)),
    row("donut_n", "donut", "ring_cake", (0.11, 0.11, 0.04), (0.85, 0.6, 0.3, 1),
        icing=(0.4, 0.22, 0.1, 1), hole=(0.25, 0.15, 0.08, 1)),
    row("bagel", "bagel", "ring_cake", (0.1, 0.1, 0.035), (0.8, 0.55, 0.25, 1),
        hole=(0.35, 0.22, 0.1, 1)),
    # --- VLA-Arena kitchenware.
    row("porcelain_bowl", "porcelain bowl", "bowl", (0.13, 0.13, 0.065), PORCELAIN, rim=BLUE,
        original=(0.13, 0.13, 0.073)),
    row("new_bowl", "bowl", "bowl", (0.14, 0.14, 0.06), (0.6, 0.8, 0.9, 1)),
    row("pink_bowl", "pink bowl", "bowl", (0.13, 0.13, 0.055), PINK),
    row("porcelain_plate", "porcelain plate", "plate", (0.18, 0.18, 0.019), PORCELAIN,
        well=(0.8, 0.85, 0.95, 1), original=(0.18, 0.18, 0.019)),
    row("ceramic_plate", "ceramic plate", "plate", (0.24, 0.24, 0.028), (0.93, 0.88, 0.78, 1),
        original=(0.292, 0.292, 0.034)),
    row("green_mug", "green mug", "mug", (0.125, 0.096, 0.1), GREEN),
    row("blue_mug", "blue mug", "mug", (0.12, 0.095, 0.074), BLUE, original=(0.131, 0.112, 0.074)),
    row("patterned_mug", "patterned mug", "mug", (0.12, 0.088, 0.1), WHITE,
        band=(0.85, 0.3, 0.55, 1), original=(0.13, 0.088, 0.115)),
    row("teapot", "teapot", "teapot", (0.146, 0.1, 0.097), PORCELAIN, trim=BLUE,
        original=(0.146, 0.111, 0.097)),
    row("vase", "vase", "vase", (0.09, 0.09, 0.18), (0.2, 0.45, 0.65, 1),
        mouth=(0.05, 0.1, 0.15, 1)),
    row("cutting_board", "cutting board", "board", (0.338, 0.21, 0.025), WOOD,
        hole=(0.3, 0.2, 0.1, 1), original=(0.21, 0.338, 0.025)),
    row("box", "box", "container", (0.17, 0.17, 0.09), CARDBOARD, wall=0.006,
        regions=(_region("contain_region", (0.0, 0.0, 0.0745), (0.075, 0.075, 0.0695)),)),
    row("white_storage_box", "white storage box", "lidded_box", (0.148, 0.119, 0.15), WHITE,
        lid=(0.85, 0.85, 0.86, 1), original=(0.148, 0.119, 0.151),
        regions=(
            _region("top_side", (0.0, 0.0, 0.1425), (0.0643, 0.0583, 0.0012)),
            _region("bottom_side", (0.0, 0.0, 0.0047), (0.0643, 0.0583, 0.0022)),
        )),
    row("chocolate", "chocolate bar", "carton", (0.14, 0.074, 0.016), (1, 1, 1, 1),
        original=(0.074, 0.14, 0.016), label=Label("CHOCOLATE", (90, 40, 20), (240, 210, 120))),
    row("candle", "candle", "candle", (0.05, 0.05, 0.08), (0.95, 0.93, 0.85, 1), wick=BLACK),
    row("fork", "fork", "utensil", (0.2, 0.024, 0.012), METAL, blade=METAL, kind="fork",
        original=(0.023, 0.213, 0.033)),
    row("knife_n", "knife", "utensil", (0.22, 0.022, 0.012), BLACK, blade=METAL, kind="knife"),
    row("scissors", "scissors", "utensil", (0.16, 0.051, 0.012), RED, blade=METAL,
        kind="scissors", original=(0.051, 0.16, 0.012)),
    row("toy_train", "toy train", "vehicle", (0.3, 0.09, 0.08), (0.2, 0.35, 0.8, 1), cars=3,
        original=(0.352, 0.104, 0.079)),
    row("toy_motorbike", "toy motorbike", "vehicle", (0.12, 0.045, 0.08), RED, rider=BLACK),
    row("mickey", "toy mouse", "toy_mouse", (0.144, 0.17, 0.17), RED, base=(0.85, 0.75, 0.2, 1),
        head=BLACK, face=(0.95, 0.8, 0.65, 1), original=(0.178, 0.199, 0.171)),
    # --- Fixtures (static props).
    row("wooden_cabinet", "wooden cabinet", "cabinet", (0.257, 0.227, 0.222), WOOD,
        handle=METAL, regions=_CAB, original=(0.257, 0.227, 0.225)),
    row("white_cabinet", "white cabinet", "cabinet", (0.257, 0.227, 0.222), WHITE,
        handle=METAL, original=(0.257, 0.227, 0.225),
        regions=(
            *_CAB,
            _region("top_side_1", (-0.0354, 0.0367, 0.2215), (0.1253, 0.0944, 0.0015)),
            _region("top_side_2", (0.0454, -0.0267, 0.2215), (0.1253, 0.0944, 0.0015)),
        )),
    row("short_cabinet", "short cabinet", "cabinet", (0.204, 0.212, 0.183), WHITE, handle=METAL,
        original=(0.204, 0.212, 0.183),
        regions=(
            _region("top_side", (0.0, 0.0, 0.1815), (0.1, 0.1, 0.0015)),
            _region("top_region", (0.0, 0.0, 0.145), (0.088, 0.083, 0.02)),
            _region("middle_region", (0.0, 0.0, 0.09), (0.088, 0.083, 0.02)),
            _region("bottom_region", (0.0, 0.0, 0.035), (0.088, 0.083, 0.02)),
        )),
    row("flat_stove", "stove", "stove", (0.19, 0.19, 0.045), (0.12, 0.12, 0.13, 1),
        regions=(_region("cook_region", (0.0, 0.0, 0.0475), (0.075, 0.075, 0.0025)),)),
    row("microwave", "microwave", "microwave", (0.345, 0.2, 0.187), (0.85, 0.85, 0.86, 1),
        regions=(
            _region("top_side", (0.0, 0.0, 0.192), (0.12, 0.0835, 0.005)),
            _region("heating_region", (0.0, 0.0, 0.096), (0.12, 0.0835, 0.08)),
        )),
    row("wooden_shelf", "wooden shelf", "shelf", (0.257, 0.2, 0.222), WOOD, levels=3,
        original=(0.257, 0.2, 0.225),
        regions=(
            _region("top_side", (0.0035, 0.0, 0.2215), (0.1253, 0.0944, 0.0015)),
            _region("top_region", (0.0039, 0.0, 0.1826), (0.1103, 0.05, 0.0327)),
            _region("middle_region", (0.0039, 0.0, 0.1144), (0.1103, 0.05, 0.0327)),
            _region("bottom_region", (0.0039, 0.0, 0.0467), (0.1103, 0.05, 0.0327)),
        )),
    row("wooden_two_layer_shelf", "two-layer shelf", "shelf", (0.352, 0.19, 0.207), LIGHT_WOOD,
        levels=2,
        regions=(
            _region("top_side", (0.005, 0.0, 0.2055), (0.1756, 0.0944, 0.0015)),
            _region("top_region", (0.0054, 0.0, 0.1367), (0.1509, 0.0856, 0.0674)),
            _region("bottom_region", (0.0056, 0.0, 0.0353), (0.1558, 0.0856, 0.0353)),
        )),
    # LIBERO's rack as its collision boxes are: a base, a post and two slanted planes
    row("wine_rack", "wine rack", "wine_rack", (0.268, 0.254, 0.33), BROWN, planes=LIGHT_WOOD,
        original=(0.269, 0.254, 0.33),
        regions=(
            RegionSpec(
                "top_region", (0.0, -0.08, 0.2175), (0.1009, 0.022, 0.0025),
                (0.8549, -0.5188, 0.0, 0.0),
            ),
        )),
    row("desk_caddy", "desk caddy", "caddy", (0.13, 0.42, 0.125), (0.3, 0.3, 0.32, 1),
        regions=(
            _region("right_contain_region", (0.0, -0.143, 0.065), (0.062, 0.062, 0.06)),
            _region("left_contain_region", (0.0, 0.143, 0.065), (0.062, 0.062, 0.06)),
            _region("back_contain_region", (0.033, 0.0, 0.085), (0.028, 0.062, 0.04)),
            _region("front_contain_region", (-0.031, 0.0, 0.04), (0.028, 0.062, 0.036)),
        )),
)

# fmt: on

#: Turned variants the task files name: (name, category turned, turn [rad]).
TURNED: tuple[tuple[str, str, float], ...] = (
    ("rotated_fork", "fork", math.pi / 2),
    ("rotated_fork_pi", "fork", math.pi),
    ("rotated_knife", "knife_n", math.pi / 2),
    ("rotated_knife_pi", "knife_n", math.pi),
    ("rotated_scissors", "scissors", math.pi / 2),
    ("rotated_scissors_pi", "scissors", math.pi),
    ("rotated_toy_motorbike", "toy_motorbike", math.pi / 2),
    ("rotated_toy_motorbike_x", "toy_motorbike", math.pi),
    ("cutting_board_no_rotation", "cutting_board", 0.0),
)

# fmt: off
#: Stand-ins that goal scenes build for categories rsb_mj already has a model of for its
#: question tasks (those keep theirs): LIBERO's milk is a labelled carton lying on its side.
GOAL_TABLE: tuple[Spec, ...] = (
    row("milk", "milk", "lying_carton", (0.131, 0.052, 0.055), (0.95, 0.95, 0.97, 1),
        cap=(0.2, 0.4, 0.85, 1), original=_HOPE,
        label=Label("MILK", (245, 245, 250), (30, 70, 170))),
)
# fmt: on


def _standins() -> dict[str, Standin]:
    made = {s.name: standin(s) for s in TABLE}
    for name, base, yaw in TURNED:
        made[name] = turned(made[base], name, yaw)
    return made


#: Category name -> stand-in (objects and fixtures), in the order of the table above.
STANDINS: dict[str, Standin] = _standins()
#: Category name -> the stand-in goal scenes build in place of rsb_mj's question model.
GOAL_STANDINS: dict[str, Standin] = {s.name: standin(s) for s in GOAL_TABLE}

__all__ = ["GOAL_STANDINS", "SHAPES", "STANDINS", "TABLE", "Shape", "Spec", "row", "standin"]
