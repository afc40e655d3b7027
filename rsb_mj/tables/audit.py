"""The shortcut audit: is anything but the question's meaning predictive of the answer?

Over an episode table (usually a frozen eval table) it checks:

* the distribution of the correct letter, of its left-to-right position, of its color
  (4 choices) and of its rank among sorted numeric options: chi-square against uniform,
  failing when p < ``ALPHA``;
* the success of the text-only heuristics of :mod:`rsb_mj.tables.heuristics`: each must lie
  inside the 95% chance band ``1/N +- 1.96 sqrt(p(1-p)/n)`` over the rows it applies to.
  The held-out probes (heuristics the table builder never looked at) are not held at chance
  by construction, so each has a 5% false-alarm rate at 95%; they use a Bonferroni band over
  their family (``z`` for 5% / number of probes, 2.58 for 5 probes), so that a table with no
  shortcut fails a probe in at most 5% of builds;
* the probes fitted on the suite's train table and scored on this table (when the train
  table is given, i.e. for an eval table): the per-value answer prior and the linear
  text-only classifier of :mod:`rsb_mj.tables.learned`, each inside the 95% chance band;
* leakage: the answer text never appears in an instruction outside the question and the
  option list (as a whole word, case-insensitive);
* splits: every question id belongs to the row's split, and (eval tables) no question is a
  near-duplicate of a train question of its source (the same normalized text, or a shared
  run of 20 words: :mod:`rsb_mj.episodes.dedup`);

and reports instruction-length statistics (characters and words), since VLA tokenizers
have limits, and (numeric options) how often the answer's units digit is unique among the
options with the success rate of a guess that knows only that digit (a measure of how far
a partial computation gets, not a text-only shortcut; informational).

The fitted probes (:mod:`rsb_mj.tables.learned`, scipy's sparse matrices) are imported by
:func:`learned_checks` only.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rsb_mj.choices import LETTERS
from rsb_mj.colors import PALETTE
from rsb_mj.episodes.dedup import DuplicateIndex
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.sources import QuestionSource, get_source, source_of
from rsb_mj.episodes.templates import option_list
from rsb_mj.errors import EpisodeError
from rsb_mj.stats import Z95, chance_band, chi_square_uniform, z_two_sided
from rsb_mj.tables.heuristics import (
    BALANCED,
    HELD_OUT,
    HEURISTICS,
    answer_text,
    numeric_rank,
    target_color,
    target_position,
    units_digit_oracle,
)
from rsb_mj.tables.learned import fitted_probes

#: Significance level of the chi-square uniformity tests.
ALPHA = 0.05


@dataclass(frozen=True)
class Check:
    """One audit check.

    Attributes:
        name: e.g. ``"letter"``, ``"heuristic:median"``, ``"leak"``.
        passed: whether the check passed.
        detail: one line saying what was measured and against what.
        value: the measured statistic (p-value, rate or count).
    """

    name: str
    passed: bool
    detail: str
    value: float


@dataclass
class AuditReport:
    """The result of auditing one table.

    Attributes:
        label: e.g. ``"RSB-Math-4 eval"``.
        rows: number of episodes.
        choices: options per episode.
        distinct_questions: number of distinct question ids.
        checks: every check, in order.
        lengths: instruction-length statistics, ``{"chars": {...}, "words": {...}}``.
    """

    label: str
    rows: int
    choices: int
    distinct_questions: int
    checks: list[Check] = field(default_factory=list)
    lengths: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when every check passed."""
        return all(c.passed for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        """The failed checks."""
        return [c for c in self.checks if not c.passed]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "label": self.label,
            "rows": self.rows,
            "choices": self.choices,
            "distinct_questions": self.distinct_questions,
            "passed": self.passed,
            "checks": [c.__dict__ for c in self.checks],
            "lengths": self.lengths,
            "notes": self.notes,
        }

    def format(self) -> str:
        """A human-readable multi-line report."""
        head = (
            f"{self.label}: {self.rows} episodes, {self.choices} choices, "
            f"{self.distinct_questions} distinct questions"
        )
        lines = [head]
        for check in self.checks:
            lines.append(f"  {'PASS' if check.passed else 'FAIL'} {check.name:<36} {check.detail}")
        for unit, s in self.lengths.items():
            lines.append(
                f"  instruction {unit}: min {s['min']:.0f}, median {s['median']:.0f}, "
                f"mean {s['mean']:.1f}, p95 {s['p95']:.0f}, max {s['max']:.0f}"
            )
        lines += [f"  INFO {note}" for note in self.notes]
        lines.append(f"  {'PASSED' if self.passed else 'FAILED'}")
        return "\n".join(lines)


