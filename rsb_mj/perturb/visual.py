"""Visual perturbations V0-V4, made in the renderer (MuJoCo lights, colors, camera) plus sensor
noise on the rendered images.

Cumulative levels, as in VLA-Arena (paper section F.2):

* V1 light: every light's and the headlight's diffuse and ambient scaled by
  ``1 + brightness`` and by a contrast factor (diffuse ``1 + c``, ambient ``1 - c``), with
  brightness, c ~ U(-0.75, 0.75), tinted by a color temperature ~ U(3500, 8500) K (6500 K is
  white): VLA-Arena's ``light_adjustment`` ranges, made in the lights instead of editing the
  image. Each light's direction is tilted by up to 20 degrees. VLA-Arena's image-space
  saturation is left out of V1: it would wash out the candidates' named colors (a task file
  can still ask for it on the table, floor and distractors).
* V2 + colors: table, floor and distractor colors drawn per rgb channel from U(0.2, 0.8)
  (VLA-Arena's range), redrawn until the color is not near-gray (channel spread >= 0.15) so
  the table never looks like the gray answer zone, and at least 0.3 (Euclidean rgb) from
  every candidate's color so no candidate blends into the table. The answer zone stays
  achromatic (its rgb scaled by one factor ~ U(0.85, 1.15)). Candidates keep the color the
  instruction names: hue shifted by at most 0.01 (3.6 degrees; the closest palette hues, red
  and orange, are 0.08 apart), saturation and value scaled by U(0.92, 1.08) (letter
  materials alike). The robot keeps its colors.
* V3 + camera: the head camera moved by U(-0.105, 0.105) m per world axis (VLA-Arena's
  range), orientation kept, the offset shortened along its direction where needed so every
  candidate and the answer zone stay in the head image (:mod:`rsb_mj.perturb.framing`; the
  factor is recorded as ``scale``). V3 leaves the wrist cameras (on the arms) where they are.
  Goal tasks (objects without named colors) spread objects wider than the head image: there
  the corners kept in view are those the compiled camera sees.
* V4 + sensor noise on every camera image: Gaussian with mean 0 and variance 0.085 on
  intensities in [0, 1] (sigma 0.29: VLA-Arena's ``add_noise``), drawn by inverse CDF from
  4096 equiprobable levels rounded to whole intensity steps (tails beyond 3.5 sigma cut; 2x
  cheaper than ``standard_normal``), and salt-and-pepper on a fraction ~ U(0.001, 0.005) of
  the pixels (VLA-Arena's V4 has Gaussian noise only).

Randomness: effect ``e`` (1 light, 2 colors, 3 camera, 4 noise) draws its parameters from
``numpy.random.default_rng([episode.seed, 0x5649, e])``, so level V3 shows V2's light and
colors plus a camera offset (levels add effects, they do not redraw the earlier ones), and
the noise of control step ``t`` on camera ``k`` comes from
``default_rng([episode.seed, 0x5649, 4, t, k])``: same episode, same pixels.

A task file's ``:image_settings``, ``:random_color``, ``:camera`` and ``:noise`` blocks (see
:mod:`rsb_mj.lang.settings`) switch their effect on at any level and fix the parameters
they give.
"""

from __future__ import annotations

import colorsys
from functools import cache
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np

from rsb_mj.colors import PALETTE
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EnvError
from rsb_mj.lang.settings import VisualSettings, read_settings
from rsb_mj.perturb.draws import NEUTRAL_K, kelvin_rgb, scene_color, tilt_direction
from rsb_mj.perturb.framing import box_corners, fit_scale, in_view
from rsb_mj.scene.legibility import project
from rsb_mj.workspace import CAMERAS

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem

#: Visual levels V0 (none) .. V4 (light, colors, camera, sensor noise).
VISUAL_LEVELS = (0, 1, 2, 3, 4)
#: Seed tag of the visual generators ("VI").
VISUAL_SEED_TAG = 0x5649
#: Effect numbers: the level that switches each on.
LIGHT, COLORS, CAMERA, NOISE = 1, 2, 3, 4

BRIGHTNESS_RANGE = (-0.75, 0.75)
CONTRAST_RANGE = (-0.75, 0.75)
TEMPERATURE_RANGE_K = (3500.0, 8500.0)
COLOR_RANGE = (0.2, 0.8)
ZONE_VALUE_RANGE = (0.85, 1.15)
CANDIDATE_HUE_JITTER = 0.01
CANDIDATE_SV_RANGE = (0.92, 1.08)
CAMERA_RANGE_M = 0.105
#: V4 Gaussian noise (mean, variance) on intensities in [0, 1], as VLA-Arena's add_noise.
GAUSSIAN_MEAN_VAR = (0.0, 0.085)
SALT_PEPPER_RANGE = (0.001, 0.005)
#: The camera that V3 moves.
MOVED_CAMERA = "head"


