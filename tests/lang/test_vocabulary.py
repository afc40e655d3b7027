"""The category and predicate vocabulary."""

import json
from pathlib import Path

from rsb_mj.lang.vocabulary import (
    KNOWN_CATEGORIES,
    PREDICATES,
    RSB_CATEGORIES,
    canonical_predicate,
    footprint_radius,
)

CORPUS = Path(__file__).resolve().parents[1] / "data" / "bddl_corpus"


def test_known_categories_are_the_corpus_list():
    lines = (CORPUS / "known_categories.txt").read_text(encoding="utf-8").splitlines()
    listed = {x.strip() for x in lines if x.strip() and not x.startswith("#")}
    assert listed == KNOWN_CATEGORIES
    assert len(KNOWN_CATEGORIES) == 141


def test_every_registered_libero_and_vla_arena_object_is_a_known_category():
    registries = json.loads(
        (CORPUS.parent / "bddl_suites" / "object_registries.json").read_text(encoding="utf-8")
    )
    assert len(registries["libero"]) == 50 and len(registries["vla_arena"]) == 133
    assert set(registries["libero"]) | set(registries["vla_arena"]) <= KNOWN_CATEGORIES


def test_rsb_categories_of_the_contract():
    assert {
        "letter_block",
        "can",
        "milk",
        "bread",
        "cereal",
        "lemon",
        "bottle",
        "toy_car",
        "playing_card",
    } <= set(RSB_CATEGORIES)
    block = RSB_CATEGORIES["letter_block"]
    assert block.noun == "block" and block.letters is True
    assert 0.02 <= block.footprint_radius <= 0.04
    assert footprint_radius("letter_block") == block.footprint_radius
    assert footprint_radius("akita_black_bowl") == 0.05  # the default


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
