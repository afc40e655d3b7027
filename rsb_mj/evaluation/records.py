"""Per-episode result records, appended atomically to a JSONL file.

One line per finished episode. Appends go through one ``write`` of the whole line on an
``O_APPEND`` descriptor followed by ``fsync``, and only the runner's parent process writes,
so a kill can at worst leave a *torn last line* (no newline): :func:`read_records` ignores
it and :func:`repair` cuts it off before a resumed run appends again. Records are keyed by
(suite, split, index, policy, variant). An *error* record (``termination == "error"``: a fault, not
a result) is superseded by a later scored record of the same key: a key's record is its
first scored one, else its last error.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from rsb_mj.atomic import WriteError
from rsb_mj.errors import EvalError

#: (suite, split, index, policy, variant): what identifies a record.
RecordKey = tuple[str, str, int, str, str]


@dataclass(frozen=True)
class EpisodeRecord:
    """The result of one episode of one policy.

    Attributes:
        suite, split, index, seed: the episode's identity (frozen eval tables).
        policy: the policy spec, e.g. ``"expert"``.
        task: task file name; question_id, template_id: the episode's draws.
        choices: N; correct: correct option letter; target: its candidate.
        choice: first candidate grasped (the policy's one attempt) or None; chosen_option: its
            letter.
        grasped_candidates: every candidate grasped, in order (only the first counts).
        in_zone: candidates in the answer zone when the episode ended.
        grasp_step, success_step: control steps (1-based, 20 Hz) of the first grasp and of
            the decided success, or None.
        grasped: GSR flag; correct_choice: the choice is the correct candidate; success: TSR
            flag (correct choice, ending in the zone released); goal_final: the goal held at
            the last substep.
        termination: ``"success"``, ``"wrong_choice"``, ``"step_limit"``, ``"policy_done"``,
            ``"policy_fault"`` (the policy's own fault: a scored failure,
            :mod:`rsb_mj.evaluation.faults`) or ``"error"`` (a fault outside the policy).
        steps: control steps run; max_steps: the limit in force.
        wall_s: wall time of the episode [s], including reset.
        privileged: the policy read the answer (the built-in expert): an oracle reference.
        text: the last text the policy wrote in the episode (a rationale), or None;
            text_choice: the option letter that text names, or None.
        variant: ``"original"``, an instruction ablation mode (``"blank"``, ``"tokens"``,
            ...) or ``"counterfactual"`` (see :mod:`rsb_mj.evaluation.ablations`).
        error: the fault's message when termination is ``"error"`` or ``"policy_fault"``;
            error_kind: whose fault, ``"infra"`` or ``"policy"`` (an error of kind
            ``"policy"`` is a record written before policy faults were scored).
        failure_reason: why a failed episode failed, one line (see
            :mod:`rsb_mj.evaluation.failure`); None for a success.
        versions: ``{"rsb_mj": ..., "mujoco": ...}``.
        sim: the environment's simulation settings at reset (``info["sim"]``: mujoco version,
            rendering quality preset, control rate [Hz], timestep [s], substeps).
        cost: the episode's cumulative safety cost (:mod:`rsb_mj.scoring.cost`: 1 per
            control step a step term is violated, 10 per end term violated at the end), or
            None when the task has no ``:cost``.
        cost_terms: per term ``"{i} {term}"`` -> ``{"kind", "violations", "cost"}``.
        cost_implicit_and: the ``:cost`` block has several terms without an ``And`` (VLA-Arena
            would keep only the first; rsb evaluated them all).
        item, layout, category: Act2Answer episodes only (None otherwise): the item id, the
            plate order (``"original"`` or ``"swapped"``) and the knowledge category.
        chosen_side: Act2Answer: ``"left"`` or ``"right"``, where the chosen plate stood
            (None without a choice).
        instruction: the instruction the policy was given (after any ablation or language
            perturbation: ``info["instruction"]`` at reset), or None in records written
            before it was recorded, in error records of episodes that never started and
            in records of private rows (it holds the private question).
        features: ``rsb eval --features`` only (None otherwise): where the episode's
            per-layer features are stored and their shapes, or why there are none (see
            :mod:`rsb_mj.probing.store`). Never scored.
        tables: ``""`` for a row of the shipped tables (or a task file's seeded draw); for
            a row of private tables (``rsb eval --tables DIR``) the sha256 of their private
            manifest, and then ``seed`` is 0, ``question_id`` and ``item`` are
            ``"private-N"`` and ``index`` is the row's position in the private table
            (:func:`rsb_mj.evaluation.private_records.private_record`).
        tier, semantics, objects, objects_fingerprint, failure_class: goal tasks only
            (:data:`GOAL_FIELDS`: None, and absent from the JSON line, for a question
            task's record): the file's tier (``A0``, ``A1``), whose predicate semantics
            applied (``libero``, ``vla_arena``), where the objects came from
            (``"standins"`` or ``"assets:<fingerprint>"``; a report refuses to pool
            different ones), sha256 over the original asset files (``""`` for the
            stand-ins) and the failure's class
            (:func:`rsb_mj.evaluation.failure.goal_failure_class`; ``""`` on success). A goal
            record's question columns are empty (``question_id`` ``""``, ``choices`` 0); an
            error record of an episode whose environment was never built names its tier and
            semantics but no objects.
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
    grasped_candidates: list[str]
    in_zone: list[str]
    grasp_step: int | None
    success_step: int | None
    grasped: bool
    correct_choice: bool
    success: bool
    goal_final: bool
    termination: str
    steps: int
    max_steps: int
    wall_s: float
    privileged: bool = False
    variant: str = "original"
    text: str | None = None
    text_choice: str | None = None
    error: str | None = None
    error_kind: str | None = None
    failure_reason: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    sim: dict[str, Any] = field(default_factory=dict)
    cost: float | None = None
    cost_terms: dict[str, Any] = field(default_factory=dict)
    cost_implicit_and: bool = False
    item: str | None = None
    layout: str | None = None
    category: str | None = None
    chosen_side: str | None = None
    instruction: str | None = None
    features: dict[str, Any] | None = None
    tables: str = ""
    tier: str | None = None
    semantics: str | None = None
    objects: str | None = None
    objects_fingerprint: str | None = None
    failure_class: str | None = None

    @property
    def is_error(self) -> bool:
        """The episode ended in a fault (excluded from metrics, rerun on resume)."""
        return self.termination == "error"

    @property
    def is_goal(self) -> bool:
        """A goal task's record (it names its tier)."""
        return self.tier is not None

    @property
    def key(self) -> RecordKey:
        """(suite, split, index, policy, variant): one record per key."""
        return (self.suite, self.split, self.index, self.policy, self.variant)

    def to_json(self) -> str:
        """One JSON line (no newline); the goal fields only in a goal task's record."""
        row = asdict(self)
        for name in GOAL_FIELDS:
            if row[name] is None:
                del row[name]
        return json.dumps(row, sort_keys=True)

    @classmethod
    def from_dict(cls, row: dict[str, Any], *, where: str = "") -> EpisodeRecord:
        """Inverse of ``asdict``, checking every field's type.

        Raises:
            EvalError: naming the missing fields, or the field with a wrong type and the
                type it must have.
        """
        if not isinstance(row, dict):
            raise EvalError(f"{where}: a record must be a JSON object, got {type(row).__name__}")
        missing = sorted(_REQUIRED - set(row))
        if missing:
            raise EvalError(f"{where}: record lacks fields {missing}")
        values = {k: v for k, v in row.items() if k in _TYPES}
        for name, value in values.items():
            types = _TYPES[name]
            ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
            if ok and isinstance(value, list):
                ok = all(isinstance(v, str) for v in value)
            if not ok:
                want = " or ".join("null" if t is type(None) else t.__name__ for t in types)
                raise EvalError(
                    f"{where}: field {name!r} is {json.dumps(value)[:40]}; it must be {want}"
                )
        return cls(**values)


#: The fields only a goal task's record holds (absent from a question task's JSON line).
GOAL_FIELDS = ("tier", "semantics", "objects", "objects_fingerprint", "failure_class")

#: Field name -> the JSON types it may hold.
_TYPES: dict[str, tuple[type, ...]] = {
    "suite": (str,),
    "split": (str,),
    "index": (int,),
    "seed": (int,),
    "policy": (str,),
    "task": (str,),
    "question_id": (str,),
    "template_id": (str,),
    "choices": (int,),
    "correct": (str,),
    "target": (str,),
    "choice": (str, type(None)),
    "chosen_option": (str, type(None)),
    "grasped_candidates": (list,),
    "in_zone": (list,),
    "grasp_step": (int, type(None)),
    "success_step": (int, type(None)),
    "grasped": (bool,),
    "correct_choice": (bool,),
    "success": (bool,),
    "goal_final": (bool,),
    "termination": (str,),
    "steps": (int,),
    "max_steps": (int,),
    "wall_s": (float, int),
    "privileged": (bool,),
    "variant": (str,),
    "text": (str, type(None)),
    "text_choice": (str, type(None)),
    "error": (str, type(None)),
    "error_kind": (str, type(None)),
    "failure_reason": (str, type(None)),
    "versions": (dict,),
    "sim": (dict,),
    "cost": (float, int, type(None)),
    "cost_terms": (dict,),
    "cost_implicit_and": (bool,),
    "item": (str, type(None)),
    "layout": (str, type(None)),
    "category": (str, type(None)),
    "chosen_side": (str, type(None)),
    "instruction": (str, type(None)),
    "features": (dict, type(None)),
    "tables": (str,),
    **dict.fromkeys(GOAL_FIELDS, (str, type(None))),
}
_REQUIRED = {
    f.name for f in fields(EpisodeRecord) if f.default is MISSING and f.default_factory is MISSING
}


def append_record(path: Path, record: EpisodeRecord | None, line: str | None = None) -> None:
    """Append ``record`` as one line with a single write, then fsync; ``line``: the line
    to write instead of ``record.to_json()`` (a sealed run's signed line of it, or its
    closing record with ``record`` None).

    Raises:
        WriteError: when the line cannot be written whole (full disk, ``ulimit -f``, no
            permission): naming ``path`` and the cause. A part already written is cut off
            again where possible (else :func:`repair` cuts it on resume); the records before
            it stay.
    """
    if line is None:
        if record is None:
            raise TypeError("append_record: a record or a line")
        line = record.to_json()
    data = (line + "\n").encode()
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise WriteError(f"{path}: cannot append a record ({exc.strerror or exc})") from None
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise WriteError(
                f"{path}: cannot append a record ({exc.strerror or exc}); the {_lines(size, fd)} "
                "records before it are kept: make room and rerun the same command to resume"
            ) from None
    finally:
        os.close(fd)


def _lines(size: int, fd: int) -> int:
    """Complete lines in the first ``size`` bytes of ``fd`` (for a message; 0 if unreadable)."""
    try:
        return os.pread(fd, size, 0).count(b"\n") if size else 0
    except OSError:
        return 0


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


def numbered_records(path: Path) -> list[tuple[int, EpisodeRecord]]:
    """Every complete line of ``path`` as ``(line number, record)``, in file order (blank
    lines and a sealed run's closing records skipped, a torn last line ignored); ``[]``
    when there is no file.

    Raises:
        EvalError: for a malformed complete line, naming ``path:line``; for a file that
            cannot be read.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise EvalError(f"{path}: cannot read the records ({exc.strerror or exc})") from None
    complete = data.split(b"\n")[:-1]  # the last piece is "" or a torn line
    out = []
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise EvalError(f"{path}:{number}: not a JSON record ({msg})") from None
        if isinstance(row, dict) and "closing" in row:
            continue  # a sealed run's closing record (rsb_mj.evaluation.sealed.closing_line)
        out.append((number, EpisodeRecord.from_dict(row, where=f"{path}:{number}")))
    return out


def read_records(path: Path) -> list[EpisodeRecord]:
    """Records of ``path``, one per key (its first scored record, else its last error), in
    order of each key's first line; a torn last line is ignored.

    Raises:
        EvalError: for a malformed complete line, naming ``path:line``.
    """
    chosen: dict[RecordKey, EpisodeRecord] = {}
    for _, rec in numbered_records(path):
        held = chosen.get(rec.key)
        if held is None or held.is_error:
            chosen[rec.key] = rec
    return list(chosen.values())
