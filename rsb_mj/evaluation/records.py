"""Per-episode result records, appended atomically to a JSONL file.

One line per finished episode. Appends go through one ``write`` of the whole line on an
``O_APPEND`` descriptor followed by ``fsync``, and only the runner's parent process writes,
so a kill can at worst leave a *torn last line* (no newline): :func:`read_records` ignores
it and :func:`repair` cuts it off before a resumed run appends again. Records are keyed by
(suite, split, index, policy); a duplicate key keeps the first record.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from rsb_mj.errors import EvalError

#: File name of the records inside a run directory.
RECORDS_FILE = "episodes.jsonl"


@dataclass(frozen=True)
class EpisodeRecord:
    """The result of one episode of one policy.

    Attributes:
        suite, split, index, seed: the episode's identity (frozen eval tables).
        policy: the policy spec, e.g. ``"expert"``.
        task: task file name; question_id, template_id: the episode's draws.
        choices: N; correct: correct option letter; target: its candidate.
        choice: first candidate grasped (the policy's choice) or None; chosen_option: its letter.
        in_zone: candidates in the answer zone when the episode ended.
        grasp_step, success_step: control steps (1-based, 20 Hz) of the first grasp and of
            latched success, or None.
        grasped: GSR flag; success: TSR flag; goal_final: the goal held at the end.
        termination: ``"success"``, ``"step_limit"``, ``"policy_done"`` or ``"error"``.
        steps: control steps run; max_steps: the limit in force.
        wall_s: wall time of the episode [s], including reset.
        error: the error message when termination is ``"error"``.
        versions: ``{"rsb_mj": ..., "mujoco": ...}``.
        sim: the environment's simulation settings at reset (``info["sim"]``: mujoco version,
            rendering quality preset, control rate [Hz], timestep [s], substeps).
    """

    suite: str
    split: str
    index: int
    seed: int
    policy: str
    task: str
    question_id: str
    template_id: str
    choices: int
    correct: str
    target: str
    choice: str | None
    chosen_option: str | None
    in_zone: list[str]
    grasp_step: int | None
    success_step: int | None
    grasped: bool
    success: bool
    goal_final: bool
    termination: str
    steps: int
    max_steps: int
    wall_s: float
    error: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    sim: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, int, str]:
        """(suite, split, index, policy): one record per key."""
        return (self.suite, self.split, self.index, self.policy)

    def to_json(self) -> str:
        """One JSON line (no newline)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_dict(cls, row: dict[str, Any], *, where: str = "") -> EpisodeRecord:
        """Inverse of ``asdict``.

        Raises:
            EvalError: naming the missing fields.
        """
        names = {f.name for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.name not in ("error", "versions", "sim")}
        missing = sorted(required - set(row))
        if missing:
            raise EvalError(f"{where}: record lacks fields {missing}")
        return cls(**{k: v for k, v in row.items() if k in names})


def append_record(path: Path, record: EpisodeRecord) -> None:
    """Append ``record`` as one line with a single write, then fsync."""
    data = (record.to_json() + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def repair(path: Path) -> int:
    """Cut a torn last line (no trailing newline) off ``path``; returns bytes removed."""
    if not path.exists():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with open(path, "r+b") as fh:
        fh.truncate(keep)
    return len(data) - keep


def read_records(path: Path) -> list[EpisodeRecord]:
    """Records of ``path`` in file order, one per key (the first), torn last line ignored.

    Raises:
        EvalError: for a malformed complete line, naming ``path:line``.
    """
    if not path.exists():
        return []
    lines = path.read_bytes().split(b"\n")
    complete = lines[:-1]  # the last piece is "" or a torn line
    seen: set[tuple[str, str, int, str]] = set()
    out: list[EpisodeRecord] = []
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalError(f"{path}:{number}: not a JSON record ({exc.msg})") from None
        rec = EpisodeRecord.from_dict(row, where=f"{path}:{number}")
        if rec.key not in seen:
            seen.add(rec.key)
            out.append(rec)
    return out
