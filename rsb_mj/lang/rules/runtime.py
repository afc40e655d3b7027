"""RSB5xx: what the rsb runtime can build, place and score (lint-clean implies runs).

Each rule stands for an error the scene compiler, the layout sampler, the scorer or the
environment would raise on an rsb task, and reads the same facts they do
(:mod:`rsb_mj.workspace`, :mod:`rsb_mj.lang.vocabulary`, :mod:`rsb_mj.perturb.settings`).
Lengths are metres in the table frame. LIBERO / VLA-Arena files (``(:domain robosuite)``
without a ``:question``) are not checked here, their own simulators build them, except by
RSB510 when they are checked as rsb scenes (``target="rsb"``: the environment).

The family, one concept per module (this module re-exports their public names):

* :mod:`.runtime_plans`: where each object may stand (its ``:init`` placement, footprint
  radius and inset region);
* :mod:`.runtime_trials`: trial layouts, the layout sampler's rules run on those plans;
* :mod:`.runtime_layout` (RSB501-503): regions and layouts the sampler cannot draw;
* :mod:`.runtime_scoring` (RSB504-506, RSB511): ``:grasp`` / ``:goal`` the scorer cannot
  evaluate;
* :mod:`.runtime_scene` (RSB507-510): what the scene compiler and environment cannot build;
* :mod:`.runtime_question` (RSB520): choice counts a question source cannot serve.
"""

from __future__ import annotations

from rsb_mj.lang.rules.runtime_layout import (
    impossible_layout,
    region_smaller_than_footprint,
    unreachable_region,
)
from rsb_mj.lang.rules.runtime_plans import Rect4, placement
from rsb_mj.lang.rules.runtime_question import source_choice_count
from rsb_mj.lang.rules.runtime_scene import (
    bad_visual_setting,
    foreign_scene,
    reserved_name,
    unplaced_object,
)
from rsb_mj.lang.rules.runtime_scoring import (
    empty_scored_block,
    several_free_variables,
    unscoreable_argument,
    unscoreable_region,
)
from rsb_mj.lang.rules.runtime_trials import (
    TRIAL_LAYOUTS,
    TRIAL_NEEDED,
    TRIAL_SEED,
    TRIAL_TRIES,
    distractor_trials,
    layout_trials,
)

__all__ = [
    "TRIAL_LAYOUTS",
    "TRIAL_NEEDED",
    "TRIAL_SEED",
    "TRIAL_TRIES",
    "Rect4",
    "bad_visual_setting",
    "distractor_trials",
    "empty_scored_block",
    "foreign_scene",
    "impossible_layout",
    "layout_trials",
    "placement",
    "region_smaller_than_footprint",
    "reserved_name",
    "several_free_variables",
    "source_choice_count",
    "unplaced_object",
    "unreachable_region",
    "unscoreable_argument",
    "unscoreable_region",
]
