"""The episode browser's data: one row per record, as compact JSON for the page's script.

Rows are lists in the order of :data:`COLUMNS` (a header once, not keys per row, so 10,000
episodes stay a few megabytes). A record whose run folder holds its video
(``<run>/videos/<video_file(...)>``, written by ``rsb eval --video INDEX``) gets a media
entry: the video's path relative to the report folder and a strip of its head-camera frames.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rsb_mj.evaluation.failure import failure_kind
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.evaluation.tables import PRIVILEGED_MARK, split_level
from rsb_mj.evaluation.video import video_file
from rsb_mj.reporting.html.frames import FRAMES, video_frames
from rsb_mj.tables.episode_source import is_task_file
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
#: against ``correct`` (``correct``, ``wrong`` or ``none``); ``media`` the key of the
#: episode's video entry, or None.
COLUMNS = (
    "label",
    "run",
    "policy",
    "suite",
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
    """``"correct"`` or ``"wrong"`` for a record with a choice (its first grasp), else
    ``"none"``."""
    if record.chosen_option is None:
        return "none"
    return "correct" if record.correct_choice else "wrong"


def episode_row(record: EpisodeRecord, label: str, run: str, media: str | None) -> list[Any]:
    """The browser row of ``record`` (values in :data:`COLUMNS` order)."""
    base, level = split_level(record.suite)
    a2a = None
    if record.item is not None:
        a2a = {
            "item": record.item,
            "category": record.category,
            "layout": record.layout,
            "chosen_side": record.chosen_side,
        }
    values = {
        "label": label + (PRIVILEGED_MARK if record.privileged else ""),
        "run": run,
        "policy": record.policy,
        "suite": source_label(base) if is_task_file(base) else base,
        "level": f"L{level}",
        "split": record.split,
        "index": record.index,
        "variant": record.variant,
        "perturbation": _perturbation(record),
        "outcome": record.termination,
        "kind": failure_kind(
            record.failure_reason,
            policy=record.policy,
            termination=record.termination,
            error_kind=record.error_kind,
        )
        or "-",
        "reason": record.failure_reason or "",
        "choice": record.chosen_option or "none",
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
        "seed": record.seed,
        "question_id": record.question_id,
        "wall_s": _finite(record.wall_s),
        "error": record.error,
        "media": media,
    }
    return [values[c] for c in COLUMNS]


def _media(record: EpisodeRecord, run_dir: Path, out: Path, frames: int) -> dict[str, Any] | None:
    """The video entry of ``record`` when its run folder holds its video."""
    name = video_file(record.suite, record.policy, record.split, record.index, record.variant)
    path = RunFolder(run_dir).videos_dir / name
    if not path.is_file():
        return None
    strip = video_frames(path, frames) if frames else []
    return {
        "video": Path(os.path.relpath(path.resolve(), out.resolve())).as_posix(),
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
        runs: records per row label.
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
