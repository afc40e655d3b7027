"""Private draws: fresh eval rows drawn from a secret, asking no question a shipped table asks.

``rsb episodes build SUITE|TASK.bddl... --private --secret-file FILE -o DIR`` writes one eval
table per suite or task file into ``DIR`` (``RSB-Math-4.eval.jsonl``; a task file's
``{stem}.eval.jsonl``) and the *private manifest* ``DIR/manifest.json``. Each table is drawn
by its family (:attr:`rsb_mj.episodes.families.Family.private`) as the shipped eval tables
are, with two changes:

* every seed comes from the secret: row ``i``, attempt ``a`` of a table labelled ``L`` (the
  suite name, or the task file's name) has the first 8 bytes, shifted to 63 bits, of
  ``HMAC-SHA256(secret, "rsb_mj/private/v{VERSION}/rows/L/i/a")``, and the fixed shuffles of
  a paired table (which items, which option is correct) come from
  ``HMAC(secret, ".../balance/L")``: new layouts, mappings, colours, templates and option
  sets, which nobody without the secret can draw again;
* the questions come from the source's held-out reserve (:mod:`rsb_mj.episodes.reserve`):
  fresh generated questions no shipped table asks (``arithmetic``), or the questions of a
  fixed source (GSM8K, MMLU-Pro, the Act2Answer items) that neither shipped table of any
  suite uses. A table asks each question once.

An RSB table is kept balanced against the suite's shipped train table as the shipped eval
table is; a level suite's table (``RSB-Math-4-L1``) is derived from its base suite's private
table of the same draw (the base is drawn too when not named); an Act2Answer table is
paired (every item in both plate orders), its items read by the legibility check.

The secret is the file's bytes less surrounding whitespace, at least :data:`MIN_SECRET_BYTES`
long, and is never written anywhere: the manifest holds ``secret_sha256``, the sha256 of
``"rsb_mj/private/secret-id\\0" + secret`` (a domain of its own, so it is no key of any
draw), and the builder's name and :data:`VERSION`. The same secret and version give the same
bytes (tables and manifest). The manifest::

    {"format": 1,
     "private": {"builder": "rsb_mj.episodes.private", "version": 1, "secret_sha256": "..."},
     "tables": {"RSB-Math-4.eval.jsonl": {"suite": "RSB-Math-4", "task": "rsb_math_4.bddl",
                "split": "eval", "rows": 50, "sha256": "...", "source": "arithmetic",
                "reserve": null, "dropped": {}}}}

(``reserve``: the held-out questions the source offered, null for a generated one;
``dropped``: an Act2Answer table's items the legibility check refused.) A later build into
the same folder adds or replaces tables and needs the same secret and version.

``rsb episodes check --tables DIR`` verifies a private folder without its secret: sha256 and
row counts against the manifest, every row drawn again from what it records (its seed, and
for a paired row its item, correct option and arrangement) by its family
(:attr:`~rsb_mj.episodes.families.Family.redraw`), every question still in its reserve
(outside every shipped table), a level's rows against its base's. ``rsb audit --tables DIR``
audits each table by its family, with the suite's shipped train table for the fitted
probes. ``rsb eval --tables DIR`` runs them (:mod:`rsb_mj.evaluation.episode_source`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text
from rsb_mj.episode import Episode
from rsb_mj.episodes.families import FAMILIES, Family, family_of
from rsb_mj.episodes.level_tables import LEVEL_FIELDS
from rsb_mj.episodes.suite_problem import load_suite_problem
from rsb_mj.episodes.table import BuildResult, DrawRequest
from rsb_mj.episodes.table_files import (
    MANIFEST,
    diff_rows,
    dumps,
    read_listed_table,
    read_table,
    sha256,
    table_name,
)
from rsb_mj.errors import EpisodeError
from rsb_mj.suites import Suite, get_suite

if TYPE_CHECKING:
    from collections.abc import Callable

    from rsb_mj.episodes.audit import AuditReport
    from rsb_mj.episodes.reserve import ReserveSource
    from rsb_mj.lang.ast import Problem

#: The private builder's version: it changes whenever the same secret would draw other rows.
VERSION = 1
#: The builder's name in the manifest.
BUILDER = "rsb_mj.episodes.private"
#: The shortest secret accepted [bytes] (128 bits).
MIN_SECRET_BYTES = 16
#: The split of every private table.
SPLIT = "eval"


class Secret:
    """The secret of a private draw: the seeds and shuffles of its tables (never written).

    Args:
        key: the secret's bytes.
        where: where it came from, for messages.

    Raises:
        EpisodeError: for a secret shorter than :data:`MIN_SECRET_BYTES`.
    """

    def __init__(self, key: bytes, where: str = "the secret") -> None:
        if len(key) < MIN_SECRET_BYTES:
            raise EpisodeError(
                f"{where}: a secret of {len(key)} bytes can be guessed; give at least "
                f"{MIN_SECRET_BYTES} (e.g. head -c 32 /dev/urandom | base64 > secret.txt)"
            )
        self._key = bytes(key)

    @classmethod
    def read(cls, path: Path) -> Secret:
        """The secret in file ``path``: its bytes less surrounding whitespace.

        Raises:
            EpisodeError: for a missing or unreadable file, or too short a secret.
        """
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise EpisodeError(f"--secret-file {path}: cannot read it ({exc.strerror})") from None
        return cls(data.strip(), f"--secret-file {path}")

    @property
    def id(self) -> str:
        """The secret's public id (hex): sha256 of ``"rsb_mj/private/secret-id\\0" + secret``."""
        return hashlib.sha256(b"rsb_mj/private/secret-id\0" + self._key).hexdigest()

    def digest(self, *parts: object) -> bytes:
        """``HMAC-SHA256(secret, "rsb_mj/private/v{VERSION}/" + "/".join(parts))``."""
        message = "/".join(["rsb_mj/private", f"v{VERSION}", *map(str, parts)])
        return hmac.new(self._key, message.encode(), hashlib.sha256).digest()

    def seed(self, *parts: object) -> int:
        """A 63-bit seed of :meth:`digest` (its first 8 bytes, shifted right by one)."""
        return int.from_bytes(self.digest(*parts)[:8], "big") >> 1

    def token(self, *parts: object) -> str:
        """:meth:`digest` in hex."""
        return self.digest(*parts).hex()

    def __repr__(self) -> str:
        return f"Secret(id {self.id[:12]})"


