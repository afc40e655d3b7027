"""Reading ``(:moving_objects ...)``: each motion type, defaults, and the problems found."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.lang import parse_file, parse_text
from rsb_mj.lang.motion import Motion, read_moving_objects

from .lang_samples import BASE

SUITES = Path(__file__).parents[1] / "data" / "bddl_suites" / "vla_arena"


def _read(block: str):
    text = BASE.replace("  (:layout", f"  (:moving_objects {block})\n  (:layout")
    return read_moving_objects(parse_text(text, "t.bddl"))


def test_linear_with_vla_arenas_defaults():
    motions, issues = _read("(cart_1 (:motion_type linear) (:motion_period 40))")
    assert issues == ()
    assert motions == (Motion("cart_1", "linear", period=40.0),)
    assert (motions[0].travel_dist, motions[0].direction) == (1.0, (0.0, 1.0, 0.0))


def test_every_type_reads_its_keys():
    motions, issues = _read(
        "(a (:motion_type circle) (:motion_center (0 0.1 0)) (:motion_period 60)"
        " (:motion_dt 1) (:motion_start_quat (0 0 0 1)) (:motion_phase random))"
        " (b (:motion_type waypoint) (:motion_waypoints (((0 0 0) (1 0 0)) ((0.1 0 0) (0 1 0))))"
        " (:motion_dt 2) (:motion_loop false) (:motion_phase 5))"
        " (c (:motion_type parabolic) (:motion_start_pos (0 0.2 0.3)) (:motion_initial_speed 2)"
        " (:motion_direction (1 0 1)) (:motion_dt 0.02) (:motion_gravity (0 0 -5)))"
    )
    assert issues == ()
    assert motions == (
        Motion("a", "circle", period=60.0, center=(0.0, 0.1, 0.0), phase="random"),
        Motion(
            "b",
            "waypoint",
            waypoints=(((0.0, 0.0, 0.0), (1.0, 0.0, 0.0)), ((0.1, 0.0, 0.0), (0.0, 1.0, 0.0))),
            dt=2.0,
            loop=False,
            phase=5.0,
        ),
        Motion(
            "c",
            "parabolic",
            start_pos=(0.0, 0.2, 0.3),
            initial_speed=2.0,
            direction=(1.0, 0.0, 1.0),
            dt=0.02,
            gravity=(0.0, 0.0, -5.0),
        ),
    )


@pytest.mark.parametrize(
    ("block", "code", "message"),
    [
        ("(a (:motion_period 40))", "RSB426", "a: no :motion_type; valid motion types: "),
        ("(a (:motion_type linear))", "RSB428", "a: a linear motion needs :motion_period"),
        ("(a (:motion_type circle) (:motion_period 9))", "RSB428", "a: a circle motion needs "),
        ("(a (:motion_type linear) (:motion_period 0))", "RSB428", "a: :motion_period takes a "),
        (
            "(a (:motion_type linear) (:motion_period 9) (:motion_direction (0 0 0)))",
            "RSB428",
            "a: :motion_direction takes a non-zero vector (x y z)",
        ),
        (
            "(a (:motion_type waypoint) (:motion_waypoints (((0 0 0) (1 0 0)))))",
            "RSB428",
            "a: :motion_waypoints takes at least two ((x y z) (dx dy dz))",
        ),
        (
            "(a (:motion_type waypoint) (:motion_waypoints (((0 0 0) (1 0 0)) ((1 0) (1 0 0)))))",
            "RSB428",
            "a: :motion_waypoints takes at least two ((x y z) (dx dy dz))",
        ),
        (
            "(a (:motion_type waypoint) (:motion_waypoints (((0 0 0) (1 0 0)) ((1 0 0) (1 0 0))))"
            " (:motion_loop maybe))",
            "RSB428",
            "a: :motion_loop takes true or false",
        ),
        ("(a (:motion_type linear) (:motion_period 9) (:motion_phase -1))", "RSB428", "a: :mo"),
        ("(a (:motion_type parabolic) (:motion_phase 3))", "RSB427", "a: a parabolic motion"),
        ("(a (:motion_type linear) (:motion_period 9) (period 9))", "RSB427", "a: each prop"),
        ("(a (:motion_type linear) (:motion_period 9) (:motion_period 9))", "RSB427", "a: :mo"),
        ("((a) (:motion_type linear))", "RSB427", "each moving object is (NAME"),
        (
            "(a (:motion_type linear) (:motion_period 9))"
            " (a (:motion_type linear) (:motion_period 9))",
            "RSB427",
            "'a' is declared moving twice",
        ),
    ],
)
def test_problems_are_reported_with_their_rule(block, code, message):
    _, issues = _read(block)
    assert [i.code for i in issues] == [code]
    assert issues[0].message.startswith(message)
    assert issues[0].span.line == 27


def test_every_vla_arena_moving_object_reads_cleanly():
    found = 0
    for path in sorted(SUITES.rglob("*.bddl")):
        problem = parse_file(path)
        motions, issues = read_moving_objects(problem)
        assert issues == (), path
        found += len(motions)
    assert found == 27  # 18 linear, 6 waypoint, 3 circle
