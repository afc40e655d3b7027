"""The vocabulary of the task language: object categories, predicates and block values.

One concept per module (this module re-exports their public names):

* :mod:`.categories`: the categories the rsb scene compiler builds (:data:`RSB_CATEGORIES`),
  with the noun instructions use ("the red *block*"), the footprint radius [m] the layout
  sampler and the linter's capacity rule use, and whether the object can show an option
  letter; the scene engineer may adjust ``RSB_CATEGORIES`` (radii, nouns) directly;
* :mod:`.known_categories`: the object, fixture and workspace categories LIBERO and VLA-Arena
  register (:data:`KNOWN_CATEGORIES`, copied from ``bddl_corpus/known_categories.txt``), every
  category a task file may declare, and the articulated ones;
* :mod:`.predicates`: :data:`PREDICATES` maps the lower-case predicate name to a
  :class:`PredicateInfo`: canonical spelling, argument kinds, the registries that define it
  (LIBERO, VLA-Arena, rsb; see :data:`PREDICATE_DOMAINS`), and, separately, whether the rsb
  simulator can evaluate it (:data:`RSB_SCOREABLE`, shared with ``rsb_mj.scoring``). The
  linter reads a LIBERO / VLA-Arena file (``(:domain robosuite)``) against those two
  registries and an rsb file against rsb's;
* :mod:`.block_values`: the top-level blocks the language reads, and the values of the rsb
  blocks (question sources, choice counts, template sets, map rules, domains);
* :mod:`.table_top`: the fixture categories that are table tops and the rsb table's half size.
"""

from __future__ import annotations

from rsb_mj.lang.block_values import (
    CHOICE_COUNTS,
    DOMAINS,
    GENERIC_BLOCKS,
    KNOWN_BLOCKS,
    MAP_RULES,
    QUESTION_SOURCES,
    REGION_PROPERTIES,
    SOURCE_CHOICES,
    TEMPLATE_SETS,
    VARIABLE_KINDS,
)
from rsb_mj.lang.categories import (
    DEFAULT_FOOTPRINT_RADIUS,
    RSB_CATEGORIES,
    CategoryInfo,
    footprint_radius,
)
from rsb_mj.lang.known_categories import (
    ALL_CATEGORIES,
    ARTICULATED_CATEGORIES,
    KNOWN_CATEGORIES,
)
from rsb_mj.lang.predicates import (
    ARG_KINDS,
    PREDICATE_DOMAINS,
    PREDICATES,
    RSB_COST,
    RSB_PLACEMENT,
    RSB_SCOREABLE,
    PredicateInfo,
    canonical_predicate,
    predicates_of,
)
from rsb_mj.lang.table_top import RSB_FIXTURE_CATEGORIES, TABLE_CATEGORIES, TABLE_HALF_SIZE

__all__ = [
    "ALL_CATEGORIES",
    "ARG_KINDS",
    "ARTICULATED_CATEGORIES",
    "CHOICE_COUNTS",
    "DEFAULT_FOOTPRINT_RADIUS",
    "DOMAINS",
    "GENERIC_BLOCKS",
    "KNOWN_BLOCKS",
    "KNOWN_CATEGORIES",
    "MAP_RULES",
    "PREDICATES",
    "PREDICATE_DOMAINS",
    "QUESTION_SOURCES",
    "REGION_PROPERTIES",
    "RSB_CATEGORIES",
    "RSB_COST",
    "RSB_FIXTURE_CATEGORIES",
    "RSB_PLACEMENT",
    "RSB_SCOREABLE",
    "SOURCE_CHOICES",
    "TABLE_CATEGORIES",
    "TABLE_HALF_SIZE",
    "TEMPLATE_SETS",
    "VARIABLE_KINDS",
    "CategoryInfo",
    "PredicateInfo",
    "canonical_predicate",
    "footprint_radius",
    "predicates_of",
]