@dataclass(frozen=True)
class Target:
    """What one private table is drawn for: a suite, or a task file (``suite`` None).

    Attributes:
        name: the suite's name, or the task file's path as given.
        suite: the suite, or None for a task file.
    """

    name: str
    suite: Suite | None

    @classmethod
    def of(cls, name: str) -> Target:
        """The target ``name`` names (``*.bddl``: a task file; else a suite).

        Raises:
            EpisodeError: for a task file that is not there; RsbError for an unknown suite.
        """
        if name.endswith(".bddl"):
            if not Path(name).is_file():
                raise EpisodeError(f"task file {name!r} not found")
            return cls(Path(name).as_posix(), None)
        suite = get_suite(name)
        return cls(suite.name, suite)

    @property
    def label(self) -> str:
        """The name seeds are keyed by: the suite's, or the task file's name."""
        return self.suite.name if self.suite else Path(self.name).name

    @property
    def file(self) -> str:
        """The table's file name: ``{suite}.eval.jsonl`` or ``{task stem}.eval.jsonl``."""
        if self.suite:
            return table_name(self.suite.name, SPLIT)
        return f"{Path(self.name).stem}.{SPLIT}.jsonl"

    @property
    def family(self) -> Family:
        """The suite's family; ``rsb`` (seeded draws) for a task file."""
        return family_of(self.suite) if self.suite else FAMILIES["rsb"]

    @cached_property
    def problem(self) -> Problem:
        """The parsed, linted task file."""
        if self.suite:
            return load_suite_problem(self.suite)
        from rsb_mj.lang import load_task

        return load_task(self.name)

    @cached_property
    def source(self) -> ReserveSource:
        """The held-out reserve of the task's question source."""
        from rsb_mj.episodes.reserve import reserve_source
        from rsb_mj.episodes.sources import resolve_source
        from rsb_mj.lang.task import task_of

        return reserve_source(resolve_source(task_of(self.problem).source))


