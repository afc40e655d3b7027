"""The episode browser's data: one row per record, as compact JSON for the page's script.

Rows are lists in the order of :data:`COLUMNS` (a header once, not keys per row, so 10,000
episodes stay a few megabytes). A record whose run folder holds its video
(``<run>/videos/<video_file(...)>``, written by ``rsb eval --video INDEX``) gets a media
entry: the video's path relative to the report folder and a strip of its head-camera frames.

Question and goal tasks' records share the rows (``family``): a goal record
(:attr:`~rsb_mj.evaluation.records.EpisodeRecord.is_goal`, a LIBERO / VLA-Arena style file)
has its goal suite as ``suite`` (:func:`rsb_mj.evaluation.metrics.suite_of`), its task
file's name as ``task``, the VLA-Arena level of its folder (``level_K``) as ``level``, its
failure class (:func:`rsb_mj.evaluation.failure.goal_failure_class`) as ``kind``, no choice
(``-``), and ``goal``: the file, tier, predicate semantics, object source and failure class.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rsb_mj.evaluation.failure import failure_kind, goal_failure_class
from rsb_mj.evaluation.metrics import suite_of
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.evaluation.tables import PRIVILEGED_MARK, split_level
from rsb_mj.evaluation.video import video_file
from rsb_mj.reporting.html.frames import FRAMES, video_frames
from rsb_mj.tables.episode_source import is_task_file, split_goal_row_source
from rsb_mj.tables.episode_source import label as source_label

__all__ = [
    "COLUMNS",
    "NOT_RECORDED",
    "browser_data",
    "browser_json",
    "episode_row",
    "verdict",
]

#: Fields of a browser row, in order. ``label`` is the report's row label (policy, or
#: ``dir:policy``, with the privileged mark where due); ``suite`` the suite without its
#: level suffix (``level`` holds L0-L2); ``perturbation`` the visual and language levels
#: (``V2 W0``); ``kind`` the failure family (:func:`rsb_mj.evaluation.failure.failure_kind`);
#: ``choice`` the chosen option letter (``none`` without a grasp) and ``verdict`` its reading
#: against ``correct`` (``correct``, ``wrong`` or ``none``; ``-`` for a goal task's);
#: ``family`` ``question`` or ``goal``; ``task`` a goal task's file name (``-`` for a
#: question's); ``goal`` a goal task's file, tier, semantics, objects and failure class
#: (None for a question's); ``media`` the key of the episode's video entry, or None.
COLUMNS = (
    "family",
    "label",
    "run",
    "policy",
    "suite",
    "task",
    "level",
    "split",
    "index",
    "variant",
    "perturbation",
    "outcome",
    "kind",
    "reason",
    "choice",
    "correct",
    "verdict",
    "chosen",
    "target",
    "grasped",
    "grasp_step",
    "success_step",
    "steps",
    "max_steps",
    "cost",
    "instruction",
    "text",
    "text_choice",
    "grasped_candidates",
    "in_zone",
    "cost_terms",
    "a2a",
    "goal",
    "seed",
    "question_id",
    "wall_s",
    "error",
    "media",
)
#: Shown for the instruction of records written before instructions were recorded.
NOT_RECORDED = "(not recorded: this run predates recorded instructions)"


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def _perturbation(record: EpisodeRecord) -> str:
    levels = (record.sim or {}).get("perturbation")
    if not isinstance(levels, dict):
        return "-"
    return f"V{int(levels.get('visual_level') or 0)} W{int(levels.get('language_level') or 0)}"


def verdict(record: EpisodeRecord) -> str:
    """``"correct"`` or ``"wrong"`` for a record with a choice (its first grasp), ``"-"``
    for a goal task's (no question), else ``"none"``."""
    if record.is_goal:
        return "-"
    if record.chosen_option is None:
        return "none"
    return "correct" if record.correct_choice else "wrong"


def _kind(record: EpisodeRecord) -> str:
    """The failure family of the browser's filter: a goal record's failure class (its
    error records by whose fault, as a question's), else :func:`failure_kind`."""
    if record.is_goal and record.termination != "error":
        found = record.failure_class
        if found is None:  # a record from before failure classes were recorded
            found = goal_failure_class(
                record.failure_reason, policy=record.policy, termination=record.termination
            )
        return found or "-"
    kind = failure_kind(
        record.failure_reason,
        policy=record.policy,
        termination=record.termination,
        error_kind=record.error_kind,
    )
    return kind or "-"


