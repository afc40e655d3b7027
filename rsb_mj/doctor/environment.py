"""What ``rsb doctor`` prints about this machine: library versions, cores and memory."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import cv2
import numpy

from rsb_mj.version import versions

__all__ = ["cores", "library_versions", "memory_gib"]


def library_versions() -> dict[str, str]:
    """Versions of python, rsb_mj, mujoco, numpy and OpenCV (imports them)."""
    return {
        "python": platform.python_version(),
        **versions(),
        "numpy": numpy.__version__,
        "opencv": cv2.__version__,
    }


def cores() -> tuple[int, int]:
    """(usable by this process, in the machine) CPU cores."""
    total = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        usable = total
    return usable, total


def memory_gib(meminfo: Path = Path("/proc/meminfo")) -> tuple[float, float] | None:
    """(total, available) memory [GiB] from ``meminfo`` (Linux), or None where it cannot
    be read."""
    try:
        lines = meminfo.read_text().splitlines()
    except OSError:
        return None
    kib = {}
    for line in lines:
        name, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[0].isdigit():
            kib[name] = int(fields[0])
    if "MemTotal" not in kib:
        return None
    total = kib["MemTotal"]
    return total / 2**20, kib.get("MemAvailable", total) / 2**20
