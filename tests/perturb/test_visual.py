"""Visual perturbations V0-V4 on the real scene (rsb_mj/perturb/visual.py, RsbEnv)."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest

from rsb_mj.colors import PALETTE
from rsb_mj.env.rsb_env import RsbEnv
from rsb_mj.errors import EnvError
from rsb_mj.perturb.draws import kelvin_rgb
from rsb_mj.perturb.visual import CAMERA_RANGE_M
from rsb_mj.suites import get_suite

SUITE = get_suite("RSB-Math-4")
SIZE = {"width": 96, "height": 72}


def make(level: int, **kw) -> RsbEnv:
    return RsbEnv(SUITE.path, suite=SUITE.name, visual_level=level, **SIZE, **kw)


@pytest.fixture(scope="module")
def envs():
    """One env per visual level (V0..V4), small images."""
    out = [make(k) for k in range(5)]
    yield out
    for env in out:
        env.close()


def nearest_palette(rgb: np.ndarray) -> str:
    """The palette color nearest in hue-weighted HSV (hue on the circle)."""
    h, s, v = colorsys.rgb_to_hsv(*rgb)

    def dist(name: str) -> float:
        ph, ps, pv = colorsys.rgb_to_hsv(*PALETTE[name][:3])
        dh = min(abs(h - ph), 1 - abs(h - ph))
        return 4 * dh + abs(s - ps) + abs(v - pv)

    return min(PALETTE, key=dist)


def shown_rgba(model, geom: str) -> np.ndarray:
    """The rgba MuJoCo draws a geom with: its own unless default and it has a material."""
    g = model.geom(geom)
    if g.matid[0] >= 0 and np.allclose(g.rgba, [0.5, 0.5, 0.5, 1.0]):
        return model.mat_rgba[g.matid[0]]
    return g.rgba


def test_kelvin_rgb_is_white_at_6500_warm_below_cool_above():
    np.testing.assert_allclose(kelvin_rgb(6500.0), [1.0, 1.0, 1.0])
    warm, cool = kelvin_rgb(3500.0), kelvin_rgb(8500.0)
    assert warm[0] == 1.0 and warm[2] < 0.6
    assert cool[2] == 1.0 and cool[0] < 0.9


def test_v0_changes_nothing_and_records_no_effect(envs):
    env = envs[0]
    before = (env.model.light_diffuse.copy(), env.model.cam_pos.copy())
    _, info = env.reset(seed=5)
    p = info["sim"]["perturbation"]
    assert p["visual_level"] == 0
    assert p["light"] is p["colors"] is p["camera"] is p["noise"] is None
    np.testing.assert_array_equal(env.model.light_diffuse, before[0])
    np.testing.assert_array_equal(env.model.cam_pos, before[1])


def test_levels_are_cumulative_and_really_change_the_model(envs):
    base = envs[0]
    base.reset(seed=5)
    records = [env.reset(seed=5)[1]["sim"]["perturbation"] for env in envs]
    # V1: lights; the same draw at every higher level
    assert records[1]["light"] is not None and records[1]["colors"] is None
    assert all(r["light"] == records[1]["light"] for r in records[2:])
    assert not np.allclose(envs[1].model.light_diffuse, base.model.light_diffuse)
    assert not np.allclose(envs[1].model.light_dir, base.model.light_dir)
    k = records[1]["light"]["temperature_k"]
    assert 3500 <= k <= 8500 and -0.75 <= records[1]["light"]["brightness"] <= 0.75
    # V2: table color from the record, zone still gray
    assert records[2]["colors"] is not None and records[2]["camera"] is None
    m2 = envs[2].model
    np.testing.assert_allclose(
        m2.geom("table_top").rgba[:3], records[2]["colors"]["table_rgb"], atol=1e-4
    )
    zone = m2.geom("answer_zone/0").rgba[:3]
    assert np.ptp(zone) < 1e-9 and 0.4 < zone[0] < 0.6
    # V3: head camera moved within +-0.105 m; V4 adds noise parameters only
    offset = np.array(records[3]["camera"]["offset_m"]["head"])
    assert np.all(np.abs(offset) <= CAMERA_RANGE_M) and np.linalg.norm(offset) > 0.01
    np.testing.assert_allclose(
        envs[3].model.camera("head").pos, base.model.camera("head").pos + offset, atol=1e-4
    )
    assert records[3]["noise"] is None
    noise = records[4]["noise"]
    assert (noise["gaussian_mean"], noise["gaussian_var"]) == (0.0, 0.085)  # VLA-Arena's
    assert noise["gaussian_sigma"] == 0.2915 and 0.001 <= noise["salt_pepper"] <= 0.005
    assert records[4]["camera"] == records[3]["camera"]


def test_candidates_keep_their_named_color_at_v2(envs):
    env = envs[2]
    for seed in range(40):
        env.reset(seed=seed)
        for obj, color in env.episode.colors.items():
            rgba = shown_rgba(env.model, f"{obj}/box")
            assert nearest_palette(rgba[:3]) == color, (seed, obj, rgba)
            assert not np.allclose(rgba[:3], PALETTE[color][:3])  # jittered
            table = env.model.geom("table_top").rgba[:3]
            assert np.linalg.norm(table - PALETTE[color][:3]) >= 0.3  # never blends in


def test_reset_restores_the_compiled_model_before_each_episode(envs):
    env = envs[4]
    _, first = env.reset(seed=11)
    diffuse = env.model.light_diffuse.copy()
    env.reset(seed=12)
    _, again = env.reset(seed=11)
    assert again["sim"]["perturbation"] == first["sim"]["perturbation"]
    np.testing.assert_array_equal(env.model.light_diffuse, diffuse)


def test_same_seed_same_pixels_different_seed_different_pixels(envs):
    other = make(4)
    try:
        a, _ = envs[4].reset(seed=21)
        b, _ = other.reset(seed=21)
        for cam in a["images"]:
            assert a["images"][cam].tobytes() == b["images"][cam].tobytes()
        c, _ = other.reset(seed=22)
        assert a["images"]["head"].tobytes() != c["images"]["head"].tobytes()
        # the noise differs from step to step but repeats with the seed
        step = np.array(a["state"])
        a1 = envs[4].step(step)[0]["images"]["head"]
        other.reset(seed=21)
        b1 = other.step(step)[0]["images"]["head"]
        assert a1.tobytes() == b1.tobytes() != a["images"]["head"].tobytes()
    finally:
        other.close()


def test_camera_moves_only_the_head_view_and_noise_comes_only_at_v4(envs):
    obs = [env.reset(seed=8)[0]["images"] for env in envs]
    # V3 vs V2: same light and colors; the head camera moved, the wrist views did not
    assert obs[3]["head"].tobytes() != obs[2]["head"].tobytes()
    assert obs[3]["left_wrist"].tobytes() == obs[2]["left_wrist"].tobytes()
    # V4 = V3 + noise: sigma 0.29 of full scale (less where clipped at 0), a few pixels
    # forced to 0 or 255
    for cam in obs[4]:
        diff = obs[4][cam].astype(int) - obs[3][cam].astype(int)
        assert np.count_nonzero(diff) > 0.9 * diff.size
        assert 40 < diff.std() < 80 and abs(diff.mean()) < 25
        salt = np.all(obs[4][cam] == 255, axis=2) | np.all(obs[4][cam] == 0, axis=2)
        assert salt.sum() >= 1
    # below V4 nothing is noisy: V1 and V2 differ from V0 smoothly (no isolated pixels)
    for level in (1, 2, 3):
        assert envs[level].reset(seed=8)[1]["sim"]["perturbation"]["noise"] is None


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"visual_level": 5}, r"visual_level 5: valid choices: 0, 1, 2, 3, 4"),
        ({"language_level": 7}, r"language_level 7: valid choices: 0, 1, 2, 3, 4"),
    ],
)
def test_bad_levels_are_refused(kw, message):
    with pytest.raises(EnvError, match=message):
        RsbEnv(SUITE.path, cameras=(), **kw)
