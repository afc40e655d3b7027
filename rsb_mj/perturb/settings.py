"""The task file's visual blocks, as the perturbations read them: see
:mod:`rsb_mj.lang.settings` (the reader lives with the task language, so that the linter uses
it without importing MuJoCo)."""

from __future__ import annotations

from rsb_mj.lang.settings import (
    BLOCKS,
    IMAGE_KEYS,
    MAX_CAMERA_OFFSET_M,
    NOISE_KEYS,
    SettingError,
    VisualSettings,
    read_settings,
)

__all__ = [
    "BLOCKS",
    "IMAGE_KEYS",
    "MAX_CAMERA_OFFSET_M",
    "NOISE_KEYS",
    "SettingError",
    "VisualSettings",
    "read_settings",
]
