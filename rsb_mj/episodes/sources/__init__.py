"""Question sources by name: ``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu`` and the twelve
Act2Answer sources ``a2a_color`` ... (:mod:`.act2answer`); with task-file parameters
(:mod:`.params`) and user question banks (:mod:`.bank`) through :func:`resolve_source`.

>>> from rsb_mj.episodes.sources import get_source
>>> get_source("gsm8k").pool("eval")[0].answer
'18'
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from rsb_mj.episodes.sources.base import QuestionSource, check_split
from rsb_mj.errors import EpisodeError
from rsb_mj.splits import SPLITS

if TYPE_CHECKING:
    from rsb_mj.lang.task import SourceSpec


@functools.cache
def _built_in() -> dict[str, QuestionSource]:
    """Every built-in source, by the name task files use (made on first use: importing this
    package for a question bank, as ``rsb lint`` does, loads neither numpy nor the banks)."""
    # deferred: rsb lint imports this package for question banks (see _built_in)
    from rsb_mj.episodes.sources.act2answer import act2answer_sources
    from rsb_mj.episodes.sources.arithmetic import ArithmeticSource
    from rsb_mj.episodes.sources.gsm8k import Gsm8kSource
    from rsb_mj.episodes.sources.mmlu import MmluSource
    from rsb_mj.episodes.sources.mmlu_pro import MmluProSource

    sources = (ArithmeticSource(), Gsm8kSource(), MmluProSource(), MmluSource())
    return {s.name: s for s in (*sources, *act2answer_sources())}


def __getattr__(name: str) -> Any:
    """``SOURCES``: every built-in source by name (see :func:`_built_in`)."""
    if name == "SOURCES":
        return _built_in()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_source(name: str) -> QuestionSource:
    """The question source called ``name``.

    Raises:
        EpisodeError: for an unknown name, listing the valid ones.
    """
    try:
        return _built_in()[name]
    except KeyError:
        raise EpisodeError(
            f"unknown question source {name!r}; valid choices: {', '.join(sorted(_built_in()))}"
        ) from None


_CONFIGURED: dict[tuple, QuestionSource] = {}


def resolve_source(spec: SourceSpec) -> QuestionSource:
    """The source a task draws from: a question bank for ``(:source (:file ...))``, else the
    built-in source narrowed by the task's parameters (the shared instance without any).

    Raises:
        EpisodeError: for an unknown source, a bad parameter, or an invalid question bank
            (``path:line: problem``).
    """
    if spec.file is not None:
        # deferred: rsb lint imports this package (see _built_in)
        from rsb_mj.episodes.sources.bank import BankSource

        return BankSource(spec.file)
    base = get_source(spec.name)
    if not spec.params:
        return base
    key = (spec.name, spec.params)
    if key not in _CONFIGURED:
        # deferred: rsb lint imports this package (see _built_in)
        from rsb_mj.episodes.sources.filtered import configured_source

        _CONFIGURED[key] = configured_source(base, spec.params)
    return _CONFIGURED[key]


def source_of(qid: str) -> QuestionSource:
    """The source a question id belongs to (by its prefix; ``a2a-color-0007``: ``a2a_color``)."""
    prefix, _, rest = qid.partition("-")
    if prefix == "a2a":
        return get_source(f"a2a_{rest.partition('-')[0]}")
    name = {"arith": "arithmetic"}.get(prefix, prefix)
    return get_source(name)


__all__ = [
    "SOURCES",
    "SPLITS",
    "QuestionSource",
    "check_split",
    "get_source",
    "resolve_source",
    "source_of",
]
