"""Question sources by name: ``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu``.

>>> from rsb_mj.episodes.sources import get_source
>>> get_source("gsm8k").pool("eval")[0].answer
'18'
"""

from __future__ import annotations

from rsb_mj.episodes.sources.arithmetic import ArithmeticSource
from rsb_mj.episodes.sources.base import SPLITS, QuestionSource, check_split
from rsb_mj.episodes.sources.gsm8k import Gsm8kSource
from rsb_mj.episodes.sources.mmlu import MmluSource
from rsb_mj.episodes.sources.mmlu_pro import MmluProSource
from rsb_mj.errors import EpisodeError

#: Every source, by the name task files use.
SOURCES: dict[str, QuestionSource] = {
    s.name: s for s in (ArithmeticSource(), Gsm8kSource(), MmluProSource(), MmluSource())
}


def get_source(name: str) -> QuestionSource:
    """The question source called ``name``.

    Raises:
        EpisodeError: for an unknown name, listing the valid ones.
    """
    try:
        return SOURCES[name]
    except KeyError:
        raise EpisodeError(
            f"unknown question source {name!r}; valid choices: {', '.join(sorted(SOURCES))}"
        ) from None


def source_of(qid: str) -> QuestionSource:
    """The source a question id belongs to (by its prefix)."""
    prefix = qid.split("-", 1)[0]
    name = {"arith": "arithmetic"}.get(prefix, prefix)
    return get_source(name)


__all__ = ["SOURCES", "SPLITS", "QuestionSource", "check_split", "get_source", "source_of"]
