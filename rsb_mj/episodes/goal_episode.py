"""One goal-task episode as a value: a seed and the layout drawn from it.

A :class:`GoalEpisode` is what a goal task's (LIBERO / VLA-Arena style file) episode is: the
row of a goal suite's frozen table (:mod:`rsb_mj.tables.goal`), or a bare seed for a task
file that ships no table (``rsb eval MY_TASK.bddl``: :meth:`GoalEpisode.seeded`, with no
layout: the environment draws it from the seed). The environment resets from it
(:meth:`rsb_mj.env.goal_env.GoalEnv.reset` with ``options={"episode": row}``): the objects at
the frozen poses, then the same settle checks as a draw.

Frames and units: ``layout`` poses are MuJoCo *world* coordinates of each object's body
origin, (x, y, z) in metres, and the yaw about +z in radians, after the frame map of the
task (:mod:`rsb_mj.scene.goal_scene`), before settling.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rsb_mj.errors import EpisodeError

__all__ = ["GoalEpisode", "Pose4"]

#: An object's pose: x, y, z [m, world] of its body origin and yaw [rad] about +z.
Pose4 = tuple[float, float, float, float]


@dataclass(frozen=True)
class GoalEpisode:
    """One goal-task episode (module docstring).

    Attributes:
        suite: the goal suite whose table holds the row (``"vla-arena"``,
            ``"libero-layouts"``), or ``""`` for a bare seed.
        split: ``"eval"`` or ``"train"``.
        task: the task file: for a table row its path relative to ``tasks/`` in POSIX form
            (``"vla_arena/.../level_0/x.bddl"``), else the path as given.
        index: the row's index among the task file's rows of ``split`` (0-based).
        seed: the seed the layout was drawn from.
        draw: which draw of the seed's generator is the layout (0: the first; the earlier
            ones failed the settle checks, :meth:`rsb_mj.scene.goal_scene.GoalScene.reset`).
        layout: object name -> :data:`Pose4`, in the task's object order; empty for a bare
            seed (drawn at reset).
        skipped: seeds tried just before this one that gave no valid layout in any draw
            (the table skips them to the next seed; see :mod:`rsb_mj.tables.goal`).
        instruction: the instruction of an ablated episode (``rsb eval --instruction blank``,
            :func:`rsb_mj.evaluation.ablations.ablate`), or None for the task's
            ``:language``; never in a table row.
        variant: ``"original"``, or the instruction ablation mode that made ``instruction``.
    """

    suite: str
    split: str
    task: str
    index: int
    seed: int
    draw: int = 0
    layout: dict[str, Pose4] = field(default_factory=dict)
    skipped: tuple[int, ...] = ()
    instruction: str | None = None
    variant: str = "original"

    @classmethod
    def seeded(cls, task: str, seed: int, split: str = "eval") -> GoalEpisode:
        """The episode of a bare seed of ``task`` (row ``seed``; its layout drawn at reset)."""
        return cls("", split, str(task), int(seed), int(seed))

    @property
    def target(self) -> str:
        """The candidate ``?answer`` binds: ``""``, a goal task's ``:goal`` names its
        movers and places itself (a question episode's is its correct candidate)."""
        return ""

    @property
    def frozen(self) -> bool:
        """Whether the layout is given (a table row), not drawn at reset."""
        return bool(self.layout)

    def to_dict(self) -> dict[str, Any]:
        """The JSON row: every field; ``skipped`` only when not empty, ``instruction`` and
        ``variant`` only in an ablated episode (a table row has neither)."""
        out: dict[str, Any] = {
            "suite": self.suite,
            "split": self.split,
            "task": self.task,
            "index": self.index,
            "seed": self.seed,
            "draw": self.draw,
            "layout": {k: list(v) for k, v in self.layout.items()},
        }
        if self.skipped:
            out["skipped"] = list(self.skipped)
        if self.instruction is not None:
            out["instruction"] = self.instruction
        if self.variant != "original":
            out["variant"] = self.variant
        return out

    def dumps(self) -> str:
        """The row as one JSON line (no newline); floats as Python writes them, so they read
        back bit for bit."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> GoalEpisode:
        """The episode of a JSON row.

        Raises:
            EpisodeError: naming the missing or malformed field.
        """
        if not isinstance(row, dict):
            raise EpisodeError(f"a goal row is a JSON object, got {type(row).__name__}")
        need = ("suite", "split", "task", "index", "seed", "draw", "layout")
        missing = [k for k in need if k not in row]
        if missing:
            raise EpisodeError(f"goal row lacks the field(s) {', '.join(missing)}")
        extra = sorted(set(row) - {*need, "skipped", "instruction", "variant"})
        if extra:
            raise EpisodeError(f"goal row has unknown field(s) {', '.join(extra)}")
        for key in ("index", "seed", "draw"):
            if not isinstance(row[key], int) or isinstance(row[key], bool) or row[key] < 0:
                raise EpisodeError(f"goal row field {key!r}: a whole number >= 0, got {row[key]!r}")
        layout = row["layout"]
        if not isinstance(layout, dict):
            raise EpisodeError("goal row field 'layout': an object of name -> [x, y, z, yaw]")
        poses: dict[str, Pose4] = {}
        for name, pose in layout.items():
            if (
                not isinstance(pose, list)
                or len(pose) != 4
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in pose)
            ):
                raise EpisodeError(
                    f"goal row field 'layout': {name!r} is not [x, y, z, yaw] (4 numbers)"
                )
            x, y, z, yaw = (float(v) for v in pose)
            poses[str(name)] = (x, y, z, yaw)
        skipped = row.get("skipped", [])
        if not isinstance(skipped, list) or not all(isinstance(s, int) for s in skipped):
            raise EpisodeError("goal row field 'skipped': a list of seeds")
        instruction = row.get("instruction")
        if instruction is not None and not isinstance(instruction, str):
            raise EpisodeError("goal row field 'instruction': a string or absent")
        variant = row.get("variant", "original")
        if not isinstance(variant, str):
            raise EpisodeError("goal row field 'variant': a string or absent")
        return cls(
            suite=str(row["suite"]),
            split=str(row["split"]),
            task=str(row["task"]),
            index=row["index"],
            seed=row["seed"],
            draw=row["draw"],
            layout=poses,
            skipped=tuple(skipped),
            instruction=instruction,
            variant=variant,
        )
