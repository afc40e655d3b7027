"""Balanced draws: the rules every row of a seeded table passes, and the draw that keeps them.

Row ``i`` of a balanced table is the first of ``seeds(i, 0), seeds(i, 1), ...`` whose
episode passes the *balance* rules (:func:`draw_balanced`; the shipped RSB tables' seeds are
:func:`rsb_mj.tables.rsb.row_seed`), so every row is reproduced by
``sample_episode(problem, suite=, split=, index=i, seed=row["seed"])`` alone:

* a question is used at most :func:`max_question_uses` times (once on eval tables);
* the correct letter, the correct candidate's left-to-right position and color, the correct
  option's rank among numeric options, and whether
  each :data:`~rsb_mj.tables.heuristics.BALANCED` heuristic would pick the correct option
  stay within ``max(1, SLACK_SD * sd)`` rows of their chance share among the rows they apply
  to, after every row (sd: the binomial standard deviation of that count; e.g. letter ``A``
  in at most 125 + 4.8 of the first 500 rows of a 4-choice table);
* the answer text does not appear outside the option list of the instruction;
* eval tables only: the per-value answer prior and the linear text-only classifiers fitted
  on the suite's train table (:func:`learned_heuristics`) stay at chance the same way. The
  train tables are built first and the eval table of a suite is balanced against its train
  table, so ``rsb audit`` measures those probes on an eval table they could not have been
  fitted on. Without this rule, with distractors already drawn like answers, they reach
  (eval, measured) HardMath-4 prior 36%, classifier 33%; General-4 38% and 31%.

After ``MAX_ATTEMPTS`` seeds the heuristic rules are dropped for that row (counted in the
build summary) so a build always ends.

The fitted probes (:mod:`rsb_mj.tables.learned`, scipy's sparse matrices) are imported by
:func:`learned_heuristics` only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rsb_mj.choices import style
from rsb_mj.colors import PALETTE
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.instructions import as_task
from rsb_mj.episodes.sampler import assemble, draw_distractors, draw_layout, draw_semantics
from rsb_mj.episodes.sources import QuestionSource, resolve_source
from rsb_mj.errors import EpisodeError
from rsb_mj.tables.audit import leaks_answer
from rsb_mj.tables.heuristics import BALANCED, numeric_rank, target_color, target_position
from rsb_mj.tables.learned import fitted_probes

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem

#: How far a count may run ahead of its chance share: ``max(1, SLACK_SD * sd)`` rows, with
#: sd the binomial standard deviation of the count (a quarter of the 95% band's half-width).
SLACK_SD = 0.5
#: Seeds tried per row before the heuristic rules are dropped for it.
MAX_ATTEMPTS = 1000


def max_question_uses(rows: int, pool_size: int | None) -> int:
    """How often one question may appear in a table of ``rows`` drawn from ``pool_size``
    questions (None: a generated pool): once when the pool has at least twice as many
    questions as rows, else ``ceil(rows / pool_size) + 1`` (e.g. 3 for 1,000 Math train rows
    over 500 questions), so the last rows do not wait for the few unused questions."""
    if pool_size is None or 2 * rows <= pool_size:
        return 1
    return math.ceil(rows / pool_size) + 1


@dataclass
class _Balance:
    """Running counts of the balance rules."""

    choices: int
    max_uses: int
    heuristics: dict[str, Any] = field(default_factory=lambda: dict(BALANCED))
    rows: int = 0
    uses: Counter = field(default_factory=Counter)
    cells: dict[str, Counter] = field(default_factory=dict)
    relaxed: int = 0

    def _room(self, key: str, value: Any, share: float) -> bool:
        """Whether one more row with ``value`` under ``key`` stays within its chance share."""
        cell = self.cells.setdefault(key, Counter())
        n = cell.total() + 1
        slack = max(1.0, SLACK_SD * math.sqrt(n * share * (1.0 - share)))
        return cell[value] + 1 <= share * n + slack

    def semantic_ok(self, episode: Episode, strict: bool) -> bool:
        """The rules that need no layout (``strict``: the heuristic rules too)."""
        if self.uses[episode.question_id] >= self.max_uses:
            return False
        if not self._room("letter", episode.correct, 1 / self.choices):
            return False
        colored = style(self.choices) == "colors"
        if colored and not self._room("color", target_color(episode), 1 / len(PALETTE)):
            return False
        if leaks_answer(episode):
            return False
        rank = numeric_rank(episode)
        if rank is not None and not self._room("rank", rank, 1 / self.choices):
            return False
        if strict:
            for name, pick in self.heuristics.items():
                guess = pick(episode)
                if guess is None:
                    continue
                hit = guess == episode.correct
                share = 1 / self.choices if hit else 1 - 1 / self.choices
                if not self._room(f"h:{name}", hit, share):
                    return False
        return True

    def layout_ok(self, episode: Episode) -> bool:
        """The left-to-right position rule (needs the layout)."""
        return self._room("position", target_position(episode), 1 / self.choices)

    def accept(self, episode: Episode) -> None:
        """Count an accepted row."""
        self.uses[episode.question_id] += 1
        self.cells.setdefault("letter", Counter())[episode.correct] += 1
        self.cells.setdefault("position", Counter())[target_position(episode)] += 1
        if style(self.choices) == "colors":
            self.cells.setdefault("color", Counter())[target_color(episode)] += 1
        rank = numeric_rank(episode)
        if rank is not None:
            self.cells.setdefault("rank", Counter())[rank] += 1
        for name, pick in self.heuristics.items():
            guess = pick(episode)
            if guess is not None:
                self.cells.setdefault(f"h:{name}", Counter())[guess == episode.correct] += 1
        self.rows += 1


def learned_heuristics(train: list[Episode]) -> dict[str, Any]:
    """The probes fitted on a train table that an eval table is balanced against: the
    per-value answer prior and the linear text-only classifiers (:mod:`.learned`)."""
    return fitted_probes(train)


#: ``seeds(index, attempt) -> seed``: the candidate seeds of a table's row ``index``.
Seeds = Callable[[int, int], int]


def draw_balanced(
    problem: Problem,
    *,
    suite: str,
    split: str,
    rows: int,
    seeds: Seeds,
    source: QuestionSource | None = None,
    train: list[Episode] | None = None,
) -> tuple[list[Episode], int]:
    """Draw ``rows`` rows of ``problem`` kept balanced (the rules of the module docstring):
    row ``i`` is the first of ``seeds(i, 0), seeds(i, 1), ...`` whose episode passes them.

    Args:
        suite: the name the rows carry (``""`` for a task file's).
        source: the source questions are drawn from (default: the task's; a private draw
            passes its held-out reserve, :mod:`rsb_mj.tables.reserve`).
        train: for an eval table, the suite's train table (see
            :func:`rsb_mj.tables.rsb.build_table`).

    Returns:
        (episodes, number of rows whose heuristic rules had to be dropped).

    Raises:
        EpisodeError: when no seed of a row passes even the rules kept after
            ``MAX_ATTEMPTS``.
    """
    task = as_task(problem)
    label = suite or task.path
    asked = task.asked()
    pool = (resolve_source(asked.source) if source is None else source).pool(split)
    max_uses = max_question_uses(rows, None if pool is None else len(pool))
    heuristics = dict(BALANCED)
    if train is not None:
        heuristics.update(learned_heuristics(train))
    balance = _Balance(asked.choices, max_uses, heuristics)
    out: list[Episode] = []
    for index in range(rows):
        attempt = 0
        while True:
            strict = attempt < MAX_ATTEMPTS
            if attempt >= 4 * MAX_ATTEMPTS:
                raise EpisodeError(
                    f"{label} {split} row {index}: no seed passed the balance rules "
                    f"in {attempt} attempts"
                )
            seed = seeds(index, attempt)
            attempt += 1
            rng = np.random.default_rng(seed)
            sem = draw_semantics(problem, suite=suite, split=split, rng=rng, source=source)
            probe = assemble(problem, sem, {}, suite=suite, split=split, index=index, seed=seed)
            if not balance.semantic_ok(probe, strict):
                continue
            layout = draw_layout(problem, rng)
            episode = assemble(
                problem,
                sem,
                layout,
                suite=suite,
                split=split,
                index=index,
                seed=seed,
                distractors=draw_distractors(problem, rng, layout),
            )
            if balance.layout_ok(episode):
                break
        if not strict:
            balance.relaxed += 1
        balance.accept(episode)
        out.append(episode)
    return out, balance.relaxed


__all__ = [
    "MAX_ATTEMPTS",
    "SLACK_SD",
    "Seeds",
    "draw_balanced",
    "learned_heuristics",
    "max_question_uses",
]
