"""The shortcut audit of a paired table (:mod:`rsb_mj.tables.paired`): side, arrangement,
letter and picture features.

Over a paired table it checks, each inside the 95% chance band of 1/2 over the rows it
applies to (:func:`rsb_mj.tables.audit.rate_check`):

* ``side``: the correct plate is the left one (table x < 0); also per arrangement
  (``side:original``, ``side:swapped``);
* ``letter``: the correct option is A;
* ``probe:<name>``: the answer-blind picture and text features of
  :func:`rsb_mj.episodes.sources.act2answer.probe_hits` (the longer answer, alphabetically
  first, the larger number or time, the bigger picture) would pick the correct plate;
* ``pairs`` (eval tables): every item appears exactly once in each arrangement, with the
  same answers and plates, so paired accuracy is defined for every item;
* ``split``: no item id, and no question text, is shared with the train table (when given;
  target descriptions such as "the red circle" repeat across items by design);
* ``text:<heuristic>`` (informational): the RSB text heuristics that apply to two options.

Exit and report format are those of ``rsb audit`` (:class:`rsb_mj.tables.audit.AuditReport`).
"""

from __future__ import annotations

from collections import Counter, defaultdict

from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.sources import QuestionSource, get_source
from rsb_mj.episodes.sources.act2answer import probe_hits
from rsb_mj.stats import Z95
from rsb_mj.tables.audit import AuditReport, Check, lengths, rate_check
from rsb_mj.tables.heuristics import BALANCED


def _wrong(e: Episode) -> str:
    return "B" if e.correct == "A" else "A"


def _hits(e: Episode) -> dict[str, bool]:
    plates = e.extra["plates"]
    wrong = _wrong(e)
    answer, distractor = e.options[e.letters.index(e.correct)], e.options[e.letters.index(wrong)]
    return probe_hits(answer, distractor, plates[e.correct], plates[wrong])


def correct_on_left(e: Episode) -> bool:
    """True when the correct plate stands left of the other (smaller table x)."""
    target = e.layout[e.target]
    return all(target.x < p.x for name, p in e.layout.items() if name != e.target)


def _pairs(rows: list[Episode]) -> Check:
    by_item: dict[str, list[Episode]] = defaultdict(list)
    for e in rows:
        by_item[e.question_id].append(e)
    bad = [
        item
        for item, es in by_item.items()
        if sorted(e.extra.get("layout", "") for e in es) != ["original", "swapped"]
        or len({(e.options, e.correct) for e in es}) != 1
    ]
    detail = f"{len(by_item)} items, each in both layouts" if not bad else f"unpaired: {bad[:3]}"
    return Check("pairs", not bad, detail, float(len(bad)))


def _targets(rows: list[Episode]) -> bool:
    """True when the table's questions are target descriptions (they may repeat)."""
    e = rows[0]
    return get_source(str(e.extra["source"])).get(e.question_id).form == "target"


def _split(rows: list[Episode], train: list[Episode]) -> Check:
    ids = {e.question_id for e in train} & {e.question_id for e in rows}
    texts = {e.question for e in train} & {e.question for e in rows}
    shared = sorted(ids)[:3] + sorted(texts)[:1]
    return Check(
        "split",
        not ids and not (texts and not _targets(rows)),
        f"{len(ids)} item ids, {len(texts)} question texts shared with train"
        + (f": {shared}" if shared else ""),
        float(len(ids)),
    )


def audit_paired(
    rows: list[Episode],
    label: str,
    max_words: int | None = None,
    train: list[Episode] | None = None,
    source: QuestionSource | None = None,
) -> AuditReport:
    """Audit one paired table (see the module docstring). ``train`` and ``source`` are the
    family audit's common arguments; a paired table's checks read neither (its items name
    their source by id)."""
    report = AuditReport(label, len(rows), 2, len({e.question_id for e in rows}))
    if not rows:
        report.checks.append(Check("rows", False, "empty table", 0))
        return report
    checks = report.checks
    checks.append(rate_check("side", sum(map(correct_on_left, rows)), len(rows), 0.5, Z95))
    for layout in ("original", "swapped"):
        part = [e for e in rows if e.extra.get("layout") == layout]
        if part:
            hits = sum(map(correct_on_left, part))
            checks.append(rate_check(f"side:{layout}", hits, len(part), 0.5, Z95))
    checks.append(rate_check("letter", sum(e.correct == "A" for e in rows), len(rows), 0.5, Z95))
    cells: dict[str, Counter] = defaultdict(Counter)
    for e in rows:
        for name, hit in _hits(e).items():
            cells[name][hit] += 1
    for name, c in sorted(cells.items()):
        checks.append(rate_check(f"probe:{name}", c[True], c.total(), 0.5, Z95))
    if rows[0].split == "eval":
        checks.append(_pairs(rows))
    if train is not None:
        checks.append(_split(rows, train))
    for name, pick in BALANCED.items():
        applied = [(g, e.correct) for e in rows if (g := pick(e)) is not None]
        if applied:
            rate = sum(g == c for g, c in applied) / len(applied)
            report.notes.append(
                f"text:{name} picks the answer in {rate:.3f} of {len(applied)} rows"
            )
    words = [len(e.instruction.split()) for e in rows]
    report.lengths = {
        "chars": lengths([len(e.instruction) for e in rows]),
        "words": lengths(words),
    }
    if max_words is not None:
        over = sum(w > max_words for w in words)
        checks.append(
            Check("max_words", over == 0, f"{over} instructions over {max_words} words", over)
        )
    return report


__all__ = ["audit_paired", "correct_on_left"]
