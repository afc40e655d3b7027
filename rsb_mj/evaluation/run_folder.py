"""A run folder (``rsb eval --out DIR``): its files, opened, checked and resumed in one place.

A run folder holds

* ``run.json`` (:data:`RUN_FILE`): the run's description, written when the run starts: the
  split, perturbation levels, control rate, Act2Answer start, goal assets, ``--features``
  mode, the versions and renderer fingerprint it started with, per suite the task's digest
  (``"tasks": {suite: {"sha256": ..., "files": {name: sha256}}}``: the sha256 of its task
  file and of every file that names, :mod:`rsb_mj.lang.digest`), and for private tables
  their manifest's sha256 (``tables``) and for a sealed run its key id
  (``"sealed": {"key_id": ...}``, :mod:`rsb_mj.evaluation.sealed`);
* ``episodes.jsonl`` (:data:`RECORDS_FILE`): one record per finished episode, in the format
  of :mod:`rsb_mj.evaluation.records` (appended atomically; a torn last line left by a kill
  is cut off before a resumed run appends again);
* ``features/`` and ``videos/`` (:mod:`rsb_mj.probing.store`, :mod:`rsb_mj.evaluation.video`)
  and ``.rsb.lock`` (:mod:`rsb_mj.lock`: one writer per folder).

:class:`RunFolder` is the one reader and writer of these files: ``rsb eval`` starts or resumes
one (:meth:`RunFolder.prepare` refuses a resumed run that asks other :class:`RunSettings`,
naming the flag and both values, or whose tasks changed since, naming the files;
:meth:`RunFolder.resume` says which jobs are still to run), ``rsb eval --forget`` drops a
policy's records, and ``rsb report``, ``rsb probe`` and ``rsb expert-check`` read the
records and the seal of a folder through it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.atomic import WriteError, atomic_write_bytes, atomic_write_text
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import (
    EpisodeRecord,
    RecordKey,
    append_record,
    numbered_records,
    read_records,
    repair,
)
from rsb_mj.evaluation.video import VIDEOS_DIR
from rsb_mj.lang.digest import TaskDigest
from rsb_mj.lock import FolderLock, lock_folder
from rsb_mj.probing.store import FEATURES_DIR
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.fingerprint import renderer_fingerprint
from rsb_mj.version import versions

if TYPE_CHECKING:
    from rsb_mj.evaluation.sealed import Seal

#: Name of the run description inside a run folder.
RUN_FILE = "run.json"
#: Name of the records file inside a run folder.
RECORDS_FILE = "episodes.jsonl"


@dataclass(frozen=True)
class RunSettings:
    """What a run folder keeps of the command that started it, and refuses to resume with
    other values of (its records would pool episodes run under different settings).

    Attributes:
        split: ``"eval"`` or ``"train"``.
        visual_level, language_level: VLA-Arena's perturbation levels.
        control_hz: the environments' control rate [Hz].
        a2a_start: ``"held"`` or ``"table"``: where Act2Answer's cube starts.
        assets: goal tasks' object folder (``""``: the default).
        features: the ``--features`` mode (``""``: none); feature_modules: the
            ``--feature-modules``.
        tables: the ``--tables`` folder as given (None: the shipped tables); tables_sha256:
            its private manifest's sha256 (None without ``tables``).
        seal_key_id: a sealed run's key id (:attr:`Seal.key_id`); None for an unsealed run.
        seal_nonce: a new sealed run's nonce (kept on resume: the folder's own wins).
        seal_isolation: what a sealed run's policies are isolated by
            (:meth:`rsb_mj.policies.sandbox.Sandbox.isolation`; the latest command's).
    """

    split: str
    visual_level: int = 0
    language_level: int = 0
    control_hz: int = CONTROL_HZ
    a2a_start: str = "held"
    assets: str = ""
    features: str = ""
    feature_modules: tuple[str, ...] = ()
    tables: Path | None = None
    tables_sha256: str | None = None
    seal_key_id: str | None = None
    seal_nonce: str = ""
    seal_isolation: dict[str, Any] | None = None


#: The settings a run description may lack (written before they were kept), with the value
#: such a folder ran with; each is refused under its flag ``--visual-level`` ... .
_DEFAULTS: dict[str, Any] = {
    "visual_level": 0,
    "language_level": 0,
    "control_hz": CONTROL_HZ,
    "a2a_start": "held",
    "assets": "",
}


class RunFolder:
    """The run folder ``path`` (see the module docstring); nothing is read or written until
    a method asks, and ``run.json`` is read and validated once.

    Args:
        path: the folder (it need not exist yet).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._raw: Any = None  # run.json as parsed, once read
        self._read_done = False

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    # ---- its files ----------------------------------------------------------------------

    @property
    def run_file(self) -> Path:
        """The run description, ``path/run.json``."""
        return self.path / RUN_FILE

    @property
    def records_file(self) -> Path:
        """The records, ``path/episodes.jsonl``."""
        return self.path / RECORDS_FILE

    @property
    def features_dir(self) -> Path:
        """The episodes' feature archives, ``path/features``."""
        return self.path / FEATURES_DIR

    @property
    def videos_dir(self) -> Path:
        """The episodes' head-camera videos, ``path/videos``."""
        return self.path / VIDEOS_DIR

    def lock(self, command: str) -> FolderLock:
        """Create the folder if missing and take its lock (:func:`rsb_mj.lock.lock_folder`).

        Raises:
            LockedError: another process holds it (naming its pid and command);
            WriteError: the folder cannot be created or written.
        """
        return lock_folder(self.path, command)

    # ---- run.json -----------------------------------------------------------------------

    def _read(self) -> Any:
        """``run.json`` as parsed (None when there is none), read once.

        Raises:
            EvalError: ``run.json:line:col`` for a file that is not JSON, or one that
                cannot be read.
        """
        if self._read_done:
            return self._raw
        run_file = self.run_file
        if not run_file.exists():
            return None
        try:
            raw = json.loads(run_file.read_text())
        except json.JSONDecodeError as exc:
            raise EvalError(
                f"{run_file}:{exc.lineno}:{exc.colno}: not a valid run description "
                f"({exc.msg}); fix or remove it, or use another --out"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise EvalError(f"{run_file}: cannot read the run description ({exc})") from None
        self._raw, self._read_done = raw, True
        return raw

    def _write(self, description: dict[str, Any]) -> None:
        atomic_write_text(self.run_file, json.dumps(description, indent=2))
        self._raw, self._read_done = description, True

    def description(self) -> dict[str, Any] | None:
        """The run description (None before the run started), checked: an object with a
        ``split`` string and, when it keeps tasks, a ``sha256`` and ``files`` per suite.

        Raises:
            EvalError: naming ``run.json`` (and its line and column for bad JSON).
        """
        raw = self._read()
        if raw is None:
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("split"), str):
            raise EvalError(
                f"{self.run_file}: not a valid run description (expected an object with a "
                f"'split' string); fix or remove it, or use another --out"
            )
        tasks = raw.get("tasks", {})
        valid = isinstance(tasks, dict) and all(
            isinstance(v, dict)
            and isinstance(v.get("sha256"), str)
            and isinstance(v.get("files"), dict)
            for v in tasks.values()
        )
        if not valid:
            raise EvalError(
                f"{self.run_file}: not a valid run description ('tasks' must map each suite "
                "to {'sha256': ..., 'files': {...}}); fix or remove it, or use another --out"
            )
        return raw

    def _lenient(self) -> dict[str, Any]:
        """The run description when it is a JSON object, else ``{}`` (missing, unreadable,
        not JSON): for what only asks whether a folder is sealed."""
        try:
            raw = self._read()
        except EvalError:
            return {}
        return raw if isinstance(raw, dict) else {}

    def prepare(
        self, settings: RunSettings, digests: dict[str, TaskDigest], *, videos: bool = False
    ) -> None:
        """Start the run (write ``run.json``) or check that it resumes the same one; record
        the digests of suites new to the folder; cut a torn last record off. Call it with
        the folder locked (:meth:`lock`).

        Args:
            settings: what the command asks.
            digests: each suite's task digest, keyed by the name its records carry.
            videos: the command writes videos (``videos/`` must then be a folder).

        Raises:
            EvalError: a resumed run that asks another setting than the folder holds (the
                flag and both values), whose task changed since (the files that changed and
                both digests), or whose ``run.json`` is not a valid run description.
            WriteError: the folder's files cannot be written.
        """
        previous = self.description()
        if previous is not None:
            self._check_settings(previous, settings)
            tasks = previous.get("tasks", {})
            self._check_tasks(tasks, digests)
            if any(suite not in tasks for suite in digests):
                tasks.update({k: _entry(d) for k, d in digests.items() if k not in tasks})
                self._write({**previous, "tasks": tasks})
            held = previous.get("sealed")
            isolation = settings.seal_isolation
            if isinstance(held, dict) and isolation and held.get("isolation") != isolation:
                description = self.description() or previous
                self._write({**description, "sealed": {**held, "isolation": isolation}})
        else:
            description = {
                "split": settings.split,
                "visual_level": settings.visual_level,
                "language_level": settings.language_level,
                "control_hz": settings.control_hz,
                "a2a_start": settings.a2a_start,
                **({"assets": settings.assets} if settings.assets else {}),
                "features": settings.features,
                "feature_modules": list(settings.feature_modules),
                "versions": versions(),
                "renderer": renderer_fingerprint().to_dict(),
                "tasks": {k: _entry(d) for k, d in digests.items()},
            }
            if settings.tables is not None:
                description["tables"] = settings.tables_sha256
            if settings.seal_key_id is not None:
                description["sealed"] = {"key_id": settings.seal_key_id}
                if settings.seal_nonce:
                    description["sealed"]["nonce"] = settings.seal_nonce
                if settings.seal_isolation is not None:
                    description["sealed"]["isolation"] = settings.seal_isolation
            self._write(description)
        if videos and self.videos_dir.exists() and not self.videos_dir.is_dir():
            raise WriteError(f"{self.videos_dir}: exists and is not a folder (videos go there)")
        records = self.records_file
        if records.exists() and not records.is_file():
            raise WriteError(f"{records}: exists and is not a file")
        try:
            repair(records)
        except OSError as exc:
            raise WriteError(f"{records}: cannot write ({exc.strerror or exc})") from None

    def unstart(self) -> None:
        """Undo a :meth:`prepare` that started the run (wrote ``run.json``) when the command
        then stops before its first episode (a policy that fails its start-up check, a bad
        video path, Ctrl-C): ``run.json`` and an empty records file go, so that the folder
        does not fix settings no episode ran with. Call it with the folder locked."""
        records = self.records_file
        if records.is_file() and records.stat().st_size == 0:
            records.unlink()
        self.run_file.unlink(missing_ok=True)
        self._raw, self._read_done = None, False

    def _check_settings(self, previous: dict[str, Any], settings: RunSettings) -> None:
        """Refuse ``settings`` other than those of the run description ``previous``."""
        run_file = self.run_file
        if previous["split"] != settings.split:
            raise EvalError(
                f"{run_file}: this run directory holds split {previous['split']!r}; "
                f"use another --out for split {settings.split!r}"
            )
        held_tables, asked_tables = previous.get("tables"), settings.tables_sha256
        if held_tables != asked_tables:
            held_text = (
                f"private tables {held_tables[:16]}" if held_tables else "the shipped tables"
            )
            asked_text = (
                f"--tables {settings.tables} (private tables {asked_tables[:16]})"
                if asked_tables
                else "the shipped tables"
            )
            raise EvalError(
                f"{run_file}: this run directory holds records of {held_text}; use another "
                f"--out for {asked_text}"
            )
        held_seal = (previous.get("sealed") or {}).get("key_id")
        asked_seal = settings.seal_key_id
        if held_seal != asked_seal:
            held_text = (
                f"a sealed run (key id {held_seal[:12]})" if held_seal else "an unsealed run"
            )
            asked_text = (
                f"a sealed run with key id {asked_seal[:12]}" if asked_seal else "an unsealed one"
            )
            raise EvalError(
                f"{run_file}: this run directory holds {held_text}; this command asks "
                f"{asked_text}: use another --out"
            )
        for name, default in _DEFAULTS.items():
            held, asked = previous.get(name, default), getattr(settings, name)
            if held != asked:
                flag = "--" + name.replace("_", "-")
                raise EvalError(
                    f"{run_file}: this run directory holds {flag} {held}; use another --out "
                    f"for {flag} {asked}"
                )
        # features: a resumed run's records would mix episodes with and without them
        held_features = (
            str(previous.get("features", "")),
            tuple(previous.get("feature_modules", ())),
        )
        asked_features = (settings.features, tuple(settings.feature_modules))
        if held_features != asked_features:

            def said(mode: str, modules: tuple[str, ...]) -> str:
                text = f"--features {mode}" if mode else "no --features"
                return text + (f" --feature-modules {','.join(modules)}" if modules else "")

            raise EvalError(
                f"{run_file}: this run directory holds {said(*held_features)}; use another "
                f"--out for {said(*asked_features)}"
            )

    def _check_tasks(self, held: dict[str, dict[str, Any]], digests: dict[str, TaskDigest]) -> None:
        """Refuse a task whose digest differs from the one ``run.json`` holds (naming the
        suite, the files that changed and both digests)."""
        for suite, digest in digests.items():
            kept = held.get(suite)
            if kept is None or kept["sha256"] == digest.sha256:
                continue
            changed = digest.changed_files(kept["files"]) or [digest.files[0][0]]
            raise EvalError(
                f"{self.run_file}: the task of {suite} changed since this run directory "
                f"started: {', '.join(changed)} differ (task sha256 {kept['sha256'][:16]} "
                f"then, {digest.sha256[:16]} now); its records would pool two different "
                "tasks; use another --out, or restore the files"
            )

    # ---- episodes.jsonl -----------------------------------------------------------------

    def records(self) -> list[EpisodeRecord]:
        """The folder's records, one per key (:func:`~rsb_mj.evaluation.records.
        read_records`); ``[]`` without a records file.

        Raises:
            EvalError: for a malformed complete line, naming ``episodes.jsonl:line``.
        """
        return read_records(self.records_file)

    def numbered_records(self) -> list[tuple[int, EpisodeRecord]]:
        """Every record line as ``(line number, record)``, in file order
        (:func:`~rsb_mj.evaluation.records.numbered_records`)."""
        return numbered_records(self.records_file)

    def append(self, record: EpisodeRecord, line: str | None = None) -> None:
        """Append ``record`` (or ``line``, a sealed run's signed line of it) to the records
        (:func:`~rsb_mj.evaluation.records.append_record`; raises WriteError)."""
        append_record(self.records_file, record, line)

    def append_line(self, line: str) -> None:
        """Append a sealed run's signed closing record ``line`` (raises WriteError)."""
        append_record(self.records_file, None, line)

    def records_sha256(self) -> str:
        """sha256 (hex) of the records file as it is on disk (``""`` without one)."""
        try:
            return hashlib.sha256(self.records_file.read_bytes()).hexdigest()
        except FileNotFoundError:
            return ""

    def resume(
        self, jobs: Sequence[Job], digests: dict[str, TaskDigest]
    ) -> tuple[dict[RecordKey, EpisodeRecord], list[Job]]:
        """The records the folder holds for a run of ``jobs`` (one per key: its first scored
        record, else its last error) and the jobs still to run (no record, or an error
        record), in the order of ``jobs``.

        Raises:
            EvalError: a scored record run on another version of its task (both digests),
                or with another step limit than its job asks (both limits).
        """
        held = _scored(self.records())
        path = self.records_file
        for record in held.values():
            was = str((record.sim or {}).get("task_sha256") or "")
            digest = digests.get(record.suite)
            if record.is_error or not was or digest is None or was == digest.sha256:
                continue
            raise EvalError(
                f"{path}: records of {record.suite} were run with task sha256 {was[:16]}; the "
                f"task ({', '.join(name for name, _ in digest.files)}) is now "
                f"{digest.sha256[:16]}; use another --out for the changed task"
            )
        stale = [
            j
            for j in jobs
            if j.key in held
            and held[j.key].termination != "error"
            and held[j.key].max_steps != j.max_steps
        ]
        if stale:
            old = held[stale[0].key].max_steps
            raise EvalError(
                f"{path}: {len(stale)} of these episodes were run with a step limit of {old}, "
                f"this command asks {stale[0].max_steps}; use another --out"
            )
        todo = [j for j in jobs if j.key not in held or held[j.key].termination == "error"]
        return held, todo

    def forget(self, policy: str) -> int:
        """Drop every record of ``policy`` (its exact name, as the records and reports show
        it), under the folder's lock; returns how many were dropped.

        The other lines stay byte for byte; the file is rewritten atomically. Feature
        archives and videos of the dropped episodes are left in place (a rerun of the
        policy overwrites them).

        Raises:
            EvalError: when the folder holds no records, or none of ``policy`` (naming
                those it holds), or is a sealed run (its records are signed as one chain);
                WriteError when the records cannot be rewritten.
        """
        path = self.records_file
        if not path.is_file():
            raise EvalError(f"{self.path}: no {RECORDS_FILE} records to forget {policy!r} from")
        if self._lenient().get("sealed"):
            raise EvalError(
                f"--forget {policy!r}: {self.path} is a sealed run, whose records are signed "
                "as one chain: dropping some would break it; run the policy again in a new "
                "--out"
            )
        with self.lock("rsb eval --forget"):
            repair(path)
            lines = path.read_bytes().splitlines(keepends=True)
            held: dict[str, int] = {}
            kept = []
            for line in lines:
                try:
                    name = json.loads(line).get("policy")
                except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
                    name = None
                if isinstance(name, str):
                    held[name] = held.get(name, 0) + 1
                if name != policy:
                    kept.append(line)
            if policy not in held:
                valid = ", ".join(repr(name) for name in held) or "none"
                raise EvalError(
                    f"--forget {policy!r}: {path} holds no records of it; its policies: {valid}"
                )
            atomic_write_bytes(path, b"".join(kept))
        return held[policy]

    # ---- the seal -----------------------------------------------------------------------

    def is_sealed(self) -> bool:
        """Whether this is a sealed run: its ``run.json`` says so, or one of its records
        carries a signature (so that removing the mark from ``run.json`` hides nothing).

        Raises:
            EvalError: for a records file that cannot be read.
        """
        if isinstance(self._lenient().get("sealed"), dict):
            return True
        try:
            data = self.records_file.read_bytes()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise EvalError(
                f"{self.records_file}: cannot read the records ({exc.strerror or exc})"
            ) from None
        # the key as a JSON key: inside a string value its quotes would be escaped
        # heavy: sealed imports rsb_mj.tables.private, whose audit loads scipy.optimize (~0.9 s);
        # rsb --help reaches this module through rsb probe's flags
        from rsb_mj.evaluation.sealed import SIGNATURE

        mark = f'"{SIGNATURE}": "'.encode()
        return any(mark in line for line in data.split(b"\n")[:-1])

    def seal_nonce(self) -> str:
        """A sealed run's nonce (``run.json``, ``sealed.nonce``); ``""`` for none (an
        unsealed run, or one sealed before nonces)."""
        sealed = self._lenient().get("sealed")
        nonce = sealed.get("nonce") if isinstance(sealed, dict) else None
        return nonce if isinstance(nonce, str) else ""

    def verify(self, seal: Seal) -> str:
        """Check every record line against ``seal``; the last signature (the nonce for
        none) (:func:`~rsb_mj.evaluation.sealed.verify`: raises EvalError naming
        ``file:line``)."""
        from rsb_mj.evaluation.sealed import verify  # heavy: see is_sealed

        return verify(self.records_file, seal, self.seal_nonce())

    def check_seal(self, seal: Seal | None) -> None:
        """Verify the records when this is a sealed run (:meth:`is_sealed`).

        Raises:
            EvalError: for a sealed run without ``seal`` (give ``--secret-file``), one
                signed with another secret, a record that fails :meth:`verify`, or (a run
                with a nonce) records that do not end in a closing record (incomplete).
        """
        if not self.is_sealed():
            return
        sealed = self._lenient().get("sealed")
        key_id = sealed.get("key_id") if isinstance(sealed, dict) else None
        if seal is None:
            raise EvalError(
                f"{self.path}: a sealed run; its records are verified with the secret it was "
                "run with: give --secret-file FILE"
            )
        if key_id != seal.key_id:
            raise EvalError(
                f"{self.run_file}: the run was sealed with another secret "
                f"(key id {str(key_id)[:12]}, this secret's {seal.key_id[:12]})"
            )
        from rsb_mj.evaluation.sealed import check_chain  # heavy: see is_sealed

        nonce = self.seal_nonce()  # a run with a nonce closes its records: refuse a cut file
        check_chain(self.records_file, seal, nonce, complete=bool(nonce))


def _entry(digest: TaskDigest) -> dict[str, Any]:
    """A task's entry in ``run.json``."""
    return {"sha256": digest.sha256, "files": dict(digest.files)}


def _scored(records: Iterable[EpisodeRecord]) -> dict[RecordKey, EpisodeRecord]:
    """One record per key: the first scored (non-error) one, else the last error."""
    out: dict[RecordKey, EpisodeRecord] = {}
    for r in records:
        held = out.get(r.key)
        if held is None or held.termination == "error":
            out[r.key] = r
    return out


__all__ = ["RECORDS_FILE", "RUN_FILE", "RunFolder", "RunSettings"]
