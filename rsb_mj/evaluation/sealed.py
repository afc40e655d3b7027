"""Sealed runs (``rsb eval --sealed``, implied by ``--tables``): the order of episodes, the
signature of records.

A sealed run holds the private secret (``--secret-file``, the one the tables were drawn
from). From it come two keys, both HMACs of it (:meth:`Secret.digest`), so neither names it:

* the **order key** ``digest("sealed", "order")``: the run's episodes start in the order of
  ``HMAC(order key, "suite/split/index/policy/variant")`` (:func:`sealed_order`), so a pair
  partner or a level's twin is neither adjacent nor predictable from the one before;
* the **record key** ``digest("sealed", "records")``: each line of ``episodes.jsonl`` carries
  ``"signature"``: hex ``HMAC(record key, previous signature + "\\n" + the record's JSON
  without it)`` (:func:`sign`), the first line chained to ``""``. ``rsb report`` (given the
  secret) checks every line (:func:`verify`): an edited, inserted, moved or foreign line
  (another run's, another secret's) is refused with ``file:line``, and so is a run folder
  that says it is sealed but whose lines are not signed
  (:meth:`~rsb_mj.evaluation.run_folder.RunFolder.check_seal`).

A policy's own faults are scored failures in every run (:mod:`rsb_mj.evaluation.faults`);
a sealed run also counts every fault of a policy server during an episode as the server's
(:func:`~rsb_mj.evaluation.faults.server_fault`), and is complete only with no error left.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rsb_mj.errors import EvalError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.tables.private.manifest import read_private
from rsb_mj.tables.private.secret import Secret

#: The key of a record line that holds its signature.
SIGNATURE = "signature"
#: The key of a closing record (:func:`closing_line`).
CLOSING = "closing"


class Seal:
    """The keys of a sealed run, derived from the private secret (see the module docstring).

    Args:
        secret: the private secret.
    """

    def __init__(self, secret: Secret) -> None:
        self._records = secret.digest("sealed", "records")
        self._order = secret.digest("sealed", "order")
        #: Public id of the record key (kept in ``run.json``): which secret signed a run.
        self.key_id = hashlib.sha256(b"rsb_mj/sealed/key-id\0" + self._records).hexdigest()

    @classmethod
    def read(cls, path: Path) -> Seal:
        """The seal of the secret in file ``path`` (see :meth:`Secret.read`)."""
        return cls(Secret.read(path))

    def rank(self, job: Job, nonce: str = "") -> bytes:
        """The sort key of ``job`` in the order of a sealed run with ``nonce``."""
        parts = (job.suite, job.split, job.index, job.policy, job.variant)
        name = "/".join(map(str, (nonce, *parts) if nonce else parts))
        return hmac.new(self._order, name.encode(), hashlib.sha256).digest()

    def signature(self, previous: str, body: str) -> str:
        """Hex HMAC of ``previous + "\\n" + body`` with the record key."""
        message = f"{previous}\n{body}".encode()
        return hmac.new(self._records, message, hashlib.sha256).hexdigest()


def new_nonce() -> str:
    """A fresh run nonce (hex, 128 random bits)."""
    return secrets.token_hex(16)


def sealed_order(jobs: Sequence[Job], seal: Seal, nonce: str = "") -> list[Job]:
    """``jobs`` in the secret-seeded order of a sealed run with ``nonce`` (the run folder's,
    or the vla-eval plugin's :attr:`~rsb_mj.integrations.vla_eval.RsbBenchmark.nonce`;
    ``""``: the order of runs before nonces)."""
    return sorted(jobs, key=lambda job: seal.rank(job, nonce))


def closing_line(seal: Seal, previous: str, count: int, nonce: str) -> tuple[str, str]:
    """The signed closing record (no newline) after ``count`` records whose last signature
    is ``previous``, and its signature (see the module docstring)."""
    row = {CLOSING: {"count": count, "chain": previous, "nonce": nonce}}
    return sign_row(row, seal, previous)


def sign(record: EpisodeRecord, seal: Seal, previous: str) -> tuple[str, str]:
    """The signed JSON line of ``record`` (no newline) and its signature, chained to the
    file's ``previous`` signature (``""`` for the first line)."""
    return sign_row(json.loads(record.to_json()), seal, previous)


def sign_row(row: dict[str, Any], seal: Seal, previous: str) -> tuple[str, str]:
    """The signed JSON line of any JSON object ``row`` (no newline; keys sorted) and its
    signature, chained to ``previous`` as :func:`sign` does (the vla-eval plugin's
    outcomes and their closing record, :mod:`rsb_mj.integrations.vla_eval`); :func:`verify`
    checks both."""
    body = json.dumps(row, sort_keys=True)
    signature = seal.signature(previous, body)
    return json.dumps({**row, SIGNATURE: signature}, sort_keys=True), signature


