"""The episode splits, defined once: ``train`` (demonstrations, seen templates) and ``eval``
(held-out questions, unseen templates)."""

from __future__ import annotations

#: Split names, in the order error messages list them.
SPLITS: tuple[str, ...] = ("train", "eval")
#: Rows of each eval table (and of the eval rows ``rsb eval`` draws from a task file).
EVAL_ROWS = 500
#: Rows of each train table.
TRAIN_ROWS = 1000
