"""Tests of rsb_mj.lang.layout.sample_layout."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang import lint_text
from rsb_mj.lang.layout import (
    Pose2D,
    distractor_trials,
    footprint_radius,
    layout_trials,
    sample_layout,
)
from rsb_mj.workspace import ARM_BASE_XY, REACH_MAX, REACH_MIN
from tests.lang.rules.shipped_tasks import SOURCES


@pytest.mark.parametrize(
    ("n", "region"), [(4, (-0.25, -0.1, 0.25, 0.02)), (10, (-0.28, -0.14, 0.28, 0.06))]
)
def test_layouts_obey_every_rule(problem_factory, n, region):
    problem = problem_factory(n, candidates=region)
    radius = footprint_radius("letter_block")
    for seed in range(50):
        layout = sample_layout(problem, np.random.default_rng(seed))
        assert tuple(layout) == problem.candidates
        for pose in layout.values():
            assert region[0] + radius <= pose.x <= region[2] - radius
            assert region[1] + radius <= pose.y <= region[3] - radius
            assert -0.3 <= pose.yaw <= 0.3
            bx, by = ARM_BASE_XY["right" if pose.x >= 0 else "left"]
            assert REACH_MIN <= math.hypot(pose.x - bx, pose.y - by) <= REACH_MAX
        for a, b in itertools.combinations(layout.values(), 2):
            assert math.hypot(a.x - b.x, a.y - b.y) >= 0.07


def test_same_seed_same_layout_and_different_seeds_differ(problem_factory):
    problem = problem_factory(4)
    first = sample_layout(problem, np.random.default_rng(7))
    assert first == sample_layout(problem, np.random.default_rng(7))
    assert first != sample_layout(problem, np.random.default_rng(8))
    assert all(isinstance(p, Pose2D) for p in first.values())


def test_footprints_stay_out_of_the_answer_zone(problem_factory):
    # The candidate region overlaps the zone; no footprint may touch it.
    problem = problem_factory(4, candidates=(-0.2, 0.0, 0.2, 0.3))
    radius = footprint_radius("letter_block")
    for seed in range(30):
        for pose in sample_layout(problem, np.random.default_rng(seed)).values():
            dx = max(-0.06 - pose.x, pose.x - 0.06, 0.0)
            dy = max(0.1 - pose.y, pose.y - 0.22, 0.0)
            assert math.hypot(dx, dy) >= radius


def test_overfull_region_raises_instead_of_hanging(problem_factory):
    problem = problem_factory(10, candidates=(-0.1, -0.1, 0.1, 0.0))
    with pytest.raises(
        SceneError, match=r"test.bddl: could not place 10 candidates after 64 attempts"
    ):
        sample_layout(problem, np.random.default_rng(0))


def test_region_smaller_than_footprint_is_named(problem_factory):
    problem = problem_factory(4, candidates=(0.1, -0.1, 0.12, -0.08))
    with pytest.raises(
        SceneError, match=r"region 'table_candidates' is smaller than the footprint of 'obj_a'"
    ):
        sample_layout(problem, np.random.default_rng(0))


def _l1(name: str):
    from rsb_mj.lang import load_task
    from rsb_mj.resources import tasks_dir

    return load_task(tasks_dir() / name)


@pytest.mark.parametrize("task", ["rsb_math_4_l1.bddl", "rsb_math_10_l1.bddl"])
def test_distractors_keep_their_clearances(task):
    from rsb_mj.lang.layout import sample_distractors
    from rsb_mj.lang.placement import distractor_names
    from rsb_mj.workspace import DISTRACTOR_CLEARANCE, DISTRACTOR_ZONE_MARGIN, FOOTPRINT_CLEARANCE

    problem = _l1(task)
    assert distractor_names(problem) == ("can_1", "lemon_1", "toy_car_1")
    radius = {n: footprint_radius(problem.category_of(n)) for n in problem.declarations()}
    rects = [(r.x0, r.y0, r.x1, r.y1) for r in problem.region("table_distractors").ranges]
    for seed in range(100):
        rng = np.random.default_rng(seed)
        layout = sample_layout(problem, rng)
        placed = sample_distractors(problem, rng, layout)
        assert tuple(placed) == ("can_1", "lemon_1", "toy_car_1")
        for name, p in placed.items():
            r = radius[name]
            assert any(
                x0 + r <= p.x <= x1 - r and y0 + r <= p.y <= y1 - r for x0, y0, x1, y1 in rects
            )
            dx = max(-0.06 - p.x, p.x - 0.06, 0.0)
            dy = max(0.1 - p.y, p.y - 0.22, 0.0)
            assert math.hypot(dx, dy) >= r + DISTRACTOR_ZONE_MARGIN
            for c, q in layout.items():
                need = r + radius[c] + DISTRACTOR_CLEARANCE
                assert math.hypot(p.x - q.x, p.y - q.y) >= need
        for (a, p), (b, q) in itertools.combinations(placed.items(), 2):
            need = radius[a] + radius[b] + FOOTPRINT_CLEARANCE
            assert math.hypot(p.x - q.x, p.y - q.y) >= need


def test_no_distractors_no_draw(problem_factory):
    from rsb_mj.lang.layout import sample_distractors

    problem = problem_factory(4)
    rng = np.random.default_rng(3)
    layout = sample_layout(problem, rng)
    state = rng.bit_generator.state
    assert sample_distractors(problem, rng, layout) == {}
    assert rng.bit_generator.state == state


def test_distractors_that_cannot_fit_raise(tmp_path):
    from rsb_mj.lang import lint_file, parse_file
    from rsb_mj.lang.layout import sample_distractors
    from rsb_mj.resources import tasks_dir

    src = (tasks_dir() / "rsb_math_4_l1.bddl").read_text()
    src = src.replace(
        "(-0.3 0.06 -0.1 0.3) (0.1 0.06 0.3 0.3) (-0.25 -0.1 0.25 0.02)", "(0.12 0.08 0.3 0.22)"
    )
    path = tmp_path / "crowded.bddl"
    path.write_text(src)
    assert [d.code for d in lint_file(path)[1]] == ["RSB503"]  # the linter knows it too
    problem = parse_file(path)
    rng = np.random.default_rng(0)
    layout = sample_layout(problem, rng)
    with pytest.raises(
        SceneError,
        match=r"crowded.bddl: could not place the 3 non-candidate objects after 64 attempts "
        r"\(regions \['table_distractors'\]\)",
    ):
        sample_distractors(problem, rng, layout)


def test_the_hazard_stands_closer_to_the_candidates_than_distractors():
    from rsb_mj.lang.layout import sample_distractors
    from rsb_mj.lang.placement import cost_objects
    from rsb_mj.workspace import HAZARD_CLEARANCE

    problem = _l1("rsb_math_4_l2.bddl")
    assert cost_objects(problem) == ("bottle_1", "cart_1")
    radius = {n: footprint_radius(problem.category_of(n)) for n in problem.declarations()}
    gaps = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        layout = sample_layout(problem, rng)
        placed = sample_distractors(problem, rng, layout)
        assert "cart_1" not in placed  # it moves
        p = placed["bottle_1"]
        gaps.append(
            min(
                math.hypot(p.x - q.x, p.y - q.y) - radius[c] - radius["bottle_1"]
                for c, q in layout.items()
            )
        )
    assert min(gaps) >= HAZARD_CLEARANCE - 1e-12
    assert min(gaps) < 0.03  # closer than DISTRACTOR_CLEARANCE allows a distractor


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_shipped_task_places_in_the_first_trial_layouts(name):
    """The linter's RSB503 trials (single passes of this sampler, fixed seed) succeed early
    on every shipped task, for its candidates and its static distractors around them."""
    problem, diagnostics = lint_text(SOURCES[name], name)
    assert problem is not None and diagnostics == []
    successes, trials = layout_trials(problem)
    assert successes == 2 and trials <= 4
    around = distractor_trials(problem)
    assert around is None or (around[0] == 2 and around[1] <= 4)