def read_seal(secret_file: Path, tables: Path | None = None) -> Seal:
    """The seal of the secret in ``secret_file``, checked against the private tables in
    ``tables`` (their manifest names the secret they were drawn from).

    Raises:
        EvalError: a secret that is not the tables' (or that cannot be read).
    """

    secret = Secret.read(Path(secret_file))
    if tables is not None:
        drawn = read_private(Path(tables)).secret_id
        if drawn != secret.id:
            raise EvalError(
                f"secret file {secret_file}: not the secret the tables in {tables} were drawn "
                f"from (its id {secret.id[:12]}, theirs {drawn[:12]})"
            )
    return Seal(secret)


def complete_lines(path: Path) -> list[tuple[int, bytes]]:
    """The numbered non-blank lines of ``path`` that end in a newline (a torn last line,
    cut off mid-write, is not one: it is never signed), none for a missing file.

    Raises:
        EvalError: for a file that cannot be read.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise EvalError(f"{path}: cannot read the records ({exc.strerror or exc})") from None
    return [(n, line) for n, line in enumerate(data.split(b"\n")[:-1], 1) if line.strip()]


def verify(path: Path, seal: Seal, nonce: str = "") -> str:
    """Check every complete line of ``path`` against ``seal`` (the chain starting at the
    run's ``nonce``); return the last signature (``nonce`` for no line).

    Raises:
        EvalError: ``path:line: ...`` for the first line that is not signed, or whose
            signature is not the chained HMAC of its content (edited, moved, inserted,
            or from another run or secret), or a closing record of another run or that
            does not close what it follows.
    """
    return check_chain(path, seal, nonce).signature


class Chain:
    """What :func:`check_chain` found: the last ``signature``, the ``records`` (closing
    records not counted), and whether the last line is a closing record (``closed``)."""

    def __init__(self, signature: str, records: int, closed: bool) -> None:
        self.signature, self.records, self.closed = signature, records, closed


def check_chain(path: Path, seal: Seal, nonce: str = "", *, complete: bool = False) -> Chain:
    """:func:`verify`, returning a :class:`Chain`; with ``complete``, also refuse a file
    that does not end in a closing record (naming it incomplete, not invalid).

    Raises:
        EvalError: see :func:`verify`; for ``complete``: ``path: incomplete: ...``.
    """
    previous, records, closed = nonce, 0, False
    lines = complete_lines(path)
    rows: list[tuple[int, Any]] = []
    for number, line in lines:
        try:
            rows.append((number, json.loads(line)))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise EvalError(f"{path}:{number}: not a JSON record") from None
    for number, row in rows:  # another run's file: said as such, before its first line fails
        closing = row.get(CLOSING) if isinstance(row, dict) else None
        theirs = closing.get("nonce") if isinstance(closing, dict) else None
        if isinstance(theirs, str) and theirs != nonce:
            raise EvalError(
                f"{path}:{number}: the records of another run (its closing record names nonce "
                f"{theirs[:12] or '(none)'}, this run folder's run.json {nonce[:12] or '(none)'}); "
                "the run cannot be reported"
            )
    for number, row in rows:
        given = row.pop(SIGNATURE, None) if isinstance(row, dict) else None
        if not isinstance(given, str):
            raise EvalError(
                f"{path}:{number}: the record is not signed; every record of a sealed run is "
                "(it was added or rewritten by something else than rsb eval)"
            )
        body = json.dumps(row, sort_keys=True)
        if not hmac.compare_digest(given, seal.signature(previous, body)):
            raise EvalError(
                f"{path}:{number}: the record's signature does not match: it was edited, "
                "moved or removed lines before it, or comes from another run or secret; "
                "the run cannot be reported"
            )
        closing = row.get(CLOSING)
        if isinstance(closing, dict):
            if closing.get("count") != records or closing.get("chain") != previous:
                raise EvalError(
                    f"{path}:{number}: the closing record says {closing.get('count')} records, "
                    f"the file holds {records} before it; the run cannot be reported"
                )
            closed = True
        else:
            records += 1
            closed = False
        previous = given
    if complete and not closed:
        raise EvalError(
            f"{path}: incomplete: {records} signed records and no closing record after the "
            "last: the run was interrupted (or the file cut after that record); run the same "
            "rsb eval command again to finish it, then report it"
        )
    return Chain(previous, records, closed)


__all__ = [
    "CLOSING",
    "SIGNATURE",
    "Chain",
    "Seal",
    "check_chain",
    "closing_line",
    "complete_lines",
    "new_nonce",
    "read_seal",
    "sealed_order",
    "sign",
    "sign_row",
    "verify",
]
