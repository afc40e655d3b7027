"""The categories a task file may declare: LIBERO's and VLA-Arena's, and rsb_mj's.

:data:`KNOWN_CATEGORIES` are the object, fixture and workspace categories LIBERO and VLA-Arena
register (copied from ``bddl_corpus/known_categories.txt``); :data:`ALL_CATEGORIES` adds the
ones rsb_mj builds (:data:`rsb_mj.lang.categories.RSB_CATEGORIES`); and
:data:`ARTICULATED_CATEGORIES` are the articulated ones among them, which rsb_mj does not build.
"""

from __future__ import annotations

from rsb_mj.lang.categories import RSB_CATEGORIES

__all__ = [
    "ALL_CATEGORIES",
    "ARTICULATED_CATEGORIES",
    "FIXTURE_CATEGORIES",
    "KNOWN_CATEGORIES",
]

#: Categories registered by LIBERO and VLA-Arena (task files with ``(:domain robosuite)``): every
#: ``@register_object`` class of ``libero/libero/envs/objects/*.py`` (LIBERO 8f1084e) and
#: ``vla_arena/vla_arena/envs/objects/*.py`` (VLA-Arena ec1b978), named as their
#: ``register_object`` names them, plus the workspace fixtures their problem classes build
#: (``table``, ``main_table``, ``kitchen_table``, ...).
KNOWN_CATEGORIES: frozenset[str] = frozenset(
    (
        "akita_black_bowl",
        "alphabet_soup",
        "apple",
        "bagel",
        "ball",
        "banana",
        "basic_sleek_induc",
        "basin_faucet",
        "basket",
        "bbq_sauce",
        "bell_pepper",
        "billiard_balls",
        "black_book",
        "black_bowl",
        "blue_mug",
        "bottled_water",
        "bowl_drainer",
        "box",
        "bread",
        "broccoli",
        "brown_mug",
        "butter",
        "cake",
        "cake_n",
        "candle",
        "carrot",
        "ceramic_plate",
        "cereal",
        "chefmate_8_frypan",
        "cherries",
        "chiffon_cake",
        "chocolate",
        "chocolate_pudding",
        "coffee_machine",
        "coffee_table",
        "cookies",
        "corn",
        "counter",
        "cream_cheese",
        "cucumber",
        "cutting_board",
        "cutting_board_no_rotation",
        "desk_caddy",
        "dining_set_group",
        "donut",
        "donut_n",
        "dual_gas",
        "dump_truck",
        "egg",
        "faucet",
        "flat_stove",
        "floor",
        "fork",
        "garlic",
        "giftbox",
        "glazed_rim_porcelain_ramekin",
        "green_mug",
        "hammer",
        "hammer_handle",
        "hot_dog",
        "hot_dog_n",
        "ketchup",
        "kitchen_table",
        "kiwi",
        "kiwi_n",
        "knife",
        "knife_n",
        "lemon",
        "lime",
        "living_room_table",
        "macaroni_and_cheese",
        "main_table",
        "mango",
        "mayo",
        "mickey",
        "microwave",
        "milk",
        "moka_pot",
        "new_bowl",
        "new_plate",
        "new_salad_dressing",
        "onion",
        "onion_n",
        "orange",
        "orange_juice",
        "pan",
        "patterned_mug",
        "peach",
        "pink_bowl",
        "plate",
        "popcorn",
        "porcelain_bowl",
        "porcelain_mug",
        "porcelain_plate",
        "potato",
        "rack",  # LIBERO registers class Rack (google_scanned_objects.py)
        "red_bowl",
        "red_coffee_mug",
        "rotated_fork",
        "rotated_fork_pi",
        "rotated_knife",
        "rotated_knife_pi",
        "rotated_scissors",
        "rotated_scissors_pi",
        "rotated_toy_motorbike",
        "rotated_toy_motorbike_x",
        "salad_dressing",
        "scissors",
        "scissors_n",
        "short_cabinet",
        "short_fridge",
        "simple_gas",
        "simple_rack",
        "slide_cabinet",
        "steak",
        "strawberry",
        "study_table",
        "table",
        "target_zone",
        "teapot",
        "tomato",
        "tomato_n",
        "tomato_sauce",
        "toy_car",
        "toy_motorbike",
        "toy_train",
        "vase",
        "water_ball",
        "white_bowl",
        "white_cabinet",
        "white_storage_box",
        "white_yellow_mug",
        "window",
        "wine_bottle",
        "wine_rack",
        "wooden_bowl",
        "wooden_cabinet",
        "wooden_shelf",
        "wooden_tray",
        "wooden_two_layer_shelf",
        "yellow_book",
    )
)

#: Every category a task file may declare.
ALL_CATEGORIES: frozenset[str] = KNOWN_CATEGORIES | frozenset(RSB_CATEGORIES)
#: Articulated categories (doors, drawers, knobs): the ``ArticulatedObject`` classes of
#: LIBERO's ``envs/objects/articulated_objects.py`` (8f1084e). rsb_mj builds none of them.
ARTICULATED_CATEGORIES: frozenset[str] = frozenset(
    {
        "basin_faucet",
        "faucet",
        "flat_stove",
        "microwave",
        "short_cabinet",
        "short_fridge",
        "slide_cabinet",
        "white_cabinet",
        "window",
        "wooden_cabinet",
    }
)

#: The fixture categories (what LIBERO's and VLA-Arena's files declare under ``:fixtures``:
#: the workspaces, the articulated ones, the racks, shelves and the desk caddy); the rest of
#: :data:`ALL_CATEGORIES` are objects. RSB203 suggests a name of the declaration's own kind.
FIXTURE_CATEGORIES: frozenset[str] = ARTICULATED_CATEGORIES | frozenset(
    {
        "coffee_table",
        "desk_caddy",
        "floor",
        "kitchen_table",
        "living_room_table",
        "main_table",
        "study_table",
        "table",
        "wine_rack",
        "wooden_shelf",
        "wooden_two_layer_shelf",
    }
)
