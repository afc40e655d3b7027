"""rsb_mj's tasks as one vla-eval benchmark (``vla-eval run --no-docker -c CONFIG``).

vla-eval (``pip install 'rsb_mj[vla-eval]'``) resolves the config's
``benchmark: "rsb_mj.integrations.vla_eval:RsbBenchmark"`` import string, builds the
benchmark with ``params`` and steps it against a model server over its websocket protocol.
One class, :class:`RsbBenchmark`, runs any task: a question suite (``suite: RSB-Math-4``),
a goal suite (``suite: vla-arena-l0``) or goal task files (``files: [x.bddl, ...]``); what
each source is comes from the dispatch point :func:`rsb_mj.tables.episode_source.resolve`
(``Source.goal``), its rows from the same module. Shipped configs, one per suite:
``rsb_mj/integrations/configs/rsb_<suite>.yaml`` and ``vla_arena_l0.yaml`` and friends
(:func:`config_path`). ``rsb_mj.integrations.vla_eval_goal:GoalBenchmark``, the former goal
plugin, stays as an alias for configs that name it (goal tasks only; the goal section
below).

Question suites. Tasks: one per suite (``name`` = suite name); episode ``k`` of a task is row
``start + k`` of the suite's frozen table (``episodes_per_task`` in the config, at most the
table's size). vla-eval sends the task dict, including ``episode_idx``, to the model
server; the frozen tables are public, so an ordinary run that must not trust its server
should set ``shuffle_seed`` (kept in the config, never sent) to draw the rows in an order
the server does not know. Better, a sealed run (below) orders them by the private secret,
and ``tables: DIR`` runs the private eval tables of a folder (``rsb episodes
build --private``, :mod:`rsb_mj.tables.private.build`; checked against its private manifest):
the task dict stays ``{"name": suite, "suite": suite}`` and ``episode_idx`` is then a
position in a table the server has never seen, and the instruction it gets asks a question
no shipped table asks, so no look-up of the public rows answers it.

Observation sent to the server (ALOHA names, as rsb_mj's openpi client sends them):
``images`` ``{"cam_high"}`` uint8 (H, W, 3) from the ``head`` camera, plus
``cam_left_wrist`` and ``cam_right_wrist`` (``left_wrist``, ``right_wrist``) with
``send_wrist_image``; ``state`` float32 (14,) measured joints ``[left 6 (rad), left
gripper, right 6, right gripper]`` with ``send_state``; ``task_description`` the
instruction. ``send_wrist_image`` and ``send_state`` default to
true (ALOHA policies read three cameras and the joints); a model server that declares
them in its ``observation_params`` (vla-eval's LeRobot and pi0 servers do) sets them when
the config does not. Action expected: ``{"actions": (14,)}`` joint-position targets in
the same layout (an ``(H, 14)`` chunk from a server without chunk handling is refused:
use vla-eval's ``chunk_size`` on the server side). 20 Hz control.

Grippers travel in ``convention`` (:mod:`rsb_mj.policies.aloha_convention`), by default
the one ``rsb export-lerobot`` writes (``aloha``: ALOHA's state and action gripper scales),
so a checkpoint trained on an export, served by vla-eval's LeRobot server, gets the state
it trained on and its actions come back to rsb_mj's scale; ``convention: rsb`` sends
rsb_mj's own scale (grippers 0 closed .. 1 open, linear in the finger) unchanged.

Modes: ``mode: sync`` (the shipped configs; the env waits for each action) and vla-eval's
real-time ``mode: live`` (``--benchmark-field mode=live --benchmark-field hz=20``): on a
tick without a fresh action the benchmark holds (:meth:`RsbBenchmark.get_hold_action`):
the last target, or before the first one the measured joints at reset, never a zero pose.

Recording (``--record-video``, or a config's ``recording:`` block): every frame of the
``head`` camera goes to vla-eval's recorder (``recorder.record_video``: one MP4 per
episode at the recorder's ``video_fps``, 20 by default = the control rate), and every
step's ``reward``, ``done``, ``success``, ``grasped``, ``action`` and ``state`` to its step
rows (``recorder.record_step``).

Episode result (``metrics``): ``success`` (TSR flag, one-attempt scoring), ``grasped``
(GSR flag), ``correct_choice``, ``choice`` (the letter first grasped, ``""`` if none),
``choices`` (4 or 10). vla-eval aggregates means; nSG needs both rates and comes from
:func:`rsb_mj.integrations.vla_eval_results.summarize`.

What reaches the model server: vla-eval sends the episode result (``metrics``, ``steps``,
``elapsed_sec``) to the server in its ``episode_end`` message, the same dict it records.
An ordinary run (the shipped, public tables) sends the metrics above: every public row
holds its answer anyway, so they tell a server nothing it could not look up. A **sealed**
run (``sealed: true``; always with ``tables:``, a private draw) sends none of them: the
metrics are ``{"sealed": true}`` only, the step rows of vla-eval's recorder carry ``done``,
``action`` and ``state`` but no ``reward``, ``success`` or ``grasped``, and an episode ends
as it would had the candidate first grasped been the answer (one pacing scorer per
candidate, as ``rsb eval --sealed`` does: :class:`rsb_mj.evaluation.rollout.Rollout`), so
``steps`` and ``elapsed_sec`` do not tell a right choice from a wrong one. A sealed run
holds the private secret (``secret_file``, the one the tables were drawn from; required):
episode ``k`` is the ``k``-th row of the secret-seeded order ``rsb eval --sealed`` uses
(:func:`rsb_mj.evaluation.sealed.sealed_order`, keyed by the secret, a **nonce** drawn
fresh for each benchmark instance, :attr:`RsbBenchmark.nonce`, and the policy named
:data:`POLICY`), so pair partners and level twins are neither adjacent nor predictable,
and two runs of one config run in different orders (``shuffle_seed`` is refused: a public
seed orders nothing secretly). The nonce is no secret (the order needs the secret too):
the benchmark prints it on stderr when it starts. The outcomes go to ``outcomes`` (a JSON
Lines file, one line per episode with the metrics above and the table ``row``; required in
a sealed run, never sent), written once, atomically, when the benchmark is cleaned up at
the end of the run: keep it where the server cannot read it. Each line carries
``"signature"``, the HMAC chain of ``rsb eval``'s sealed records
(:func:`rsb_mj.evaluation.sealed.sign_row`, the secret's record key, the first line chained
to the nonce), and the file ends in the signed closing record of a sealed run folder
(:func:`rsb_mj.evaluation.sealed.closing_line`: ``{"closing": {"count", "chain",
"nonce"}}``). ``python -m rsb_mj.integrations.vla_eval_results --outcomes FILE
--secret-file SECRET [--nonce NONCE]`` verifies every line (an edited, moved, removed or
foreign line is refused with ``file:line``, a file cut short as *incomplete*, and with
``--nonce``, the run's nonce, another run's file) before it reports the rates. Sharded
sealed runs are not supported: each shard would draw its own nonce (so its own order) and
write the one ``outcomes`` file.

Policy faults: in a sealed run an action that is not one (not a (14,) array of finite
numbers) is the server's own fault, a scored failure (``policy_fault: true`` in its
outcome, ``done`` at once; in the run-on after a decided wrong choice it scores nothing, as
in ``rsb eval --sealed``), not an exception vla-eval would record as an unscored error,
so a server cannot have the episodes it is unsure of excluded; an ordinary run raises
:class:`~rsb_mj.errors.EnvError` and vla-eval records the episode's ``failure_reason``.

Goal tasks (a goal suite's or your own LIBERO / VLA-Arena files). Tasks: one per task file
(``name``: its path under ``tasks/``, else as given; ``suite``: the goal suite or
``"files"``). Episodes, as ``rsb eval`` runs them:

* a suite's file: episode ``k`` is row ``start + k`` of the file's rows in the suite's
  **frozen table** (``split: eval``, the default, or ``train``; :mod:`rsb_mj.tables.layouts`):
  its seed and frozen layout, the episode ``rsb eval --suite SUITE --split S --start
  start`` runs as its row ``start + k`` (``episodes_per_task`` at most
  ``max_episodes_per_task``, the table's 5 eval or 20 train rows per file less ``start``);
* a file given in ``files`` (your own, or a shipped one named by path): episode ``k`` is
  the bare seed ``start + k``, which draws the layout, exactly as ``rsb eval FILE.bddl
  --start start`` runs it.

So a vla-eval episode and an ``rsb eval`` record of the same row or seed start from the same
scene. A suite's file that rsb_mj cannot build, or whose frozen table is short (the
manifest's ``short``: seeds without a valid layout were skipped), is left out (named in
:attr:`RsbBenchmark.skipped`, as ``rsb eval --suite`` names it); a file named in ``files``
that cannot be built is refused with its itemised list and tier. Files run beside a goal
suite or alone, not beside a question suite (their metrics differ). The environment is
:class:`rsb_mj.env.rsb_env.RsbEnv` on the shipped stand-ins (``assets: DIR`` for your own
originals; the constructor builds every original the tasks use, so a folder that cannot be
used is refused there, naming the file, as ``rsb eval --assets`` refuses it, and so is an
``RSB_MJ_CACHE`` that cannot be written), at ``visual_level`` / ``language_level``;
observation, action, grippers and recording as below. ``tables`` and ``shuffle_seed`` are for
question suites (goal tasks have no private tables, and a goal row holds no answer, so its
order tells nothing).

Episode result of a goal task (``metrics``): ``success`` (the ``:goal`` held for 10 control
steps; the episode ends then) and, for a file with a ``:cost`` rsb_mj evaluates, ``cost``
(the episode's cumulative cost: 1 per control step a step term holds, 10 per end term
holding at the end). vla-eval aggregates their means per task. Results are "LIBERO/VLA-Arena
layouts on Aloha": not comparable with published LIBERO / VLA-Arena numbers. A sealed goal
run (``sealed: true`` with ``outcomes`` and ``secret_file``) sends ``{"sealed": true}`` only,
records no ``reward`` or ``success`` in vla-eval's step rows, and runs every episode to
``max_steps`` as ``rsb eval --sealed`` does: the success is decided, and the cost summed, at
the step the goal has held, and the steps after it score nothing. Its outcome lines
(``task``, ``suite``, ``row``: the table row of a suite's file or the seed of a given file,
``success``, ``cost``, None without a ``:cost``, ``policy_fault``) are signed like a question
run's; an action that is not one ends the episode as the server's own failure (after the
success it changes nothing). Its episodes run in vla-eval's order (``episode_idx``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from vla_eval.benchmarks.base import StepBenchmark, StepResult
from vla_eval.recording import NullEpisodeRecorder
from vla_eval.render import configure_mujoco_render
from vla_eval.specs import IMAGE_RGB, LANGUAGE, DimSpec
from vla_eval.types import Action, EpisodeResult, Observation, Task

from rsb_mj.atomic import atomic_write_text, writable_folder
from rsb_mj.datasets.lerobot import CONVENTION, MOTORS
from rsb_mj.env.cameras import MAX_SIDE
from rsb_mj.errors import EnvError, RsbError, TaskError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.sealed import (
    Seal,
    closing_line,
    new_nonce,
    read_seal,
    sealed_order,
    sign_row,
)
from rsb_mj.lang.linter import load_goal_task
from rsb_mj.perturb.language import check_level as check_language_level
from rsb_mj.perturb.visual import check_level as check_visual_level
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.aloha import HOME_ARM, QUALITIES
from rsb_mj.scene.assets import check_objects, resolve_object_source
from rsb_mj.scene.cache import cache_root
from rsb_mj.scoring.scorer import EpisodeScorer, Pacing
from rsb_mj.splits import SPLITS
from rsb_mj.suites import GOAL_MAX_STEPS, get_suite, goal_suite
from rsb_mj.tables.episode_source import (
    goal_row_source,
    goal_rows,
    resolve,
    step_limit,
    table_rows,
)
from rsb_mj.tables.layouts import GOAL_ROWS, short_files, task_key
from rsb_mj.workspace import ALOHA_CAMERA_NAMES as CAMERA_NAMES

#: The 14-D joint-position convention of action and state (vla-eval has none built in).
JOINTS14 = "aloha_joint_positions_14_gripper_01_open"
ACTION_SPEC = {
    "joint_positions": DimSpec(
        "joint_positions",
        14,
        JOINTS14,
        description=f"{MOTORS} (arm joints in rad, grippers in the benchmark's convention)",
    )
}
STATE_SPEC = DimSpec("state", 14, JOINTS14, description="measured joints, action layout")
CONFIGS_DIR = Path(__file__).parent / "configs"
#: The robot's home pose in the 14-D layout (arms at ``HOME_ARM``, grippers open).
HOME_STATE = np.array([*HOME_ARM, 1.0, *HOME_ARM, 1.0])
#: The camera that ``recorder.record_video`` receives (rsb eval's --video camera too).
VIDEO_CAMERA = "head"
#: The policy name a sealed run's order is keyed with (the model server is not known here).
POLICY = "vla-eval"
#: The task dict's ``suite`` for goal task files given by path (``files``).
USER_FILES = "files"


def action_fault(action: Any) -> str | None:
    """Why a model server's reply is not one action (``{"actions": (14,) finite}``), or
    None when it is one."""
    raw = action.get("actions") if isinstance(action, dict) else None
    try:
        arr = np.asarray(raw, dtype=np.float64) if raw is not None else None
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.shape != (14,):
        shape = None if arr is None else arr.shape
        return (
            f"model server action {{'actions': shape {shape}}}; expected one (14,) "
            "joint-position target per step (chunks: set chunk_size on the server)"
        )
    if not np.isfinite(arr).all():
        where = np.flatnonzero(~np.isfinite(arr)).tolist()
        return f"model server action has non-finite values at index {where}"
    return None


def check_images(width: int, height: int, quality: str) -> None:
    """Refuse an image size [px] or render quality the env would refuse at every reset.

    Raises:
        RsbError: naming the param and the valid range or choices.
    """
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise RsbError(f"width {width}, height {height}: each must be 1..{MAX_SIDE} pixels")
    if quality not in QUALITIES:
        raise RsbError(f"quality {quality!r}; valid choices: {', '.join(QUALITIES)}")


def sealed_params(
    sealed: bool, outcomes: str | None, secret_file: str | None, tables: str | None = None
) -> Seal | None:
    """The seal of a sealed run's ``secret_file`` (checked against ``tables``' manifest
    when given), None for an ordinary run; what each kind needs is checked first.

    Raises:
        RsbError: a sealed run without ``outcomes`` or ``secret_file``, or an ordinary run
            with either (naming the param); a secret that is not one.
    """
    if sealed and not outcomes:
        raise RsbError(
            "sealed: true needs outcomes: PATH, the JSON Lines file the outcomes go to "
            "(the model server gets none of them)"
        )
    if outcomes and not sealed:
        raise RsbError("outcomes: PATH is for sealed runs; an ordinary run reports metrics")
    if sealed and not secret_file:
        raise RsbError(
            "sealed: true needs secret_file: PATH, the private secret (with tables:, the "
            "one they were drawn from) that orders the episodes and signs the outcomes"
        )
    if secret_file and not sealed:
        raise RsbError("secret_file: PATH is for sealed runs (sealed: true, or tables:)")
    if not sealed or not secret_file:
        return None
    seal = read_seal(Path(secret_file), Path(tables) if tables else None)
    if Path(outcomes).is_dir():  # else the run's outcomes are lost at its end
        raise RsbError(f"outcomes: {outcomes} is a folder; name the JSON Lines file to write")
    writable_folder(Path(outcomes).parent, "the outcomes (outcomes:)")
    return seal


def config_path(suite: str) -> Path:
    """The shipped vla-eval config of a suite, e.g. ``configs/rsb_math_4.yaml``, or of a goal
    suite, e.g. ``configs/vla_arena_l0.yaml``.

    Raises:
        RsbError: for an unknown suite (naming the valid ones).
    """
    found = goal_suite(suite)
    if found is not None:
        return CONFIGS_DIR / f"{found.name.replace('-', '_')}.yaml"
    name = get_suite(suite).name
    return CONFIGS_DIR / f"{name.lower().replace('rsb-', 'rsb_').replace('-', '_')}.yaml"


def _task_name(path: Path) -> str:
    """A file's task name: its path under ``tasks/`` (POSIX), else the path as given."""
    resolved = path.resolve()
    root = tasks_dir().resolve()
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


