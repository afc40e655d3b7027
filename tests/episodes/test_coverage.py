"""rsb_mj.episodes.sources.coverage: the counts are the runtime pools' sizes (real data)."""

from __future__ import annotations

import numpy as np

from rsb_mj.episodes.sources import resolve_source
from rsb_mj.episodes.sources.arithmetic import canonical
from rsb_mj.episodes.sources.coverage import coverage
from rsb_mj.lang.blocks import SourceParam
from rsb_mj.lang.task import SourceSpec


def _params(*params):
    return tuple(SourceParam(p[0], tuple(p[1:])) for p in params)


def test_counts_are_the_sizes_of_the_pools_the_runtime_draws_from():
    for name, params, choices in (
        ("gsm8k", _params(("answer_range", 0, 100)), 10),
        ("mmlu_pro", _params(("subject", "biology", "computer_science")), 4),
        ("mmlu", _params(("group", "humanities")), 4),
    ):
        found = coverage(name, params, choices)
        source = resolve_source(SourceSpec(name, params))
        assert found.counts == {s: len(source.pool(s)) for s in ("train", "eval")}
        assert found.empty == () and found.hint == "" and found.fix is None
    assert coverage("gsm8k", _params(("answer_range", 0, 100)), 10).counts == {
        "train": 5037,
        "eval": 904,
    }


def test_arithmetic_eval_count_is_every_question_the_eval_draws_can_give():
    params = _params(("operators", "sub"), ("operand_range", 0, 11))
    found = coverage("arithmetic", params, 10)
    assert found.counts == {"train": 1, "eval": 2}
    source = resolve_source(SourceSpec("arithmetic", params))
    rng = np.random.default_rng(0)
    drawn = set()
    for _ in range(200):
        _, op, a, b = source.draw("eval", rng).qid.split("-")
        drawn.add(canonical(op, int(a), int(b)))
    assert len(drawn) == found.counts["eval"]


def test_an_empty_split_names_itself_and_the_counts():
    found = coverage("gsm8k", _params(("answer_range", -100, -11)))
    assert found.empty == ("eval",) and found.counts == {"train": 2, "eval": 0}
    assert found.message().startswith(
        "(gsm8k (:answer_range -100 -11)) leaves no eval question (2 train, 0 eval); "
    )
