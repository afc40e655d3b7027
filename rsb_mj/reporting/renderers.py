"""Which renderers drew the records of a report, and the rule that keeps them apart.

Each record's ``sim["renderer"]`` holds the fingerprint of the process that ran its episode
(:mod:`rsb_mj.scene.fingerprint`: GL backend, vendor, renderer and version strings, the hash
of a reference render). Success rates move with the pixels a policy sees, so ``rsb report``
pools records (rows side by side, episodes within a row) only when one renderer drew them
all; ``--allow-mixed-renderers`` pools them anyway and the report's header says so. Records
written before fingerprints were recorded count as one renderer, ``unrecorded``: pooled with
each other, never silently with fingerprinted ones. Error records (faults, not results) are
left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rsb_mj.errors import EvalError, RsbError
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.scene.fingerprint import RendererFingerprint

__all__ = ["UNRECORDED", "renderer_groups", "renderer_lines"]

#: The group of records without a fingerprint.
UNRECORDED = "unrecorded"


def renderer_groups(
    runs: Mapping[str, Sequence[EpisodeRecord]],
) -> dict[str, tuple[RendererFingerprint | None, list[str]]]:
    """Fingerprint id (or :data:`UNRECORDED`) -> (the fingerprint or None, the row labels
    with records it drew), in order of first appearance.

    Raises:
        EvalError: for a malformed ``sim["renderer"]``, naming the row, suite and index.
    """
    groups: dict[str, tuple[RendererFingerprint | None, list[str]]] = {}
    for label, records in runs.items():
        for rec in records:
            if rec.is_error:
                continue
            row = (rec.sim or {}).get("renderer")
            fingerprint = None
            if row is not None:
                where = f"{label}: {rec.suite} {rec.split} row {rec.index}"
                try:
                    fingerprint = RendererFingerprint.from_dict(row, where=where)
                except RsbError as exc:
                    raise EvalError(str(exc)) from None
            key = UNRECORDED if fingerprint is None else fingerprint.id
            labels = groups.setdefault(key, (fingerprint, []))[1]
            if label not in labels:
                labels.append(label)
    return groups


def _describe(key: str, fingerprint: RendererFingerprint | None) -> str:
    if fingerprint is None:
        return f"{key} (records made before rsb_mj recorded renderer fingerprints)"
    return f"{key}: {fingerprint.describe()}"


def _differences(fingerprints: list[RendererFingerprint]) -> str:
    """The fields in which the fingerprints differ, e.g. ``backend``."""
    names = ("backend", "vendor", "renderer", "version", "reference_sha256", "error")
    differ = [n for n in names if len({getattr(f, n) for f in fingerprints}) > 1]
    return ", ".join(n.replace("reference_sha256", "reference render") for n in differ)


def renderer_lines(
    runs: Mapping[str, Sequence[EpisodeRecord]], *, allow_mixed: bool = False
) -> list[str]:
    """The report header's lines about renderers (one line when one renderer drew all).

    Args:
        runs: records per row label (:func:`rsb_mj.reporting.runs.load_runs`).
        allow_mixed: pool records of several renderers (``--allow-mixed-renderers``).

    Raises:
        EvalError: when several renderers drew the records and ``allow_mixed`` is False,
            listing each fingerprint with its rows and what differs between them.
    """
    groups = renderer_groups(runs)
    if not groups:
        return ["Renderer: none (only error records)"]
    if len(groups) == 1:
        ((key, (fingerprint, _)),) = groups.items()
        return ["Renderer: " + _describe(key, fingerprint)]
    listing = [f"- {_describe(k, f)}: rows {', '.join(rows)}" for k, (f, rows) in groups.items()]
    if allow_mixed:
        return [
            f"Renderers: MIXED, pooled on request (--allow-mixed-renderers): {len(groups)} "
            "renderers drew these records, so rates below combine different pixels:",
            *listing,
        ]
    known = [f for f, _ in groups.values() if f is not None]
    if len(known) == len(groups):
        what = f"they differ in: {_differences(known)}"
        if len({f.reference_sha256 for f in known}) == 1 and not any(f.error for f in known):
            what += "; their reference renders are identical: `rsb doctor` on each machine "
            what += "shows whether the benchmark's frames match too"
    else:
        what = "records without a fingerprint cannot be shown to match the others"
    raise EvalError(
        f"these runs were drawn by {len(groups)} renderers ({what}), and success rates move "
        "with the pixels a policy sees:\n"
        + "\n".join(listing)
        + "\nreport them separately, or pass --allow-mixed-renderers to pool them "
        "(the report's header then says so)"
    )
