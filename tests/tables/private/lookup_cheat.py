"""The look-up cheat of issue 24, as a test policy: it reads the shipped eval tables.

Every instruction of a shipped RSB eval table names one row (the levels share their base
suite's rows), and each row holds ``correct`` and ``mapping``: a policy that sees only the
prompt (what an openpi server receives) and looks it up knows which candidate to carry.
:class:`LookupCheat` does exactly that, and lets the scripted expert carry it; when the
instruction is in no shipped table it picks a candidate at random. Its ``text`` says which
it did (``"looked up"`` / ``"guessed"``), so records show it.

On the shipped rows of RSB-Math-4 it is right every time; on a private draw
(:mod:`rsb_mj.tables.private.build`) it finds no instruction and is left at chance.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import cache
from typing import Any

import numpy as np

from rsb_mj.policies.scripted import ScriptedPolicy
from rsb_mj.tables.families import load_table
from rsb_mj.tables.files import read_manifest


@cache
def shipped_answers() -> dict[str, str]:
    """Instruction -> the candidate its shipped eval rows name as the target most often
    (Act2Answer target descriptions repeat across items; RSB instructions never do)."""
    votes: dict[str, Counter] = defaultdict(Counter)
    for entry in read_manifest().values():
        if entry["split"] == "eval" and entry.get("family") != "goal":
            for row in load_table(entry["suite"], "eval"):
                votes[row.instruction][row.target] += 1
    return {text: c.most_common(1)[0][0] for text, c in votes.items()}


class LookupCheat(ScriptedPolicy):
    """Looks the instruction up in the shipped eval tables (see the module docstring)."""

    name = "lookup-cheat"

    def __init__(self) -> None:
        super().__init__()
        self.looked_up = False

    def choose(self, env: Any, info: dict[str, Any], rng: np.random.Generator) -> str:
        """The looked-up target, else a uniform draw from the candidates."""
        found = shipped_answers().get(str(env.instruction))
        self.looked_up = found is not None
        if found is not None:
            return found
        candidates = tuple(info["candidates"])
        return candidates[int(rng.integers(len(candidates)))]

    @property
    def text(self) -> str:
        """What the record keeps: whether it looked the answer up."""
        return "looked up" if self.looked_up else "guessed"