@dataclass(frozen=True)
class BenchTask:
    """One vla-eval task of the benchmark: a question suite, or one goal task file.

    Attributes:
        name: the task dict's ``name`` (a suite's name; a file's path under ``tasks/``,
            else as given).
        source: the episode source it runs (:mod:`rsb_mj.tables.episode_source`).
        goal: whether the source is a goal task (``Source.goal`` of the dispatch point).
        path: the goal task file (None for a question suite).
        rows: its episodes' rows in episode order (None: bare seeds ``start + k``).
        numbers: the table row of episode ``k`` (None: ``start + k``).
    """

    name: str
    source: str
    goal: bool
    path: Path | None
    rows: Sequence[Any] | None
    numbers: list[int] | None = None

    def number(self, k: int, start: int) -> int:
        """The table row (or seed) episode ``k`` runs."""
        return start + k if self.numbers is None else self.numbers[k]


@dataclass(frozen=True)
class EpisodeState:
    """What an episode's outcome line names, set at reset.

    Attributes:
        task: the task's name (its path under ``tasks/``, else as given; a suite's name).
        row: the table row of a suite's row, the seed of a given file.
        has_cost: the file has a ``:cost`` rsb_mj evaluates.
    """

    task: str
    row: int
    has_cost: bool


class RsbBenchmark(StepBenchmark):
    """rsb_mj's tasks as a vla-eval ``StepBenchmark``: a question suite, a goal suite or goal
    task files (module docstring).

    Args:
        suite: a question suite's name (``"RSB-Math-4"``, the default when no ``files``
            are given): its frozen table's rows; or a goal suite's (``vla-arena``,
            ``vla-arena-l0``, ``libero-layouts``): its files run their frozen table's rows.
        files: goal task files (alone or beside a goal suite): they run bare seeds.
        split: ``"eval"`` (default) or ``"train"`` table.
        start: first table row (of a goal suite's file: its first row; of a file in
            ``files``: its first seed).
        shuffle_seed: if set, episode ``k`` of a question suite is row ``start + perm[k]``
            of a permutation of the rows from ``start`` on drawn with this seed (kept from
            the server).
        width, height: camera image size [px].
        quality: render preset ``"fast"`` or ``"full"``.
        send_wrist_image: also send the two wrist cameras (else only ``cam_high``).
        send_state: send the measured 14-D joint state.
        convention: the grippers' convention on the wire (``aloha``, the export's, or
            ``rsb``).
        tables: a folder of private tables (eval rows only) to run instead of a question
            suite's shipped table; never sent to the server. Implies ``sealed``.
        sealed: send no outcome to the server (see the module docstring); None: sealed
            exactly when ``tables`` is set. ``False`` with ``tables`` is refused.
        outcomes: the JSON Lines file a sealed run writes its signed outcomes to at
            cleanup (required when sealed; refused otherwise).
        secret_file: the private secret of a sealed run (required when sealed; with
            ``tables``, the one they were drawn from): it orders a question suite's
            episodes and signs the outcomes; never sent.
        max_steps: the step limit of an episode (control steps at 20 Hz); None: the
            source's (:func:`rsb_mj.tables.episode_source.step_limit`).
        assets: a LIBERO / VLA-Arena asset folder for goal tasks (the originals), None for
            the default object source (:func:`rsb_mj.scene.assets.resolve_object_source`).
        visual_level, language_level: the perturbation levels of goal tasks (0-4).

    Attributes:
        files: the goal task files run, one vla-eval task each.
        skipped: a goal suite's files not run: the itemised list and tier of one rsb_mj
            cannot build, or the row count and the manifest's reason of one whose table is
            short.
    """

    render_backends: ClassVar[frozenset[str]] = frozenset({"gpu", "cpu"})
    #: Step-row fields this benchmark records (vla-eval validates ``step_fields`` on them;
    #: a benchmark of goal tasks only records no ``grasped``).
    _ALL_RECORD_FIELDS = frozenset({"reward", "done", "success", "grasped", "action", "state"})

    @classmethod
    def configure_render(cls, mode: str) -> dict[str, str]:
        """OSMesa for ``render: cpu``; rsb_mj's own choice (EGL) otherwise."""
        return configure_mujoco_render(mode)

    def __init__(
        self,
        suite: str | None = None,
        split: str = "eval",
        start: int = 0,
        shuffle_seed: int | None = None,
        width: int = 320,
        height: int = 240,
        quality: str = "fast",
        send_wrist_image: bool = True,
        send_state: bool = True,
        convention: str = CONVENTION.name,
        tables: str | None = None,
        sealed: bool | None = None,
        outcomes: str | None = None,
        secret_file: str | None = None,
        files: list[str] | None = None,
        max_steps: int | None = None,
        assets: str | None = None,
        visual_level: int = 0,
        language_level: int = 0,
    ) -> None:
        super().__init__()
        if suite is None and not files:
            suite = "RSB-Math-4"
        found = goal_suite(suite) if suite is not None else None
        question = None if suite is None or found is not None else get_suite(suite)
        check_images(width, height, quality)
        if split not in SPLITS:
            raise RsbError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
        if sealed is None:
            sealed = tables is not None
        if tables is not None and not sealed:
            raise RsbError(
                "sealed: false with tables: a private draw always runs sealed (drop sealed)"
            )
        if question is None and (tables is not None or shuffle_seed is not None):
            # a goal suite's and given files' tasks are goal tasks
            what = "tables" if tables is not None else "shuffle_seed"
            raise RsbError(
                f"{what}: for question suites; goal tasks have no private tables and their "
                "episodes run in vla-eval's order"
            )
        if sealed and shuffle_seed is not None:
            raise RsbError(
                "shuffle_seed with a sealed run: its episodes run in the order of the private "
                "secret (drop shuffle_seed)"
            )
        self._seal = sealed_params(bool(sealed), outcomes, secret_file, tables)
        #: a sealed run's nonce (fresh per benchmark instance: two runs of one config run in
        #: different orders; its outcomes' chain starts at it and their closing record names
        #: it); ``""`` for an ordinary run
        self.nonce = new_nonce() if self._seal is not None else ""
        if self._seal is not None:
            print(
                f"rsb_mj: sealed run, nonce {self.nonce}: its signed outcomes go to {outcomes} "
                "at the end; report them with python -m rsb_mj.integrations.vla_eval_results "
                f"--outcomes {outcomes} --secret-file SECRET --nonce {self.nonce}",
                file=sys.stderr,
            )
        if (start < 0 and question is None) or (max_steps is not None and max_steps < 1):
            raise RsbError(f"start {start}, max_steps {max_steps}: need start >= 0, max_steps >= 1")
        check_visual_level(visual_level)
        check_language_level(language_level)
        if assets is not None and question is not None:
            raise RsbError(f"assets: {assets}: for goal tasks' objects; {question.name} has none")
        cache_root()  # an RSB_MJ_CACHE that cannot be written stops here, not at every episode
        self.sealed = bool(sealed)
        self.split, self.start = split, int(start)
        self.skipped: list[str] = []
        self._tasks: dict[str, BenchTask] = {}
        if question is not None:
            self._add_question_suite(question.name, shuffle_seed, tables)
        if found is not None:
            self._add_goal_suite(found.name)
        for given in files or ():
            self._add_file(Path(given))
        if len({t.goal for t in self._tasks.values()}) > 1:
            raise RsbError(
                f"files: {list(files or ())} are goal tasks; they run alone or beside a goal "
                f"suite, not beside the question suite {suite}"
            )
        #: whether every task is a goal task (its metrics: success and cost)
        self.goal = all(t.goal for t in self._tasks.values())
        if self.goal:  # a bad asset folder stops here, not at every episode
            check_objects(assets, [load_goal_task(t.path) for t in self._tasks.values() if t.path])
        if self.goal:
            self._ALL_RECORD_FIELDS = self._ALL_RECORD_FIELDS - {"grasped"}
        #: the question suite run (None for goal tasks) and the outcome lines' ``suite``
        self.suite = question
        self.suite_name = (question or found).name if question or found else USER_FILES
        if question is not None:  # its episodes' rows and table rows (in the run's order)
            self._rows = self._tasks[question.name].rows
            self._row_index = self._tasks[question.name].numbers
        self.files = [t.path for t in self._tasks.values() if t.path is not None]
        self.max_steps = max_steps
        self.send_wrist_image = bool(send_wrist_image)
        self.send_state = bool(send_state)
        self.convention = get_convention(convention)
        self.cameras = tuple(CAMERA_NAMES) if self.send_wrist_image else (VIDEO_CAMERA,)
        self._env_kwargs: dict[str, Any] = {
            "width": width,
            "height": height,
            "quality": quality,
            "cameras": self.cameras,
        }
        if visual_level or language_level or self.goal:
            self._env_kwargs |= {"visual_level": visual_level, "language_level": language_level}
        self._assets = assets
        self._outcomes_path = Path(outcomes) if outcomes else None
        self._outcomes: list[dict[str, Any]] = []
        self._pacing: Pacing | None = None
        self._env: Any = None
        self._env_source: str | None = None
        self._task: BenchTask | None = None
        self._episode = EpisodeState("", -1, False)
        self._cost = self._end_cost = 0.0  # summed up to the success; end terms then
        self._success = False
        self._steps = 0
        self._fault: str | None = None  # the server's own fault that ended the episode
        self._last_obs: Any = None
        self._instruction = ""
        self._reset_state: np.ndarray | None = None
        self._recorder = NullEpisodeRecorder()  # vla-eval's start_episode sets the real one

    def _add_question_suite(self, name: str, shuffle_seed: int | None, tables: str | None) -> None:
        """The question suite ``name``: one task, its table's rows from ``start`` in the
        order of ``shuffle_seed`` or of a sealed run's secret."""
        source = resolve(name, self.split, tables)
        rows = table_rows(name, self.split, tables)
        if not self.start < len(rows):
            raise RsbError(
                f"start {self.start}: the {name} {self.split} table has rows 0..{len(rows) - 1}"
            )
        order = np.arange(self.start, len(rows))
        if shuffle_seed is not None:
            order = np.random.default_rng(shuffle_seed).permutation(order)
        if self._seal is not None:
            limit = source.max_steps
            jobs = [Job(name, self.split, int(i), POLICY, limit) for i in order]
            ordered = sealed_order(jobs, self._seal, self.nonce)
            order = np.array([job.index for job in ordered], dtype=int)
        self._tasks[name] = BenchTask(
            name,
            name,
            source.goal,
            None,
            [rows[i] for i in order],
            [int(i) for i in order],
        )

    def _add_goal_suite(self, name: str) -> None:
        """Every file of the goal suite ``name`` rsb_mj builds and whose table is whole: one
        task each, its frozen rows from ``start``; the others named in :attr:`skipped`."""
        if self.start >= GOAL_ROWS[self.split]:
            raise RsbError(
                f"start {self.start}: the {name} {self.split} table has rows "
                f"0..{GOAL_ROWS[self.split] - 1} per task file"
            )
        reasons = short_files(name, self.split)
        for path in goal_suite(name).files:
            try:
                load_goal_task(path)
            except TaskError as exc:
                self.skipped.append(str(exc))
                continue
            source = goal_row_source(name, path)
            rows = goal_rows(source, self.split) or ()
            if len(rows) < GOAL_ROWS[self.split]:
                why = reasons.get(task_key(path), "no reason in the manifest")
                self.skipped.append(
                    f"{path}: its frozen {self.split} table has {len(rows)} rows ({why})"
                )
                continue
            goal = resolve(source, self.split).goal
            task = BenchTask(_task_name(path), source, goal, path, rows[self.start :])
            self._tasks[task.name] = task

    def _add_file(self, path: Path) -> None:
        """A goal task file given by path: one task, bare seeds from ``start``.

        Raises:
            TaskError: for a file rsb_mj cannot run (its itemised list and tier).
        """
        load_goal_task(path)  # refused with its itemised list and tier
        goal = resolve(str(path), self.split).goal
        self._tasks.setdefault(
            _task_name(path), BenchTask(_task_name(path), str(path), goal, path, None)
        )

    # ---- vla-eval API ----------------------------------------------------------------------

    def get_tasks(self) -> list[Task]:
        """One task per question suite or goal task file: ``{"name": ..., "suite": ...}``;
        episodes are table rows (or a given file's seeds)."""
        return [{"name": name, "suite": self.suite_name} for name in self._tasks]

    def get_metadata(self) -> dict[str, Any]:
        """The step limit and, for tables, the rows each task's table holds from ``start``
        (files given by path run seeds: unbounded)."""
        rows = [len(t.rows) for t in self._tasks.values() if t.rows is not None]
        if self.max_steps is not None:
            max_steps = self.max_steps
        else:
            limits = [step_limit(t.source) for t in self._tasks.values()]
            max_steps = max(limits, default=GOAL_MAX_STEPS)
        if not rows:
            return {"max_steps": max_steps}
        return {"max_steps": max_steps, "max_episodes_per_task": min(rows)}

    def get_metric_keys(self) -> dict[str, str]:
        """Means of a question suite's TSR, GSR and correct-choice flags, or of a goal task's
        success flag and cumulative cost (files with a ``:cost``); none in a sealed run."""
        if self.sealed:
            return {}
        if self.goal:
            return {"success": "mean", "cost": "mean"}
        return {"success": "mean", "grasped": "mean", "correct_choice": "mean"}

    def get_action_spec(self) -> dict[str, DimSpec]:
        """14-D joint positions (see the module docstring)."""
        return dict(ACTION_SPEC)

    def get_observation_spec(self) -> dict[str, DimSpec]:
        """The RGB cameras sent, the 14-D state (with ``send_state``) and the instruction."""
        spec: dict[str, DimSpec] = {CAMERA_NAMES[c]: IMAGE_RGB for c in self.cameras}
        if self.send_state:
            spec["state"] = STATE_SPEC
        spec["language"] = LANGUAGE
        return spec

    def get_hold_action(self, last_action: Action | None) -> Action:
        """What a real-time tick without a fresh action commands (``mode: live``): the last
        joint target (absolute positions hold), or before the first one the joints measured
        at reset (a zero target would drive both arms to the zero pose); before any reset
        (vla-eval probes it at start-up), the home pose with the grippers open; as a target
        in the wire's convention, like a server's."""
        if last_action is not None:
            return last_action
        hold = HOME_STATE if self._reset_state is None else self._reset_state
        return {"actions": np.asarray(self.convention.actions_to_server(hold), np.float32)}

    def _lookup(self, task: Task) -> BenchTask:
        """The benchmark's task of a task dict (a question suite's task takes any name).

        Raises:
            RsbError: for a task name this benchmark does not hold (naming the valid ones).
        """
        name = str(task.get("name", ""))
        found = self._tasks.get(name)
        if found is None and not self.goal:
            (found,) = self._tasks.values()
        if found is None:
            valid = ", ".join(list(self._tasks)[:5]) + (", ..." if len(self._tasks) > 5 else "")
            raise RsbError(f"task {name!r} is not one of this benchmark's files ({valid})")
        return found

    def _make_env(self, bench_task: BenchTask) -> Any:
        """The environment of a task: a question suite's registered gymnasium env, a goal
        file's :class:`~rsb_mj.env.rsb_env.RsbEnv` (MuJoCo and the scene: on first use)."""
        if not bench_task.goal:
            import gymnasium

            import rsb_mj  # noqa: F401  (registers the ids)

            limit = {} if self.max_steps is None else {"max_episode_steps": self.max_steps}
            return gymnasium.make(get_suite(bench_task.source).env_id, **self._env_kwargs, **limit)
        from rsb_mj.env.rsb_env import GoalEnv

        objects = resolve_object_source(self._assets)
        max_steps = step_limit(bench_task.source) if self.max_steps is None else self.max_steps
        return GoalEnv(bench_task.path, max_steps=max_steps, objects=objects, **self._env_kwargs)

    def reset(self, task: Task) -> Any:
        """Reset the task's environment on its episode ``task["episode_idx"]``: row
        ``start + k`` of a question suite's table (in the run's order), the frozen row
        ``start + k`` of a goal suite's file, the seed ``start + k`` of a given file.

        Raises:
            RsbError: for a task name this benchmark does not hold (naming the valid ones),
                or an episode beyond a table.
            LayoutError: for a frozen row that is no valid start on this build.
        """
        bench_task = self._lookup(task)
        rows = bench_task.rows
        k = int(task.get("episode_idx", 0))
        if rows is not None and not 0 <= k < len(rows):
            if bench_task.goal:
                raise RsbError(
                    f"episode {k} of {bench_task.name}: the {self.suite_name} {self.split} table "
                    f"has {len(rows)} rows from row {self.start} (episodes_per_task <= "
                    f"{len(rows)})"
                )
            raise RsbError(
                f"episode {k}: {bench_task.name} {self.split} has {len(rows)} rows from "
                f"row {self.start} (episodes_per_task <= {len(rows)})"
            )
        if self._env_source != bench_task.source:
            if self._env is not None:
                self._env.close()
            self._env = self._make_env(bench_task)
            self._env_source = bench_task.source
        self._task = bench_task
        if rows is None:
            obs, info = self._env.reset(seed=self.start + k)
        else:
            options: dict[str, Any] = {"episode": rows[k]}
            if self.sealed and not bench_task.goal:  # scored here alone: the same work per
                options["score"] = False  # step whatever the answer
            obs, info = self._env.reset(options=options)
        self._episode = EpisodeState(
            bench_task.name, bench_task.number(k, self.start), "cost_terms" in info
        )
        self._cost, self._success, self._end_cost = 0.0, False, 0.0
        self._steps, self._fault, self._last_obs = 0, None, obs
        if self.sealed and not bench_task.goal:
            u = self._env.unwrapped
            cands = tuple(u.scene.candidates)
            self._pacing = Pacing(u.problem, cands, u.episode.target)
        self._instruction = info["instruction"]
        self._reset_state = np.array(obs["state"], dtype=np.float64)
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        return obs

    def step(self, action: Action) -> StepResult:
        """One 20 Hz control step with the ``actions`` of the server's reply; once a goal
        task's goal has held, its success and cost stay as they were then (an ordinary
        run's episode ends there, a sealed one runs on to ``max_steps``)."""
        fault = action_fault(action)
        if fault is not None:
            if not self.sealed:
                raise EnvError(fault)
            return self._policy_fault(fault)
        arr = np.asarray(action["actions"], dtype=np.float64)
        arr = self.convention.actions_from_server(arr[None])[0]
        obs, reward, terminated, truncated, info = self._env.step(arr)
        self._steps, self._last_obs = self._steps + 1, obs
        goal = self._task is not None and self._task.goal
        if goal and not self._success:
            self._cost += float(info.get("cost", 0.0))
            self._success = bool(terminated)
            if self._success:
                self._end_cost = float(self._env.end_cost())
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        if self.sealed:
            if goal:
                done = self._steps >= self._env.max_steps
            else:
                assert self._pacing is not None
                outcome = self._pacing.update(info["signals"])
                done = bool(truncated) or (outcome.decided and self._pacing.ended())
            self._recorder.record_step(
                done=done, action=arr.astype(np.float32), state=np.asarray(obs["state"], np.float32)
            )
            return StepResult(obs=obs, reward=0.0, done=done, info={})
        done = bool(terminated or truncated)
        flags: dict[str, bool] = {"success": self._success}
        if not goal:
            outcome = self._env.unwrapped.scorer.outcome
            flags = {
                "success": bool(info.get("is_success", outcome.success)),
                "grasped": bool(outcome.grasped),
            }
        self._recorder.record_step(
            reward=float(reward),
            done=done,
            **flags,
            action=arr.astype(np.float32),
            state=np.asarray(obs["state"], np.float32),
        )
        return StepResult(obs=obs, reward=float(reward), done=done, info=info)

    def _policy_fault(self, fault: str) -> StepResult:
        """Sealed: end the episode at once as the server's own failure (its outcome says
        so; the scene does not move)."""
        self._fault = fault
        self._recorder.record_step(done=True)
        return StepResult(obs=self._last_obs, reward=0.0, done=True, info={})

    def _scorer(self) -> EpisodeScorer:
        """A question episode's scorer: in a sealed run the answer's pacing scorer (the env
        scores nothing there, so that the work per step does not depend on the answer), else
        the env's."""
        if self.sealed:
            assert self._pacing is not None
            return self._pacing.scorer
        return self._env.unwrapped.scorer

    def make_obs(self, raw_obs: Any, task: Task) -> Observation:
        """ALOHA-named images, float32 state (with ``send_state``), the instruction."""
        images = raw_obs.get("images", {})
        obs: dict[str, Any] = {
            "images": {CAMERA_NAMES[c]: images[c] for c in self.cameras},
            "task_description": self._instruction,
        }
        if self.send_state:
            state = self.convention.state_to_server(np.asarray(raw_obs["state"], np.float64))
            obs["state"] = np.asarray(state, np.float32)
        return obs

    def get_step_result(self, step_result: StepResult) -> EpisodeResult:
        """The one-attempt outcome of the episode so far (module docstring: a question
        task's flags and choice, a goal task's success and cost); in a sealed run kept for
        ``outcomes`` and ``{"sealed": True}`` returned (vla-eval sends it to the server)."""
        if self._task is not None and self._task.goal:
            return self._goal_result()
        scorer = self._scorer()
        out = scorer.outcome
        episode = self._env.unwrapped.episode
        letter = {obj: k for k, obj in episode.mapping.items()}.get(out.choice or "", "")
        result = {
            "success": bool(
                scorer.success_now()
                if self.sealed
                else step_result.info.get("is_success", out.success)
            ),
            "grasped": bool(out.grasped),
            "correct_choice": bool(out.correct_choice),
            "choice": letter,
            "choices": len(episode.options),
        }
        if not self.sealed:
            return result
        # the server's own fault: a scored failure; in the run-on after a decided wrong
        # choice it scores nothing (as rsb eval --sealed: the choice decided the episode)
        faulted = self._fault is not None and not out.decided
        if faulted:
            result["success"] = result["correct_choice"] = False
        outcome = {"suite": self.suite_name, "row": self._episode.row, **result}
        outcome["policy_fault"] = faulted
        self._outcomes.append(outcome)
        return {"sealed": True}

    def _goal_result(self) -> EpisodeResult:
        """A goal episode's ``success`` and, for a file with an evaluated ``:cost``, its
        ``cost`` (its step terms up to the success, else so far, plus the end terms holding
        then); sealed: kept for ``outcomes``, ``{"sealed": True}`` returned."""
        end = self._end_cost if self._success else float(self._env.end_cost())
        result: dict[str, Any] = {"success": self._success}
        if self._episode.has_cost:
            result["cost"] = self._cost + end
        if not self.sealed:
            return result
        outcome = {
            "task": self._episode.task,
            "suite": self.suite_name,
            "row": self._episode.row,
            "success": self._success,
            "cost": result.get("cost"),
            "policy_fault": self._fault is not None and not self._success,
        }
        self._outcomes.append(outcome)
        return {"sealed": True}

    def cleanup(self) -> None:
        """Close the env (its GL contexts); a sealed run writes its ``outcomes``: the signed
        outcome lines, chained from the run's :attr:`nonce`, and a signed closing record
        (:func:`rsb_mj.evaluation.sealed.closing_line`: their count, the last signature, the
        nonce)."""
        if self._env is not None:
            self._env.close()
            self._env = None
            self._env_source = None
        if self._outcomes_path is not None and self._outcomes and self._seal is not None:
            lines, previous = [], self.nonce
            for outcome in self._outcomes:
                line, previous = sign_row(outcome, self._seal, previous)
                lines.append(line + "\n")
            closing, _ = closing_line(self._seal, previous, len(self._outcomes), self.nonce)
            lines.append(closing + "\n")
            atomic_write_text(self._outcomes_path, "".join(lines), mode=0o600)


__all__ = [
    "ACTION_SPEC",
    "POLICY",
    "USER_FILES",
    "BenchTask",
    "RsbBenchmark",
    "action_fault",
    "config_path",
    "sealed_params",
]
