"""``python -m tests.evaluation.fake_eval ARGS``: the ``rsb`` command line with episodes run
against :mod:`tests.evaluation.fakes` (no MuJoCo), for tests that need a real child process
(a real ``ulimit -f``). Use ``--workers 1``: the episodes run in this process."""

from __future__ import annotations

import sys

from rsb_mj.cli import main
from rsb_mj.evaluation import runner
from rsb_mj.tables.episode_source import Source
from tests.evaluation.fakes import fake_env_factory, fake_source_episode


def _fake_factory(config: runner.EvalConfig) -> runner.EnvFactory:
    return fake_env_factory


if __name__ == "__main__":
    Source.episode = fake_source_episode
    runner.configured_env_factory = _fake_factory
    sys.exit(main(sys.argv[1:]))
