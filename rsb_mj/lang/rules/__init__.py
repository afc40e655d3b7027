"""Lint rules, registered in :data:`rsb_mj.lang.rules.base.RULES` on import; one module per
rule family.

:mod:`.syntax` (RSB1xx, reported by the parser); :mod:`.names` (RSB2xx: the blocks, the
domain, declarations, predicates, arguments and references a file names); :mod:`.geometry`
(RSB3xx, on what :mod:`.placement` reads); :mod:`.semantics` (RSB401-423 and RSB440: the blocks
complete and naming known values, the candidates, the ``(:map ...)`` of options, goal and grasp
depending on the answer, ``And``/``Or``, unused declarations, LIBERO's ``:language``, what a
gripper holds at reset); :mod:`.motion` (RSB424-429); :mod:`.sources` (RSB450-457: question
sources, template selection, the answer zone); :mod:`.narrowed` (RSB458: a narrowed source
with an empty split); :mod:`.display` (RSB463: candidates that show their answers and the
sources that give them); :mod:`.references` (RSB470-472: the files a task names, placeholders
in a question bank); the RSB5xx family (what the scene, sampler and scorer can build, place
and score): :mod:`.runtime_layout` RSB501-503 on the placement plans of :mod:`.runtime_plans`
and the layout sampler's own trial layouts, :mod:`.runtime_scoring` RSB504-506 and RSB511,
:mod:`.runtime_scene` RSB507-510, :mod:`.runtime_question` RSB520, :mod:`.runtime_goal`
RSB530-534 (what keeps a goal task from running), :mod:`.relations` RSB536-541
(goals no layout or motion makes true, ``:init`` states rsb_mj does not set),
:mod:`.safety` (RSB512-513: the same for costs and moving objects); and the template
rules (RSB43x) in :mod:`rsb_mj.lang.templates`.
"""

from __future__ import annotations

from rsb_mj.lang.rules import (
    display,
    geometry,
    motion,
    names,
    narrowed,
    references,
    relations,
    runtime_goal,
    runtime_layout,
    runtime_plans,
    runtime_question,
    runtime_scene,
    runtime_scoring,
    safety,
    semantics,
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
    "narrowed",
    "references",
    "relations",
    "runtime_goal",
    "runtime_layout",
    "runtime_plans",
    "runtime_question",
    "runtime_scene",
    "runtime_scoring",
    "safety",
    "semantics",
    "sources",
    "syntax",
]
