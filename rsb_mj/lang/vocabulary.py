"""The vocabulary of the task language: object categories and predicates.

Categories:
    * :data:`KNOWN_CATEGORIES`: the object, fixture and workspace categories LIBERO and
      VLA-Arena register (copied from ``bddl_corpus/known_categories.txt``). A task file may
      declare objects of any of them.
    * :data:`RSB_CATEGORIES`: the categories the rsb scene compiler can build, with the noun
      instructions use ("the red *block*"), the footprint radius [m] the layout sampler and the
      linter's capacity rule use, and whether the object can show an option letter.

Predicates: :data:`PREDICATES` maps the lower-case predicate name to a :class:`PredicateInfo`:
canonical spelling, argument kinds, the registries that define it (LIBERO, VLA-Arena, rsb; see
:data:`PREDICATE_DOMAINS`), and, separately, whether the rsb simulator can evaluate it
(:data:`RSB_SCOREABLE`, shared with ``rsb_mj.scoring``). The linter reads a LIBERO / VLA-Arena
file (``(:domain robosuite)``) against those two registries and an rsb file against rsb's.

The scene engineer may adjust ``RSB_CATEGORIES`` (radii, nouns) directly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rsb_mj.choices import CHOICE_COUNTS as _CHOICE_COUNTS
from rsb_mj.lang.a2a import A2A_CHOICES, A2A_SOURCES
from rsb_mj.workspace import TABLE_HALF_XY

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
#:   ``numbers``  a parenthesized list of numbers (VLA-Arena part / geom ids);
#:   ``parts``    VLA-Arena part ids of an object: ``all`` or a list of numbers.
ARG_KINDS = ("object", "place", "region", "number", "numbers", "parts")

#: The predicate registries a task file can be read against. ``libero`` and ``vla_arena`` are
#: ``VALIDATE_PREDICATE_FN_DICT`` of ``libero/libero/envs/predicates/__init__.py`` and
#: ``vla_arena/vla_arena/envs/predicates/__init__.py`` (names matched case-insensitively);
#: ``rsb`` is what rsb task files (``(:domain rsb)``) use.
PREDICATE_DOMAINS = ("libero", "vla_arena", "rsb")

_LIB, _VLA, _RSB = "libero", "vla_arena", "rsb"


@dataclass(frozen=True)
class PredicateInfo:
    """A predicate: canonical spelling, argument kinds, registries, and what rsb can do with it.

    Attributes:
        name: canonical spelling, e.g. ``"On"``.
        args: the kind of each argument (see :data:`ARG_KINDS`); the arity is ``len(args)``.
            None when the defining code takes any number of arguments (``True``, ``False``) or
            has no definition to read (``Temporal``): the arity is not checked.
        domains: the registries (:data:`PREDICATE_DOMAINS`) that define it.
        doc: one line of meaning, with units.
        rsb_scoreable: True when the rsb simulator can evaluate it in ``:grasp`` and ``:goal``
            (``rsb_mj.scoring.predicates.PREDICATES`` has it; a test checks the two agree).
        rsb_placement: True when the rsb layout sampler reads it in ``:init`` (``On``).
        per_step_cost: True when VLA-Arena evaluates it at every step inside ``:cost``
            (``TEMPORAL_PREDICATE_FN_LIST``); other cost terms count only at episode end.
        rsb_cost: True when the rsb simulator evaluates it in ``:cost``
            (``rsb_mj.scoring.cost_predicates.COST_PREDICATES`` has it; a test checks).
    """

    name: str
    args: tuple[str, ...] | None
    domains: frozenset[str]
    doc: str
    rsb_scoreable: bool = False
    rsb_placement: bool = False
    per_step_cost: bool = False
    rsb_cost: bool = False

    @property
    def arity(self) -> int | None:
        """Number of arguments (None when not checked)."""
        return None if self.args is None else len(self.args)

    @property
    def origin(self) -> str:
        """The first registry defining it (``"libero"``, ``"vla_arena"`` or ``"rsb"``)."""
        return next(d for d in PREDICATE_DOMAINS if d in self.domains)


def _p(
    name: str,
    args: tuple[str, ...] | None,
    domains: tuple[str, ...],
    doc: str,
    **flags: bool,
) -> PredicateInfo:
    return PredicateInfo(name, args, frozenset(domains), doc, **flags)


# Argument kinds follow each project's ``base_predicates.py`` and how its ``_eval_predicate``
# passes a task file's arguments (a trailing number is a threshold it compares against).
# ``InContact``, ``Stack`` and ``Temporal`` are commented out of LIBERO's registry at commit
# 8f1084e and ``Stack``/``Temporal`` out of VLA-Arena's; they are accepted as issue 17 asks.
_PREDICATES = (
    _p("True", None, (_LIB, _VLA), "always true (any arguments)"),
    _p("False", None, (_LIB, _VLA), "always false (any arguments)"),
    _p(
        "On",
        ("object", "place"),
        (_LIB, _VLA, _RSB),
        "object rests on a region or object; rsb places candidates with it in :init and "
        "scores it on a candidate (On cube ?answer)",
        rsb_scoreable=True,
        rsb_placement=True,
        per_step_cost=True,
    ),
    _p(
        "In",
        ("object", "place"),
        (_LIB, _VLA, _RSB),
        "object is inside a region or object (rsb: inside the answer zone)",
        rsb_scoreable=True,
    ),
    _p("NotIn", ("object", "place"), (_VLA,), "object neither touches nor is inside a place"),
    _p(
        "NotOn",
        ("object", "place"),
        (_VLA,),
        "object does not rest on a region or object",
        rsb_cost=True,
    ),
    _p(
        "InContact",
        ("object", "object"),
        (_LIB, _VLA),
        "two objects touch",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "Up",
        ("object",),
        (_LIB, _VLA),
        "object's center is at least 1 m above the world origin",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "Stack",
        ("object", "object"),
        (_LIB,),
        "object touches, is contained by and is above the second",
        per_step_cost=True,
    ),
    _p("Temporal", None, (_LIB,), "registered name without a definition (not checked)"),
    _p("PrintJointState", ("object",), (_LIB, _VLA), "debug: prints joint values, true"),
    _p("Open", ("place",), (_LIB, _VLA), "articulated region or object is open"),
    _p("Close", ("place",), (_LIB, _VLA), "articulated region or object is closed"),
    _p("Turnon", ("object",), (_LIB, _VLA), "appliance is switched on"),
    _p("Turnoff", ("object",), (_LIB, _VLA), "appliance is switched off"),
    _p("Collide", ("object",), (_VLA,), "object was hit", rsb_cost=True),
    _p(
        "Fall",
        ("object",),
        (_VLA,),
        "object moved > 0.1 m, dropped > 0.05 m or tipped over",
        rsb_cost=True,
    ),
    _p(
        "CheckForce",
        ("object", "object", "number"),
        (_VLA,),
        "contact normal force between the objects above the threshold [N]",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckDistance",
        ("object", "object", "number"),
        (_VLA,),
        "objects closer than the threshold [m]",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "InContactPart",
        ("object", "object", "parts", "parts"),
        (_VLA,),
        "the listed parts (geom ids, or all) of two objects touch",
        per_step_cost=True,
    ),
    _p(
        "CheckGripperContact",
        ("object",),
        (_VLA,),
        "a gripper touches the object",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckGripperContactPart",
        ("object", "numbers"),
        (_VLA,),
        "a gripper touches the listed parts (geom ids) of the object",
        per_step_cost=True,
    ),
    _p(
        "CheckGripperDistance",
        ("object", "number"),
        (_VLA,),
        "gripper finger pads closer than the threshold [m] to the object",
        per_step_cost=True,
        rsb_cost=True,
    ),
    _p(
        "CheckGripperDistancePart",
        ("object", "numbers", "number"),
        (_VLA,),
        "gripper finger pads closer than the threshold [m] to the listed parts",
        per_step_cost=True,
    ),
    _p(
        "Grasped",
        ("object",),
        (_RSB,),
        "a gripper holds the candidate (RSB App. C)",
        rsb_scoreable=True,
    ),
    _p("Released", ("object",), (_RSB,), "no gripper touches the object", rsb_scoreable=True),
)

#: Lower-case predicate name -> :class:`PredicateInfo`.
PREDICATES: dict[str, PredicateInfo] = {p.name.lower(): p for p in _PREDICATES}

#: Canonical names the rsb simulator can evaluate in ``:grasp`` and ``:goal`` (must equal the
#: keys of ``rsb_mj.scoring.predicates.PREDICATES``; tests/lang/test_vocabulary.py checks).
RSB_SCOREABLE: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_scoreable)
#: Canonical names the rsb simulator evaluates in ``:cost`` (must equal the keys of
#: ``rsb_mj.scoring.cost_predicates.COST_PREDICATES``; tests/scoring/test_cost_predicates.py
#: checks).
RSB_COST: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_cost)
#: Canonical names the rsb layout sampler reads in ``:init``.
RSB_PLACEMENT: frozenset[str] = frozenset(p.name for p in _PREDICATES if p.rsb_placement)


def predicates_of(domains: Iterable[str]) -> dict[str, PredicateInfo]:
    """Lower-case name -> info of the predicates that any of ``domains`` defines."""
    wanted = set(domains)
    return {k: p for k, p in PREDICATES.items() if p.domains & wanted}


def canonical_predicate(name: str) -> str:
    """The canonical spelling of predicate ``name`` (``name`` itself when unknown)."""
    info = PREDICATES.get(name.lower())
    return info.name if info else name


# ---------------------------------------------------------------------------------------------
# rsb block values
# ---------------------------------------------------------------------------------------------

#: ``(:question (:source S))`` values.
QUESTION_SOURCES = ("arithmetic", "gsm8k", "mmlu_pro", "mmlu", *A2A_SOURCES.values())
#: ``(:question (:choices N))`` values: 2..10 (:mod:`rsb_mj.choices`).
CHOICE_COUNTS = _CHOICE_COUNTS
#: Choice counts each built-in source serves (the ``choices`` of ``rsb_mj.episodes.sources``;
#: tests/test_registries.py checks they agree): MMLU questions have 4 options, so 2..4.
SOURCE_CHOICES: dict[str, tuple[int, ...]] = {
    "arithmetic": _CHOICE_COUNTS,
    "gsm8k": _CHOICE_COUNTS,
    "mmlu_pro": _CHOICE_COUNTS,
    "mmlu": (2, 3, 4),
    **{source: A2A_CHOICES for source in A2A_SOURCES.values()},
}
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
#: Half extents (x, y) [m] of the rsb table top, table frame; regions must stay inside (the
#: scene's table, :data:`rsb_mj.workspace.TABLE_HALF_XY`).
TABLE_HALF_SIZE = TABLE_HALF_XY
