"""The episode splits, defined once: ``train`` (demonstrations, seen templates) and ``eval``
(held-out questions, unseen templates)."""

from __future__ import annotations

#: Split names, in the order error messages list them.
SPLITS: tuple[str, ...] = ("train", "eval")
