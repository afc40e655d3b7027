"""The blocks of a task file and the values the rsb blocks take.

Which top-level blocks the language reads into typed fields (:data:`KNOWN_BLOCKS`) or keeps
verbatim (:data:`GENERIC_BLOCKS`), the region properties it reads, the domains a file may name,
and the values of ``:question``, ``:instruction`` and ``:options``.
"""

from __future__ import annotations

from rsb_mj.choices import CHOICE_COUNTS as _CHOICE_COUNTS
from rsb_mj.lang.a2a import A2A_CHOICES, A2A_SOURCES

__all__ = [
    "CHOICE_COUNTS",
    "DOMAINS",
    "GENERIC_BLOCKS",
    "KNOWN_BLOCKS",
    "MAP_RULES",
    "QUESTION_SOURCES",
    "REGION_PROPERTIES",
    "SOURCE_CHOICES",
    "TEMPLATE_SETS",
    "VARIABLE_KINDS",
]

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