def _distribution(name: str, counts: Counter, cells: tuple[str, ...]) -> Check:
    values = [counts.get(c, 0) for c in cells]
    stat, p = chi_square_uniform(values)
    shown = " ".join(f"{c}:{v}" for c, v in zip(cells, values, strict=True))
    return Check(name, p >= ALPHA, f"chi2={stat:.2f} p={p:.3f} (alpha {ALPHA}) {shown}", p)


def leaks_answer(episode: Episode) -> bool:
    """True when the answer text appears in the instruction outside the question and the
    option list."""
    rest = episode.instruction.replace(option_list(episode.options), " ", 1)
    rest = rest.replace(episode.question, " ", 1)
    answer = answer_text(episode)
    pattern = r"(?<![\w])" + re.escape(answer.lower()) + r"(?![\w])"
    return re.search(pattern, rest.lower()) is not None


def lengths(values: list[int]) -> dict[str, float]:
    """Min, median, mean, 95th percentile and max of ``values``."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "min": float(ordered[0]),
        "median": float(statistics.median(ordered)),
        "mean": float(statistics.fmean(ordered)),
        "p95": float(p95),
        "max": float(ordered[-1]),
    }


def rate_check(name: str, hits: int, n: int, chance: float, z: float, note: str = "") -> Check:
    """A success rate against the chance band ``chance +- z sd``."""
    rate = hits / n
    lo, hi = chance_band(chance, n, z)
    return Check(
        name,
        lo <= rate <= hi,
        f"{rate:.3f} in [{lo:.3f}, {hi:.3f}] (chance {chance:.3f}, n={n}{note})",
        rate,
    )


def learned_checks(episodes: list[Episode], train: list[Episode]) -> list[Check]:
    """The per-value prior and the linear classifier, fitted on ``train``, on ``episodes``."""
    chance = 1.0 / episodes[0].choices
    out = []
    for name, pick in fitted_probes(train).items():
        applied = [(g, e.correct) for e in episodes if (g := pick(e)) is not None]  # type: ignore[operator]
        if not applied:
            out.append(Check(f"fitted on train:{name}", True, "applies to no row", 0))
            continue
        hits = sum(g == c for g, c in applied)
        out.append(
            rate_check(
                f"fitted on train:{name}",
                hits,
                len(applied),
                chance,
                Z95,
                f", {len(train)} train rows",
            )
        )
    return out


def duplicate_rows(episodes: list[Episode], source: QuestionSource | None = None) -> list[int]:
    """Indices of the eval rows whose question near-duplicates a train question of its
    source (:mod:`rsb_mj.episodes.dedup`): ``source``, else the built-in source each
    question id names."""
    given = None if source is None else DuplicateIndex(q.text for q in source.pool("train") or ())
    out = []
    for e in episodes:
        if e.split != "eval":
            continue
        index = given if given is not None else _train_index(source_of(e.question_id).name)
        if index.match(e.question) is not None:
            out.append(e.index)
    return out


@cache
def _train_index(source: str) -> DuplicateIndex:
    pool = get_source(source).pool("train") or ()
    return DuplicateIndex(q.text for q in pool)


def _units_note(episodes: list[Episode]) -> str | None:
    odds = [u for u in map(units_digit_oracle, episodes) if u is not None]
    if not odds:
        return None
    unique = sum(u == 1.0 for u in odds) / len(odds)
    return (
        f"units digit: the answer's is unique among the options in {unique:.1%} of "
        f"{len(odds)} rows; knowing only it picks the answer {sum(odds) / len(odds):.3f} "
        f"of the time (chance {1 / episodes[0].choices:.3f})"
    )


def audit(
    episodes: list[Episode],
    label: str = "table",
    max_words: int | None = None,
    train: list[Episode] | None = None,
    source: QuestionSource | None = None,
) -> AuditReport:
    """Audit ``episodes`` (all with the same choice count).

    Args:
        episodes: the table's rows.
        label: name used in the report.
        max_words: if given, also fail when an instruction has more words than this (a
            policy whose tokenizer truncates would never see the last options).
        train: the suite's train table, for an eval table: the per-value prior and the
            linear classifier are fitted on it and scored on ``episodes``.
        source: the rows' question source, for the split checks; None: the built-in source
            each question id names (:func:`~rsb_mj.episodes.sources.source_of`). A task's own
            question bank (``(:source (:file ...))``, ids ``file-...``) must be given.

    Raises:
        EpisodeError: for an empty table or mixed choice counts.
    """
    if not episodes:
        raise EpisodeError(f"{label}: no episodes to audit")
    banked = next((e for e in episodes if e.question_id.startswith("file-")), None)
    if source is None and banked is not None:
        raise EpisodeError(
            f"{label}: row {banked.index} asks {banked.question_id!r}, a question of a task's "
            "own bank; audit the task file instead (rsb audit TASK.bddl)"
        )
    choices = {e.choices for e in episodes}
    if len(choices) != 1:
        raise EpisodeError(f"{label}: mixed choice counts {sorted(choices)}; audit one suite")
    n_choices = choices.pop()
    letters = LETTERS[n_choices]
    report = AuditReport(label, len(episodes), n_choices, len({e.question_id for e in episodes}))
    checks = report.checks
    checks.append(_distribution("letter", Counter(e.correct for e in episodes), letters))
    positions = Counter(str(target_position(e)) for e in episodes)
    checks.append(
        _distribution("position (left to right)", positions, tuple(map(str, range(n_choices))))
    )
    colors = Counter(target_color(e) for e in episodes)
    if len({c for e in episodes for c in e.colors.values()}) > 1:
        checks.append(_distribution("color", colors, tuple(PALETTE)))
    ranks = Counter(str(r) for r in map(numeric_rank, episodes) if r is not None)
    if ranks:
        checks.append(_distribution("numeric rank", ranks, tuple(map(str, range(n_choices)))))
    chance = 1.0 / n_choices
    z_held = z_two_sided(ALPHA / len(HELD_OUT))
    for name, pick in HEURISTICS.items():
        picks = [(pick(e), e.correct) for e in episodes]
        applied = [(p, c) for p, c in picks if p is not None]
        kind = "heuristic" if name in BALANCED else "held-out heuristic"
        if not applied:
            checks.append(Check(f"{kind}:{name}", True, "applies to no row of this table", 0))
            continue
        rate = sum(p == c for p, c in applied) / len(applied)
        z = Z95 if name in BALANCED else z_held
        lo, hi = chance_band(chance, len(applied), z)
        checks.append(
            Check(
                f"{kind}:{name}",
                lo <= rate <= hi,
                f"{rate:.3f} in [{lo:.3f}, {hi:.3f}] (chance {chance:.3f}, n={len(applied)}"
                + ("" if name in BALANCED else f", Bonferroni z={z:.2f}")
                + ")",
                rate,
            )
        )
    if train:
        checks.extend(learned_checks(episodes, train))
    leaks = [e.index for e in episodes if leaks_answer(e)]
    checks.append(
        Check(
            "leak (answer outside option list)",
            not leaks,
            f"{len(leaks)} of {len(episodes)} instructions"
            + (f" (rows {leaks[:10]})" if leaks else ""),
            len(leaks),
        )
    )
    owner = (lambda qid: source) if source is not None else source_of
    wrong = [e.index for e in episodes if owner(e.question_id).split_of(e.question_id) != e.split]
    checks.append(
        Check(
            "split (question ids in the row's split)",
            not wrong,
            f"{len(wrong)} of {len(episodes)} rows outside their split"
            + (f" (rows {wrong[:10]})" if wrong else ""),
            len(wrong),
        )
    )
    dups = duplicate_rows(episodes, source)
    checks.append(
        Check(
            "split (no near-duplicate of a train question)",
            not dups,
            f"{len(dups)} of {len(episodes)} rows" + (f" (rows {dups[:10]})" if dups else ""),
            len(dups),
        )
    )
    note = _units_note(episodes)
    if note:
        report.notes.append(note)
    report.lengths = {
        "chars": lengths([len(e.instruction) for e in episodes]),
        "words": lengths([len(e.instruction.split()) for e in episodes]),
    }
    if max_words is not None:
        long = [e.index for e in episodes if len(e.instruction.split()) > max_words]
        checks.append(
            Check(
                f"length (at most {max_words} words)",
                not long,
                f"{len(long)} of {len(episodes)} instructions longer"
                + (f" (rows {long[:10]})" if long else ""),
                len(long),
            )
        )
    return report
