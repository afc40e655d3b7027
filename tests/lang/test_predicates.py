"""The predicate registry against LIBERO's and VLA-Arena's own registries (issue 17).

The name lists below are ``VALIDATE_PREDICATE_FN_DICT`` of
``libero/libero/envs/predicates/__init__.py`` and ``vla_arena/vla_arena/envs/predicates/
__init__.py`` as issue 17 quotes them; the argument kinds follow each project's
``base_predicates.py`` and ``_eval_predicate``.
"""

import pytest

from rsb_mj.lang import lint_text
from rsb_mj.lang.predicates import (
    PREDICATES,
    RSB_PLACEMENT,
    RSB_SCOREABLE,
    canonical_predicate,
    predicates_of,
)
from rsb_mj.scoring.predicates import PREDICATES as SCORED

from .lang_samples import BASE

LIBERO_NAMES = [
    "true",
    "false",
    "in",
    "incontact",
    "on",
    "up",
    "stack",
    "temporal",
    "printjointstate",
    "open",
    "close",
    "turnon",
    "turnoff",
]
VLA_ARENA_NAMES = [
    "true",
    "false",
    "in",
    "notin",
    "incontact",
    "on",
    "noton",
    "up",
    "printjointstate",
    "open",
    "close",
    "turnon",
    "turnoff",
    "collide",
    "fall",
    "checkforce",
    "checkdistance",
    "incontactpart",
    "checkgrippercontact",
    "checkgrippercontactpart",
    "checkgripperdistance",
    "checkgripperdistancepart",
]
#: VLA-Arena's TEMPORAL_PREDICATE_FN_LIST: evaluated at every step inside :cost.
VLA_ARENA_PER_STEP = [
    "incontact",
    "on",
    "up",
    "stack",
    "checkforce",
    "incontactpart",
    "checkdistance",
    "checkgrippercontact",
    "checkgrippercontactpart",
    "checkgripperdistance",
    "checkgripperdistancepart",
]

#: One valid use of every LIBERO / VLA-Arena predicate in the two files below.
EXAMPLES = {
    "true": "(True)",
    "false": "(False)",
    "in": "(In bowl_1 wooden_cabinet_1_top_region)",
    "notin": "(NotIn bowl_1 wooden_cabinet_1_top_region)",
    "incontact": "(InContact bowl_1 plate_1)",
    "on": "(On bowl_1 plate_1)",
    "noton": "(NotOn bowl_1 main_table_plate_region)",
    "up": "(Up bowl_1)",
    "stack": "(Stack bowl_1 plate_1)",
    "temporal": "(Temporal bowl_1)",
    "printjointstate": "(PrintJointState wooden_cabinet_1)",
    "open": "(Open wooden_cabinet_1_top_region)",
    "close": "(Close wooden_cabinet_1_top_region)",
    "turnon": "(Turnon flat_stove_1)",
    "turnoff": "(TurnOff flat_stove_1)",
    "collide": "(Collide bowl_1)",
    "fall": "(Fall bowl_1)",
    "checkforce": "(CheckForce bowl_1 plate_1 20)",
    "checkdistance": "(CheckDistance bowl_1 plate_1 0.05)",
    "incontactpart": "(InContactPart bowl_1 plate_1 all (1 2))",
    "checkgrippercontact": "(CheckGripperContact bowl_1)",
    "checkgrippercontactpart": "(CheckGripperContactPart bowl_1 (13 23))",
    "checkgripperdistance": "(CheckGripperDistance bowl_1 0.05)",
    "checkgripperdistancepart": "(CheckGripperDistancePart bowl_1 (13 23 15) 0.02)",
}

