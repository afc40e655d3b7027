"""Near-duplicate questions across splits: the same question, or a shared long passage.

Two question texts are *near-duplicates* when, after normalization (lower case, the words
``[a-z0-9]+`` only, so punctuation, spacing and case do not count), they are equal or share a
run of at least ``RUN_WORDS`` = 20 consecutive words (a reading passage, a quoted source, a
long stem). A train question that is a near-duplicate of an eval question would let a policy
memorize eval answers in training, so the fixed-pool sources drop such questions from their
train pool (:class:`~rsb_mj.episodes.sources.base.FixedSplit`, GSM8K), and ``rsb audit``
fails an eval table with any row whose question near-duplicates a train question of its
source.

Runs are compared through the hashes of every window of ``RUN_WORDS`` words (shingles), so
finding all pairs between two pools is linear in their total length.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

#: Shared consecutive words that make two questions near-duplicates.
RUN_WORDS = 20

_WORD = re.compile(r"[a-z0-9]+")


def normalize(text: str) -> tuple[str, ...]:
    """The words of ``text``: lower case, alphanumeric runs only."""
    return tuple(_WORD.findall(text.lower()))


def _key(words: Sequence[str]) -> bytes:
    return hashlib.blake2b(" ".join(words).encode(), digest_size=12).digest()


def fingerprints(text: str, run: int = RUN_WORDS) -> set[bytes]:
    """Hashes of the whole normalized text and of each window of ``run`` words."""
    words = normalize(text)
    out = {b"=" + _key(words)}
    out.update(_key(words[i : i + run]) for i in range(len(words) - run + 1))
    return out


class DuplicateIndex:
    """Fingerprints of a pool of question texts, for near-duplicate look-ups.

    Args:
        texts: the pool's question texts.
        run: shared consecutive words that make a near-duplicate.
    """

    def __init__(self, texts: Iterable[str], run: int = RUN_WORDS) -> None:
        self.run = run
        self._owner: dict[bytes, int] = {}
        for i, text in enumerate(texts):
            for fp in fingerprints(text, run):
                self._owner.setdefault(fp, i)

    def match(self, text: str) -> int | None:
        """Index of the first pool text that ``text`` near-duplicates (None if none)."""
        hits = [self._owner[fp] for fp in fingerprints(text, self.run) if fp in self._owner]
        return min(hits) if hits else None


def near_duplicates(
    queries: Sequence[str], pool: Sequence[str], run: int = RUN_WORDS
) -> dict[int, int]:
    """``{query index: pool index}`` for every query that near-duplicates a pool text."""
    index = DuplicateIndex(pool, run)
    out = {}
    for i, text in enumerate(queries):
        j = index.match(text)
        if j is not None:
            out[i] = j
    return out
