"""What an evaluation run consists of: one job per (suite, episode index, policy, variant)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.policies.sandbox import Sandbox
    from rsb_mj.tables.episode_source import Source


@dataclass(frozen=True)
class Job:
    """One episode of one policy.

    Attributes:
        suite: suite name, e.g. ``"RSB-Math-4"``, or a task file (a question task's or a
            goal task's: :mod:`rsb_mj.tables.episode_source`): the name records carry.
        split: ``"eval"`` (frozen eval table) or ``"train"``.
        index: row of the suite's episode table.
        policy: policy spec (see :mod:`rsb_mj.policies.spec`).
        max_steps: control-step limit.
        video: path of an mp4 of the head camera to write, or ``""`` for none.
        connect_timeout_s: a policy server's connection limit [s] (openpi).
        request_timeout_s: a policy server's limit per query [s] (openpi), and a policy
            process's per request once the policy is built
            (:class:`~rsb_mj.policies.child.ChildPolicy`).
        episode_timeout_s: wall-clock limit of the whole episode [s]; exceeding it records
            an infrastructure error.
        variant: ``"original"``, an instruction ablation mode or ``"counterfactual"`` (see
            :mod:`rsb_mj.evaluation.ablations`).
        cameras: cameras rendered besides the policy's own, for a caller's ``on_step`` hook
            (``rsb demos`` records them); ``()`` for none.
        features: the ``--features`` mode (``first``, ``choice``, ``every:K``), ``""`` for
            none: the policy's per-layer features are kept (:mod:`rsb_mj.probing.capture`).
        features_dir: the run's features folder the episode's archive is written to.
        feature_modules: modules of a torch-based policy whose outputs are its features
            (``--feature-modules``; :mod:`rsb_mj.policies.feature_hooks`).
        tables: a folder of private tables the row is read from (``rsb eval --tables``),
            ``""`` for the shipped tables.
        sealed: a sealed run (``rsb eval --sealed``): the episode's end does not depend on
            its outcome (:class:`~rsb_mj.evaluation.rollout.Rollout`).
        label: the policy's name in records and reports (``rsb eval --name``), ``""`` for
            its spec (see :attr:`name`).
        allow_roots: folders besides a task file's own that the files it names may lie in
            (``rsb eval --allow-root``, ``EvalConfig.allow_roots``; resolved): the worker
            allows them while it builds the episode (:func:`rsb_mj.lang.files.allow_roots`),
            in whichever process runs it.
        source: the source the run resolved (:func:`rsb_mj.tables.episode_source.resolve`,
            named ``suite``, of ``split`` and ``tables``), with what the run's checks
            learned of it (its family, step limit, rows, digest): the worker reads the
            episode and the task from it instead of looking ``suite`` up again. None (a job
            built by hand) makes it the unresolved source of ``suite``, which looks each
            fact up on first use.
        sandbox: the sandbox settings the job's policy process runs with (``rsb eval``'s
            ``--sealed``, ``--sandbox-*``: the run's, :func:`rsb_mj.evaluation.runner.run_eval`),
            handed to :func:`~rsb_mj.policies.spec.make_policy`; None: the worker process's
            (:func:`rsb_mj.policies.sandbox.current`, the defaults).
    """

    suite: str
    split: str
    index: int
    policy: str
    max_steps: int
    video: str = ""
    connect_timeout_s: float = 5.0
    request_timeout_s: float = 60.0
    episode_timeout_s: float = 600.0
    variant: str = "original"
    cameras: tuple[str, ...] = ()
    features: str = ""
    features_dir: str = ""
    feature_modules: tuple[str, ...] = ()
    tables: str = ""
    sealed: bool = False
    label: str = ""
    allow_roots: tuple[str, ...] = ()
    # what the job runs is the fields above: these two carry what the run resolved
    source: Source | None = field(default=None, compare=False)
    sandbox: Sandbox | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.source is None:
            # deferred: a spawned pool worker imports this module before numpy (the pool's
            # initializer), and a job built by hand resolves nothing
            from rsb_mj.tables.episode_source import Source

            object.__setattr__(self, "source", Source(self.suite, self.suite, self.split,
                                                      self.tables))  # fmt: skip
        elif (self.source.name, self.source.split, self.source.tables) != (
            self.suite, self.split, self.tables,
        ):  # fmt: skip
            raise ValueError(
                f"job of {self.suite} {self.split} (tables {self.tables!r}) given the source "
                f"{self.source.name} {self.source.split} (tables {self.source.tables!r})"
            )

    @property
    def name(self) -> str:
        """The policy's name in the records: its label, else its spec."""
        return self.label or self.policy

    @property
    def key(self) -> tuple[str, str, int, str, str]:
        """The record key this job produces (see ``EpisodeRecord.key``)."""
        return (self.suite, self.split, self.index, self.name, self.variant)