@dataclass(frozen=True)
class PrivateManifest:
    """A private folder's manifest.

    Attributes:
        folder: the folder.
        version: the builder version that drew it.
        secret_id: the secret's public id (:attr:`Secret.id`).
        tables: file name -> its entry (see the module docstring).
        sha256: the sha256 of ``manifest.json``'s bytes: what records of a run on these
            tables name (``tables``).
    """

    folder: Path
    version: int
    secret_id: str
    tables: dict[str, dict[str, Any]]
    sha256: str

    def entry(self, file: str) -> dict[str, Any]:
        """The entry of table ``file``.

        Raises:
            EpisodeError: for a table the manifest does not list, naming the ones it does.
        """
        try:
            return self.tables[file]
        except KeyError:
            raise EpisodeError(
                f"{self.folder / MANIFEST}: no private table {file}; it holds "
                f"{', '.join(sorted(self.tables)) or 'none'} (draw it with: rsb episodes build "
                f"... --private --secret-file FILE -o {self.folder})"
            ) from None


def read_private(folder: Path) -> PrivateManifest:
    """The private manifest of ``folder``.

    Raises:
        EpisodeError: for a folder without a manifest, with the shipped kind (no
            ``private`` block) or a malformed one.
    """
    path = Path(folder) / MANIFEST
    try:
        data = path.read_bytes()
    except OSError:
        raise EpisodeError(
            f"{path}: no private manifest; draw tables with: rsb episodes build SUITE "
            f"--private --secret-file FILE -o {folder}"
        ) from None
    try:
        body = json.loads(data)
        info, tables = body["private"], body["tables"]
        version, secret_id = int(info["version"]), str(info["secret_sha256"])
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, ValueError):
        raise EpisodeError(
            f"{path}: not a private manifest (expected {{'format', 'private': {{'builder', "
            "'version', 'secret_sha256'}, 'tables'}); a folder of shipped tables is checked "
            "with rsb episodes check --dir"
        ) from None
    return PrivateManifest(Path(folder), version, secret_id, dict(tables), sha256(data))


def manifest_bytes(secret: Secret, tables: dict[str, dict[str, Any]]) -> str:
    """The text of a private manifest (sorted, stable)."""
    body = {
        "format": 1,
        "private": {"builder": BUILDER, "version": VERSION, "secret_sha256": secret.id},
        "tables": dict(sorted(tables.items())),
    }
    return json.dumps(body, indent=2) + "\n"


def _targets(names: list[str], log: Callable[[str], None]) -> list[Target]:
    """The targets of ``names`` in build order: a level's base suite before it (added, and
    logged, when not named)."""
    out: dict[str, Target] = {}
    for name in names:
        target = Target.of(name)
        if target.suite and target.suite.level and target.suite.base not in out:
            if target.suite.base not in [Target.of(n).name for n in names]:
                log(f"{target.name}: drawing its base suite {target.suite.base} too")
            out[target.suite.base] = Target.of(target.suite.base)
        out.setdefault(target.name, target)
    return list(out.values())


