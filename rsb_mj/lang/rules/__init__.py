"""Lint rules, registered in :data:`rsb_mj.lang.rules.base.RULES` on import.

Families: :mod:`.syntax` (RSB1xx, reported by the parser); RSB2xx: :mod:`.names` (RSB201-202,
RSB211: the top-level blocks and the domain), :mod:`.names_declarations` (RSB203, RSB208-210:
objects, fixtures and regions, declared once with a known category and target),
:mod:`.names_predicates` (RSB204, RSB213: predicates the domain defines and the rsb simulator
evaluates), :mod:`.names_arguments` (RSB205-206: each atom's arguments against its predicate's
signature), :mod:`.names_references` (RSB207, RSB212: names and variables that refer to
something);
:mod:`.geometry` (RSB3xx); RSB4xx: :mod:`.semantics` (RSB401-406: the blocks, complete and
naming known values), :mod:`.semantics_candidates` (RSB407-409, RSB419: one movable object per
option), :mod:`.semantics_mapping` (RSB410-412, RSB423: the ``(:map ...)`` of option letters
onto candidates), :mod:`.semantics_goal` (RSB413, RSB420: goal and grasp depend on the answer),
:mod:`.semantics_connectives` (RSB414-415, RSB421-422: ``And``/``Or`` in the expression
blocks), :mod:`.semantics_unused` (RSB416-417: declarations nothing refers to),
:mod:`.semantics_language` (RSB418: LIBERO's ``:language`` against the file name),
:mod:`.motion` (RSB424-429),
:mod:`.sources` (RSB450-457: question sources, template selection, the answer zone),
:mod:`.display` (RSB463: candidates that show their answers and the sources that give them),
:mod:`.narrowed` (RSB458: a narrowed source with an empty split),
:mod:`.references` (RSB470-472: the files a task names, placeholders in a question bank),
the RSB5xx family (what the scene, sampler and scorer can build, place and score):
:mod:`.runtime_layout` RSB501-503 on the placement plans of :mod:`.runtime_plans` and the
layout sampler's own trial layouts, :mod:`.runtime_scoring` RSB504-506 and RSB511,
:mod:`.runtime_scene` RSB507-510, :mod:`.runtime_question` RSB520, :mod:`.runtime_goal`
RSB530-534 (what keeps a goal task from running),
:mod:`.safety` (RSB512-513: the same for costs and moving objects) and the template rules
(RSB43x) in :mod:`rsb_mj.lang.templates`.
"""

from __future__ import annotations

from rsb_mj.lang.rules import (
    display,
    geometry,
    motion,
    names,
    names_arguments,
    names_declarations,
    names_predicates,
    names_references,
    narrowed,
    references,
    runtime_goal,
    runtime_layout,
    runtime_plans,
    runtime_question,
    runtime_scene,
    runtime_scoring,
    safety,
    semantics,
    semantics_candidates,
    semantics_connectives,
    semantics_goal,
    semantics_held,
    semantics_language,
    semantics_mapping,
    semantics_unused,
    sources,
    syntax,
)
from rsb_mj.lang.rules.base import RULES, Context, Rule

__all__ = [
    "RULES",
    "Context",
    "Rule",
    "display",
    "geometry",
    "motion",
    "names",
    "names_arguments",
    "names_declarations",
    "names_predicates",
    "names_references",
    "narrowed",
    "references",
    "runtime_goal",
    "runtime_layout",
    "runtime_plans",
    "runtime_question",
    "runtime_scene",
    "runtime_scoring",
    "safety",
    "semantics",
    "semantics_candidates",
    "semantics_connectives",
    "semantics_goal",
    "semantics_held",
    "semantics_language",
    "semantics_mapping",
    "semantics_unused",
    "sources",
    "syntax",
]
