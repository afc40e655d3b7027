"""The per-substep signals the environment reports, as one validated value.

The environment (contract 5) reports ``info["signals"]`` at every control step with one row
per physics substep (``S = 25`` rows of 2 ms at 20 Hz; ``S = 1`` at reset). It records the
signals the task's compiled ``:grasp`` and ``:goal`` predicates declare (a
:class:`SignalPlan`), over two axes:

* ``M``, the *objects* the predicates talk about (their first arguments): the candidates
  when the task moves a candidate (RSB: ``(Grasped ?c - candidate)``, ``(In ?answer ...)``),
  or the object the task names (Act2Answer: ``(Grasped cube)``, ``(On cube ?answer)``);
* ``N``, the candidates (``info["candidates"]``), for relations to a candidate (``on``).

A goal task's environment (:class:`rsb_mj.env.rsb_env.RsbEnv`) evaluates each relation of
its ``:goal`` itself, with its source's semantics
(:class:`~rsb_mj.scoring.goal_checker.GoalChecker`: each relation the variant of its
predicate for that source, :mod:`rsb_mj.scoring.predicates`), and reports one truth per relation
per control step as :class:`GoalSignals`.

Scoring reads nothing else from the simulator, so the predicates can be tested on
hand-written signals and on real MuJoCo runs alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.lang.task import Relation, StateAtom

#: Signal name -> (dtype kind, shape suffix after S; "M" the object axis, "N" the candidates).
SIGNAL_SHAPES: dict[str, tuple[str, tuple[int | str, ...]]] = {
    "contact": ("b", ("M", 2)),
    "pinch": ("b", ("M", 2)),
    "table_contact": ("b", ("M",)),
    "gripper_cmd": ("f", (2,)),
    "gripper_open": ("f", (2,)),
    "lift": ("f", ("M",)),
    "in_zone": ("b", ("M",)),
    "on": ("b", ("M", "N")),
}
#: The signals an RSB task (``Grasped``, ``In``, ``Released`` over its candidates) records,
#: and what a task without ``:grasp``/``:goal`` records.
BASE_SIGNALS: tuple[str, ...] = tuple(k for k in SIGNAL_SHAPES if k != "on")


@dataclass(frozen=True)
class SignalPlan:
    """Which signals an episode records, over which objects.

    Attributes:
        objects: the object axis M (names of the objects the predicates talk about).
        candidates: the candidate axis N (``info["candidates"]``).
        names: the signals to record, in :data:`SIGNAL_SHAPES` order.
    """

    objects: tuple[str, ...]
    candidates: tuple[str, ...]
    names: tuple[str, ...] = BASE_SIGNALS

    def __post_init__(self) -> None:
        unknown = sorted(set(self.names) - set(SIGNAL_SHAPES))
        if unknown:
            raise EvalError(f"unknown signals {unknown}; valid choices: {', '.join(SIGNAL_SHAPES)}")
        object.__setattr__(self, "names", tuple(k for k in SIGNAL_SHAPES if k in self.names))

    @classmethod
    def of_candidates(cls, candidates: Iterable[str]) -> SignalPlan:
        """The candidates' :data:`BASE_SIGNALS` (a task with nothing to score)."""
        names = tuple(candidates)
        return cls(names, names)


@dataclass(frozen=True, eq=False)
class StepSignals:
    """Signals of one control step, one row per physics substep.

    The arrays (each present only when recorded; reading one that is not raises
    :class:`~rsb_mj.errors.EvalError`):

    * ``contact`` bool (S, M, 2): object m touches the [left, right] gripper's finger or pad
      geoms;
    * ``pinch`` bool (S, M, 2): object m touches both finger links of the [left, right]
      gripper;
    * ``table_contact`` bool (S, M): object m touches the table (zone patch included);
    * ``gripper_cmd`` float (S, 2): commanded [left, right] gripper, 0 closed .. 1 open;
    * ``gripper_open`` float (S, 2): measured normalized opening, 0 closed .. 1 open;
    * ``lift`` float (S, M): object center height above its resting height at reset [m];
    * ``in_zone`` bool (S, M): object center's xy inside the answer zone and the object
      resting low (lift < 0.02 m);
    * ``on`` bool (S, M, N): object m's center lies over candidate n's top face (in n's
      frame) and object m rests low (lift < 0.02 m).

    Attributes:
        arrays: signal name -> array, validated and converted (bool or float64).
        substeps: S; objects: M; candidates: N.
    """

    arrays: Mapping[str, np.ndarray]
    substeps: int
    objects: int
    candidates: int

    def get(self, name: str) -> np.ndarray:
        """The signal ``name``.

        Raises:
            EvalError: when it was not recorded.
        """
        try:
            return self.arrays[name]
        except KeyError:
            raise EvalError(
                f"signal {name!r} was not recorded; recorded: {', '.join(self.arrays) or 'none'}"
            ) from None

    contact = property(lambda self: self.get("contact"))
    pinch = property(lambda self: self.get("pinch"))
    table_contact = property(lambda self: self.get("table_contact"))
    gripper_cmd = property(lambda self: self.get("gripper_cmd"))
    gripper_open = property(lambda self: self.get("gripper_open"))
    lift = property(lambda self: self.get("lift"))
    in_zone = property(lambda self: self.get("in_zone"))
    on = property(lambda self: self.get("on"))

    @classmethod
    def from_info(
        cls,
        signals: Mapping[str, Any],
        objects: int,
        candidates: int | None = None,
        *,
        names: Iterable[str] = BASE_SIGNALS,
    ) -> StepSignals:
        """Validate ``info["signals"]`` and convert it.

        Args:
            signals: the mapping of signal name -> array reported by the environment.
            objects: M, the length of the object axis.
            candidates: N, the length of ``info["candidates"]`` (default: M, the candidates
                being the objects).
            names: the signals needed (a :class:`SignalPlan`'s ``names``); others are
                ignored.

        Raises:
            EvalError: naming the missing signal or the one with a wrong shape.
        """
        names = tuple(names)
        unknown = sorted(set(names) - set(SIGNAL_SHAPES))
        if unknown:
            raise EvalError(f"unknown signals {unknown}; valid choices: {', '.join(SIGNAL_SHAPES)}")
        missing = [k for k in names if k not in signals]
        if missing:
            raise EvalError(f"info['signals'] lacks {missing}; expected keys: {', '.join(names)}")
        sizes = {"M": objects, "N": objects if candidates is None else candidates}
        arrays: dict[str, np.ndarray] = {}
        rows: int | None = None
        for key in names:
            kind, suffix = SIGNAL_SHAPES[key]
            arr = np.asarray(signals[key])
            want = tuple(sizes[d] if isinstance(d, str) else d for d in suffix)
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
        return cls(arrays, rows or 0, sizes["M"], sizes["N"])


@dataclass(frozen=True)
class GoalSignals:
    """One control step's goal truths (``info["signals"]`` of a goal environment).

    Attributes:
        relations: the goal's terms: its ``On``/``In`` relations, source order, then its
            fixture-state atoms (``Open X`` ...; :attr:`GoalChecker.relations`).
        truths: whether each holds at the end of the step.
    """

    relations: tuple[Relation | StateAtom, ...]
    truths: tuple[bool, ...]

    @property
    def holds(self) -> bool:
        """The whole conjunction holds."""
        return all(self.truths)

    def describe(self) -> str:
        """Each relation and its truth (``On apple_1 plate_1: False; ...``)."""
        return "; ".join(
            f"{r.text}: {ok}" for r, ok in zip(self.relations, self.truths, strict=True)
        )