def check_level(level: int, name: str = "visual_level") -> int:
    """``level`` as an int in 0..4.

    Raises:
        EnvError: naming ``name`` and the valid choices.
    """
    if isinstance(level, bool) or not isinstance(level, int | np.integer):
        raise EnvError(f"{name} must be an integer 0..4, got {level!r}")
    if int(level) not in VISUAL_LEVELS:
        raise EnvError(f"{name} {level}: valid choices: 0, 1, 2, 3, 4")
    return int(level)


def _r(x: Any) -> Any:
    """Rounded for records (4 decimals)."""
    return np.round(np.asarray(x, dtype=float), 4).tolist()


class VisualPerturber:
    """Applies one visual level (and a task file's visual blocks) to a compiled scene.

    Use: :meth:`restore` before the episode's own model edits (``Scene.apply_episode``),
    :meth:`apply` after them, :meth:`noise` on every rendered image set.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        problem: Problem,
        candidates: tuple[str, ...],
        level: int,
        image_size: tuple[int, int] = (320, 240),
    ) -> None:
        self.model = model
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.level = check_level(level)
        self.settings: VisualSettings = read_settings(problem)
        self.candidates = tuple(candidates)
        m = model
        self._saved = {
            name: getattr(m, name).copy()
            for name in (
                "light_diffuse",
                "light_ambient",
                "light_specular",
                "light_dir",
                "geom_rgba",
                "mat_rgba",
                "cam_pos",
            )
        }
        hl = m.vis.headlight
        self._headlight = (hl.ambient.copy(), hl.diffuse.copy(), hl.specular.copy())
        root_names = [m.body(int(m.body_rootid[m.geom_bodyid[g]])).name for g in range(m.ngeom)]
        visual = [g for g in range(m.ngeom) if m.geom_group[g] in (1, 2)]
        objects = {d.name for d in problem.objects}
        table = m.body("table").id if "table" in _names(m, mujoco.mjtObj.mjOBJ_BODY) else -1
        self._zone = [g for g in visual if m.geom(g).name.startswith("answer_zone/")]
        self._table = [
            g for g in visual if g not in self._zone and (m.geom_bodyid[g] in (0, table))
        ]
        self._distractors = [
            g for g in visual if root_names[g] in objects and root_names[g] not in self.candidates
        ]
        self._candidate_geoms = {
            c: [g for g in visual if root_names[g] == c] for c in self.candidates
        }
        self._letter_mats = {i for i in range(m.nmat) if m.material(i).name.startswith("letter_")}
        self._seed: int | None = None
        self._noise: dict[str, Any] | None = None

    @property
    def active(self) -> bool:
        """Whether anything is ever changed (level > 0 or a visual block in the task)."""
        return self.level > 0 or bool(self.settings.blocks)

    def _on(self, effect: int, block: str) -> bool:
        return self.level >= effect or self.settings.has(block)

    def restore(self) -> None:
        """Put back the compiled lights, colors and camera (before the next episode)."""
        m = self.model
        for name, value in self._saved.items():
            getattr(m, name)[:] = value
        hl = m.vis.headlight
        hl.ambient[:], hl.diffuse[:], hl.specular[:] = self._headlight

    def apply(self, data: mujoco.MjData, episode: Episode) -> dict[str, Any]:
        """Perturb the model for ``episode`` (after its colors are set); returns the record
        ``{"visual_level", "light", "colors", "camera", "noise"}`` (None: effect off)."""
        return self.apply_seed(data, episode.seed, episode.colors)

    def apply_seed(
        self, data: mujoco.MjData, seed: int, colors: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """Perturb the model for the episode of ``seed`` (:meth:`apply` without an
        :class:`Episode`, e.g. a goal task's).

        Args:
            data: the episode's data (after its layout is set).
            seed: the episode seed every draw comes from.
            colors: candidate -> the color name the instruction uses (only those geoms are
                jittered); None for tasks whose objects have no named color (goal tasks):
                every geom of a candidate is jittered, and the table keeps its distance
                from each candidate's first geom color.
        """
        self._seed = int(seed)
        record: dict[str, Any] = {"visual_level": self.level}
        record["light"] = self._light() if self._on(LIGHT, "image_settings") else None
        colors_on = (
            self.level >= COLORS
            or bool(self.settings.get("random_color", "enabled"))
            or self.settings.get("image_settings", "saturation") is not None
        )
        record["colors"] = self._colors(colors) if colors_on else None
        camera_on = self._on(CAMERA, "camera")
        record["camera"] = self._move_camera(data, colors is None) if camera_on else None
        record["noise"] = self._noise_params() if self._on(NOISE, "noise") else None
        self._noise = record["noise"]
        if self.active:
            mujoco.mj_forward(self.model, data)
        return record

    # ---- effects ---------------------------------------------------------------------------

    def _rng(self, effect: int) -> np.random.Generator:
        return np.random.default_rng([self._seed or 0, VISUAL_SEED_TAG, effect])

    def _param(self, block: str, key: str, drawn: float, neutral: float, effect: int) -> float:
        given = self.settings.get(block, key)
        if given is not None:
            return float(given)
        return drawn if self.level >= effect else neutral

    def _light(self) -> dict[str, Any]:
        rng, m = self._rng(LIGHT), self.model
        b = self._param("image_settings", "brightness", rng.uniform(*BRIGHTNESS_RANGE), 0.0, LIGHT)
        c = self._param("image_settings", "contrast", rng.uniform(*CONTRAST_RANGE), 0.0, LIGHT)
        k = self._param(
            "image_settings", "temperature", rng.uniform(*TEMPERATURE_RANGE_K), NEUTRAL_K, LIGHT
        )
        tint = kelvin_rgb(k)
        diffuse = max(0.0, 1.0 + b) * max(0.0, 1.0 + c) * tint
        ambient = max(0.0, 1.0 + b) * max(0.0, 1.0 - c) * tint
        m.light_diffuse[:] = self._saved["light_diffuse"] * diffuse
        m.light_ambient[:] = self._saved["light_ambient"] * ambient
        m.light_specular[:] = self._saved["light_specular"] * tint
        hl = m.vis.headlight
        hl.diffuse[:] = self._headlight[1] * diffuse
        hl.ambient[:] = self._headlight[0] * ambient
        tilted = self.level >= LIGHT
        saved = self._saved["light_dir"]
        dirs = [tilt_direction(saved[i], rng) if tilted else saved[i] for i in range(m.nlight)]
        if m.nlight:
            m.light_dir[:] = np.array(dirs)
        return {
            "brightness": _r(b),
            "contrast": _r(c),
            "temperature_k": _r(k),
            "tint_rgb": _r(tint),
            "light_dir": _r(dirs),
        }

    def _colors(self, colors: dict[str, str] | None) -> dict[str, Any]:
        rng, m = self._rng(COLORS), self.model
        low, high = COLOR_RANGE
        randomize = self.level >= COLORS or bool(self.settings.get("random_color", "enabled"))
        out: dict[str, Any] = {}
        if randomize:
            if colors is None:
                avoid = [
                    m.geom_rgba[gs[0], :3].copy() for gs in self._candidate_geoms.values() if gs
                ]
            else:
                avoid = [np.asarray(PALETTE[c][:3]) for c in colors.values() if c in PALETTE]
            table_rgb = scene_color(rng, low, high, avoid)
            floor_rgb = scene_color(rng, low, high, avoid)
            for g in self._table:
                m.geom_rgba[g, :3] = floor_rgb if m.geom_bodyid[g] == 0 else table_rgb
            zone = float(rng.uniform(*ZONE_VALUE_RANGE))
            for g in self._zone:
                m.geom_rgba[g, :3] = np.clip(m.geom_rgba[g, :3] * zone, 0.0, 1.0)
            distractors = {}
            for g in self._distractors:
                rgb = scene_color(rng, low, high, avoid)
                m.geom_rgba[g, :3] = rgb
                distractors[m.geom(g).name] = _r(rgb)
            out.update(
                table_rgb=_r(table_rgb),
                floor_rgb=_r(floor_rgb),
                zone_value=_r(zone),
                distractor_rgb=distractors,
            )
            jitter, done = {}, set()
            for c in self.candidates:
                dh = float(rng.uniform(-CANDIDATE_HUE_JITTER, CANDIDATE_HUE_JITTER))
                ds, dv = (float(x) for x in rng.uniform(*CANDIDATE_SV_RANGE, size=2))
                named = np.asarray(PALETTE.get((colors or {}).get(c, ""), (0, 0, 0, 1))[:3])
                for g in self._candidate_geoms[c]:
                    # the episode's color geoms (every geom without named colors)
                    if colors is None or np.allclose(m.geom_rgba[g, :3], named):
                        m.geom_rgba[g, :3] = _jitter(m.geom_rgba[g, :3], dh, ds, dv)
                    mat = int(m.geom_matid[g])
                    if mat in self._letter_mats and mat not in done:  # letter faces
                        m.mat_rgba[mat, :3] = _jitter(m.mat_rgba[mat, :3], dh, ds, dv)
                        done.add(mat)
                jitter[c] = {"hue": _r(dh), "saturation": _r(ds), "value": _r(dv)}
            out["candidate_jitter"] = jitter
        s = self.settings.get("image_settings", "saturation")
        if s is not None:
            for g in self._table + self._distractors:
                m.geom_rgba[g, :3] = _jitter(m.geom_rgba[g, :3], 0.0, 1.0 + s, 1.0)
            out["saturation"] = _r(s)
        return out

    def _move_camera(self, data: mujoco.MjData, seen_only: bool = False) -> dict[str, Any]:
        rng = self._rng(CAMERA)
        drawn = rng.uniform(-CAMERA_RANGE_M, CAMERA_RANGE_M, size=3)
        offsets: dict[str, np.ndarray] = {}
        out: dict[str, Any] = {}
        if self.level >= CAMERA:
            geoms = [g for c in self.candidates for g in self._candidate_geoms[c]] + self._zone
            points = box_corners(self.model, data, geoms)
            if seen_only:  # the corners the compiled camera sees
                w, h = self.image_size
                uv = project(self.model, data, MOVED_CAMERA, points, w, h)
                points = points[[in_view(p[None], w, h) for p in uv]]
            scale = fit_scale(self.model, data, MOVED_CAMERA, drawn, points, *self.image_size)
            offsets[MOVED_CAMERA] = drawn * scale
            out["scale"] = scale
        for name, given in self.settings.blocks.get("camera", {}).items():
            offsets[name] = np.asarray(given, dtype=float)
        for name, offset in offsets.items():
            cam = self.model.camera(name).id
            self.model.cam_pos[cam] = self._saved["cam_pos"][cam] + offset
        return {"offset_m": {name: _r(offset) for name, offset in offsets.items()}, **out}

    def _noise_params(self) -> dict[str, Any]:
        rng = self._rng(NOISE)
        at_level = self.level >= NOISE
        drawn_amount = rng.uniform(*SALT_PEPPER_RANGE)
        mean, var = self.settings.get("noise", "gaussian") or (
            GAUSSIAN_MEAN_VAR if at_level else (0.0, 0.0)
        )
        amount = self.settings.get("noise", "salt_pepper")
        if amount is None:
            amount = drawn_amount if at_level else 0.0
        return {
            "gaussian_mean": _r(mean),
            "gaussian_var": _r(var),
            "gaussian_sigma": _r(float(np.sqrt(var))),
            "salt_pepper": _r(amount),
        }

    # ---- sensor noise ----------------------------------------------------------------------

    def noise(self, images: dict[str, np.ndarray], step: int) -> dict[str, np.ndarray]:
        """``images`` with this episode's sensor noise at control step ``step`` (unchanged
        when noise is off). Camera ``k`` is the k-th of ``CAMERAS`` (head, left, right)."""
        params = self._noise
        if not params or self._seed is None:
            return images

        sigma, amount = float(np.sqrt(params["gaussian_var"])), params["salt_pepper"]
        shift = round(float(params["gaussian_mean"]) * 255.0)
        out = {}
        for name, image in images.items():
            k = CAMERAS.index(name) if name in CAMERAS else len(CAMERAS)
            rng = np.random.default_rng([self._seed, VISUAL_SEED_TAG, NOISE, int(step), k])
            if sigma > 0 or shift:
                levels = rng.integers(0, GAUSS_LEVELS, size=image.shape, dtype=np.uint16)
                offsets = _gauss_offsets(sigma)[levels] + np.int16(shift)
                noisy = np.clip(image.astype(np.int16) + offsets, 0, 255).astype(np.uint8)
            else:
                noisy = image.copy()
            if amount > 0:
                u = rng.random(image.shape[:2], dtype=np.float32)
                noisy[u < amount / 2] = 0  # pepper
                noisy[(u >= amount / 2) & (u < amount)] = 255  # salt
            out[name] = noisy
        return out


#: Equiprobable levels of the Gaussian sensor noise.
GAUSS_LEVELS = 4096


@cache
def _gauss_offsets(sigma: float) -> np.ndarray:
    """int16 (4096,): intensity offsets at the 4096 quantiles ``(i + 0.5) / 4096`` of
    N(0, (sigma * 255)^2), rounded to whole steps."""

    unit = NormalDist()
    q = [unit.inv_cdf((i + 0.5) / GAUSS_LEVELS) for i in range(GAUSS_LEVELS)]
    return np.rint(np.array(q) * sigma * 255.0).astype(np.int16)


def _jitter(rgb: np.ndarray, dh: float, s: float, v: float) -> np.ndarray:
    """``rgb`` with hue + dh (turns), saturation x s and value x v, clipped to [0, 1]."""
    h, sat, val = colorsys.rgb_to_hsv(*np.clip(rgb, 0.0, 1.0))
    return np.array(colorsys.hsv_to_rgb((h + dh) % 1.0, min(1.0, sat * s), min(1.0, val * v)))


def _names(model: mujoco.MjModel, kind: mujoco.mjtObj) -> set[str]:
    count = {mujoco.mjtObj.mjOBJ_BODY: model.nbody}[kind]
    return {mujoco.mj_id2name(model, kind, i) or "" for i in range(count)}
