"""The resumable evaluation runner behind ``rsb eval``.

It writes into a run folder (:class:`~rsb_mj.evaluation.run_folder.RunFolder`: ``run.json``,
``episodes.jsonl``, ``features/``, ``videos/`` and ``.rsb.lock``; one writer per folder, a
second run on the same folder is refused with the holder's pid). Running the same command
again resumes: jobs with a scored record are skipped; jobs without a record, or whose record
is an *error* (``termination == "error"``: a fault outside the policy, never scored), run
again. A fault of the policy itself is a scored failure (``termination == "policy_fault"``,
:mod:`rsb_mj.evaluation.faults`), not rerun. A resumed run is refused when it asks another
split, level, control rate, step limit or tables (``--tables``: private tables, whose
manifest's sha256 ``run.json`` keeps as ``tables``), or when a task changed since (its
file, its question bank or a template file: the message names the file).
Only the parent process writes records, one atomic append per finished episode, so a kill
loses at most the episodes in flight (they rerun) and never duplicates one; an append that
fails (full disk, ``ulimit -f``) stops the run with a :class:`~rsb_mj.atomic.WriteError`
naming the file, and the records written before it stay (resume after freeing space).

Before any work the request is checked: every episode index lies in its frozen table, every
``--video`` index is an episode of the run, the output folder can be written, and every
built-in or ``openpi:`` policy passes :meth:`Policy.preflight` (an unreachable policy server
stops the run within its connect timeout, before any record is written). What every
episode's scene would fail on is checked before the run folder is made: an
``RSB_MJ_CACHE`` that cannot be written, and a goal run's asset folder (``assets``) whose
originals cannot be built (:func:`rsb_mj.scene.assets.check_objects`); ``rsb eval``,
:func:`rsb_mj.evaluate` and a direct :func:`run_eval` all pass here. A task file that
draws from a question bank gets a warning on stderr when its rows repeat questions (each
row draws its question independently, so a small pool repeats).

Workers (:mod:`rsb_mj.evaluation.pool`, the pool ``rsb demos`` runs on too): ``workers == 1``
runs in this process; more uses a pool of spawned processes, each keeping its environments
between episodes and ending with the parent (see :mod:`rsb_mj.procs`), or Ray tasks
(``ray``). A worker that dies (killed, out of memory, a crash in native code) turns the
episodes it had in flight into error records of kind ``"infra"`` and the run goes on with a
fresh pool. Jobs are ordered by suite, then episode, then policy, so workers
reuse environments. With ``--features MODE`` the process that runs an episode also writes
its policy's per-layer features to ``features/`` (one archive per episode, atomically, before
the record is appended; :mod:`rsb_mj.probing.store`) and the record names it; ``run.json``
keeps the mode, and a resumed run asking another is refused. ``run.json`` also holds the
renderer fingerprint of the process that started the run, and each record's
``sim["renderer"]`` that of the process that ran its episode
(:mod:`rsb_mj.scene.fingerprint`; taken once per worker). With ``batch > 1``
(``--batch``) each worker holds that many episodes in lockstep and takes the next job as
soon as a slot frees up (:mod:`rsb_mj.evaluation.pool.batched`); the records are those of
an unbatched run.

Goal tasks (LIBERO / VLA-Arena style files, no ``(:question ...)``) are sources like any
other: row ``i`` of a goal task file is its episode of seed ``i``
(:func:`rsb_mj.tables.episode_source.load_episode`), built as a
:class:`~rsb_mj.env.rsb_env.RsbEnv` by the env factories (objects from ``assets``), scored
by the rollout's goal scorer, recorded as an :class:`EpisodeRecord` with its goal fields; a
goal source refuses ``--split train`` (its rows are seeds), ``--counterfactual`` and
instruction ablations.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rsb_mj.atomic import WriteError
from rsb_mj.errors import EvalError, InfraError
from rsb_mj.evaluation import run_tasks
from rsb_mj.evaluation.ablations import (
    COUNTERFACTUAL,
    GOAL_INSTRUCTION_MODES,
    GOAL_MODE_REFUSALS,
    INSTRUCTION_MODES,
)
from rsb_mj.evaluation.faults import policy_fault
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.metrics import task_label
from rsb_mj.evaluation.pool import run_batched, run_jobs
from rsb_mj.evaluation.private_records import private_record
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.run_folder import RunFolder, RunSettings
from rsb_mj.evaluation.sealed import (
    Seal,
    check_chain,
    closing_line,
    new_nonce,
    read_seal,
    sealed_order,
    sign,
)
from rsb_mj.evaluation.video import video_file
from rsb_mj.evaluation.worker import (
    EnvFactory,
    SettingsEnvFactory,
    build_policy,
    error_record,
    run_job,
)
from rsb_mj.lang.files import allow_roots
from rsb_mj.lock import LOCK_FILE
from rsb_mj.policies import sandbox
from rsb_mj.policies.base import MAX_BATCH
from rsb_mj.policies.child import forbid_memory_access
from rsb_mj.policies.spec import BUILTIN, builds_in_workers, check_spec
from rsb_mj.policies.user import split_spec
from rsb_mj.probing.capture import FeatureMode
from rsb_mj.progress import progress
from rsb_mj.rates import CONTROL_HZ, CONTROL_RATES
from rsb_mj.scene.fingerprint import renderer_fingerprint
from rsb_mj.splits import SPLITS
from rsb_mj.tables.episode_source import Source, resolve, split_goal_row_source, tables_sha256

#: How an Act2Answer episode starts (``--a2a-start``): the cube in the left gripper as the
#: paper runs it (``held``, the task files' ``(Grasped cube left_gripper)``), or on the
#: table, hands empty (``table``: the variant with a grasp).
A2A_STARTS = ("held", "table")
#: The rate [Hz] the suites' step limits are counted at.
BASE_CONTROL_HZ = CONTROL_HZ


@dataclass(frozen=True)
class EvalConfig:
    """One ``rsb eval`` invocation.

    Attributes:
        suites: suite names and task files.
        policies: policy specs.
        episodes: episodes per suite (table rows ``start .. start + episodes - 1``).
        out: run directory.
        split: ``"eval"`` (default) or ``"train"``.
        start: first table row.
        workers: worker processes (1: run in this process).
        max_steps: control-step limit; None uses each suite's ``max_steps``.
        videos: episode indices whose head camera is written to ``out/videos/``.
        progress: show progress on stderr: a bar on a terminal, else a line per 5% of the
            episodes or per 10 s (:mod:`rsb_mj.progress`).
        connect_timeout_s: limit [s] for connecting to a policy server (and for each
            policy's preflight check).
        request_timeout_s: limit [s] for one query of a policy server.
        episode_timeout_s: wall-clock limit [s] of one episode; exceeding it records an
            infrastructure error (retried on resume).
        instructions: instruction modes run beside ``original`` (``--instruction``).
        visual_level, language_level: VLA-Arena's perturbation levels the environments run
            at (``--visual-level``, ``--language-level``; the env factory applies them): a
            run directory keeps the levels it started with, like its split.
        counterfactual: also run each row's counterfactual twin (``--counterfactual``).
        ray: None to run locally; else run every episode as a Ray task (``--ray``):
            ``""`` on a local cluster of ``workers`` CPUs started for the run (127.0.0.1
            only), or on the running cluster at this address (see
            :mod:`rsb_mj.evaluation.pool.ray_cluster`).
        control_hz: the environments' control rate [Hz] (``--control-hz``, one of
            :data:`CONTROL_RATES`); a suite's step limit, counted at 20 Hz, is scaled to the
            same duration (400 steps = 20 s = 1,000 steps at 50 Hz) unless ``max_steps`` is
            set. A run directory keeps the rate it started with.
        allow_roots: folders besides a task file's own that the files it names (question
            bank, template files) may lie in (``--allow-root``; see
            :mod:`rsb_mj.lang.files`).
        features: ``--features`` mode (``first``, ``choice``, ``every:K``; ``""``: none):
            each episode's per-layer features go to ``out/features/`` and its record names
            them (:mod:`rsb_mj.probing.store`). A run directory keeps the mode it started
            with.
        feature_modules: ``--feature-modules``: the modules of a torch-based policy whose
            outputs are its features (needs ``features``).
        sealed: a sealed run (``--sealed``; implied by ``tables``, see
            :mod:`rsb_mj.evaluation.sealed`): needs ``secret_file``; policy code runs only
            in the sandbox, episodes run in a
            secret-seeded order, records are signed, a policy's fault is its failure, and
            no episode's end depends on whether its choice was right. ``lerobot:`` runs
            in a sandboxed policy process like a policy file, ``inprocess:`` (privileged,
            never ranked) runs only without other policies.
        secret_file: the private secret (``--secret-file``; for ``tables`` the one they
            were drawn from).
        sandbox: run file and module policies in the sandbox (``--no-sandbox``: off; see
            :mod:`rsb_mj.policies.sandbox`).
        sandbox_binds, sandbox_network, sandbox_gpu, sandbox_env: what the sandbox lets the
            policy reach besides its code (``--sandbox-bind DIR``, ``--sandbox-network``,
            ``--sandbox-gpu``, ``--sandbox-env NAME``: variables of rsb's environment).
        sandbox_memory_bytes, sandbox_processes: the sandbox's address-space [bytes] and
            process limits (``--sandbox-memory GIB``, ``--sandbox-processes N``; None: the
            defaults that fit this machine, :mod:`rsb_mj.policies.sandbox`; 0: none).
        batch: episodes each worker runs at once in lockstep, their policy queries batched
            (``--batch``; :mod:`rsb_mj.evaluation.lockstep`); 1 runs one at a time.
        a2a_start: ``"held"`` (default) or ``"table"`` (:data:`A2A_STARTS`): whether what a
            task holds at reset (Act2Answer's cube) starts in the gripper; a run directory
            keeps the start it began with.
        tables: a folder of private tables (``--tables``, :mod:`rsb_mj.tables.private.build`)
            the rows are read from instead of the shipped tables; each record then names
            its private manifest's sha256 instead of its row
            (:func:`~rsb_mj.evaluation.private_records.private_record`). A run directory
            keeps the tables it started with.
        names: ``--name``: one label per policy (in the order of ``policies``), its name in
            records and reports instead of its spec (``()``: the specs). A user's file spec
            names the file as written, so the same policy run from another folder would
            get another name; a label keeps it (and the policy's seed, derived from it).
        assets: goal tasks' object folder (``--assets DIR``: the user's LIBERO / VLA-Arena
            originals; ``""``: ``$RSB_MJ_ASSETS``, an installed package's, else the shipped
            stand-ins, :func:`rsb_mj.scene.assets.resolve_object_source`). Each goal
            record names the source its episode ran on.
        resolved: sources of ``suites`` already resolved (of the run's split and tables,
            e.g. a goal run's: :attr:`rsb_mj.evaluation.run_sources.GoalRun.resolved`),
            which the run takes as they are instead of looking them up again.
    """

    suites: tuple[str, ...]
    policies: tuple[str, ...]
    episodes: int
    out: Path
    split: str = "eval"
    start: int = 0
    workers: int = 1
    max_steps: int | None = None
    videos: tuple[int, ...] = field(default_factory=tuple)
    progress: bool = True
    connect_timeout_s: float = 5.0
    request_timeout_s: float = 60.0
    episode_timeout_s: float = 600.0
    instructions: tuple[str, ...] = ()
    counterfactual: bool = False
    visual_level: int = 0
    language_level: int = 0
    control_hz: int = BASE_CONTROL_HZ
    ray: str | None = None
    allow_roots: tuple[Path, ...] = ()
    features: str = ""
    feature_modules: tuple[str, ...] = ()
    batch: int = 1
    tables: Path | None = None
    a2a_start: str = "held"
    sealed: bool = False
    secret_file: Path | None = None
    sandbox: bool = True
    sandbox_binds: tuple[Path, ...] = ()
    sandbox_network: bool = False
    sandbox_gpu: bool = False
    sandbox_env: tuple[str, ...] = ()
    sandbox_memory_bytes: int | None = None
    sandbox_processes: int | None = None
    names: tuple[str, ...] = ()
    assets: str = ""
    resolved: tuple[Source, ...] = field(default=(), compare=False)

    @property
    def labels(self) -> dict[str, str]:
        """Policy spec -> its label (``--name``; the spec itself without one)."""
        return dict(zip(self.policies, self.names or self.policies, strict=True))

    @property
    def variants(self) -> tuple[str, ...]:
        """``original``, the requested instruction modes, and ``counterfactual``."""
        more = (COUNTERFACTUAL,) if self.counterfactual else ()
        return tuple(dict.fromkeys(("original", *self.instructions, *more)))

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise EvalError(f"split {self.split!r}; valid choices: {', '.join(SPLITS)}")
        for flag, value, least in (
            ("--episodes", self.episodes, 1),
            ("--jobs", self.workers, 1),
            ("--start", self.start, 0),
        ):
            if value < least:
                raise EvalError(f"{flag} {value}: must be at least {least}")
        if self.max_steps is not None and self.max_steps < 1:
            raise EvalError("--max-steps must be at least 1")
        if not 1 <= self.batch <= MAX_BATCH:
            raise EvalError(f"--batch {self.batch}: must be 1..{MAX_BATCH}")
        if self.batch > 1 and self.ray is not None:
            raise EvalError(
                f"--batch {self.batch} with --ray: a Ray task runs one episode; use --batch "
                "with --jobs, or --ray without --batch"
            )
        if self.a2a_start not in A2A_STARTS:
            raise EvalError(
                f"--a2a-start {self.a2a_start!r}; valid choices: {', '.join(A2A_STARTS)}"
            )
        if self.control_hz not in CONTROL_RATES:
            raise EvalError(
                f"--control-hz {self.control_hz}; valid choices: "
                f"{', '.join(map(str, CONTROL_RATES))}"
            )
        if not self.suites or not self.policies:
            raise EvalError("name at least one --suite and one --policy")
        if self.names:
            _check_names(self.policies, self.names)
        if self.tables is not None and self.split != "eval":
            raise EvalError(f"--tables {self.tables}: private tables hold eval rows only")
        if self.tables is not None:
            object.__setattr__(self, "sealed", True)  # a private draw is always sealed
        _check_sandbox(self)
        if self.sealed:
            _check_sealed(self)
        elif self.secret_file is not None:  # else the run went unsealed, its report refused
            raise EvalError(
                f"--secret-file {self.secret_file}: a secret is for sealed runs (--sealed, or "
                "--tables DIR): add --sealed, or drop --secret-file for an ordinary run"
            )
        for mode in self.instructions:
            if mode not in INSTRUCTION_MODES:
                raise EvalError(
                    f"--instruction {mode!r}; valid choices: {', '.join(INSTRUCTION_MODES)}"
                )
        for flag, value in (
            ("--connect-timeout", self.connect_timeout_s),
            ("--request-timeout", self.request_timeout_s),
            ("--episode-timeout", self.episode_timeout_s),
        ):
            if not 0 < value < math.inf:  # every network call has a timeout
                raise EvalError(f"{flag} {value}: must be a positive number of seconds")
        if self.features:
            FeatureMode.parse(self.features)
        elif self.feature_modules:
            raise EvalError("--feature-modules names where features come from: add --features")
        last = self.start + self.episodes - 1
        for index in self.videos:
            if not self.start <= index <= last:
                raise EvalError(
                    f"--video {index}: not an episode of this run "
                    f"(valid: {self.start}..{last}, from --start and --episodes)"
                )


def _check_names(policies: tuple[str, ...], names: tuple[str, ...]) -> None:
    """Refuse ``--name`` labels that do not name each ``--policy`` once, or that collide."""
    if len(set(policies)) != len(policies):
        raise EvalError("--name with a --policy given twice: give each --policy once")
    if len(names) != len(policies):
        raise EvalError(
            f"--name given {len(names)} times for {len(policies)} --policy: give one --name "
            "per --policy, in the same order"
        )
    for name in names:
        if not name.strip() or name != name.strip():
            raise EvalError(
                f"--name {name!r}: a label is a non-empty name without surrounding spaces"
            )
    repeated = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    if repeated:
        raise EvalError(f"--name {repeated[0]!r} names two policies: give each its own label")
    for name, spec in zip(names, policies, strict=True):
        if name in policies and name != spec:
            raise EvalError(
                f"--name {name!r}: that is another --policy's spec; choose another label"
            )


def _check_sandbox(config: EvalConfig) -> None:
    """Refuse a ``--sandbox-bind`` that is not there (the policy would miss it silently)
    and sandbox settings with ``--no-sandbox`` (they would do nothing)."""
    if config.sandbox_processes is not None and config.sandbox_processes < 0:
        raise EvalError(f"--sandbox-processes {config.sandbox_processes}: give N >= 0 (0: none)")
    for path in config.sandbox_binds:
        if not Path(path).exists():
            raise EvalError(f"--sandbox-bind {path}: no such folder or file")
    given = [flag for flag, on in (("--sandbox-bind", config.sandbox_binds),
             ("--sandbox-network", config.sandbox_network),
             ("--sandbox-gpu", config.sandbox_gpu), ("--sandbox-env", config.sandbox_env),
             ("--sandbox-memory", config.sandbox_memory_bytes is not None),
             ("--sandbox-processes", config.sandbox_processes is not None)) if on]  # fmt: skip
    if given and not config.sandbox:
        raise EvalError(
            f"{given[0]} with --no-sandbox: without the sandbox the policy reaches every "
            "file, the network and the GPU; drop one of them"
        )


def _check_sealed(config: EvalConfig) -> None:
    """Refuse what a sealed run cannot keep sealed (see :class:`EvalConfig`)."""
    what = "a sealed run (implied by --tables)" if config.tables else "a sealed run (--sealed)"
    if config.secret_file is None:
        drawn = " (the one the tables were drawn from)" if config.tables else ""
        raise EvalError(
            f"{what} orders its episodes and signs its records with the private secret: "
            f"give --secret-file FILE{drawn}"
        )
    if not config.sandbox:
        raise EvalError(f"--no-sandbox: {what} runs policy code only in the sandbox")
    inside = [s for s in config.policies if s.startswith("inprocess:")]
    if inside and len(inside) < len(config.policies):
        raise EvalError(
            f"--policy {inside[0]}: {what} runs an in-process policy (privileged, never "
            "ranked) only alone: in rsb's process it could rewrite the other policies' "
            "records; run it in a run of its own"
        )


def configured_env_factory(config: EvalConfig) -> EnvFactory | None:
    """The env factory for ``config``'s environment settings (perturbation levels, control
    rate), or None for the default environment."""
    settings = (config.visual_level, config.language_level, config.control_hz)
    if settings == (0, 0, BASE_CONTROL_HZ) and config.a2a_start == "held" and not config.assets:
        return None
    return SettingsEnvFactory(
        *settings, start_held=config.a2a_start == "held", assets=config.assets
    )


#: The built-in policies that run a goal task; the others choose among a question's candidates.
GOAL_BUILTINS = ("expert", "noop", "random")


def _check_goal_sources(config: EvalConfig, sources: list[Source]) -> None:
    """Refuse what goal task files do not run: counterfactual twins (no answer to move),
    instruction modes other than :data:`~rsb_mj.evaluation.ablations.GOAL_INSTRUCTION_MODES`
    (no question, options or mapping to change), the train split of a bare-seed file (its
    rows are seeds; a goal suite's file has train rows) and question baselines."""
    goal = [s for s in sources if s.goal]
    if not goal:
        return
    what = f"{goal[0].given} is a goal task (no (:question ...))"
    seeded = [s for s in goal if split_goal_row_source(s.given) is None]
    if config.split != "eval" and seeded:
        raise EvalError(
            f"--split {config.split}: {seeded[0].given} is a goal task file run from bare "
            "seeds (the same in every split); choose other seeds with --start (a goal "
            "suite's files have train rows: rsb eval --suite vla-arena --split train)"
        )
    if config.counterfactual:
        raise EvalError(
            f"--counterfactual: {what}; a counterfactual twin swaps the question for one "
            "whose answer is another candidate, and a goal task has no answer to swap"
        )
    for spec in config.policies:
        if spec in BUILTIN and spec not in GOAL_BUILTINS:
            raise EvalError(
                f"--policy {spec}: {what}, and {spec} chooses among a question's candidates; "
                f"valid built-in policies for goal tasks: {', '.join(GOAL_BUILTINS)} "
                "(or your own policy)"
            )
    for mode in config.instructions:
        if mode not in GOAL_INSTRUCTION_MODES:
            why = GOAL_MODE_REFUSALS.get(mode, "not an instruction mode")
            raise EvalError(
                f"--instruction {mode}: {what}: {why}; valid choices for goal tasks: "
                f"{', '.join(GOAL_INSTRUCTION_MODES)}"
            )


def _check_bounds(config: EvalConfig, sources: list[Source]) -> None:
    """Refuse rows outside the frozen tables before any work (or memory) is spent."""
    for source in sources:
        rows = source.rows
        if config.start + config.episodes > rows:
            raise EvalError(
                f"--start {config.start} --episodes {config.episodes}: the {source.given} "
                f"{config.split} table has {rows} rows (valid: --start + --episodes <= {rows})"
            )


def resolve_sources(config: EvalConfig) -> list[Source]:
    """Each source of ``config``, resolved once (:func:`~rsb_mj.tables.episode_source.
    resolve`): every check of the run reads these values.

    Raises:
        EvalError: for an unknown suite.
    """
    tables = str(config.tables or "")
    known = {s.name: s for s in config.resolved if (s.split, s.tables) == (config.split, tables)}
    return [known.get(name) or resolve(name, config.split, tables) for name in config.suites]


def plan(
    config: EvalConfig,
    sources: list[Source] | None = None,
    settings: sandbox.Sandbox | None = None,
) -> list[Job]:
    """All jobs of ``config``, ordered by suite, episode index, policy, variant.

    Args:
        config: the run.
        sources: its sources as :func:`resolve_sources` gives them (resolved here if None).
        settings: the sandbox settings each job's policy runs with (None:
            :func:`sandbox_settings` of ``config``).

    Raises:
        EvalError: for an unknown suite or policy spec, or rows outside a frozen table.
    """
    if sources is None:
        sources = resolve_sources(config)
    for spec in dict.fromkeys(config.policies):
        _check_policy(spec)
    _check_goal_sources(config, sources)
    _check_bounds(config, sources)
    if settings is None:
        settings = sandbox_settings(config)
    jobs = []
    labels = config.labels
    folder = RunFolder(config.out)
    roots = tuple(str(Path(r).resolve()) for r in config.allow_roots)
    for source in sources:
        name = source.name
        limit = config.max_steps or round(source.max_steps * config.control_hz / BASE_CONTROL_HZ)
        for index in range(config.start, config.start + config.episodes):
            for spec, variant in itertools.product(config.policies, config.variants):
                video = ""
                if index in config.videos:
                    file = video_file(name, labels[spec], config.split, index, variant)
                    video = str(folder.videos_dir / file)
                jobs.append(
                    Job(
                        name,
                        config.split,
                        index,
                        spec,
                        limit,
                        video,
                        connect_timeout_s=config.connect_timeout_s,
                        request_timeout_s=config.request_timeout_s,
                        episode_timeout_s=config.episode_timeout_s,
                        variant=variant,
                        features=config.features,
                        features_dir=str(folder.features_dir) if config.features else "",
                        feature_modules=config.feature_modules,
                        tables=str(config.tables or ""),
                        sealed=config.sealed,
                        label=labels[spec] if labels[spec] != spec else "",
                        allow_roots=roots,
                        source=source,
                        sandbox=settings,
                    )
                )
    return jobs


def _check_policy(spec: str) -> None:
    """Validate specs early: built-in and openpi specs are built (no connection yet); a
    user's must name a module or file that is there (workers import and call it)."""
    check_spec(spec)


def preflight(config: EvalConfig, specs: list[str]) -> None:
    """Run :meth:`Policy.preflight` of each built-in and openpi policy in ``specs``.

    Raises:
        InfraError: from the first policy that cannot run (e.g. its server is down).
    """
    for spec in dict.fromkeys(specs):
        if builds_in_workers(spec):
            continue  # built (and checked) in the workers: the factory may be expensive
        policy = build_policy(
            Job("", "", 0, spec, 1, "", config.connect_timeout_s, config.request_timeout_s)
        )
        try:
            policy.preflight(config.connect_timeout_s)
        finally:
            policy.close()


def run_settings(
    config: EvalConfig, seal: Seal | None = None, settings: sandbox.Sandbox | None = None
) -> RunSettings:
    """What the run folder of ``config`` keeps and a resumed run must ask again
    (:class:`~rsb_mj.evaluation.run_folder.RunSettings`); a sealed run's a fresh nonce
    (a resumed run keeps its folder's) and its isolation (of the sandbox ``settings``;
    None: :func:`sandbox_settings` of ``config``)."""
    if seal and settings is None:
        settings = sandbox_settings(config)
    return RunSettings(
        seal_nonce=new_nonce() if seal else "",
        seal_isolation=settings.isolation() if seal and settings else None,
        split=config.split,
        visual_level=config.visual_level,
        language_level=config.language_level,
        control_hz=config.control_hz,
        a2a_start=config.a2a_start,
        assets=config.assets,
        features=config.features,
        feature_modules=tuple(config.feature_modules),
        tables=config.tables,
        tables_sha256=_tables_id(config),
        seal_key_id=seal.key_id if seal else None,
    )


def _tables_id(config: EvalConfig) -> str | None:
    """The sha256 of the private manifest of ``config.tables`` (None: the shipped tables)."""
    return None if config.tables is None else tables_sha256(config.tables)


def _check_video_paths(jobs: list[Job]) -> None:
    for job in jobs:
        if job.video and Path(job.video).is_dir():
            raise WriteError(f"{job.video}: is a folder; the video of this episode goes there")


def run_fingerprinted_job(job: Job, env_factory: EnvFactory | None = None) -> EpisodeRecord:
    """:func:`~rsb_mj.evaluation.worker.run_job` with this process's renderer fingerprint
    added to the record's ``sim`` as ``"renderer"`` (what drew the pixels the policy saw)."""
    return fingerprinted(run_job(job, env_factory))


def fingerprinted(record: EpisodeRecord) -> EpisodeRecord:
    """``record`` with this process's renderer fingerprint in its ``sim`` as ``"renderer"``
    (in the worker that ran the episode; batched runs mark each record there too)."""
    renderer = renderer_fingerprint().to_dict()
    return replace(record, sim={**record.sim, "renderer": renderer})


@dataclass
class _Tally:
    """Scored episodes of one (policy, source) so far: how many, grasped, succeeded, and
    for a goal task the summed ``:cost`` over the episodes that have one."""

    goal: bool
    episodes: int = 0
    grasped: int = 0
    succeeded: int = 0
    cost: float = 0.0
    costed: int = 0

    def add(self, record: EpisodeRecord) -> None:
        """Count the scored ``record``."""
        self.episodes += 1
        self.grasped += record.grasped
        self.succeeded += record.success
        if record.cost is not None:
            self.cost += float(record.cost)
            self.costed += 1


def _build_cache(config: EvalConfig) -> None:
    """Build the robot's mesh cache here, with its progress on stderr (unless
    ``config.progress`` is off), when it is missing (first use, ~25 s): once, before the
    workers start, instead of silently in each of them."""
    # deferred: mujoco and the robot's module, only for a run that simulates
    from rsb_mj.scene.aloha import build_cache

    build_cache(shown=config.progress)


def _postfix(done: dict[tuple[str, str], _Tally], errors: int, sealed: bool = False) -> str:
    """The progress line's counts (every run's progress line is formatted here): the last
    two (policy, source) pairs, a question suite's as ``expert/RSB-Math-4: 5G 5T of 5``
    (grasped, succeeded, scored), a goal task's as ``expert/<file stem>: 3 of 3
    succeeded`` (``, cost 0.50/episode`` where the task has a ``:cost``), then the error
    episodes. A sealed run's name no outcome, ``expert/RSB-Math-4: 5 done`` (no G/T: a
    policy must not learn earlier outcomes from a log, and the operator gets them in the
    table)."""
    parts = []
    for (policy, source), t in done.items():
        label = task_label(source) if t.goal else source
        if sealed:
            parts.append(f"{policy}/{label}: {t.episodes} done")
        elif not t.goal:
            parts.append(f"{policy}/{label}: {t.grasped}G {t.succeeded}T of {t.episodes}")
        else:
            cost = f", cost {t.cost / t.costed:.2f}/episode" if t.costed else ""
            parts.append(f"{policy}/{label}: {t.succeeded} of {t.episodes} succeeded{cost}")
    text = "; ".join(parts[-2:])
    return f"{text}; {errors} errors" if errors else text


def run_eval(config: EvalConfig, *, env_factory: EnvFactory | None = None) -> list[EpisodeRecord]:
    """Run (or resume) ``config``; return the records of all its jobs, in plan order.

    Episodes that end in a fault outside the policy are returned as error records
    (``termination == "error"``); rerunning the same config retries them. The policy's own
    faults are scored failures (``termination == "policy_fault"``,
    :func:`~rsb_mj.evaluation.faults.policy_fault`).

    Args:
        config: what to run.
        env_factory: builds environments (default ``rsb_mj.env.RsbEnv``); must be a
            module-level function when ``workers > 1``.

    Raises:
        EvalError: a bad request (rows outside a table, unknown policy, a run folder of
            another split or step limit, a task changed since the folder started, a second
            writer); InfraError when a policy fails its preflight; WriteError when the
            folder cannot be written (also when a record cannot be appended: the run stops,
            the records written before stay).
    """
    if config.sealed:
        forbid_memory_access()  # before the secret is read and any policy or worker starts
    seal = _seal(config)
    # a sealed run as root: one folder of readable copies of policy files only root may
    # read, for all its workers, removed when the run ends (sandbox.staged_files)
    with sandbox.staging(sandbox_settings(config)) as settings, allow_roots(config.allow_roots):
        return _run_eval(config, env_factory, seal, settings)


def sandbox_settings(config: EvalConfig) -> sandbox.Sandbox:
    """The sandbox settings the policy processes of ``config`` run with: handed to each
    job (:attr:`~rsb_mj.evaluation.jobs.Job.sandbox`), not through the environment. The
    run folder, the private tables and the secret are hidden from the policy."""
    hide = [config.out, *([config.tables] if config.tables else [])]
    hide += [config.secret_file] if config.secret_file else []
    limits: dict[str, Any] = {}
    if config.sandbox_memory_bytes is not None:
        limits["memory_bytes"] = config.sandbox_memory_bytes
    if config.sandbox_processes is not None:
        limits["processes"] = config.sandbox_processes
    return sandbox.Sandbox(
        enabled=config.sandbox,
        sealed=config.sealed,
        hide=tuple(str(Path(p).absolute()) for p in hide),
        binds=tuple(str(Path(p).absolute()) for p in config.sandbox_binds),
        network=config.sandbox_network,
        gpu=config.sandbox_gpu,
        env=tuple(config.sandbox_env),
        **limits,
    )


def _remove_empty(path: Path) -> None:
    """Remove the folder ``path`` a run created when it holds nothing but its lock file (a
    run that stopped before its first episode); call it holding the lock, which stays held
    on the removed file until released."""
    lock_file = path / LOCK_FILE
    if {p.name for p in path.iterdir()} <= {LOCK_FILE}:
        lock_file.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # another run took the folder meanwhile
            path.rmdir()


def _check_sandbox_starts(config: EvalConfig, settings: sandbox.Sandbox) -> None:
    """A sealed run: check, before the run folder is touched, that the sandbox starts with
    this run's settings for every policy that runs in a policy process (else every episode
    would be scored a fault of the policy's).

    Raises:
        EvalError: naming the policy and why the sandbox does not start.
    """
    # deferred: the policy process's client
    from rsb_mj.policies.child import spec_code, spec_named

    for spec in dict.fromkeys(config.policies):
        if not (spec.startswith("lerobot:") or split_spec(spec) is not None):
            continue
        why = sandbox.probe(settings, spec_code(spec), spec_named(spec))
        if why is not None:
            raise EvalError(
                f"policy {spec}: a sealed run runs policy code only in the sandbox, and {why}; "
                "nothing was run or recorded"
            )


def _check_scene_inputs(config: EvalConfig, sources: list[Source], simulated: bool) -> None:
    """Check what every episode's scene would fail on, before the run folder is touched (a
    user's error is named once, not recorded as an error per episode to retry): for rsb_mj's
    environments (``simulated``) that ``RSB_MJ_CACHE`` can be written
    (:func:`~rsb_mj.scene.cache.cache_root`), and for goal tasks that their object source
    is one and every original they use builds (:func:`~rsb_mj.scene.assets.check_objects`).

    Raises:
        RsbError: naming ``RSB_MJ_CACHE`` and the fix; SceneError: naming the asset folder,
            or the file of the first original that cannot be read or built.
    """
    # deferred: mujoco, only for a run that plans scenes
    from rsb_mj.scene.assets import check_objects
    from rsb_mj.scene.cache import cache_root

    if simulated:
        cache_root()
    goal = [s.task for s in sources if s.goal]
    if goal:
        check_objects(config.assets, goal)


def _seal(config: EvalConfig) -> Seal | None:
    """The seal of a sealed run's secret (checked against the private tables' manifest)."""
    if not config.sealed or config.secret_file is None:
        return None
    return read_seal(config.secret_file, config.tables)


def _run_eval(
    config: EvalConfig,
    env_factory: EnvFactory | None,
    seal: Seal | None,
    settings: sandbox.Sandbox,
) -> list[EpisodeRecord]:

    sources = resolve_sources(config)
    jobs = plan(config, sources, settings)
    run_tasks.check_task_files(sources)
    digests = run_tasks.task_digests(sources)
    simulated = env_factory is None  # rsb_mj's environments: they need the robot's cache
    _check_scene_inputs(config, sources, simulated)  # before the run folder is made
    if env_factory is None:
        env_factory = configured_env_factory(config)
    if seal is not None:
        _check_sandbox_starts(config, settings)  # before the run folder is made or locked
    folder = RunFolder(config.out)
    created = not folder.path.exists()
    lock = folder.lock("rsb eval")
    started = not folder.run_file.exists()
    try:
        try:
            folder.prepare(run_settings(config, seal, settings), digests,
                           videos=bool(config.videos))  # fmt: skip
            nonce = folder.seal_nonce()
            if seal is not None:
                folder.path.chmod(0o700)  # no other user (a policy as nobody) reads it
            held = check_chain(folder.records_file, seal, nonce) if seal else None
            chain = [held.signature if held else ""]  # a resume goes on from its chain
            count = [held.records if held else 0]
            rows = range(config.start, config.start + config.episodes)
            if config.tables is None:  # a private table asks each question once
                for note in run_tasks.repeated_questions(sources, rows):
                    print(f"rsb eval: warning: {note}", file=sys.stderr)
            _check_video_paths(jobs)
            existing, todo = folder.resume(jobs, digests)
            if seal is not None:
                todo = sealed_order(todo, seal, nonce)
            preflight(config, [job.policy for job in todo])
            if simulated and todo:
                _build_cache(config)
        except BaseException:  # no episode ran: leave the folder as the command found it
            if started:
                folder.unstart()
                if created:
                    _remove_empty(folder.path)
            raise
        tally: dict[tuple[str, str], _Tally] = {}
        errors = [0]
        bar = progress(
            len(jobs),
            initial=len(jobs) - len(todo),
            desc="rsb eval",
            unit="episodes",
            enabled=config.progress,
        )

        def finish(job: Job, record: EpisodeRecord) -> None:
            if config.tables is not None:
                record = private_record(record, config.tables)
            record = policy_fault(record, sealed=config.sealed)
            if seal is not None:
                line, chain[0] = sign(record, seal, chain[0])
                folder.append(record, line)
                count[0] += 1
            else:
                folder.append(record)
            existing[record.key] = record
            if record.termination == "error":
                errors[0] += 1
            else:
                tally.setdefault((record.policy, record.suite), _Tally(record.is_goal)).add(record)
            bar.set_postfix_str(_postfix(tally, errors[0], config.sealed), refresh=False)
            bar.update(1)

        try:
            if config.batch > 1:
                run_batched(
                    todo,
                    finish,
                    died=lambda job, cause: error_record(job, InfraError.kind, cause),
                    workers=config.workers,
                    batch=config.batch,
                    env_factory=env_factory,
                    mark=fingerprinted,
                )
            else:
                run_jobs(
                    run_fingerprinted_job,
                    todo,
                    finish,
                    died=lambda job, cause: error_record(job, InfraError.kind, cause),
                    workers=config.workers,
                    ray=config.ray,
                    args=(env_factory,),
                )
        finally:
            bar.close()
        if seal is not None and (todo or not (held and held.closed)):
            line, chain[0] = closing_line(seal, chain[0], count[0], nonce)
            folder.append_line(line)  # the command ended: close its records
    finally:
        lock.release()
    return [existing[job.key] for job in jobs]
