"""The per-substep signals the environment reports, as one validated value.

The environment (contract 5) reports ``info["signals"]`` at every control step with one row
per physics substep (``S = 25`` rows of 2 ms at 20 Hz; ``S = 1`` at reset). The candidate
axis ``N`` follows ``info["candidates"]``. Scoring reads nothing else from the simulator, so
the predicates can be tested on hand-written signals and on real MuJoCo runs alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError

#: Signal name -> (dtype kind, shape suffix after S, with "N" for the candidate axis).
SIGNAL_SHAPES: dict[str, tuple[str, tuple[int | str, ...]]] = {
    "contact": ("b", ("N", 2)),
    "pinch": ("b", ("N", 2)),
    "table_contact": ("b", ("N",)),
    "gripper_cmd": ("f", (2,)),
    "gripper_open": ("f", (2,)),
    "lift": ("f", ("N",)),
    "in_zone": ("b", ("N",)),
}


@dataclass(frozen=True, eq=False)
class StepSignals:
    """Signals of one control step, one row per physics substep.

    Attributes:
        contact: bool (S, N, 2); candidate n touches the [left, right] gripper's finger or
            pad geoms.
        pinch: bool (S, N, 2); candidate n touches both finger links of the [left, right]
            gripper.
        table_contact: bool (S, N); candidate n touches the table (zone patch included).
        gripper_cmd: float (S, 2); commanded [left, right] gripper, 0 closed .. 1 open.
        gripper_open: float (S, 2); measured normalized opening, 0 closed .. 1 open.
        lift: float (S, N); candidate center height above its resting height at reset [m].
        in_zone: bool (S, N); candidate center's xy inside the answer zone and the candidate
            resting low (lift < 0.02 m).
    """

    contact: np.ndarray
    pinch: np.ndarray
    table_contact: np.ndarray
    gripper_cmd: np.ndarray
    gripper_open: np.ndarray
    lift: np.ndarray
    in_zone: np.ndarray

    @property
    def substeps(self) -> int:
        """Number of physics substeps S in this control step."""
        return int(self.lift.shape[0])

    @property
    def candidates(self) -> int:
        """Number of candidates N."""
        return int(self.lift.shape[1])

    @classmethod
    def from_info(cls, signals: Mapping[str, Any], n_candidates: int) -> StepSignals:
        """Validate ``info["signals"]`` and convert it.

        Args:
            signals: the mapping of signal name -> array reported by the environment.
            n_candidates: N, the length of ``info["candidates"]``.

        Raises:
            EvalError: naming the missing signal or the one with a wrong shape.
        """
        missing = sorted(set(SIGNAL_SHAPES) - set(signals))
        if missing:
            raise EvalError(
                f"info['signals'] lacks {missing}; expected keys: {', '.join(SIGNAL_SHAPES)}"
            )
        arrays: dict[str, np.ndarray] = {}
        rows: int | None = None
        for key, (kind, suffix) in SIGNAL_SHAPES.items():
            arr = np.asarray(signals[key])
            want = tuple(n_candidates if d == "N" else d for d in suffix)
            if arr.ndim != len(want) + 1 or arr.shape[1:] != want:
                raise EvalError(
                    f"info['signals'][{key!r}] has shape {arr.shape}; expected (S, "
                    + ", ".join(map(str, want))
                    + ")"
                )
            if rows is None:
                rows = arr.shape[0]
            elif arr.shape[0] != rows:
                raise EvalError(
                    f"info['signals'][{key!r}] has {arr.shape[0]} substeps, others have {rows}"
                )
            arrays[key] = arr.astype(bool) if kind == "b" else arr.astype(np.float64)
        return cls(**arrays)
