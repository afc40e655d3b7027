"""Datasets for training policies from rsb_mj demonstrations.

:func:`export_lerobot` converts ``rsb demos`` folders into LeRobot datasets (v3.0 or
v2.1); see :mod:`rsb_mj.datasets.lerobot`. pyarrow and PyAV come with the
``lerobot-export`` extra and are imported only when exporting.
"""

from __future__ import annotations

from rsb_mj.datasets.lerobot import CAMERA_NAMES, VERSIONS, ExportError, export_lerobot

__all__ = ["CAMERA_NAMES", "VERSIONS", "ExportError", "export_lerobot"]
