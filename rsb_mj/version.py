"""Versions recorded in every result file."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def rsb_mj_version() -> str:
    """The installed rsb_mj version."""
    try:
        return version("rsb_mj")
    except PackageNotFoundError:  # running from a checkout without install
        return "0+unknown"


def mujoco_version() -> str:
    """The mujoco version in use (imported lazily: the task language does not need it)."""
    # heavy: MuJoCo; the task language does not need it
    import mujoco

    return mujoco.__version__


def versions() -> dict[str, str]:
    """``{"rsb_mj": ..., "mujoco": ...}`` for result files."""
    return {"rsb_mj": rsb_mj_version(), "mujoco": mujoco_version()}
