"""Registry of the object categories the scene compiler can build.

``get_category(name)`` returns the :class:`~rsb_mj.scene.categories.base.Category` for a
task file's category name; its noun, footprint radius and letter support come from
:data:`rsb_mj.lang.categories.RSB_CATEGORIES`. Of the question tasks' 24 categories, 12 are
rows of tables (:data:`~rsb_mj.scene.categories.blocks.BLOCKS`,
:data:`~rsb_mj.scene.categories.revolved.FRUIT`,
:data:`~rsb_mj.scene.categories.mesh_object.MESH_OBJECTS`) and 12 have a builder module of
their own (banana, bowl, hammer, mug, rubber duck, screwdriver, shoe, sponge, spoon, toy car,
wrench, answer plate); the stand-ins for LIBERO's and VLA-Arena's objects and fixtures are
rows of one table (:data:`rsb_mj.scene.categories.standins.STANDINS`) over the shape
builders of :mod:`rsb_mj.scene.categories.parts`.

Interface for goal tasks (every category):

* ``build(spec, body, obj) -> BuiltObject``: adds the geoms (``{obj}/...``) and the region
  sites ``{obj}_{region}`` (listed in ``BuiltObject.sites``) to ``body``.
* ``rest_height`` [m]: body origin above the table when it rests upright.
* ``fixture``: True for a static prop (cabinets, stove, microwave, shelves, rack, caddy):
  the compiler adds no free joint.
* ``regions``: :class:`~rsb_mj.scene.categories.base.RegionSpec` (name, centre [m] and
  half-size [m] in the body frame, quat) of each site it builds.
* ``half_extents`` (x, y, z) [m]: the bounding box in the body frame.
* ``grasp``: the expert's hint, ``"top"``, ``"rim"``, ``"handle"``, ``"edge"`` or ``"none"``.
"""

from __future__ import annotations

from rsb_mj.errors import SceneError
from rsb_mj.scene.categories.answer_plate import AnswerPlate
from rsb_mj.scene.categories.banana import Banana
from rsb_mj.scene.categories.base import BuiltObject, Category, RegionSpec
from rsb_mj.scene.categories.blocks import BLOCKS
from rsb_mj.scene.categories.bowl import Bowl
from rsb_mj.scene.categories.hammer import Hammer
from rsb_mj.scene.categories.mesh_object import MESH_OBJECTS
from rsb_mj.scene.categories.mug import Mug
from rsb_mj.scene.categories.parts import StandinCategory
from rsb_mj.scene.categories.revolved import FRUIT
from rsb_mj.scene.categories.rubber_duck import RubberDuck
from rsb_mj.scene.categories.screwdriver import Screwdriver
from rsb_mj.scene.categories.shoe import Shoe
from rsb_mj.scene.categories.sponge import Sponge
from rsb_mj.scene.categories.spoon import Spoon
from rsb_mj.scene.categories.standins import GOAL_STANDINS, STANDINS
from rsb_mj.scene.categories.toy_car import ToyCar
from rsb_mj.scene.categories.wrench import Wrench

_LETTER_BLOCK, _PLAYING_CARD, _PICK_CUBE = BLOCKS
_APPLE, _ORANGE, _PEAR = FRUIT

#: Category name -> the category object.
CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        _LETTER_BLOCK,
        *MESH_OBJECTS,
        ToyCar(),
        _PLAYING_CARD,
        _APPLE,
        Banana(),
        Bowl(),
        Hammer(),
        Mug(),
        _ORANGE,
        _PEAR,
        RubberDuck(),
        Screwdriver(),
        Shoe(),
        Spoon(),
        Sponge(),
        Wrench(),
        _PICK_CUBE,
        AnswerPlate(),
        *(StandinCategory(s) for s in STANDINS.values()),
    )
}


#: What goal scenes build: every category, with the goal stand-ins
#: (:data:`~rsb_mj.scene.categories.standins.GOAL_STANDINS`: LIBERO's ``milk``, a carton lying
#: on its side) in place of the question tasks' models of the same name.
GOAL_CATEGORIES: dict[str, Category] = {
    **CATEGORIES,
    **{name: StandinCategory(s) for name, s in GOAL_STANDINS.items()},
}


def get_category(name: str, *, goal: bool = False) -> Category:
    """The category ``name`` (``goal``: as goal scenes build it, :data:`GOAL_CATEGORIES`).

    Raises:
        SceneError: for a category the compiler cannot build, listing the valid ones.
    """
    try:
        return (GOAL_CATEGORIES if goal else CATEGORIES)[name]
    except KeyError:
        raise SceneError(
            f"no scene category {name!r}; valid choices: {', '.join(sorted(CATEGORIES))}"
        ) from None


__all__ = ["CATEGORIES", "GOAL_CATEGORIES", "BuiltObject", "Category", "RegionSpec", "get_category"]