_SCENE = """\
  (:regions
    (bowl_region (:target main_table) (:ranges ((-0.1 -0.01 -0.08 0.01))))
    (plate_region (:target main_table) (:ranges ((0.04 -0.03 0.06 -0.01))))
    (cabinet_region (:target main_table) (:ranges ((-0.2 0.2 -0.18 0.22))))
    (stove_region (:target main_table) (:ranges ((0.2 0.2 0.22 0.22))))
    (top_region (:target wooden_cabinet_1)))
  (:fixtures main_table - table wooden_cabinet_1 - wooden_cabinet flat_stove_1 - flat_stove)
  (:objects bowl_1 - akita_black_bowl plate_1 - plate)
  (:obj_of_interest bowl_1)
  (:init
    (On bowl_1 main_table_bowl_region)
    (On plate_1 main_table_plate_region)
    (On wooden_cabinet_1 main_table_cabinet_region)
    (On flat_stove_1 main_table_stove_region))
"""
#: LIBERO style: the predicate in :goal.
LIBERO_STYLE = (
    "(define (problem LIBERO_Tabletop_Manipulation)\n  (:domain robosuite)\n"
    "  (:language Put the bowl on the plate)\n"
    + _SCENE
    + "  (:goal (And (On bowl_1 main_table_plate_region) ATOM)))\n"
)
#: VLA-Arena style: the predicate in an And-ed :cost beside a per-step term.
VLA_ARENA_STYLE = (
    "(define (problem Tabletop_Manipulation)\n  (:domain robosuite)\n"
    "  (:language Put the bowl on the plate)\n"
    + _SCENE
    + "  (:goal (And (On bowl_1 plate_1)))\n"
    + "  (:cost (And (CheckGripperContact plate_1) ATOM)))\n"
)
PATH = "put_the_bowl_on_the_plate.bddl"


def test_libero_registry_names_are_all_known_as_libero():
    for name in LIBERO_NAMES:
        assert "libero" in PREDICATES[name].domains, name
    assert set(predicates_of(["libero"])) == set(LIBERO_NAMES)


def test_vla_arena_registry_names_are_all_known_as_vla_arena():
    for name in VLA_ARENA_NAMES:
        assert "vla_arena" in PREDICATES[name].domains, name
    assert set(predicates_of(["vla_arena"])) == set(VLA_ARENA_NAMES)


def test_rsb_registry_and_per_step_costs():
    assert set(predicates_of(["rsb"])) == {"on", "in", "grasped", "released"}
    per_step = {k for k, p in PREDICATES.items() if p.per_step_cost}
    assert per_step == set(VLA_ARENA_PER_STEP)


def test_arities_and_kinds_follow_the_projects_code():
    kinds = {k: p.args for k, p in PREDICATES.items()}
    assert kinds == {
        "true": None,
        "false": None,
        "temporal": None,
        "in": ("object", "place"),
        "notin": ("object", "place"),
        "on": ("object", "place"),
        "noton": ("object", "place"),
        "incontact": ("object", "object"),
        "stack": ("object", "object"),
        "up": ("object",),
        "printjointstate": ("object",),
        "open": ("place",),
        "close": ("place",),
        "turnon": ("object",),
        "turnoff": ("object",),
        "collide": ("object",),
        "fall": ("object",),
        "checkforce": ("object", "object", "number"),
        "checkdistance": ("object", "object", "number"),
        "incontactpart": ("object", "object", "parts", "parts"),
        "checkgrippercontact": ("object",),
        "checkgrippercontactpart": ("object", "numbers"),
        "checkgripperdistance": ("object", "number"),
        "checkgripperdistancepart": ("object", "numbers", "number"),
        "grasped": ("object",),
        "released": ("object",),
    }
    assert canonical_predicate("NOTON") == "NotOn"
    assert canonical_predicate("printjointstate") == "PrintJointState"


def test_rsb_scoreable_agrees_with_the_scorer():
    """The language's "rsb can score it" flag and rsb_mj.scoring's registry are one list."""
    rsb = {name: cls for name, cls in SCORED.items() if "rsb" in cls.variants}
    assert set(rsb) == RSB_SCOREABLE == {"Grasped", "In", "On", "Released"}
    for name, cls in SCORED.items():
        assert PREDICATES[name.lower()].arity == len(cls.roles()), name
    assert {"On"} == RSB_PLACEMENT


