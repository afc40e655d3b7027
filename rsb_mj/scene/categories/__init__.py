"""Registry of the object categories the scene compiler can build (one module each).

``get_category(name)`` returns the :class:`~rsb_mj.scene.categories.base.Category` for a
task file's category name; its noun, footprint radius and letter support come from
:data:`rsb_mj.lang.categories.RSB_CATEGORIES`.
"""

from __future__ import annotations

from rsb_mj.errors import SceneError
from rsb_mj.scene.categories.answer_plate import AnswerPlate
from rsb_mj.scene.categories.apple import Apple
from rsb_mj.scene.categories.banana import Banana
from rsb_mj.scene.categories.base import BuiltObject, Category
from rsb_mj.scene.categories.bottle import Bottle
from rsb_mj.scene.categories.bowl import Bowl
from rsb_mj.scene.categories.bread import Bread
from rsb_mj.scene.categories.can import Can
from rsb_mj.scene.categories.cereal import Cereal
from rsb_mj.scene.categories.hammer import Hammer
from rsb_mj.scene.categories.lemon import Lemon
from rsb_mj.scene.categories.letter_block import LetterBlock
from rsb_mj.scene.categories.milk import Milk
from rsb_mj.scene.categories.mug import Mug
from rsb_mj.scene.categories.orange import Orange
from rsb_mj.scene.categories.pear import Pear
from rsb_mj.scene.categories.pick_cube import PickCube
from rsb_mj.scene.categories.playing_card import PlayingCard
from rsb_mj.scene.categories.rubber_duck import RubberDuck
from rsb_mj.scene.categories.screwdriver import Screwdriver
from rsb_mj.scene.categories.shoe import Shoe
from rsb_mj.scene.categories.sponge import Sponge
from rsb_mj.scene.categories.spoon import Spoon
from rsb_mj.scene.categories.toy_car import ToyCar
from rsb_mj.scene.categories.wrench import Wrench

#: Category name -> the category object.
CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        LetterBlock(),
        Can(),
        Milk(),
        Bread(),
        Cereal(),
        Lemon(),
        Bottle(),
        ToyCar(),
        PlayingCard(),
        Apple(),
        Banana(),
        Bowl(),
        Hammer(),
        Mug(),
        Orange(),
        Pear(),
        RubberDuck(),
        Screwdriver(),
        Shoe(),
        Spoon(),
        Sponge(),
        Wrench(),
        PickCube(),
        AnswerPlate(),
    )
}


def get_category(name: str) -> Category:
    """The category ``name``.

    Raises:
        SceneError: for a category the compiler cannot build, listing the valid ones.
    """
    try:
        return CATEGORIES[name]
    except KeyError:
        raise SceneError(
            f"no scene category {name!r}; valid choices: {', '.join(sorted(CATEGORIES))}"
        ) from None


__all__ = ["CATEGORIES", "BuiltObject", "Category", "get_category"]
