"""Toy policies for the semantic gap on :mod:`evaluation.fakes` (``probing.readers:NAME``).

* :class:`ReadsDirect`: picks the block the instruction names ("the block C"), else block
  A: it acts on the answer when told and knows nothing when asked.
"""

from __future__ import annotations

import re

from evaluation.fakes import ToyPickPolicy


class ReadsDirect(ToyPickPolicy):
    """See the module docstring (a simulator policy only to find the named block)."""

    def reset(self, env, obs, info) -> None:
        named = re.search(r"\bthe block ([A-J])\b", info["instruction"])
        self.letter = named.group(1) if named else "A"
        super().reset(env, obs, info)


def reads_direct() -> ReadsDirect:
    """``module:factory`` entry (``inprocess:probing.readers:reads_direct``)."""
    return ReadsDirect()
