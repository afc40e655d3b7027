"""The stand-in table: one :class:`~rsb_mj.scene.categories.parts.Standin` per object and
fixture category that LIBERO's and VLA-Arena's table-top task files use and rsb_mj had no
model of (the categories it already builds, e.g. ``apple``, ``milk``, ``cereal``, keep their
models, so question tasks are unchanged).

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

from rsb_mj.scene.categories.base import RegionSpec
from rsb_mj.scene.categories.parts import (
    Label,
    Part,
    Standin,
    board,
    book,
    bottle,
    bowl,
    cabinet,
    caddy,
    can,
    carton,
    container,
    fruit,
    lying,
    lying_bottle,
    microwave,
    mug,
    plate,
    ring,
    shelf,
    stove,
    turned,
    utensil,
    vehicle,
    wine_rack,
)

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


def _region(
    name: str, center: tuple[float, float, float], half: tuple[float, float, float]
) -> RegionSpec:
    return RegionSpec(name, center, half)


def _rows() -> list[Standin]:
    rows: list[Standin] = []

    def add(
        name: str, noun: str, size: tuple[float, float, float], parts: tuple[Part, ...], **kw
    ) -> None:
        rows.append(Standin(name, noun, size, parts, **kw))

    # --- LIBERO groceries (HOPE originals: not shippable): labelled boxes, cans, bottles.
    add(
        "alphabet_soup",
        "alphabet soup",
        (0.052, 0.052, 0.088),
        can(0.052, 0.088, RED),
        label=Label("ALPHABET SOUP", (200, 30, 30), (255, 255, 255)),
        original=(0.085, 0.085, 0.088),
    )
    add(
        "tomato_sauce",
        "tomato sauce",
        (0.052, 0.052, 0.087),
        can(0.052, 0.087, (0.85, 0.25, 0.1, 1)),
        label=Label("TOMATO SAUCE", (230, 60, 20), (255, 240, 200)),
        original=(0.083, 0.086, 0.087),
    )
    add(
        "butter",
        "butter",
        (0.078, 0.04, 0.018),
        carton((0.078, 0.04, 0.018)),
        label=Label("BUTTER", (250, 225, 90), (30, 60, 150)),
        original=(0.078, 0.04, 0.018),
    )
    add(
        "cream_cheese",
        "cream cheese",
        (0.083, 0.043, 0.02),
        carton((0.083, 0.043, 0.02)),
        label=Label("CREAM CHEESE", (200, 220, 240), (20, 40, 140)),
        original=(0.083, 0.043, 0.02),
    )
    add(
        "chocolate_pudding",
        "chocolate pudding",
        (0.084, 0.051, 0.031),
        carton((0.084, 0.051, 0.031)),
        label=Label("CHOCOLATE PUDDING", (90, 50, 25), (250, 230, 200)),
        original=(0.084, 0.051, 0.031),
    )
    add(
        "cookies",
        "cookies",
        (0.085, 0.052, 0.021),
        carton((0.085, 0.052, 0.021)),
        label=Label("COOKIES", (40, 80, 170), (255, 230, 120)),
        original=(0.052, 0.085, 0.021),
    )
    add(
        "orange_juice",
        "orange juice",
        (0.145, 0.052, 0.07),
        carton((0.145, 0.052, 0.07)),
        label=Label("ORANGE JUICE", (250, 150, 20), (20, 90, 30)),
        original=(0.079, 0.145, 0.079),
    )
    add(
        "ketchup",
        "ketchup",
        (0.149, 0.052, 0.045),
        lying_bottle((0.149, 0.052, 0.045), RED, cap=WHITE),
        label=Label("KETCHUP", (255, 255, 255), (190, 20, 20)),
        original=(0.0525, 0.149, 0.045),
    )
    add(
        "salad_dressing",
        "salad dressing",
        (0.148, 0.052, 0.045),
        lying_bottle((0.148, 0.052, 0.045), (0.85, 0.85, 0.7, 1), cap=DARK_GREEN),
        label=Label("SALAD DRESSING", (240, 240, 210), (30, 100, 40)),
        original=(0.0526, 0.148, 0.045),
    )
    add(
        "new_salad_dressing",
        "salad dressing",
        (0.148, 0.052, 0.045),
        lying_bottle((0.148, 0.052, 0.045), (0.95, 0.75, 0.3, 1), cap=RED),
        label=Label("NEW DRESSING", (250, 200, 80), (140, 20, 20)),
        original=(0.0526, 0.148, 0.045),
    )
    add(
        "bbq_sauce",
        "bbq sauce",
        (0.05, 0.034, 0.114),
        bottle(0.034, 0.114, (0.35, 0.12, 0.05, 1), cap=BLACK, square=(0.05, 0.034)),
        label=Label("BBQ SAUCE", (80, 30, 10), (250, 200, 60)),
        original=(0.05, 0.034, 0.114),
    )
    # --- LIBERO kitchen and study objects.
    add(
        "akita_black_bowl",
        "black bowl",
        (0.125, 0.125, 0.055),
        bowl(0.125, 0.055, BLACK, inside=(0.16, 0.16, 0.17, 1)),
        grasp="rim",
    )
    add(
        "white_bowl",
        "white bowl",
        (0.09, 0.09, 0.037),
        bowl(0.09, 0.037, PORCELAIN, inside=(0.85, 0.85, 0.87, 1)),
        grasp="rim",
        original=(0.09, 0.088, 0.037),
    )
    add(
        "plate",
        "plate",
        (0.164, 0.164, 0.02),
        plate(0.164, 0.02, PORCELAIN),
        grasp="rim",
        original=(0.164, 0.164, 0.02),
    )
    add(
        "glazed_rim_porcelain_ramekin",
        "ramekin",
        (0.12, 0.12, 0.044),
        bowl(0.12, 0.044, (0.93, 0.9, 0.82, 1), rim=(0.55, 0.3, 0.12, 1)),
        grasp="rim",
        original=(0.124, 0.124, 0.044),
    )
    add(
        "chefmate_8_frypan",
        "frying pan",
        (0.36, 0.206, 0.07),
        (
            Part("cylinder", (0.1, 0.003, 0.0), (0.077, 0.0, 0.003), DARK_METAL),
            Part(
                "cylinder", (0.094, 0.0005, 0.0), (0.077, 0.0, 0.006), (0.12, 0.12, 0.13, 1), False
            ),
            *ring((0.1, 0.0), (0.1, 0.04), 0.006, DARK_METAL, center=(0.077, 0.0)),
            Part(
                "box",
                (0.078, 0.012, 0.008),
                (-0.1, 0.0, 0.045),
                BLACK,
                euler=(0.0, 0.2, 0.0),
                handle=True,
            ),
        ),
        grasp="handle",
        original=(0.361, 0.206, 0.07),
    )
    add(
        "porcelain_mug",
        "white mug",
        (0.125, 0.093, 0.09),
        mug((0.125, 0.093, 0.09), PORCELAIN),
        grasp="handle",
    )
    add(
        "red_coffee_mug",
        "red mug",
        (0.125, 0.095, 0.1),
        mug((0.125, 0.095, 0.1), RED),
        grasp="handle",
    )
    add(
        "white_yellow_mug",
        "white and yellow mug",
        (0.125, 0.1, 0.09),
        mug((0.125, 0.1, 0.09), WHITE, inside=(0.9, 0.75, 0.1, 1), band=YELLOW),
        grasp="handle",
    )
    add(
        "wine_bottle",
        "wine bottle",
        (0.044, 0.044, 0.159),
        bottle(0.044, 0.159, (0.1, 0.25, 0.12, 1), cap=(0.5, 0.05, 0.1, 1), neck=0.4),
        label=Label("WINE", (235, 225, 200), (110, 10, 30)),
        original=(0.043, 0.045, 0.159),
    )
    add(
        "moka_pot",
        "moka pot",
        (0.135, 0.081, 0.16),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (-0.0245, 0.0, 0.0),
                METAL,
                profile=((0.0, 0.0), (0.04, 0.0), (0.036, 0.07), (0.0, 0.07)),
                segments=8,
            ),
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (-0.0245, 0.0, 0.068),
                METAL,
                profile=((0.0, 0.0), (0.032, 0.0), (0.04, 0.075), (0.0, 0.075)),
                segments=8,
            ),
            Part("sphere", (0.008, 0.0, 0.0), (-0.0245, 0.0, 0.148), BLACK),
            Part("box", (0.02, 0.006, 0.035), (0.045, 0.0, 0.1), BLACK, handle=True),
            Part("box", (0.012, 0.006, 0.005), (0.025, 0.0, 0.13), BLACK),
        ),
        grasp="handle",
        original=(0.081, 0.163, 0.182),
    )
    add(
        "black_book",
        "black book",
        (0.095, 0.031, 0.116),
        book((0.095, 0.031, 0.116), BLACK),
        grasp="edge",
        label=Label("BOOK", (20, 20, 22), (230, 230, 230)),
        original=(0.031, 0.114, 0.139),
    )
    add(
        "yellow_book",
        "yellow book",
        (0.085, 0.028, 0.105),
        book((0.085, 0.028, 0.105), YELLOW),
        grasp="edge",
        label=Label("BOOK", (240, 200, 30), (40, 40, 40)),
        original=(0.028, 0.102, 0.125),
    )
    add(
        "basket",
        "basket",
        (0.16, 0.15, 0.075),
        container((0.16, 0.15, 0.075), (0.62, 0.45, 0.25, 1), wall=0.01),
        grasp="rim",
        regions=(_region("contain_region", (0.0, 0.0, 0.0719), (0.0611, 0.0611, 0.0695)),),
    )
    add(
        "wooden_tray",
        "wooden tray",
        (0.298, 0.167, 0.07),
        container((0.298, 0.167, 0.07), LIGHT_WOOD, wall=0.01),
        grasp="rim",
        regions=(_region("contain_region", (0.0, 0.0, 0.0426), (0.1355, 0.0784, 0.0404)),),
        original=(0.298, 0.167, 0.083),
    )
    # --- VLA-Arena produce (RoboCasa / generated originals: not shippable).
    add(
        "tomato",
        "tomato",
        (0.052, 0.052, 0.046),
        fruit((0.052, 0.052, 0.046), (0.85, 0.12, 0.08, 1), top=LEAF, top_size=0.007),
        original=(0.09, 0.09, 0.065),
    )
    add(
        "tomato_n",
        "tomato",
        (0.05, 0.05, 0.044),
        fruit((0.05, 0.05, 0.044), (0.9, 0.2, 0.1, 1), top=LEAF, top_size=0.008),
    )
    add(
        "onion",
        "onion",
        (0.052, 0.052, 0.046),
        fruit((0.052, 0.052, 0.046), (0.6, 0.3, 0.35, 1), top=(0.75, 0.6, 0.4, 1)),
        original=(0.093, 0.094, 0.093),
    )
    add(
        "onion_n",
        "onion",
        (0.05, 0.05, 0.044),
        fruit((0.05, 0.05, 0.044), (0.85, 0.7, 0.45, 1), top=(0.6, 0.45, 0.25, 1)),
        original=(0.077, 0.092, 0.087),
    )
    add(
        "lime",
        "lime",
        (0.05, 0.05, 0.044),
        fruit((0.05, 0.05, 0.044), (0.35, 0.7, 0.15, 1), top=STEM, top_size=0.003),
        original=(0.071, 0.079, 0.071),
    )
    add(
        "peach",
        "peach",
        (0.052, 0.052, 0.046),
        fruit(
            (0.052, 0.052, 0.046),
            (0.98, 0.65, 0.4, 1),
            top=STEM,
            top_size=0.003,
            spots=(0.9, 0.35, 0.3, 1),
        ),
    )
    add(
        "mango",
        "mango",
        (0.08, 0.05, 0.05),
        fruit(
            (0.08, 0.05, 0.05),
            (0.98, 0.75, 0.15, 1),
            top=STEM,
            top_size=0.003,
            spots=(0.9, 0.35, 0.15, 1),
        ),
    )
    add(
        "kiwi",
        "kiwi",
        (0.062, 0.05, 0.048),
        fruit((0.062, 0.05, 0.048), (0.5, 0.38, 0.2, 1)),
        original=(0.067, 0.077, 0.062),
    )
    add("kiwi_n", "kiwi", (0.062, 0.05, 0.048), fruit((0.062, 0.05, 0.048), (0.45, 0.35, 0.18, 1)))
    add(
        "bell_pepper",
        "bell pepper",
        (0.06, 0.052, 0.05),
        fruit((0.06, 0.052, 0.05), (0.85, 0.1, 0.05, 1), top=DARK_GREEN, top_size=0.006, flat=0.6),
        original=(0.113, 0.105, 0.083),
    )
    add(
        "potato",
        "potato",
        (0.08, 0.052, 0.048),
        fruit((0.08, 0.052, 0.048), (0.72, 0.55, 0.32, 1), flat=0.5),
        original=(0.106, 0.115, 0.112),
    )
    add(
        "egg",
        "egg",
        (0.056, 0.046, 0.046),
        fruit((0.056, 0.046, 0.046), (0.96, 0.93, 0.85, 1), flat=0.3),
        original=(0.055, 0.051, 0.056),
    )
    add(
        "strawberry",
        "strawberry",
        (0.045, 0.045, 0.048),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0),
                (0.85, 0.08, 0.12, 1),
                profile=(
                    (0.0, 0.0),
                    (0.006, 0.0),
                    (0.018, 0.015),
                    (0.0225, 0.03),
                    (0.02, 0.04),
                    (0.0, 0.042),
                ),
            ),
            Part("cylinder", (0.016, 0.002, 0.0), (0.0, 0.0, 0.043), LEAF, False),
            Part("cylinder", (0.002, 0.003, 0.0), (0.0, 0.0, 0.045), STEM, False),
        ),
    )
    add(
        "carrot",
        "carrot",
        (0.15, 0.034, 0.034),
        lying((0.15, 0.034, 0.034), ORANGE, tip=LEAF, taper=0.25),
    )
    add("cucumber", "cucumber", (0.18, 0.044, 0.044), lying((0.18, 0.044, 0.044), DARK_GREEN))
    add(
        "broccoli",
        "broccoli",
        (0.11, 0.1, 0.12),
        (
            Part("cylinder", (0.018, 0.03, 0.0), (0.0, 0.0, 0.03), (0.55, 0.7, 0.35, 1)),
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.05),
                (0.15, 0.4, 0.12, 1),
                profile=(
                    (0.0, 0.0),
                    (0.03, 0.0),
                    (0.05, 0.025),
                    (0.045, 0.055),
                    (0.02, 0.07),
                    (0.0, 0.07),
                ),
            ),
        ),
        original=(0.127, 0.114, 0.129),
    )
    add(
        "water_ball",
        "water ball",
        (0.032, 0.032, 0.032),  # VLA-Arena's: a sphere of radius 16 mm
        fruit((0.032, 0.032, 0.032), (0.35, 0.6, 0.95, 0.75), flat=0.3),
        original=(0.032, 0.032, 0.032),
    )
    add(
        "billiard_balls",
        "billiard balls",
        (0.072, 0.068, 0.066),
        (
            Part("sphere", (0.018, 0.0, 0.0), (-0.018, -0.0156, 0.018), YELLOW),
            Part("sphere", (0.018, 0.0, 0.0), (0.018, -0.0156, 0.018), RED),
            Part("sphere", (0.018, 0.0, 0.0), (0.0, 0.0156, 0.018), BLUE),
            Part("sphere", (0.018, 0.0, 0.0), (0.0, -0.0052, 0.0474), BLACK),
            Part("box", (0.036, 0.03, 0.002), (0.0, 0.0, 0.002), (0, 0, 0, 0)),
        ),
        original=(0.078, 0.057, 0.078),
    )
    # --- Bakery (VLA-Arena; mostly floor scenes, built for completeness).
    add(
        "cake",
        "cake",
        (0.11, 0.11, 0.08),
        (
            Part("cylinder", (0.055, 0.03, 0.0), (0.0, 0.0, 0.03), (0.55, 0.3, 0.15, 1)),
            Part("cylinder", (0.056, 0.01, 0.0), (0.0, 0.0, 0.065), (0.96, 0.85, 0.88, 1)),
            Part("sphere", (0.008, 0.0, 0.0), (0.0, 0.0, 0.072), RED, False),
        ),
        original=(0.11, 0.115, 0.09),
    )
    add(
        "cake_n",
        "cake",
        (0.1, 0.1, 0.056),
        (
            Part("cylinder", (0.05, 0.022, 0.0), (0.0, 0.0, 0.022), (0.95, 0.9, 0.8, 1)),
            Part("cylinder", (0.05, 0.006, 0.0), (0.0, 0.0, 0.05), (0.45, 0.2, 0.1, 1)),
        ),
        original=(0.097, 0.115, 0.056),
    )
    add(
        "chiffon_cake",
        "chiffon cake",
        (0.12, 0.12, 0.075),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0),
                (0.97, 0.85, 0.5, 1),
                profile=((0.0, 0.0), (0.06, 0.0), (0.05, 0.075), (0.0, 0.075)),
            ),
            Part("cylinder", (0.014, 0.0005, 0.0), (0.0, 0.0, 0.075), (0.3, 0.2, 0.1, 1), False),
        ),
    )
    for name, icing, size in (
        ("donut", (0.95, 0.55, 0.65, 1), (0.1, 0.1, 0.04)),
        ("donut_n", (0.4, 0.22, 0.1, 1), (0.11, 0.11, 0.04)),
    ):
        add(
            name,
            "donut",
            size,
            (
                Part(
                    "revolve",
                    (1.0, 1.0, 1.0),
                    (0.0, 0.0, 0.0),
                    (0.85, 0.6, 0.3, 1),
                    profile=(
                        (0.0, 0.0),
                        (size[0] * 0.42, 0.0),
                        (size[0] / 2, size[2] * 0.5),
                        (size[0] * 0.42, size[2] * 0.9),
                        (0.0, size[2] * 0.9),
                    ),
                ),
                Part(
                    "cylinder",
                    (size[0] * 0.42, size[2] * 0.06, 0.0),
                    (0.0, 0.0, size[2] * 0.94),
                    icing,
                    False,
                ),
                Part(
                    "cylinder",
                    (size[0] * 0.12, 0.0005, 0.0),
                    (0.0, 0.0, size[2] + 0.0005),
                    (0.25, 0.15, 0.08, 1),
                    False,
                ),
            ),
        )
    add(
        "bagel",
        "bagel",
        (0.1, 0.1, 0.035),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0),
                (0.8, 0.55, 0.25, 1),
                profile=((0.0, 0.0), (0.042, 0.0), (0.05, 0.017), (0.042, 0.035), (0.0, 0.035)),
            ),
            Part("cylinder", (0.013, 0.0005, 0.0), (0.0, 0.0, 0.0355), (0.35, 0.22, 0.1, 1), False),
        ),
    )
    # --- VLA-Arena kitchenware.
    add(
        "porcelain_bowl",
        "porcelain bowl",
        (0.13, 0.13, 0.065),
        bowl(0.13, 0.065, PORCELAIN, rim=BLUE),
        grasp="rim",
        original=(0.13, 0.13, 0.073),
    )
    add("new_bowl", "bowl", (0.14, 0.14, 0.06), bowl(0.14, 0.06, (0.6, 0.8, 0.9, 1)), grasp="rim")
    add("pink_bowl", "pink bowl", (0.13, 0.13, 0.055), bowl(0.13, 0.055, PINK), grasp="rim")
    add(
        "porcelain_plate",
        "porcelain plate",
        (0.18, 0.18, 0.019),
        plate(0.18, 0.019, PORCELAIN, well=(0.8, 0.85, 0.95, 1)),
        grasp="rim",
        original=(0.18, 0.18, 0.019),
    )
    add(
        "ceramic_plate",
        "ceramic plate",
        (0.24, 0.24, 0.028),
        plate(0.24, 0.028, (0.93, 0.88, 0.78, 1)),
        grasp="rim",
        original=(0.292, 0.292, 0.034),
    )
    add(
        "green_mug",
        "green mug",
        (0.125, 0.096, 0.1),
        mug((0.125, 0.096, 0.1), GREEN),
        grasp="handle",
    )
    add(
        "blue_mug",
        "blue mug",
        (0.12, 0.095, 0.074),
        mug((0.12, 0.095, 0.074), BLUE),
        grasp="handle",
        original=(0.131, 0.112, 0.074),
    )
    add(
        "patterned_mug",
        "patterned mug",
        (0.12, 0.088, 0.1),
        mug((0.12, 0.088, 0.1), WHITE, band=(0.85, 0.3, 0.55, 1)),
        grasp="handle",
        original=(0.13, 0.088, 0.115),
    )
    add(
        "teapot",
        "teapot",
        (0.146, 0.1, 0.097),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0),
                PORCELAIN,
                profile=(
                    (0.0, 0.0),
                    (0.035, 0.0),
                    (0.05, 0.035),
                    (0.045, 0.07),
                    (0.025, 0.08),
                    (0.0, 0.08),
                ),
            ),
            Part("sphere", (0.008, 0.0, 0.0), (0.0, 0.0, 0.088), BLUE),
            Part(
                "capsule",
                (0.007, 0.018, 0.0),
                (-0.05, 0.0, 0.06),
                PORCELAIN,
                euler=(0.0, -0.7, 0.0),
            ),
            Part("box", (0.012, 0.005, 0.005), (0.056, 0.0, 0.07), BLUE),
            Part("box", (0.012, 0.005, 0.005), (0.056, 0.0, 0.025), BLUE),
            Part("box", (0.005, 0.005, 0.027), (0.068, 0.0, 0.0475), BLUE),
            Part("cylinder", (0.051, 0.008, 0.0), (0.0, 0.0, 0.035), BLUE, False),
        ),
        grasp="handle",
        original=(0.146, 0.111, 0.097),
    )
    add(
        "vase",
        "vase",
        (0.09, 0.09, 0.18),
        (
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.0),
                (0.2, 0.45, 0.65, 1),
                profile=((0.0, 0.0), (0.03, 0.0), (0.045, 0.06), (0.035, 0.13), (0.0, 0.13)),
            ),
            Part(
                "revolve",
                (1.0, 1.0, 1.0),
                (0.0, 0.0, 0.125),
                (0.2, 0.45, 0.65, 1),
                profile=((0.0, 0.0), (0.022, 0.0), (0.03, 0.055), (0.0, 0.055)),
            ),
            Part("cylinder", (0.024, 0.0005, 0.0), (0.0, 0.0, 0.18), (0.05, 0.1, 0.15, 1), False),
        ),
    )
    add(
        "cutting_board",
        "cutting board",
        (0.338, 0.21, 0.025),
        board((0.338, 0.21, 0.025), WOOD, hole=(0.3, 0.2, 0.1, 1)),
        grasp="edge",
        original=(0.21, 0.338, 0.025),
    )
    add(
        "box",
        "box",
        (0.17, 0.17, 0.09),
        container((0.17, 0.17, 0.09), CARDBOARD, wall=0.006),
        grasp="rim",
        regions=(_region("contain_region", (0.0, 0.0, 0.0745), (0.075, 0.075, 0.0695)),),
    )
    add(
        "white_storage_box",
        "white storage box",
        (0.148, 0.119, 0.15),
        (
            Part("box", (0.074, 0.0595, 0.075), (0.0, 0.0, 0.075), WHITE),
            Part("box", (0.076, 0.0615, 0.004), (0.0, 0.0, 0.146), (0.85, 0.85, 0.86, 1), False),
        ),
        regions=(
            _region("top_side", (0.0, 0.0, 0.1425), (0.0643, 0.0583, 0.0012)),
            _region("bottom_side", (0.0, 0.0, 0.0047), (0.0643, 0.0583, 0.0022)),
        ),
        original=(0.148, 0.119, 0.151),
    )
    add(
        "chocolate",
        "chocolate bar",
        (0.14, 0.074, 0.016),
        carton((0.14, 0.074, 0.016)),
        label=Label("CHOCOLATE", (90, 40, 20), (240, 210, 120)),
        original=(0.074, 0.14, 0.016),
    )
    add(
        "candle",
        "candle",
        (0.05, 0.05, 0.08),
        (
            Part("cylinder", (0.025, 0.037, 0.0), (0.0, 0.0, 0.037), (0.95, 0.93, 0.85, 1)),
            Part("cylinder", (0.0015, 0.005, 0.0), (0.0, 0.0, 0.077), BLACK, False),
        ),
    )
    add(
        "fork",
        "fork",
        (0.2, 0.024, 0.012),
        utensil((0.2, 0.024, 0.012), METAL, METAL, kind="fork"),
        original=(0.023, 0.213, 0.033),
    )
    add(
        "knife_n",
        "knife",
        (0.22, 0.022, 0.012),
        utensil((0.22, 0.022, 0.012), BLACK, METAL, kind="knife"),
    )
    add(
        "scissors",
        "scissors",
        (0.16, 0.051, 0.012),
        utensil((0.16, 0.051, 0.012), RED, METAL, kind="scissors"),
        original=(0.051, 0.16, 0.012),
    )
    add(
        "toy_train",
        "toy train",
        (0.3, 0.09, 0.08),
        vehicle((0.3, 0.09, 0.08), (0.2, 0.35, 0.8, 1), cars=3),
        original=(0.352, 0.104, 0.079),
    )
    add(
        "toy_motorbike",
        "toy motorbike",
        (0.12, 0.045, 0.08),
        vehicle((0.12, 0.045, 0.08), RED, rider=BLACK),
    )
    add(
        "mickey",
        "toy mouse",
        (0.144, 0.17, 0.17),
        (
            Part("box", (0.072, 0.06, 0.005), (0.0, 0.0, 0.005), (0.85, 0.75, 0.2, 1)),
            Part("ellipsoid", (0.045, 0.04, 0.05), (0.0, 0.0, 0.06), RED),
            Part("sphere", (0.045, 0.0, 0.0), (0.0, 0.0, 0.12), BLACK),
            Part(
                "cylinder",
                (0.03, 0.004, 0.0),
                (0.0, 0.055, 0.14),
                BLACK,
                False,
                euler=(0.0, math.pi / 2, 0.0),
            ),
            Part(
                "cylinder",
                (0.03, 0.004, 0.0),
                (0.0, -0.055, 0.14),
                BLACK,
                False,
                euler=(0.0, math.pi / 2, 0.0),
            ),
            Part(
                "ellipsoid",
                (0.014, 0.028, 0.018),
                (-0.038, 0.0, 0.112),
                (0.95, 0.8, 0.65, 1),
                False,
            ),
        ),
        original=(0.178, 0.199, 0.171),
    )
    # --- Fixtures (static props).
    cab_regions = (
        _region("top_side", (0.0035, 0.0157, 0.2215), (0.1253, 0.0944, 0.0015)),
        _region("top_region", (0.0033, 0.0113, 0.1868), (0.1022, 0.0756, 0.0299)),
        _region("middle_region", (0.0033, 0.0113, 0.1169), (0.1022, 0.0756, 0.0299)),
        _region("bottom_region", (0.0033, 0.0113, 0.047), (0.1022, 0.0756, 0.0299)),
    )
    add(
        "wooden_cabinet",
        "wooden cabinet",
        (0.257, 0.227, 0.222),
        cabinet((0.257, 0.227, 0.222), WOOD, METAL),
        fixture=True,
        grasp="none",
        regions=cab_regions,
        original=(0.257, 0.227, 0.225),
    )
    add(
        "white_cabinet",
        "white cabinet",
        (0.257, 0.227, 0.222),
        cabinet((0.257, 0.227, 0.222), WHITE, METAL),
        fixture=True,
        grasp="none",
        regions=(
            *cab_regions,
            _region("top_side_1", (-0.0354, 0.0367, 0.2215), (0.1253, 0.0944, 0.0015)),
            _region("top_side_2", (0.0454, -0.0267, 0.2215), (0.1253, 0.0944, 0.0015)),
        ),
        original=(0.257, 0.227, 0.225),
    )
    add(
        "short_cabinet",
        "short cabinet",
        (0.204, 0.212, 0.183),
        cabinet((0.204, 0.212, 0.183), WHITE, METAL),
        fixture=True,
        grasp="none",
        regions=(
            _region("top_side", (0.0, 0.0, 0.1815), (0.1, 0.1, 0.0015)),
            _region("top_region", (0.0, 0.0, 0.145), (0.088, 0.083, 0.02)),
            _region("middle_region", (0.0, 0.0, 0.09), (0.088, 0.083, 0.02)),
            _region("bottom_region", (0.0, 0.0, 0.035), (0.088, 0.083, 0.02)),
        ),
        original=(0.204, 0.212, 0.183),
    )
    add(
        "flat_stove",
        "stove",
        (0.19, 0.19, 0.045),
        stove((0.19, 0.19, 0.045)),
        fixture=True,
        grasp="none",
        regions=(_region("cook_region", (0.0, 0.0, 0.0475), (0.075, 0.075, 0.0025)),),
    )
    add(
        "microwave",
        "microwave",
        (0.345, 0.2, 0.187),
        microwave((0.345, 0.2, 0.187)),
        fixture=True,
        grasp="none",
        regions=(
            _region("top_side", (0.0, 0.0, 0.192), (0.12, 0.0835, 0.005)),
            _region("heating_region", (0.0, 0.0, 0.096), (0.12, 0.0835, 0.08)),
        ),
    )
    add(
        "wooden_shelf",
        "wooden shelf",
        (0.257, 0.2, 0.222),
        shelf((0.257, 0.2, 0.222), WOOD, levels=3),
        fixture=True,
        grasp="none",
        regions=(
            _region("top_side", (0.0035, 0.0, 0.2215), (0.1253, 0.0944, 0.0015)),
            _region("top_region", (0.0039, 0.0, 0.1826), (0.1103, 0.05, 0.0327)),
            _region("middle_region", (0.0039, 0.0, 0.1144), (0.1103, 0.05, 0.0327)),
            _region("bottom_region", (0.0039, 0.0, 0.0467), (0.1103, 0.05, 0.0327)),
        ),
        original=(0.257, 0.2, 0.225),
    )
    add(
        "wooden_two_layer_shelf",
        "two-layer shelf",
        (0.352, 0.19, 0.207),
        shelf((0.352, 0.19, 0.207), LIGHT_WOOD, levels=2),
        fixture=True,
        grasp="none",
        regions=(
            _region("top_side", (0.005, 0.0, 0.2055), (0.1756, 0.0944, 0.0015)),
            _region("top_region", (0.0054, 0.0, 0.1367), (0.1509, 0.0856, 0.0674)),
            _region("bottom_region", (0.0056, 0.0, 0.0353), (0.1558, 0.0856, 0.0353)),
        ),
    )
    add(
        "wine_rack",
        "wine rack",
        (0.27, 0.28, 0.33),
        wine_rack((0.27, 0.28, 0.33), BROWN),
        fixture=True,
        grasp="none",
        regions=(
            RegionSpec(
                "top_region",
                (0.0, -0.08, 0.2175),
                (0.1009, 0.022, 0.0025),
                (0.8549, -0.5188, 0.0, 0.0),
            ),
        ),
        original=(0.27, 0.333, 0.393),
    )
    add(
        "desk_caddy",
        "desk caddy",
        (0.13, 0.42, 0.125),
        caddy((0.13, 0.42, 0.125), (0.3, 0.3, 0.32, 1)),
        fixture=True,
        grasp="none",
        regions=(
            _region("right_contain_region", (0.0, -0.143, 0.065), (0.062, 0.062, 0.06)),
            _region("left_contain_region", (0.0, 0.143, 0.065), (0.062, 0.062, 0.06)),
            _region("back_contain_region", (0.033, 0.0, 0.085), (0.028, 0.062, 0.04)),
            _region("front_contain_region", (-0.031, 0.0, 0.04), (0.028, 0.062, 0.036)),
        ),
    )
    by_name = {r.name: r for r in rows}
    quarter, half = math.pi / 2, math.pi
    rows += [
        turned(by_name["fork"], "rotated_fork", quarter),
        turned(by_name["fork"], "rotated_fork_pi", half),
        turned(by_name["knife_n"], "rotated_knife", quarter),
        turned(by_name["knife_n"], "rotated_knife_pi", half),
        turned(by_name["scissors"], "rotated_scissors", quarter),
        turned(by_name["scissors"], "rotated_scissors_pi", half),
        turned(by_name["toy_motorbike"], "rotated_toy_motorbike", quarter),
        turned(by_name["toy_motorbike"], "rotated_toy_motorbike_x", half),
        turned(by_name["cutting_board"], "cutting_board_no_rotation", 0.0),
    ]
    return rows


#: Category name -> stand-in spec (objects and fixtures), in the order of the table above.
STANDINS: dict[str, Standin] = {r.name: r for r in _rows()}

__all__ = ["STANDINS"]
