"""Semantic episodes: how one episode of a task is drawn (question sources, options,
instruction templates, splits; the layout with :mod:`rsb_mj.lang.layout`). The frozen tables
of drawn episodes, their checks and audits are :mod:`rsb_mj.tables`.

Data flows one way: a parsed task (``:question`` source and choice count, candidates,
``:options`` map rule) -> :func:`sample_episode` -> :class:`~.episode.Episode`. The modules,
one concept each:

* :mod:`.episode` -- the :class:`~rsb_mj.episodes.episode.Episode` value every later stage
  reads (one row of a frozen table);
* :mod:`.question`, :mod:`.numeric`, :mod:`.dedup`, :mod:`.probes` -- a question as a value,
  numeric answers, near-duplicates, number shapes (read by the sources and the linter, so
  they come before it);
* :mod:`.sources` -- ``arithmetic`` (sign rule ``a >= b + 10``), ``gsm8k``, ``mmlu_pro``,
  ``mmlu`` and the twelve Act2Answer sources (binary items with pictures): disjoint,
  deterministic train/eval pools;
* :mod:`.options` -- distinct options, correct letter and numeric rank uniform;
* :mod:`.templates` -- ``tasks/templates/{seen,unseen}_{2..10}.txt`` and the answer
  templates ``a2a-{seen,unseen}-{picture,text}.txt``;
* :mod:`.instructions` -- which templates a split uses, and how they are filled;
* :mod:`.sampler` -- the draw order from ``default_rng(seed)``, the same for every family;
* :mod:`.rationale` -- chain-of-thought rationales for training episodes.

Public API::

    sample_episode(problem, *, suite, split, index, seed) -> Episode
    get_source(name) -> QuestionSource       # arithmetic, gsm8k, mmlu_pro, mmlu
    load_templates(set_name, choices) -> tuple[Template, ...]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rsb_mj.lazy import lazy_exports

if TYPE_CHECKING:
    from rsb_mj.episodes.question import Question
    from rsb_mj.episodes.sampler import sample_episode
    from rsb_mj.episodes.sources import SOURCES, SPLITS, QuestionSource, get_source
    from rsb_mj.episodes.templates import Template, load_templates

#: Public name -> the module that defines it, imported on first access (so that importing one
#: submodule, e.g. a question bank's reader in ``rsb lint``, does not load numpy and the
#: sampler with this package).
_LAZY = {
    "Question": "rsb_mj.episodes.question",
    "sample_episode": "rsb_mj.episodes.sampler",
    "SOURCES": "rsb_mj.episodes.sources",
    "SPLITS": "rsb_mj.episodes.sources",
    "QuestionSource": "rsb_mj.episodes.sources",
    "get_source": "rsb_mj.episodes.sources",
    "Template": "rsb_mj.episodes.templates",
    "load_templates": "rsb_mj.episodes.templates",
}

__all__ = [
    "SOURCES",
    "SPLITS",
    "Question",
    "QuestionSource",
    "Template",
    "get_source",
    "load_templates",
    "sample_episode",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
