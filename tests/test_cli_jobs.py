"""``-j`` is the short form of every worker-count option (``--workers``, ``--jobs``)."""

from __future__ import annotations

import argparse

from rsb_mj.cli import build_parser


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_eval_takes_j_for_workers():
    args = build_parser().parse_args(
        ["eval", "--suite", "RSB-Math-4", "--policy", "expert", "--out", "x", "-j", "3"]
    )
    assert args.workers == 3


def test_every_worker_count_option_has_j():
    with_workers = {}
    for name, sub in _subparsers().items():
        for action in sub._actions:
            if {"--workers", "--jobs"} & set(action.option_strings):
                with_workers[name] = sorted(action.option_strings)
    assert with_workers["eval"] == ["--workers", "-j"]
    missing = {name: opts for name, opts in with_workers.items() if "-j" not in opts}
    assert not missing, missing