def _goal(record: EpisodeRecord) -> tuple[str, str, str, dict[str, Any]]:
    """A goal record's suite, task file name, level (``L0``-``L2`` from a VLA-Arena
    ``level_K`` folder, else ``-``) and the browser's ``goal`` entry."""
    row = split_goal_row_source(record.suite)
    file = row[1] if row is not None else record.suite
    found = re.search(r"(?:^|/)level_(\d+)/", Path(file).as_posix())
    goal = {
        "file": file,
        "tier": record.tier,
        "semantics": record.semantics,
        "objects": record.objects,
        "failure_class": _kind(record) if record.termination != "error" else "error",
    }
    level = f"L{found.group(1)}" if found else "-"
    return suite_of(record.suite), Path(file).name, level, goal


def episode_row(record: EpisodeRecord, label: str, run: str, media: str | None) -> list[Any]:
    """The browser row of ``record`` (values in :data:`COLUMNS` order)."""
    if record.is_goal:
        suite, task, level_name, goal = _goal(record)
    else:
        base, level = split_level(record.suite)
        suite = source_label(base) if is_task_file(base) else base
        task, level_name, goal = "-", f"L{level}", None
    a2a = None
    if record.item is not None:
        a2a = {
            "item": record.item,
            "category": record.category,
            "layout": record.layout,
            "chosen_side": record.chosen_side,
        }
    values = {
        "family": "goal" if record.is_goal else "question",
        "label": label + (PRIVILEGED_MARK if record.privileged else ""),
        "run": run,
        "policy": record.policy,
        "suite": suite,
        "task": task,
        "level": level_name,
        "split": record.split,
        "index": record.index,
        "variant": record.variant,
        "perturbation": _perturbation(record),
        "outcome": record.termination,
        "kind": _kind(record),
        "reason": record.failure_reason or "",
        "choice": "-" if record.is_goal else record.chosen_option or "none",
        "correct": record.correct,
        "verdict": verdict(record),
        "chosen": record.choice,
        "target": record.target,
        "grasped": record.grasped,
        "grasp_step": record.grasp_step,
        "success_step": record.success_step,
        "steps": record.steps,
        "max_steps": record.max_steps,
        "cost": _finite(record.cost),
        "instruction": NOT_RECORDED if record.instruction is None else record.instruction,
        "text": record.text,
        "text_choice": record.text_choice,
        "grasped_candidates": record.grasped_candidates,
        "in_zone": record.in_zone,
        "cost_terms": record.cost_terms or None,
        "a2a": a2a,
        "goal": goal,
        "seed": record.seed,
        "question_id": record.question_id,
        "wall_s": _finite(record.wall_s),
        "error": record.error,
        "media": media,
    }
    return [values[c] for c in COLUMNS]


def _media(record: EpisodeRecord, run_dir: Path, out: Path, frames: int) -> dict[str, Any] | None:
    """The video entry of ``record`` when its run folder holds its video: ``video`` its
    path relative to the report folder (the link), ``file`` its path as the run folder was
    named (where it is when the page has moved), ``frames`` ``[step, data URL]``."""
    name = video_file(record.suite, record.policy, record.split, record.index, record.variant)
    path = RunFolder(run_dir).videos_dir / name
    if not path.is_file():
        return None
    strip = video_frames(path, frames) if frames else []
    return {
        "video": Path(os.path.relpath(path.resolve(), out.resolve())).as_posix(),
        "file": path.as_posix(),
        "frames": [[f.step, f.url] for f in strip],
    }


def browser_data(
    runs: Mapping[str, list[EpisodeRecord]],
    run_dirs: Mapping[str, Path],
    out: Path,
    *,
    frames: int = FRAMES,
) -> dict[str, Any]:
    """``{"columns", "rows", "media"}`` of every record of ``runs``.

    Args:
        runs: records per row label (question and goal tasks').
        run_dirs: the run folder of each row label (where its videos are).
        out: the report folder (video links are relative to it).
        frames: frames taken from each video (0: link only).
    """
    rows = []
    media: dict[str, Any] = {}
    for label, records in runs.items():
        run_dir = Path(run_dirs[label])
        for record in records:
            entry = _media(record, run_dir, out, frames)
            key = None
            if entry is not None:
                key = str(len(media))
                media[key] = entry
            rows.append(episode_row(record, label, run_dir.name, key))
    return {"columns": list(COLUMNS), "rows": rows, "media": media}


def browser_json(data: dict[str, Any]) -> str:
    """``data`` as JSON safe inside a ``<script>`` element (no ``<`` left to end it)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