def build_private(
    names: list[str],
    secret: Secret,
    out: Path,
    rows: int | None = None,
    reader: Callable[[Problem, Any], str | None] | None = None,
    log: Callable[[str], None] = print,
) -> list[BuildResult]:
    """Draw the private eval tables of ``names`` (suites or task files) into ``out`` and
    write its manifest (see the module docstring).

    Args:
        rows: rows per table (default: the family's, see
            :func:`rsb_mj.episodes.table.private_rows` and
            :func:`rsb_mj.episodes.paired.private_paired`); a level's come from its base.
        reader: the legibility check of an Act2Answer table's items (None: keep all).

    Raises:
        EpisodeError: for a folder drawn from another secret or builder version, a reserve
            too small for the rows asked, or a task that cannot be drawn. Tables are
            written whole, the manifest last, so a failed build leaves the folder as it was
            but for the tables already rewritten.
    """
    from rsb_mj.episodes.families import load_table

    out = Path(out)
    tables: dict[str, dict[str, Any]] = {}
    if (out / MANIFEST).exists():
        held = read_private(out)
        if held.secret_id != secret.id or held.version != VERSION:
            raise EpisodeError(
                f"{out / MANIFEST}: drawn from another secret (id {held.secret_id[:12]}) or "
                f"builder version ({held.version}); this build has {secret.id[:12]}, version "
                f"{VERSION}: use another -o"
            )
        tables = dict(held.tables)
    out.mkdir(parents=True, exist_ok=True)
    drawn: dict[str, list[Episode]] = {}
    results = []
    for target in _targets(names, log):
        suite = target.suite
        base = None
        if suite and suite.level:
            base = drawn.get(suite.base)
            if base is None:
                base = read_table(out / table_name(suite.base, SPLIT))
        train = load_table(suite.name, "train") if suite and not suite.level else None

        def seeds(index: int, attempt: int, label: str = target.label) -> int:
            return secret.seed("rows", label, index, attempt)

        request = DrawRequest(
            target.problem,
            suite.name if suite else "",
            rows,
            seeds,
            secret.token("balance", target.label),
            target.source,
            train=train,
            base=base,
            reader=reader,
        )
        episodes, dropped = target.family.private(request)
        drawn[target.name] = episodes
        data = dumps(episodes)
        path = out / target.file
        changed = not path.is_file() or path.read_bytes() != data
        if changed:
            atomic_write_bytes(path, data)
        digest = sha256(data)
        tables[target.file] = {
            "suite": suite.name if suite else "",
            "task": suite.task_file if suite else target.name,
            "split": SPLIT,
            "rows": len(episodes),
            "sha256": digest,
            "source": target.source.name,
            "reserve": target.source.size(),
            "dropped": dropped,
        }
        results.append(
            BuildResult(target.label, SPLIT, path, len(episodes), digest, 0, changed, dropped)
        )
    atomic_write_text(out / MANIFEST, manifest_bytes(secret, tables))
    return results


def _target_of(entry: dict[str, Any]) -> Target:
    """The target a manifest entry was drawn for."""
    return Target.of(entry["suite"] or entry["task"])


_LOADED: dict[tuple[str, int, int], list[Episode]] = {}


def load_private(folder: Path, file: str) -> tuple[PrivateManifest, list[Episode]]:
    """The manifest and the rows of private table ``file`` in ``folder``, its sha256
    verified against the manifest first (once per file and process).

    Raises:
        EpisodeError: for a missing manifest or table, a table the manifest does not list,
            or one whose bytes differ from the manifest's.
    """
    manifest = read_private(folder)
    entry = manifest.entry(file)
    path = Path(folder) / file
    try:
        stat = path.stat()
    except OSError:
        raise EpisodeError(f"{path}: private table missing (the manifest lists it)") from None
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _LOADED:
        digest = sha256(path.read_bytes())
        if digest != entry["sha256"]:
            raise EpisodeError(
                f"{path}: sha256 {digest[:12]} is not the manifest's {entry['sha256'][:12]}: "
                "the table was changed by hand, so its rows would score the wrong episodes; "
                f"restore it, or draw it again with its secret: rsb episodes build "
                f"{entry['suite'] or entry['task']} --private --secret-file FILE -o {folder}"
            )
        _LOADED[key] = read_table(path)
    return manifest, _LOADED[key]


def file_of(source: str) -> str:
    """The private table file of an eval source (a suite name or a task file path)."""
    if source.endswith(".bddl"):
        return f"{Path(source).stem}.{SPLIT}.jsonl"
    return table_name(get_suite(source).name, SPLIT)


def _wanted(manifest: PrivateManifest, names: list[str] | None) -> list[str]:
    if not names:
        return sorted(manifest.tables)
    files = [file_of(n) for n in names]
    for file in files:
        manifest.entry(file)
    return files


