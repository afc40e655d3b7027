"""The categories a task file may declare: LIBERO's and VLA-Arena's registered categories."""

import json
from pathlib import Path

from rsb_mj.lang.known_categories import KNOWN_CATEGORIES

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