def test_every_predicate_has_an_example():
    assert set(EXAMPLES) == set(LIBERO_NAMES) | set(VLA_ARENA_NAMES)


@pytest.mark.parametrize("name", LIBERO_NAMES)
def test_each_libero_predicate_lints_clean_in_a_libero_file(name):
    problem, found = lint_text(LIBERO_STYLE.replace("ATOM", EXAMPLES[name]), PATH)
    assert problem is not None
    assert found == []


@pytest.mark.parametrize("name", VLA_ARENA_NAMES)
def test_each_vla_arena_predicate_lints_clean_in_a_vla_arena_file(name):
    problem, found = lint_text(VLA_ARENA_STYLE.replace("ATOM", EXAMPLES[name]), PATH)
    assert problem is not None
    assert found == []


def _position(text: str, snippet: str) -> tuple[int, int]:
    index = text.index(snippet)
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


@pytest.mark.parametrize("name", sorted(n for n in EXAMPLES if PREDICATES[n].args is not None))
@pytest.mark.parametrize("style", ["libero", "vla_arena"])
def test_wrong_arity_is_a_positioned_error(name, style):
    atom = EXAMPLES[name][:-1] + " plate_1)"  # one argument too many
    template = LIBERO_STYLE if style == "libero" else VLA_ARENA_STYLE
    text = template.replace("ATOM", atom)
    _, found = lint_text(text, PATH)
    info = PREDICATES[name]
    n = len(info.args)
    assert [(d.code, d.span.line, d.span.column, d.message) for d in found] == [
        (
            "RSB205",
            *_position(text, atom),
            f"{info.name!r} takes {n} argument{'s' if n != 1 else ''} "
            f"({', '.join(info.args)}), got {n + 1}",
        )
    ]


def test_parts_take_all_or_a_list_and_nothing_else():
    atom = "(InContactPart bowl_1 plate_1 every 0.5)"
    text = VLA_ARENA_STYLE.replace("ATOM", atom)
    _, found = lint_text(text, PATH)
    assert [(d.code, d.message) for d in found] == [
        ("RSB207", "'every' in :cost is not a declared object, fixture or region"),
        (
            "RSB206",
            "argument 4 of 'InContactPart' must be all or a list of part ids, got number 0.5",
        ),
    ]


@pytest.mark.parametrize(
    "name", sorted(n for n, p in PREDICATES.items() if not p.rsb_scoreable and p.args)
)
def test_an_rsb_task_flags_what_the_rsb_simulator_cannot_score(name):
    info = PREDICATES[name]
    args = {"object": "?answer", "place": "table_answer_zone", "number": "0.05"}
    args |= {"numbers": "(1 2)", "parts": "all", "region": "table_answer_zone"}
    atom = "(" + " ".join([info.name, *(args[k] for k in info.args)]) + ")"
    text = BASE.replace("(Released ?answer)", atom)
    _, found = lint_text(text, "rsb_test_4.bddl")
    assert [d.code for d in found] == ["RSB213"]
    assert (found[0].span.line, found[0].span.column) == _position(text, atom)


def test_every_corpus_predicate_is_known():
    for name in (
        "On",
        "In",
        "Open",
        "Turnon",
        "InContact",
        "Fall",
        "CheckGripperContact",
        "CheckDistance",
        "CheckGripperDistance",
        "CheckGripperDistancePart",
    ):
        assert canonical_predicate(name.lower()) == name
    assert PREDICATES["on"].arity == 2
    assert PREDICATES["checkgripperdistancepart"].args == ("object", "numbers", "number")
    assert canonical_predicate("Frobnicate") == "Frobnicate"
