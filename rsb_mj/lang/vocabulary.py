"""The vocabulary of the task language: object categories and predicates.

Categories:
    * :data:`KNOWN_CATEGORIES`: the object, fixture and workspace categories LIBERO and
      VLA-Arena register (copied from ``bddl_corpus/known_categories.txt``). A task file may
      declare objects of any of them.
    * :data:`RSB_CATEGORIES`: the categories the rsb scene compiler can build, with the noun
      instructions use ("the red *block*"), the footprint radius [m] the layout sampler and the
      linter's capacity rule use, and whether the object can show an option letter.

Predicates: :data:`PREDICATES` maps the lower-case predicate name to its canonical spelling
and argument kinds (see :class:`PredicateInfo`).

The scene engineer may adjust ``RSB_CATEGORIES`` (radii, nouns) directly.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Footprint radius [m] assumed for a category with no entry in :data:`RSB_CATEGORIES`.
DEFAULT_FOOTPRINT_RADIUS = 0.05


@dataclass(frozen=True)
class CategoryInfo:
    """What the rsb stages need to know about an object category.

    Attributes:
        noun: the word instructions use for it ("block", "can").
        footprint_radius: radius [m] of the disc that bounds the object on the table (top view).
        letters: True if the object can show an option letter on its top face.
    """

    noun: str
    footprint_radius: float
    letters: bool


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
}

#: Categories registered by LIBERO and VLA-Arena (task files with ``(:domain robosuite)``).
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


def footprint_radius(category: str) -> float:
    """Footprint radius [m] of ``category`` (:data:`DEFAULT_FOOTPRINT_RADIUS` if not rsb)."""
    info = RSB_CATEGORIES.get(category)
    return info.footprint_radius if info else DEFAULT_FOOTPRINT_RADIUS


# ---------------------------------------------------------------------------------------------
# Predicates
# ---------------------------------------------------------------------------------------------

#: Argument kinds:
#:   ``object``   a declared object or fixture name (or a variable);
#:   ``place``    an object, fixture or region full name (or a variable);
#:   ``region``   a region full name;
#:   ``number``   a number;
#:   ``numbers``  a parenthesized list of numbers.
ARG_KINDS = ("object", "place", "region", "number", "numbers")


@dataclass(frozen=True)
class PredicateInfo:
    """A predicate's canonical spelling and argument kinds.

    Attributes:
        name: canonical spelling, e.g. ``"On"``.
        args: the kind of each argument (see :data:`ARG_KINDS`); the arity is ``len(args)``.
            None for VLA-Arena predicates whose signature is not fixed (not checked).
        origin: where it comes from (``"libero"``, ``"vla_arena"``, ``"rsb"``).
        doc: one line of meaning.
    """

    name: str
    args: tuple[str, ...] | None
    origin: str
    doc: str

    @property
    def arity(self) -> int | None:
        """Number of arguments (None when not checked)."""
        return None if self.args is None else len(self.args)


_PREDICATES = (
    PredicateInfo("On", ("object", "place"), "libero", "object rests on a region or object"),
    PredicateInfo("In", ("object", "place"), "libero", "object is inside a region or object"),
    PredicateInfo("Up", ("object",), "libero", "object is lifted"),
    PredicateInfo("Open", ("place",), "libero", "articulated region or object is open"),
    PredicateInfo("Close", ("place",), "libero", "articulated region or object is closed"),
    PredicateInfo("Turnon", ("object",), "libero", "appliance is switched on"),
    PredicateInfo("Turnoff", ("object",), "libero", "appliance is switched off"),
    PredicateInfo("InContact", ("object", "object"), "vla_arena", "two objects touch"),
    PredicateInfo("Fall", ("object",), "vla_arena", "object fell over"),
    PredicateInfo("CheckGripperContact", ("object",), "vla_arena", "a gripper touches object"),
    PredicateInfo(
        "CheckDistance", ("object", "object", "number"), "vla_arena", "objects closer than [m]"
    ),
    PredicateInfo(
        "CheckGripperDistance", ("object", "number"), "vla_arena", "gripper closer than [m]"
    ),
    PredicateInfo(
        "CheckGripperDistancePart",
        ("object", "numbers", "number"),
        "vla_arena",
        "gripper closer than [m] to the listed parts",
    ),
    PredicateInfo("CheckForce", ("object", "number"), "vla_arena", "contact force above [N]"),
    PredicateInfo("InContactPart", None, "vla_arena", "parts of two objects touch"),
    PredicateInfo("CheckGripperContactPart", None, "vla_arena", "a gripper touches parts"),
    PredicateInfo("Collide", None, "vla_arena", "a collision happened"),
    PredicateInfo("Grasped", ("object",), "rsb", "a gripper holds the candidate (RSB App. C)"),
    PredicateInfo("Released", ("object",), "rsb", "no gripper touches the object"),
)

#: Lower-case predicate name -> :class:`PredicateInfo`.
PREDICATES: dict[str, PredicateInfo] = {p.name.lower(): p for p in _PREDICATES}


def canonical_predicate(name: str) -> str:
    """The canonical spelling of predicate ``name`` (``name`` itself when unknown)."""
    info = PREDICATES.get(name.lower())
    return info.name if info else name


# ---------------------------------------------------------------------------------------------
# rsb block values
# ---------------------------------------------------------------------------------------------

#: ``(:question (:source S))`` values.
QUESTION_SOURCES = ("arithmetic", "gsm8k", "mmlu_pro", "mmlu")
#: ``(:question (:choices N))`` values.
CHOICE_COUNTS = (4, 10)
#: ``(:instruction (:templates T))`` values.
TEMPLATE_SETS = ("seen", "unseen")
#: ``(:options (:map RULE))`` values (``fixed`` is written as explicit letter/name pairs).
MAP_RULES = ("shuffle", "fixed")
#: Domains a task file may name.
DOMAINS = ("robosuite", "rsb")
#: Kinds a typed variable may range over (``?c - candidate``).
VARIABLE_KINDS = ("candidate",)

#: Top-level blocks the language reads into typed fields.
KNOWN_BLOCKS = frozenset(
    {
        "domain",
        "language",
        "regions",
        "fixtures",
        "objects",
        "obj_of_interest",
        "init",
        "goal",
        "cost",
        "question",
        "instruction",
        "candidates",
        "options",
        "grasp",
        "layout",
    }
)
#: Top-level blocks kept verbatim (VLA-Arena perturbation and rendering settings).
GENERIC_BLOCKS = frozenset(
    {
        "moving_objects",
        "image_settings",
        "camera",
        "noise",
        "random_color",
        "scene_properties",
        "requirements",
    }
)
#: Region properties the language reads.
REGION_PROPERTIES = ("target", "ranges", "yaw_rotation", "rgba")

# ---------------------------------------------------------------------------------------------
# The rsb table
# ---------------------------------------------------------------------------------------------

#: Fixture categories an rsb task may declare.
RSB_FIXTURE_CATEGORIES = frozenset({"table"})
#: Fixture categories that are table tops (regions on them need ``:ranges``).
TABLE_CATEGORIES = frozenset(
    {
        "table",
        "main_table",
        "kitchen_table",
        "living_room_table",
        "study_table",
        "coffee_table",
        "counter",
        "floor",
    }
)
#: Half extents (x, y) [m] of the rsb table top, table frame; regions must stay inside.
TABLE_HALF_SIZE = (0.5, 0.35)
