"""The object categories rsb_mj builds: noun, footprint and how a candidate is told apart.

:data:`RSB_CATEGORIES` maps each category the rsb scene compiler can build to its
:class:`CategoryInfo` (the question tasks' categories, then :data:`STANDIN_CATEGORIES`, the
stand-ins for LIBERO's and VLA-Arena's objects and fixtures): the noun instructions use
("the red *block*"), the footprint radius [m] the layout sampler and the linter's capacity
rule use, and whether the object can show an option letter. The scene engineer may adjust
``RSB_CATEGORIES`` (radii, nouns) directly.

The categories a task file may declare (LIBERO's and VLA-Arena's too) are in
:mod:`rsb_mj.lang.known_categories`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_FOOTPRINT_RADIUS",
    "RSB_CATEGORIES",
    "STANDIN_CATEGORIES",
    "CategoryInfo",
    "footprint_radius",
]

#: Footprint radius [m] assumed for a category with no entry in :data:`RSB_CATEGORIES`.
DEFAULT_FOOTPRINT_RADIUS = 0.05


@dataclass(frozen=True)
class CategoryInfo:
    """What the rsb stages need to know about an object category.

    Attributes:
        noun: the word instructions use for it ("block", "can").
        footprint_radius: radius [m] of the disc that bounds the object on the table (top view).
        letters: True if the object can show an option letter on its top face.
        shows_answer: True if the object shows its option's answer (a picture or printed
            text, :mod:`rsb_mj.scene.display`) instead of being told apart by a letter or a
            color: an instruction then needs no option list and no mapping.
    """

    noun: str
    footprint_radius: float
    letters: bool
    shows_answer: bool = False

    @property
    def display(self) -> str:
        """How a candidate of this category is told apart: ``"answer"`` (it shows its
        option's answer), ``"letter"`` (it can show its option letter) or ``"color"``."""
        if self.shows_answer:
            return "answer"
        return "letter" if self.letters else "color"


#: Categories the rsb scene compiler builds.
RSB_CATEGORIES: dict[str, CategoryInfo] = {
    # Radii bound the compiled objects' top views (rsb_mj/scene/categories; scene engineer).
    "letter_block": CategoryInfo("block", 0.029, True),  # 4 cm cube
    "can": CategoryInfo("can", 0.026, False),  # 5 cm diameter
    "milk": CategoryInfo("milk carton", 0.032, False),  # 4.4 cm square
    "bread": CategoryInfo("bread", 0.04, False),  # 6 x 5 cm
    "cereal": CategoryInfo("cereal box", 0.053, False),  # 10 x 3 cm
    "lemon": CategoryInfo("lemon", 0.035, False),  # 6.8 x 4 cm
    "bottle": CategoryInfo("bottle", 0.03, False),  # 5.6 cm diameter
    "toy_car": CategoryInfo("toy car", 0.052, False),  # 9 x 4.4 cm with wheels
    "playing_card": CategoryInfo("deck of cards", 0.035, True),  # 4 x 5.6 cm deck
    # Procedural everyday objects (rsb_mj/scene/categories, ours): radii bound what is drawn.
    "apple": CategoryInfo("apple", 0.026, False),  # 4.9 cm wide
    "orange": CategoryInfo("orange", 0.026, False),  # 5 cm wide
    "pear": CategoryInfo("pear", 0.025, False),  # 4.7 cm wide, 6.9 cm tall
    "banana": CategoryInfo("banana", 0.059, False),  # 10.6 x 4 cm with its stem
    "hammer": CategoryInfo("hammer", 0.053, False),  # 9.5 x 4.4 cm
    "screwdriver": CategoryInfo("screwdriver", 0.052, False),  # 10 x 2.3 cm
    "wrench": CategoryInfo("wrench", 0.053, False),  # 10 x 3.1 cm
    "mug": CategoryInfo("mug", 0.041, False),  # 5 cm across, handle to 6.5 cm
    "bowl": CategoryInfo("bowl", 0.026, False),  # 5 cm across
    "spoon": CategoryInfo("spoon", 0.051, False),  # 9.9 x 3.1 cm
    "shoe": CategoryInfo("shoe", 0.06, False),  # 11 x 4.2 cm
    "rubber_duck": CategoryInfo("rubber duck", 0.037, False),  # 6.7 x 4.4 cm, beak and tail
    "sponge": CategoryInfo("sponge", 0.042, False),  # 7 x 4.4 cm
    # Act2Answer: the cube the robot moves and the plates showing answers.
    "pick_cube": CategoryInfo("cube", 0.029, False),  # 4 cm cube
    "answer_plate": CategoryInfo("plate", 0.1, False, shows_answer=True),  # 16 x 12 cm tile
}

#: Stand-ins for LIBERO's and VLA-Arena's objects and fixtures (the table
#: rsb_mj.scene.categories.standins; radii bound the declared sizes' top view, + 1 mm).
STANDIN_CATEGORIES: dict[str, CategoryInfo] = {
    "alphabet_soup": CategoryInfo("alphabet soup", 0.038, False),  # 5.2 x 5.2 cm
    "tomato_sauce": CategoryInfo("tomato sauce", 0.038, False),  # 5.2 x 5.2 cm
    "butter": CategoryInfo("butter", 0.045, False),  # 7.8 x 4.0 cm
    "cream_cheese": CategoryInfo("cream cheese", 0.048, False),  # 8.3 x 4.3 cm
    "chocolate_pudding": CategoryInfo("chocolate pudding", 0.051, False),  # 8.4 x 5.1 cm
    "cookies": CategoryInfo("cookies", 0.051, False),  # 8.5 x 5.2 cm
    "orange_juice": CategoryInfo("orange juice", 0.072, False),  # 13.1 x 5.2 cm
    "ketchup": CategoryInfo("ketchup", 0.08, False),  # 14.9 x 5.2 cm
    "salad_dressing": CategoryInfo("salad dressing", 0.08, False),  # 14.8 x 5.2 cm
    "new_salad_dressing": CategoryInfo("salad dressing", 0.08, False),  # 14.8 x 5.2 cm
    "bbq_sauce": CategoryInfo("bbq sauce", 0.032, False),  # 5.0 x 3.4 cm
    "akita_black_bowl": CategoryInfo("black bowl", 0.077, False),  # 10.7 x 10.7 cm
    "white_bowl": CategoryInfo("white bowl", 0.065, False),  # 9.0 x 9.0 cm
    "plate": CategoryInfo("plate", 0.117, False),  # 16.4 x 16.4 cm
    "glazed_rim_porcelain_ramekin": CategoryInfo("ramekin", 0.086, False),  # 12.0 x 12.0 cm
    "chefmate_8_frypan": CategoryInfo("frying pan", 0.209, False),  # 36.0 x 20.6 cm
    "porcelain_mug": CategoryInfo("white mug", 0.079, False),  # 12.5 x 9.3 cm
    "red_coffee_mug": CategoryInfo("red mug", 0.08, False),  # 12.5 x 9.5 cm
    "white_yellow_mug": CategoryInfo("white and yellow mug", 0.082, False),  # 12.5 x 10.0 cm
    "wine_bottle": CategoryInfo("wine bottle", 0.033, False),  # 4.4 x 4.4 cm
    "moka_pot": CategoryInfo("moka pot", 0.08, False),  # 8.1 x 13.5 cm
    "black_book": CategoryInfo("black book", 0.051, False),  # 9.5 x 3.1 cm
    "yellow_book": CategoryInfo("yellow book", 0.046, False),  # 8.5 x 2.8 cm
    "basket": CategoryInfo("basket", 0.111, False),  # 16.0 x 15.0 cm
    "wooden_tray": CategoryInfo("wooden tray", 0.172, False),  # 29.8 x 16.7 cm
    "tomato": CategoryInfo("tomato", 0.038, False),  # 5.2 x 5.2 cm
    "tomato_n": CategoryInfo("tomato", 0.037, False),  # 5.0 x 5.0 cm
    "onion": CategoryInfo("onion", 0.038, False),  # 5.2 x 5.2 cm
    "onion_n": CategoryInfo("onion", 0.037, False),  # 5.0 x 5.0 cm
    "lime": CategoryInfo("lime", 0.037, False),  # 5.0 x 5.0 cm
    "peach": CategoryInfo("peach", 0.038, False),  # 5.2 x 5.2 cm
    "mango": CategoryInfo("mango", 0.049, False),  # 8.0 x 5.0 cm
    "kiwi": CategoryInfo("kiwi", 0.041, False),  # 6.2 x 5.0 cm
    "kiwi_n": CategoryInfo("kiwi", 0.041, False),  # 6.2 x 5.0 cm
    "bell_pepper": CategoryInfo("bell pepper", 0.041, False),  # 6.0 x 5.2 cm
    "potato": CategoryInfo("potato", 0.049, False),  # 8.0 x 5.2 cm
    "egg": CategoryInfo("egg", 0.038, False),  # 5.6 x 4.6 cm
    "strawberry": CategoryInfo("strawberry", 0.033, False),  # 4.5 x 4.5 cm
    "carrot": CategoryInfo("carrot", 0.078, False),  # 15.0 x 3.4 cm
    "cucumber": CategoryInfo("cucumber", 0.094, False),  # 18.0 x 4.4 cm
    "broccoli": CategoryInfo("broccoli", 0.038, False),  # 5.2 x 5.2 cm
    "water_ball": CategoryInfo("water ball", 0.024, False),  # 3.2 x 3.2 cm
    "billiard_balls": CategoryInfo("billiard balls", 0.051, False),  # 7.2 x 6.8 cm
    "cake": CategoryInfo("cake", 0.035, False),  # 4.8 x 4.8 cm
    "cake_n": CategoryInfo("cake", 0.035, False),  # 4.8 x 4.8 cm
    "chiffon_cake": CategoryInfo("chiffon cake", 0.086, False),  # 12.0 x 12.0 cm
    "donut": CategoryInfo("donut", 0.072, False),  # 10.0 x 10.0 cm
    "donut_n": CategoryInfo("donut", 0.079, False),  # 11.0 x 11.0 cm
    "bagel": CategoryInfo("bagel", 0.072, False),  # 10.0 x 10.0 cm
    "porcelain_bowl": CategoryInfo("porcelain bowl", 0.093, False),  # 13.0 x 13.0 cm
    "new_bowl": CategoryInfo("bowl", 0.1, False),  # 14.0 x 14.0 cm
    "pink_bowl": CategoryInfo("pink bowl", 0.093, False),  # 13.0 x 13.0 cm
    "porcelain_plate": CategoryInfo("porcelain plate", 0.129, False),  # 18.0 x 18.0 cm
    "ceramic_plate": CategoryInfo("ceramic plate", 0.171, False),  # 24.0 x 24.0 cm
    "green_mug": CategoryInfo("green mug", 0.08, False),  # 12.5 x 9.6 cm
    "blue_mug": CategoryInfo("blue mug", 0.078, False),  # 12.0 x 9.5 cm
    "patterned_mug": CategoryInfo("patterned mug", 0.076, False),  # 12.0 x 8.8 cm
    "teapot": CategoryInfo("teapot", 0.09, False),  # 14.6 x 10.0 cm
    "vase": CategoryInfo("vase", 0.065, False),  # 9.0 x 9.0 cm
    "cutting_board": CategoryInfo("cutting board", 0.2, False),  # 33.8 x 21.0 cm
    "box": CategoryInfo("box", 0.122, False),  # 17.0 x 17.0 cm
    "white_storage_box": CategoryInfo("white storage box", 0.096, False),  # 14.8 x 11.9 cm
    "chocolate": CategoryInfo("chocolate bar", 0.081, False),  # 14.0 x 7.4 cm
    "candle": CategoryInfo("candle", 0.037, False),  # 5.0 x 5.0 cm
    "fork": CategoryInfo("fork", 0.102, False),  # 20.0 x 2.4 cm
    "knife_n": CategoryInfo("knife", 0.112, False),  # 22.0 x 2.2 cm
    "scissors": CategoryInfo("scissors", 0.085, False),  # 16.0 x 5.1 cm
    "toy_train": CategoryInfo("toy train", 0.158, False),  # 30.0 x 9.0 cm
    "toy_motorbike": CategoryInfo("toy motorbike", 0.066, False),  # 12.0 x 4.5 cm
    "mickey": CategoryInfo("toy mouse", 0.113, False),  # 14.4 x 17.0 cm
    "wooden_cabinet": CategoryInfo("wooden cabinet", 0.173, False),  # fixture, 25.7 x 22.7 cm
    "white_cabinet": CategoryInfo("white cabinet", 0.173, False),  # fixture, 25.7 x 22.7 cm
    "short_cabinet": CategoryInfo("short cabinet", 0.149, False),  # fixture, 20.4 x 21.2 cm
    "flat_stove": CategoryInfo("stove", 0.136, False),  # fixture, 19.0 x 19.0 cm
    "microwave": CategoryInfo("microwave", 0.201, False),  # fixture, 34.5 x 20.0 cm
    "wooden_shelf": CategoryInfo("wooden shelf", 0.164, False),  # fixture, 25.7 x 20.0 cm
    "wooden_two_layer_shelf": CategoryInfo(
        "two-layer shelf", 0.202, False
    ),  # fixture, 35.2 x 19.0 cm
    "wine_rack": CategoryInfo("wine rack", 0.186, False),  # fixture, 26.8 x 25.4 cm
    "desk_caddy": CategoryInfo("desk caddy", 0.221, False),  # fixture, 13.0 x 42.0 cm
    "rotated_fork": CategoryInfo("fork", 0.102, False),  # 2.4 x 20.0 cm
    "rotated_fork_pi": CategoryInfo("fork", 0.102, False),  # 20.0 x 2.4 cm
    "rotated_knife": CategoryInfo("knife", 0.112, False),  # 2.2 x 22.0 cm
    "rotated_knife_pi": CategoryInfo("knife", 0.112, False),  # 22.0 x 2.2 cm
    "rotated_scissors": CategoryInfo("scissors", 0.085, False),  # 5.1 x 16.0 cm
    "rotated_scissors_pi": CategoryInfo("scissors", 0.085, False),  # 16.0 x 5.1 cm
    "rotated_toy_motorbike": CategoryInfo("toy motorbike", 0.066, False),  # 4.5 x 12.0 cm
    "rotated_toy_motorbike_x": CategoryInfo("toy motorbike", 0.066, False),  # 12.0 x 4.5 cm
    "cutting_board_no_rotation": CategoryInfo("cutting board", 0.2, False),  # 33.8 x 21.0 cm
}
RSB_CATEGORIES.update(STANDIN_CATEGORIES)


def footprint_radius(category: str) -> float:
    """Footprint radius [m] of ``category`` (:data:`DEFAULT_FOOTPRINT_RADIUS` if not rsb)."""
    info = RSB_CATEGORIES.get(category)
    return info.footprint_radius if info else DEFAULT_FOOTPRINT_RADIUS
