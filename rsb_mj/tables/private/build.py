"""Private draws: fresh eval rows drawn from a secret, asking no question a shipped table asks.

``rsb episodes build SUITE|TASK.bddl... --private --secret-file FILE -o DIR`` writes one eval
table per suite or task file into ``DIR`` (``RSB-Math-4.eval.jsonl``; a task file's
``{stem}.eval.jsonl``) and the *private manifest* ``DIR/manifest.json``. Each table is drawn
by its family (:attr:`rsb_mj.tables.families.Family.private`) as the shipped eval tables
are, with two changes:

* every seed comes from the secret: row ``i``, attempt ``a`` of a table labelled ``L`` (the
  suite name, or the task file's name) has the first 8 bytes, shifted to 63 bits, of
  ``HMAC-SHA256(secret, "rsb_mj/private/v{VERSION}/rows/L/i/a")``, and the fixed shuffles of
  a paired table (which items, which option is correct) come from
  ``HMAC(secret, ".../balance/L")``: new layouts, mappings, colours, templates and option
  sets, which nobody without the secret can draw again;
* the questions come from the source's held-out reserve (:mod:`rsb_mj.tables.reserve`):
  fresh generated questions no shipped table asks (``arithmetic``), or the questions of a
  fixed source (GSM8K, MMLU-Pro, the Act2Answer items) that neither shipped table of any
  suite uses. A table asks each question once.

An RSB table is kept balanced against the suite's shipped train table as the shipped eval
table is; a level suite's table (``RSB-Math-4-L1``) is derived from its base suite's private
table of the same draw (the base is drawn too when not named); an Act2Answer table is
paired (every item in both plate orders), its items read by the legibility check.

The secret is the file's bytes less surrounding whitespace, at least
:data:`~rsb_mj.tables.private.secret.MIN_SECRET_BYTES` long, and is never written
anywhere: the manifest holds ``secret_sha256``, the sha256 of
``"rsb_mj/private/secret-id\\0" + secret`` (a domain of its own, so it is no key of any
draw), and the builder's name and :data:`~rsb_mj.tables.private.secret.VERSION`. The same
secret and version give the same bytes (tables and manifest). The manifest::

    {"format": 1,
     "private": {"builder": "rsb_mj.episodes.private", "version": 1, "secret_sha256": "..."},
     "tables": {"RSB-Math-4.eval.jsonl": {"suite": "RSB-Math-4", "task": "rsb_math_4.bddl",
                "split": "eval", "rows": 50, "sha256": "...", "source": "arithmetic",
                "reserve": null, "dropped": {}}}}

(``reserve``: the held-out questions the source offered, null for a generated one;
``dropped``: an Act2Answer table's items the legibility check refused.) A later build into
the same folder adds or replaces tables and needs the same secret and version. Tables and
manifest are written 0600, the folder (when the draw creates it) 0700; a table file there
that the folder's private manifest does not list (say a copy of a shipped table) is refused
before anything is drawn, never overwritten.

``rsb episodes check --tables DIR`` verifies a private folder without its secret: sha256 and
row counts against the manifest, every row drawn again from what it records (its seed, and
for a paired row its item, correct option and arrangement) by its family
(:attr:`~rsb_mj.tables.families.Family.redraw`), every question still in its reserve
(outside every shipped table), a level's rows against its base's. ``rsb audit --tables DIR``
audits each table by its family, with the suite's shipped train table for the fitted
probes. ``rsb eval --tables DIR`` runs them (:mod:`rsb_mj.tables.episode_source`).

This module draws the tables (:func:`build_private`); the package's other modules hold the
secret, the targets, the manifest, the check and the audit (:mod:`rsb_mj.tables.private`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text, writable_folder
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EpisodeError
from rsb_mj.suites import goal_suite
from rsb_mj.tables.episode_source import is_task_file, resolve
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import (
    MANIFEST,
    BuildResult,
    dumps,
    episodes_dir,
    read_table,
    sha256,
    table_name,
)
from rsb_mj.tables.private.manifest import (
    manifest_bytes,
    read_private,
)
from rsb_mj.tables.private.secret import VERSION, Secret
from rsb_mj.tables.private.target import SPLIT, Target
from rsb_mj.tables.rsb import DrawRequest

#: Permission bits of a private table and manifest (the folder, when the draw creates it,
#: is 0700).
PRIVATE_MODE = 0o600

if TYPE_CHECKING:
    from collections.abc import Callable

    from rsb_mj.lang.ast import Problem


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


def no_private_goal(names: list[str]) -> str:
    """Why ``rsb episodes build --private`` refuses a goal suite or goal task file among
    ``names`` (``""`` when there is none): goal tasks have no private draw (the source
    lookup says which task files are goal tasks, :attr:`~rsb_mj.tables.episode_source.
    Source.goal`)."""
    goal = [n for n in names if goal_suite(n) or (is_task_file(n) and resolve(n, SPLIT).goal)]
    if not goal:
        return ""
    name = goal[0]
    what, run = (
        ("goal task file", name) if name.endswith(".bddl") else ("goal suite", "--suite " + name)
    )
    return (
        f"--private: {name} is a {what} (LIBERO / VLA-Arena style, no (:question ...)); goal "
        "tasks have no private draw: their rows are seeds and layouts of public files and "
        "the goal is in the instruction, with no hidden answer to draw afresh. Run it sealed "
        f"instead: rsb eval {run} --sealed --secret-file FILE --policy SPEC --out DIR"
    )


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
            :func:`rsb_mj.tables.rsb.private_rows` and
            :func:`rsb_mj.tables.paired.private_paired`); a level's come from its base.
        reader: the legibility check of an Act2Answer table's items (None: keep all).

    Raises:
        EpisodeError: for a folder drawn from another secret or builder version, a reserve
            too small for the rows asked, or a task that cannot be drawn. Tables are
            written whole, the manifest last, so a failed build leaves the folder as it was
            but for the tables already rewritten.
    """
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
    _refuse_foreign_tables(out, [t.file for t in _targets(names, lambda _: None)], tables)
    created = not out.exists()
    writable_folder(out, "the private tables (-o)", mode=0o700)
    if created:
        os.chmod(out, 0o700)
    elif stat.S_IMODE(out.stat().st_mode) & 0o077:
        log(
            f"warning: other users can enter {out} (mode {stat.S_IMODE(out.stat().st_mode):04o}); "
            f"the tables in it are 0600, chmod 700 {out} to hide their names too"
        )
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
        if changed or stat.S_IMODE(path.stat().st_mode) != PRIVATE_MODE:
            atomic_write_bytes(path, data, mode=PRIVATE_MODE)
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
    atomic_write_text(out / MANIFEST, manifest_bytes(secret, tables), mode=PRIVATE_MODE)
    return results


def _refuse_foreign_tables(out: Path, files: list[str], listed: dict[str, Any]) -> None:
    """Refuse, before anything is drawn, a table file in ``out`` that this draw would
    replace but that its private manifest does not list (e.g. a copy of a shipped table:
    overwriting it with private rows would silently change what it holds).

    Raises:
        EpisodeError: naming the file, and the shipped table it is a copy of.
    """
    for file in files:
        path = out / file
        if file in listed or not path.exists():
            continue
        shipped = episodes_dir() / file
        what = (
            f"a copy of the shipped table {shipped}"
            if shipped.is_file() and path.is_file() and path.read_bytes() == shipped.read_bytes()
            else "a file no private manifest in the folder lists"
        )
        raise EpisodeError(
            f"{path}: exists and is {what}; a private draw would overwrite it: move it away "
            "or name another -o"
        )


__all__ = ["build_private"]
