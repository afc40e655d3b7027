"""RSB501 and RSB503 (:mod:`rsb_mj.lang.rules.runtime_layout`) on edited shipped tasks: the
region or layout is flagged at its position, and the layout sampler agrees (it fails with the
same figures)."""

from __future__ import annotations

import numpy as np
import pytest

from rsb_mj.lang import lint_text

from .shipped_tasks import SOURCES, forms_of


def test_a_crowded_region_is_flagged_and_the_sampler_agrees():
    from rsb_mj.errors import SceneError
    from rsb_mj.lang.layout import sample_layout

    text = SOURCES["rsb_math_10.bddl"].replace("(-0.28 -0.14 0.28 0.05)", "(-0.25 -0.1 0.25 0.02)")
    problem, diagnostics = lint_text(text, "crowded.bddl")
    assert [d.code for d in diagnostics if d.is_error] == ["RSB503"]
    with pytest.raises(SceneError, match="could not place 10 candidates after 64 attempts"):
        sample_layout(problem, np.random.default_rng(0))


def test_crowded_distractors_are_flagged_and_the_sampler_agrees():
    from rsb_mj.episodes import sample_episode
    from rsb_mj.errors import SceneError

    # A mutant the slow test found: the can, lemon and toy car get a 5 cm strip and the
    # candidates' own region.
    old = "(:ranges ((-0.3 0.06 -0.1 0.3) (0.1 0.06 0.3 0.3) (-0.28 -0.14 0.28 0.05))))"
    text = SOURCES["rsb_general_10_l1.bddl"]
    assert old in text
    text = text.replace(old, "(:ranges ((-0.15 0.06 -0.1 0.3) (-0.28 -0.14 0.28 0.05))))")
    problem, diagnostics = lint_text(text, "crowded_l1.bddl")
    assert [(d.code, d.span.line, d.span.column, d.message) for d in diagnostics] == [
        (
            "RSB503",
            11,
            5,
            "the 3 non-candidate objects fit in 0 of 16 trial layouts of table_distractors "
            "(clear of the candidates and the answer zone); enlarge the regions or declare "
            "fewer objects",
        )
    ]
    with pytest.raises(SceneError) as caught:
        sample_episode(problem, suite="", split="eval", index=0, seed=0)
    assert str(caught.value) == (
        "crowded_l1.bddl: could not place the 3 non-candidate objects after 64 attempts "
        "(regions ['table_distractors']); enlarge the regions or declare fewer objects"
    )


def test_a_static_distractor_larger_than_its_region_is_flagged_and_the_sampler_agrees():
    from rsb_mj.episodes import sample_episode
    from rsb_mj.errors import SceneError

    # Without (:moving_objects), the toy cart is a static distractor of its 10 x 6 cm lane.
    text = SOURCES["rsb_hardmath_10_l2.bddl"]
    start = text.index("  (:moving_objects")
    end = next(e for s, e, d in forms_of(text) if s == start + 2)
    text = text[:start] + text[end:]
    problem, diagnostics = lint_text(text, "static_cart.bddl")
    assert [(d.code, d.span.line, d.span.column, d.message) for d in diagnostics] == [
        (
            "RSB501",
            18,
            5,
            "region 'table_lane' is smaller than the footprint of 'cart_1' (radius 0.052 m): "
            "no rectangle is wider and deeper than 0.104 m",
        )
    ]
    with pytest.raises(SceneError) as caught:
        sample_episode(problem, suite="", split="eval", index=0, seed=0)
    assert str(caught.value) == (
        "static_cart.bddl: region 'table_lane' is smaller than the footprint of 'cart_1' "
        "(radius 0.052 m)"
    )
