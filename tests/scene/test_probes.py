"""Probe sensors: one per request, distances over collision geoms only."""

from __future__ import annotations

from pathlib import Path

import pytest

from rsb_mj.errors import SceneError
from rsb_mj.lang import load_task
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scene.probes import ANY, Probe, merge, probe_columns

TASK = Path(__file__).parents[2] / "tasks" / "rsb_math_4.bddl"


def test_merge_keeps_one_probe_per_name_and_the_largest_cutoff():
    probes = [
        Probe("dist", "a", "b", 0.1),
        Probe("contact", "a", ANY),
        Probe("dist", "a", "b", 0.3),
        Probe("dist", "a", "b", 0.2),
    ]
    assert merge(probes) == (Probe("dist", "a", "b", 0.3), Probe("contact", "a", ANY))


def test_sensors_per_probe_and_distance_over_collision_geoms():
    probes = (
        Probe("contact", "block_a", ANY),
        Probe("dist", "block_a", "left/left_finger_link", 0.1),
        Probe("pos", "block_b"),
        Probe("quat", "block_b"),
    )
    model = compile_scene(load_task(TASK), probes=probes).model
    widths = [len(probe_columns(model, p.name)) for p in probes]
    # contact: count + net force; dist: the block's box against the finger's 4 collision
    # geoms (its visual mesh is left out); pos 3, quat 4
    assert widths == [4, 4, 3, 4]
    names = [model.sensor(i).name for i in range(model.nsensor)]
    assert [n for n in names if n.startswith("probe/dist/")] == [
        f"probe/dist/block_a/left/left_finger_link#{k}" for k in range(4)
    ]
    with pytest.raises(SceneError, match=r"the scene has no probe sensor 'probe/pos/block_c'"):
        probe_columns(model, "probe/pos/block_c")


def test_an_unknown_probe_kind_is_refused():
    with pytest.raises(SceneError, match=r"unknown probe kind 'speed'; valid choices: contact"):
        compile_scene(load_task(TASK), probes=(Probe("speed", "block_a"),))
