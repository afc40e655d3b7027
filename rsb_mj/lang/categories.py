"""The object categories rsb_mj builds: noun, footprint and how a candidate is told apart.

:data:`RSB_CATEGORIES` maps each category the rsb scene compiler can build to its
:class:`CategoryInfo`: the noun instructions use ("the red *block*"), the footprint radius [m]
the layout sampler and the linter's capacity rule use, and whether the object can show an
option letter. The scene engineer may adjust ``RSB_CATEGORIES`` (radii, nouns) directly.

The categories a task file may declare (LIBERO's and VLA-Arena's too) are in
:mod:`rsb_mj.lang.known_categories`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_FOOTPRINT_RADIUS",
    "RSB_CATEGORIES",
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


def footprint_radius(category: str) -> float:
    """Footprint radius [m] of ``category`` (:data:`DEFAULT_FOOTPRINT_RADIUS` if not rsb)."""
    info = RSB_CATEGORIES.get(category)
    return info.footprint_radius if info else DEFAULT_FOOTPRINT_RADIUS