def check_private(
    folder: Path,
    names: list[str] | None = None,
    secret: Secret | None = None,
    max_report: int = 5,
) -> list[str]:
    """Verify the private tables of ``folder`` (default: every one its manifest lists;
    ``names``: suites or task files) without their secret (see the module docstring);
    with ``secret``, also that the folder was drawn from it. Returns the problems found
    (``file:line: ...`` for a row), empty when all is well.

    Raises:
        EpisodeError: for a folder without a private manifest.
    """
    manifest = read_private(folder)
    problems = []
    if secret is not None and secret.id != manifest.secret_id:
        problems.append(
            f"{folder / MANIFEST}: drawn from another secret (id {manifest.secret_id[:12]}, "
            f"the secret file's {secret.id[:12]})"
        )
    if manifest.version != VERSION:
        return [
            *problems,
            f"{folder / MANIFEST}: drawn by private builder version {manifest.version}; this "
            f"rsb_mj draws version {VERSION} and cannot re-draw its rows",
        ]
    for file in _wanted(manifest, names):
        entry = manifest.tables[file]
        found, rows = read_listed_table(Path(folder), file, entry)
        problems += found
        if rows is None:
            continue
        problems += _check_rows(file, rows, _target_of(entry), max_report)
        suite = _target_of(entry).suite
        if suite and suite.level:
            problems += _check_level(folder, file, suite, rows, max_report)
    return problems


def _check_rows(file: str, rows: list[Episode], target: Target, max_report: int) -> list[str]:
    """Rows that do not re-draw, or ask a question outside their reserve."""
    out: list[str] = []
    drifted = outside = 0
    source = target.source
    for row_no, row in enumerate(rows, start=1):
        if row.split != SPLIT:
            out.append(f"{file}:{row_no}: split {row.split!r}; a private table has eval rows")
            continue
        fresh = target.family.redraw(target.problem, row, source)
        fields = diff_rows(row, fresh)
        if fields:
            drifted += 1
            if drifted <= max_report:
                out.append(f"{file}:{row_no}: row {row.index} drifted in {', '.join(fields)}")
        if not source.holds(source.get(row.question_id)):
            outside += 1
            if outside <= max_report:
                out.append(
                    f"{file}:{row_no}: question {row.question_id} is not in the held-out "
                    f"reserve of {source.name} (a shipped table asks it)"
                )
    if drifted > max_report:
        out.append(f"{file}: {drifted} rows drifted in all")
    if outside > max_report:
        out.append(f"{file}: {outside} rows ask questions outside the reserve in all")
    return out


def _check_level(
    folder: Path, file: str, suite: Suite, rows: list[Episode], max_report: int
) -> list[str]:
    """A level's rows against its base's private rows: equal but in :data:`LEVEL_FIELDS`."""
    base_path = Path(folder) / table_name(suite.base, SPLIT)
    if not base_path.is_file():
        return [f"{file}: its base table {base_path.name} is missing"]
    base = read_table(base_path)
    if len(base) != len(rows):
        return [f"{file}: {len(rows)} rows, its base table {base_path.name} {len(base)}"]
    out = []
    for row_no, (row, ref) in enumerate(zip(rows, base, strict=True), start=1):
        fields = [f for f in diff_rows(ref, row) if f not in LEVEL_FIELDS]
        if fields and len(out) < max_report:
            out.append(f"{file}:{row_no}: differs from {base_path.name} in {', '.join(fields)}")
    return out


def audit_private(
    folder: Path, names: list[str] | None = None, max_words: int | None = None
) -> list[AuditReport]:
    """The audit of each private table of ``folder`` (default: all): its family's audit
    (:func:`rsb_mj.episodes.families.audit_rows`) with the suite's shipped train table for
    the fitted probes, plus the check that no row asks a question of a shipped table."""
    from rsb_mj.episodes.audit import Check
    from rsb_mj.episodes.families import audit_rows, load_table

    reports = []
    for file in _wanted(read_private(folder), names):
        manifest, rows = load_private(folder, file)
        target = _target_of(manifest.tables[file])
        train = load_table(target.suite.name, "train") if target.suite else None
        report = audit_rows(rows, f"{target.label} private eval", max_words, train)
        source = target.source
        asked = [r.index for r in rows if not source.holds(source.get(r.question_id))]
        report.checks.append(
            Check(
                "private (no question of a shipped table)",
                not asked,
                f"{len(asked)} of {len(rows)} rows ask a question a shipped table asks"
                + (f" (rows {asked[:10]})" if asked else ""),
                len(asked),
            )
        )
        reports.append(report)
    return reports


__all__ = [
    "BUILDER",
    "MIN_SECRET_BYTES",
    "SPLIT",
    "VERSION",
    "PrivateManifest",
    "Secret",
    "Target",
    "audit_private",
    "build_private",
    "check_private",
    "file_of",
    "load_private",
    "read_private",
]
