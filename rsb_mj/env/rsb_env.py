"""``RsbEnv``: a task as a gymnasium environment on the bimanual Aloha in MuJoCo.

One class for every task: the robot, its actuators, cameras, observation, action and
physics step are the same code for a question task and a goal task; what differs comes from
the compiled scene (:func:`rsb_mj.scene.compiler.compile_scene`: a question scene with
candidates, letters and an answer zone, or a goal scene whose layout is drawn per seed) and
from the episode's optional binding (:class:`rsb_mj.episodes.episode.Episode`). Which kind
of task the env holds is read once, from what it is handed (:func:`_load`: a
:class:`~rsb_mj.lang.task.Task` is a goal task, a path or a parsed problem a question task);
after that the env reads the data: the candidates a binding names (``task.candidates``,
``scene.candidates``: signals, the held start, the episode drawn at reset), the scene's
layout sampler, and the episode's binding (``info["episode"]`` and ``info["goal"]`` of an
unbound episode).

Description:
    A question task (``task``: a path or a parsed :class:`~rsb_mj.lang.ast.Problem`): a
    multiple-choice question is asked in the instruction; N candidates (2..10) stand for
    the options; the policy does what the task's goal says with the correct one (RSB: put it
    in the gray answer zone; Act2Answer: put a cube on that plate). The env reports the raw
    signals the task's predicates declare; success is scored by :mod:`rsb_mj.scoring`.

    A goal task (``task``: a :class:`~rsb_mj.lang.task.Task`, e.g. from
    :func:`GoalEnv` or :func:`rsb_mj.env.task_env.task_env`; a LIBERO / VLA-Arena style
    file): an episode is a seed. ``reset(seed=S)``, or ``reset(options={"episode":
    Episode})`` as the runner resets: a bare seed's episode
    (:meth:`~rsb_mj.episodes.episode.Episode.seeded`) draws its layout
    (:meth:`rsb_mj.scene.region_layout.GoalLayout.reset`: drawn, settled, checked), a frozen
    table row's (:mod:`rsb_mj.tables.layouts`) is placed at the row's poses and then settled
    and checked as a drawn one; a seed with no valid layout, or a frozen layout that is not
    a valid start, raises :class:`~rsb_mj.errors.LayoutError`. ``info["instruction"]`` is
    the task's ``:language`` (words substituted at language levels W1-W4,
    :func:`rsb_mj.perturb.language.perturb_goal_instruction`); ``info["episode"]`` is the
    episode, ``info["perturbation"]`` its perturbation record; ``info["goal"]`` (at reset)
    names the task's tier, its predicate semantics and the object source
    (:attr:`RsbEnv.goal_info`); ``info["sim"]`` also holds the head camera's pose, framed
    for the task (``head_camera``: :mod:`rsb_mj.scene.framing`); ``info["signals"]``
    (each step) is the goal's truth per relation (:class:`~rsb_mj.scoring.signals.
    GoalSignals`, what the runner's scorer reads). Success: the ``:goal`` conjunction holds
    for :data:`~rsb_mj.scoring.outcome.HOLD_STEPS` consecutive control steps (the
    episode then terminates with reward 1); ``max_steps`` truncates a failed one.

Action Space:
    ``Box((14,), float64)``: joint position targets
    ``[left waist, shoulder, elbow, forearm_roll, wrist_angle, wrist_rotate (rad),
    left gripper, right 6 (rad), right gripper]``; grippers 0 closed .. 1 open. A wrong shape
    or a NaN raises :class:`~rsb_mj.errors.EnvError`; values outside the joint ranges are
    clamped by the actuators.

Observation Space:
    ``{"state": float64 (14,), "images": {camera: uint8 (height, width, 3)}}``: measured joint
    positions in the action layout (grippers as measured normalized opening), upright images
    of ``head``, ``left_wrist``, ``right_wrist``; with ``cameras=()`` there is no ``images``
    key (gymnasium allows no empty Dict space).

Info (reset and every step):
    ``instruction``, ``candidates`` (the candidate axis order), ``step`` (control steps since
    reset), ``signals`` (see :mod:`rsb_mj.env.signals`; S = 25 rows per step, 1 at reset),
    ``is_success`` (the one-attempt outcome so far, see :mod:`rsb_mj.scoring.scorer`),
    ``cost`` (this step's safety cost from the task's ``:cost`` step terms, 0.0 without one)
    and ``cost_violations`` (per cost term, whether it held this step; see
    :mod:`rsb_mj.scoring.cost`), at reset ``cost_terms`` when the task has a ``:cost``
    (``{"terms": [(text, kind), ...], "implicit_and": bool}``), and at reset ``sim`` (mujoco
    version, quality preset, control and physics periods, the task's sha256: of its file and
    the files it names, :mod:`rsb_mj.lang.digest`). Nothing in ``info`` holds or determines
    the answer: no episode, seed, question id or table index.

Rewards:
    Sparse: 1.0 on the step where success is decided, else 0.0.

Episode End:
    ``terminated`` when the one-attempt outcome is decided (:mod:`rsb_mj.scoring.outcome`):
    the goal held for the correct choice for 0.5 s (success), or the choice was a wrong one
    (failure). Truncated by the registered ``max_episode_steps``; at truncation,
    ``is_success`` is the outcome scored on the last substep.

Control:
    ``control_hz`` (default 20 Hz): each ``step`` holds the targets for
    ``1 / (control_hz * 2 ms)`` physics steps of 2 ms (25 at 20 Hz, 10 at openpi ALOHA's
    50 Hz). The grasp rule's 8 control steps and the 0.5 s success hold are counted in
    control steps of the rate in force; reports never pool records of different rates.
    The task's ``:moving_objects`` (:mod:`rsb_mj.scene.motion`) are moved before every
    physics step; one stops once a per-step ``:cost`` term naming it is violated.

Arguments:
    task: a question task's file path or parsed :class:`rsb_mj.lang.Problem`, or a goal
        task (:class:`~rsb_mj.lang.task.Task`; :func:`GoalEnv` loads one).
    suite: suite name recorded in sampled episodes ("" for a bare task).
    split: ``"train"`` or ``"eval"`` for sampled episodes.
    cameras, width, height: which cameras to render and the image size [px].
    quality: ``"fast"`` (no shadows/multisampling, decimated meshes) or ``"full"``.
    control_hz: control rate [Hz]; 500 (the physics rate) must be a multiple of it.
    render_mode: None or ``"rgb_array"`` (``render()`` returns the head image).
    visual_level, language_level: VLA-Arena's perturbation levels V0-V4 and W0-W4 (see
        :mod:`rsb_mj.perturb`); their parameters are in ``info["sim"]["perturbation"]``.
    start_held: put what the task holds at reset (``(Grasped OBJECT GRIPPER)`` in
        ``:init``, :mod:`rsb_mj.lang.held`: Act2Answer's cube) in its gripper before the
        first observation; False starts it where ``:init`` places it, hands empty (the
        variant with a grasp). ``info["sim"]["held"]`` (object -> arm) says what was held,
        when anything was.
    max_steps: the step limit [control steps] after which ``step`` truncates; None: a goal
        task's :data:`~rsb_mj.suites.GOAL_MAX_STEPS`, none for a question task (the run's or
        gymnasium's limit applies).
    objects: where a goal task's object models come from (the shipped stand-ins by
        default, :mod:`rsb_mj.scene.assets`).

Privileged attributes (the built-in expert's tools, tests): ``model``, ``data``,
``episode``, ``task`` (the one :class:`~rsb_mj.lang.task.Task` of any task file), ``scene``
(:class:`rsb_mj.scene.compiler.Scene`; a goal task's holds its layout sampler,
:class:`rsb_mj.scene.region_layout.GoalLayout`), ``scorer``; of a goal task also ``checker``,
``seed``, ``layout``. The evaluation
runner never hands the env itself to a policy (see :mod:`rsb_mj.env.views`).

Version History:
    v0: initial release; one-attempt scoring with sparse reward, ``terminated`` and
    ``is_success``; the episode is no longer in ``info`` (it held the answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import mujoco
import numpy as np
from gymnasium import spaces

from rsb_mj.env.cameras import CameraRig
from rsb_mj.env.signals import SignalRecorder
from rsb_mj.episodes import sample_episode
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EnvError, EvalError
from rsb_mj.expert.pick_place import PickPlaceExpert
from rsb_mj.lang import load_task
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.buildable import warnings_of
from rsb_mj.lang.diagnostics import TaskFileError
from rsb_mj.lang.digest import task_digest
from rsb_mj.lang.frame_map import layout_change
from rsb_mj.lang.held import held_at_reset
from rsb_mj.lang.linter import FOREIGN_SCENE, lint_problem, load_goal_task
from rsb_mj.lang.task import Task, task_of
from rsb_mj.perturb import Perturbations
from rsb_mj.rates import CONTROL_HZ, PHYSICS_HZ
from rsb_mj.scene.aloha import (
    FINGER_CLOSED,
    FINGER_OPEN,
    QUALITIES,
    SIDES,
    arm_joints,
    finger_joints,
    finger_to_gripper,
)
from rsb_mj.scene.assets import STANDINS_SOURCE, ObjectSource
from rsb_mj.scene.compiler import Scene, compile_scene
from rsb_mj.scoring.cost import END_COST, CostMeter
from rsb_mj.scoring.goal_checker import GoalChecker
from rsb_mj.scoring.outcome import HOLD_STEPS
from rsb_mj.scoring.predicates.grasped import CLOSED_BELOW
from rsb_mj.scoring.scorer import EpisodeScorer, signal_plan
from rsb_mj.scoring.signals import GoalSignals
from rsb_mj.splits import SPLITS
from rsb_mj.suites import GOAL_MAX_STEPS
from rsb_mj.workspace import CAMERAS


def _load(
    task: str | Path | Problem | Task, objects: ObjectSource | None
) -> tuple[Task, list[str]]:
    """The env's task, read and checked as what it is handed says, and what its scene builds
    differently from the file (``path:line:col: message``).

    A :class:`~rsb_mj.lang.task.Task` (a goal task: :func:`GoalEnv`,
    :func:`rsb_mj.env.task_env.task_env`) is gated by
    :func:`~rsb_mj.lang.linter.load_goal_task`, with its build warnings
    (:func:`~rsb_mj.lang.buildable.warnings_of`); a path or a parsed
    :class:`~rsb_mj.lang.ast.Problem` is a question task, linted as a scene rsb_mj must
    build: a LIBERO / VLA-Arena file fails with one error listing every part the question
    scene cannot build, with its position (RSB510).

    Raises:
        EnvError: ``objects=`` with a question task, or a ``task`` of another type.
        TaskError: for a task that does not load (the itemised findings).
    """
    if isinstance(task, Task):
        goal = load_goal_task(task)
        return goal, [i.format(goal.path) for i in warnings_of(goal)]
    if objects is not None:
        raise EnvError(
            "objects= applies to goal tasks only (a question task's objects are rsb's "
            "categories); pass a Task, or leave objects out"
        )
    if isinstance(task, str | Path):
        return task_of(load_task(Path(task), target="question")), []
    if isinstance(task, Problem):
        foreign = [d for d in lint_problem(task, target="question") if d.code == FOREIGN_SCENE]
        if foreign:
            raise TaskFileError(foreign, f"{task.path}: rsb_mj cannot build this scene")
        return task_of(task), []
    raise EnvError(f"task must be a task file path or a parsed Problem, got {type(task).__name__}")


def _same_file(row_task: str, path: str | Path) -> bool:
    """Whether a row's task file (relative to ``tasks/``, after ``suite::`` in a run's
    source, or a path) is ``path``."""
    a, b = Path(row_task.rpartition("::")[2]), Path(path).resolve()
    return (a.resolve() == b) if a.is_absolute() else b.as_posix().endswith("/" + a.as_posix())


#: Most control steps the reset spends putting a held object in its gripper.
HOLD_MAX_STEPS = 300


class RsbEnv(gymnasium.Env):
    """The environment of a task (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": CONTROL_HZ}

    def __init__(
        self,
        task: str | Path | Problem | Task = "",
        *,
        suite: str = "",
        split: str = "eval",
        cameras: tuple[str, ...] = CAMERAS,
        width: int = 320,
        height: int = 240,
        quality: str = "fast",
        render_mode: str | None = None,
        visual_level: int = 0,
        language_level: int = 0,
        control_hz: int = CONTROL_HZ,
        start_held: bool = True,
        max_steps: int | None = None,
        objects: ObjectSource | None = None,
    ) -> None:
        if task == "":
            raise EnvError("RsbEnv needs task=PATH (a task file) or a parsed Problem")
        if split not in SPLITS:
            raise EnvError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")
        if quality not in QUALITIES:
            raise EnvError(f"unknown quality {quality!r}; valid choices: {', '.join(QUALITIES)}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise EnvError(f"unknown render_mode {render_mode!r}; valid choices: rgb_array")
        #: The task (:class:`~rsb_mj.lang.task.Task`): what the scene is compiled from; and
        #: what the scene builds differently from the file (``path:line:col: message``).
        self.task, self.warnings = _load(task, objects)
        self.problem: Problem = self.task.problem
        candidates = self.task.candidates  # what a binding names: none without a question
        #: Object -> arm holding it at reset (``(Grasped OBJECT GRIPPER)`` in ``:init``): the
        #: expert's pick of the candidate the episode's binding names.
        self.start_hold: dict[str, str] = (
            held_at_reset(self.problem) if start_held and candidates else {}
        )
        source = Path(self.task.path)
        # the task file and every file it names (rsb_mj.lang.digest)
        self.task_sha256 = task_digest(source).sha256 if source.is_file() else ""
        physics_hz = PHYSICS_HZ
        if not isinstance(control_hz, int) or control_hz < 1 or physics_hz % control_hz:
            valid = [h for h in range(1, physics_hz + 1) if physics_hz % h == 0 and h >= 10]
            raise EnvError(
                f"control_hz {control_hz!r}: the physics runs at {physics_hz} Hz, so the "
                f"control rate must divide it; valid choices: {', '.join(map(str, valid))}"
            )
        self.control_hz, self.substeps = control_hz, physics_hz // control_hz
        self.metadata = {**self.metadata, "render_fps": control_hz}
        self.suite, self.split, self.quality = suite, split, quality
        self.render_mode = render_mode
        # a task without candidates runs until its goal holds or this limit; a bound one
        # until its choice decides the outcome (or the run's limit)
        self.max_steps = max_steps if max_steps is not None or candidates else GOAL_MAX_STEPS
        #: Where a goal task's objects come from (the shipped stand-ins unless the user's).
        self.objects: ObjectSource = objects or STANDINS_SOURCE
        self._cost: CostMeter | None = None
        if self.problem.cost_terms:
            try:
                self._cost = CostMeter(self.problem)
            except EvalError as exc:  # a goal file's term naming e.g. an undeclared fixture
                if candidates:
                    raise
                self.warnings.append(f"{exc} (the :cost is not evaluated)")
        probes = self._cost.probes if self._cost is not None else ()
        # the signals a bound task is scored on (its candidates'; rsb_mj.scoring.scorer)
        plan = signal_plan(self.problem) if candidates else None
        self.scene: Scene = compile_scene(
            self.task,
            quality=quality,
            probes=probes,
            tracked=plan.objects if plan is not None else (),
            objects=self.objects,
        )
        self.model: mujoco.MjModel = self.scene.model
        if self._cost is not None:
            self._cost.bind(self.model)
        self.data = mujoco.MjData(self.model)
        #: The goal's relations, evaluated every step where no recorded signals score it (a
        #: task without candidates; None for one with).
        self.checker = GoalChecker(self.model, self.task) if plan is None else None
        #: The candidate axis order: a question task's candidates, a goal task's objects.
        self.candidates: tuple[str, ...] = self.scene.axis
        self.episode: Episode | None = None if candidates else Episode.seeded(self.task.path, 0)
        self.scorer: EpisodeScorer | None = None
        #: A goal episode's seed and the layout its reset placed (object -> x, y, z, yaw).
        self.seed = 0
        self.layout: dict[str, tuple[float, float, float, float]] = {}
        self._rig = CameraRig(self.model, tuple(cameras), width, height, quality)
        self._render_rig: CameraRig | None = None
        self._signals = SignalRecorder(self.scene, plan) if plan is not None else None
        self._step_count = 0
        self._perturb = Perturbations(
            self.model,
            self.problem,
            self.candidates,
            visual_level,
            language_level,
            (int(width), int(height)),
            instruction=self.task.instruction,
        )
        self.language_level = self._perturb.language_level
        self.instruction = self.task.instruction
        #: The episode's perturbation record (levels and every drawn parameter).
        self.perturbation: dict[str, Any] = {}
        self._held = 0  # a goal task's: consecutive control steps its :goal held
        self._violations: tuple[bool, ...] = ()
        self._build_index()
        self.action_space = spaces.Box(self._low, self._high, shape=(14,), dtype=np.float64)
        # Arm joints within +-2 pi (rad), grippers in [0, 1].
        state_gripper = np.zeros(14)
        state_gripper[[6, 13]] = 1.0
        state_low = np.where(state_gripper > 0, 0.0, -2 * np.pi)
        image = spaces.Box(0, 255, shape=(int(height), int(width), 3), dtype=np.uint8)
        obs_spaces: dict[str, spaces.Space] = {
            "state": spaces.Box(state_low, -state_low + state_gripper, dtype=np.float64)
        }
        if self._rig.cameras:  # gymnasium forbids an empty Dict space: no cameras, no key
            obs_spaces["images"] = spaces.Dict({cam: image for cam in self._rig.cameras})
        self.observation_space = spaces.Dict(obs_spaces)

    def _build_index(self) -> None:
        """Index arrays between the 14-D action/state layout and actuators/qpos (by the
        Aloha's joint names: the same in every compiled scene)."""
        model = self.model
        act_ids, src, qpos_adr = [], [], []
        low, high = [], []
        for s, side in enumerate(SIDES):
            base = 7 * s
            for j, name in enumerate(arm_joints(side)):
                aid = model.actuator(name).id
                act_ids.append(aid)
                src.append(base + j)
                lo, hi = model.actuator_ctrlrange[aid]
                low.append(lo)
                high.append(hi)
                qpos_adr.append(model.joint(name).qposadr[0])
            for name in finger_joints(side):
                act_ids.append(model.actuator(name).id)
                src.append(base + 6)
            low.append(0.0)
            high.append(1.0)
        self._act_ids = np.array(act_ids)
        self._act_src = np.array(src)
        self._is_finger = np.isin(self._act_src, [6, 13])
        self._arm_state_adr = np.array(qpos_adr)
        self._arm_state_idx = np.array([0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12])
        self._finger_adr = np.array(
            [[model.joint(n).qposadr[0] for n in finger_joints(side)] for side in SIDES]
        )
        self._low, self._high = np.array(low), np.array(high)
        self._gripper_cmd = np.ones(2)

    # ---- gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: ``options={"episode": Episode | dict}``, or one sampled (a
        question task: drawn from ``seed``) or seeded (a goal task: the episode of ``seed``,
        0 when None).

        ``options["score"] = False`` leaves a question episode unscored (no ``scorer``:
        reward 0, never ``terminated``, ``is_success`` False), for a runner that scores it
        itself: a sealed run's rollout, whose work per step must not depend on the answer
        (this scorer stops working once a wrong choice decides the outcome, which a policy
        timing its steps could tell).

        Raises:
            EnvError: for unknown options or an episode that does not fit the task (of a
                goal task: one with a binding, or a row of another task file).
            LayoutError: a goal task's seed with no valid layout, or a frozen layout that
                is not a valid start (naming the row and why).
        """
        options = dict(options or {})
        unknown = sorted(set(options) - {"episode", "score"})
        if unknown:
            raise EnvError(f"unknown reset options {unknown}; valid choices: episode, score")
        episode = self._episode(options.get("episode"), seed)
        self.scorer = None
        if (
            options.get("score", True)
            and self.scene.candidates  # a binding's candidates: a goal scene has none
            and self.problem.grasp is not None
            and self.problem.goal is not None
        ):
            self.scorer = EpisodeScorer.for_problem(
                self.problem, self.scene.candidates, episode.target
            )
        self._perturb.restore()
        if self.scene.layout is not None:  # a seed's draw or a frozen row, settled
            assert self.checker is not None
            self.layout = self.scene.layout.apply_episode(self.data, episode, self.checker.holds)
        else:
            self.scene.apply_episode(self.data, episode)
        self.episode = episode
        self.instruction, self.perturbation = self._perturb.apply(self.data, episode)
        self._gripper_cmd = np.ones(2)
        self._held, self._violations = 0, ()
        if self._signals is not None:
            self._signals.reset(self.data)  # resting heights: on the table, before any grasp
            if self.start_hold:
                self._take_held()
        if self.checker is not None:
            self.checker.light(self.data)  # a stove's burner lit while on (tier B)
        self._step_count = 0
        signals = self._signals.snapshot(self.data, self._gripper_cmd) if self._signals else None
        info = self._info(signals)
        if self._cost is not None:
            self._cost.reset(self.data.sensordata, episode.target or None)
            info["cost_terms"] = {
                "terms": [(t.text, t.kind) for t in self._cost.terms],
                "implicit_and": self._cost.implicit_and,
            }
        info["sim"] = {
            "mujoco": mujoco.__version__,
            "quality": self.quality,
            "control_hz": self.control_hz,
            "timestep": float(self.model.opt.timestep),
            "substeps": self.substeps,
            "task_sha256": self.task_sha256,
            "perturbation": self.perturbation,
        }
        if self.start_hold:  # only then: records of empty-handed starts stay as they were
            info["sim"]["held"] = dict(self.start_hold)
        if episode.binding is None:  # what a record of an unbound episode names
            info["goal"] = self.goal_info
            info["sim"]["head_camera"] = self.head_camera
            if change := layout_change(self.task):  # a floor scene on the table (tier C) only
                info["sim"]["layout_change"] = change
        return self._obs(), info

    def _episode(self, episode: Episode | dict | None, seed: int | None) -> Episode:
        """The episode a reset starts (module docstring), checked against the task; seeds
        the env's generator (a goal episode's with its own seed).

        Raises:
            EnvError: for an episode of the other kind of task, or a goal table's row of
                another task file.
        """
        if self.scene.candidates:  # a binding per episode, drawn from ``seed``
            super().reset(seed=seed)
            if episode is None:
                episode_seed = int(self.np_random.integers(0, 2**31 - 1))
                return sample_episode(
                    self.problem, suite=self.suite, split=self.split, index=0, seed=episode_seed
                )
            if isinstance(episode, dict):
                episode = Episode.from_dict(episode, goal=False)
            elif not isinstance(episode, Episode) or episode.binding is None:
                got = "a goal task's" if isinstance(episode, Episode) else type(episode).__name__
                raise EnvError(
                    "options['episode'] must be a question task's Episode (with a binding) or "
                    f"its dict, got {got}"
                )
            if set(episode.mapping.values()) != set(self.scene.candidates):
                raise EnvError(
                    f"episode maps options to {sorted(episode.mapping.values())}; this task's "
                    f"candidates are {list(self.scene.candidates)}"
                )
            return episode
        if episode is not None and (not isinstance(episode, Episode) or episode.binding):
            what = "a question task's" if isinstance(episode, Episode) else type(episode).__name__
            raise EnvError(f'options["episode"] must be a goal task\'s Episode, got {what}')
        if episode is None:
            episode = Episode.seeded(self.task.path, int(seed or 0))
        elif episode.frozen and not _same_file(episode.task, self.task.path):
            raise EnvError(
                f"the episode is a row of {episode.task}, not of this environment's task "
                f"{self.task.path}"
            )
        super().reset(seed=episode.seed)
        self.seed = int(episode.seed)
        return episode

    @property
    def head_camera(self) -> dict[str, Any]:
        """A goal scene's head camera pose, framed for its task
        (:mod:`rsb_mj.scene.framing`): ``{"pos": eye [m, world], "xyaxes": camera x and
        y axes (world), "fovy": [deg]}`` (``info["sim"]["head_camera"]``, a record's
        ``sim.head_camera``); ``{}`` for a question scene (its camera is the rig's)."""
        head = self.scene.layout.head if self.scene.layout is not None else None
        return head.as_dict() if head is not None else {}

    @property
    def goal_info(self) -> dict[str, str]:
        """What a goal record names besides the episode: the task's ``tier``, its predicate
        ``semantics`` (``libero``, ``vla_arena``), the ``objects`` source and its
        ``objects_fingerprint`` (``""`` for the stand-ins); in a tier B scene that moved a
        fixture, ``layout_changes`` (:mod:`rsb_mj.scene.fixture_placement`); ``{}`` for a
        question task."""
        if self.scene.candidates:
            return {}
        info = {
            "tier": self.task.tier,
            "semantics": self.task.semantics,
            "objects": self.objects.label,
            "objects_fingerprint": self.objects.fingerprint,
        }
        changes = self.scene.layout.layout_changes if self.scene.layout is not None else ()
        if changes:  # tier B: rsb_mj.scene.fixture_placement's rule
            info["layout_changes"] = "; ".join(changes)
        return info

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Hold the 14-D joint targets for one control period (25 physics steps at 20 Hz).

        Raises:
            EnvError: before reset, or for an action of the wrong shape or with NaN.
        """
        if self.episode is None:
            raise EnvError("call reset() before step()")
        action = self._validate(action)
        self._apply_action(action)
        self._gripper_cmd = np.clip(action[[6, 13]], 0.0, 1.0)
        model, data, rec = self.model, self.data, self._signals
        motion = getattr(self.scene, "motion", None)
        if rec is not None:
            rec.begin(self.substeps)
            rows: np.ndarray | None = rec.buffer
        elif self._cost is not None:
            rows = np.empty((self.substeps, model.nsensordata))
        else:
            rows = None
        if rows is None:
            mujoco.mj_step(model, data, nstep=self.substeps)
        else:
            sensordata, step = data.sensordata, mujoco.mj_step
            for k in range(self.substeps):
                if motion:
                    motion.advance(data)
                step(model, data)
                rows[k] = sensordata
        self._step_count += 1
        cost = self._cost.step(rows) if self._cost is not None else (0.0, ())
        self._violations = cost[1]
        if motion and any(cost[1]):
            self._freeze(cost[1])
        reward, terminated, truncated = 0.0, False, False
        if self.checker is not None:  # a goal task: its :goal held HOLD_STEPS control steps
            terms = tuple(self.checker.terms(data))
            self._held = self._held + 1 if all(terms) else 0
            terminated = self._held >= HOLD_STEPS
            reward = float(terminated)
            self.checker.light(data)
            signals: Any = GoalSignals(self.checker.relations, terms)
        else:
            assert rec is not None
            signals = rec.finish(self._gripper_cmd)
            if self.scorer is not None and not self.scorer.outcome.decided:
                self.scorer.update(signals)
                terminated = self.scorer.outcome.decided
                reward = 1.0 if self.scorer.outcome.success else 0.0
        if self.max_steps is not None:
            truncated = not terminated and self._step_count >= self.max_steps
        info = self._info(signals)
        info["cost"] = cost[0]
        if self._signals is not None or self._cost is not None:
            info["cost_violations"] = cost[1]
        return self._obs(), reward, terminated, truncated, info

    def end_cost(self) -> float:
        """The ``:cost`` end terms (``Collide``, ``Fall``, ``NotOn``: :data:`END_COST` each)
        that hold at the last step, to add to the summed step costs when a goal episode
        ends."""
        if self._cost is None or not self._violations:
            return 0.0
        kinds = [t.kind for t in self._cost.terms]
        return END_COST * sum(
            v and k == "end" for v, k in zip(self._violations, kinds, strict=True)
        )

    def _take_held(self) -> None:
        """Put each object the task holds at reset (``(Grasped OBJECT GRIPPER)`` in
        ``:init``, :mod:`rsb_mj.lang.held`) in its gripper: the expert's own approach,
        descent, close and lift with that arm, run in physics before the first observation
        (a few seconds of simulated time; nothing is scored or counted), the gripper left
        commanded closed.

        Raises:
            EnvError: when the grasp cannot be planned or does not hold the object.
        """

        assert self.episode is not None
        for obj, side in self.start_hold.items():
            expert = PickPlaceExpert(self, self.episode.target, pick_only=side)
            action = expert.act()
            if expert.mover != obj:
                raise EnvError(
                    f"{self.problem.path}: (Grasped {obj} {side}_gripper) in :init, but the "
                    f"goal moves {expert.mover!r}: hold what the goal moves"
                )
            for _ in range(HOLD_MAX_STEPS):
                if expert.done:
                    break
                self._apply_action(action)
                for _ in range(self.substeps):
                    mujoco.mj_step(self.model, self.data)
                action = expert.act()
            s = SIDES.index(side)
            opening = float(finger_to_gripper(self.data.qpos[self._finger_adr[s]].mean()))
            if expert.failure or not expert.done or action[7 * s + 6] >= CLOSED_BELOW:
                raise EnvError(
                    f"{self.problem.path}: cannot put {obj!r} in {side}_gripper at reset: "
                    f"{expert.failure or 'the grasp did not finish'}"
                )
            if opening <= 0.05:
                raise EnvError(
                    f"{self.problem.path}: {side}_gripper closed on nothing at reset: "
                    f"{obj!r} slipped"
                )
            self._gripper_cmd[s] = 0.0

    def _apply_action(self, action: np.ndarray) -> None:
        """Set the actuators' targets from a 14-D action (grippers 0 closed .. 1 open)."""
        ctrl = action[self._act_src]
        fingers = FINGER_CLOSED + np.clip(ctrl, 0.0, 1.0) * (FINGER_OPEN - FINGER_CLOSED)
        self.data.ctrl[self._act_ids] = np.where(self._is_finger, fingers, ctrl)

    def _freeze(self, violations: tuple[bool, ...]) -> None:
        """Stop every moving object a violated step term names (VLA-Arena's CBDDL)."""
        motion = getattr(self.scene, "motion", None)
        if self._cost is None or motion is None:
            return
        for hit, term, bodies in zip(
            violations, self._cost.terms, self._cost.term_bodies, strict=True
        ):
            if hit and term.kind == "step":
                for name in sorted(bodies):
                    motion.freeze(name, self.data)

    def render(self) -> np.ndarray | None:
        """The head camera image (``render_mode="rgb_array"``), else None."""
        if self.render_mode != "rgb_array":
            return None
        if self._render_rig is None:
            self._render_rig = CameraRig(
                self.model, ("head",), self._rig.width, self._rig.height, self.quality
            )
        image = self._render_rig.render(self.data, "head")
        return self._perturb.noise({"head": image}, self._step_count)["head"]

    def close(self) -> None:
        """Free rendering contexts."""
        self._rig.close()
        if self._render_rig is not None:
            self._render_rig.close()

    # ---- helpers ---------------------------------------------------------------------------

    def _validate(self, action: Any) -> np.ndarray:
        try:
            arr = np.asarray(action, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise EnvError(f"action must be 14 numbers, got {type(action).__name__}") from exc
        if arr.shape != (14,):
            raise EnvError(
                f"action has shape {arr.shape}; expected (14,): [left 6 joints (rad), left "
                "gripper (0 closed..1 open), right 6 joints, right gripper]"
            )
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise EnvError(f"action has non-finite values at indices {bad.tolist()}")
        return arr

    def state(self) -> np.ndarray:
        """Measured 14-D state in the action layout."""
        out = np.empty(14)
        out[self._arm_state_idx] = self.data.qpos[self._arm_state_adr]
        fingers = self.data.qpos[self._finger_adr].mean(axis=1)
        out[[6, 13]] = finger_to_gripper(fingers)
        return out

    def _obs(self) -> dict[str, Any]:
        if not self._rig.cameras:
            return {"state": self.state()}
        images = self._perturb.noise(self._rig.render_all(self.data), self._step_count)
        return {"state": self.state(), "images": images}

    def _info(self, signals: Any) -> dict[str, Any]:
        """The info of a reset (a goal task's without ``signals``) or a step."""
        info: dict[str, Any] = {
            "instruction": self.instruction,
            "candidates": self.candidates,
            "step": self._step_count,
        }
        if signals is not None:
            info["signals"] = signals
        info["is_success"], info["cost"] = self._is_success(), 0.0
        if self._signals is not None or self._cost is not None:
            info["cost_violations"] = (False,) * len(self._cost.terms) if self._cost else ()
        assert self.episode is not None
        if self.episode.binding is None:  # an unbound episode holds no answer: it is in info
            info["episode"], info["perturbation"] = self.episode, self.perturbation
        return info

    def _is_success(self) -> bool:
        """The outcome if the episode ended now (decided, or scored on this substep)."""
        if self.checker is not None:
            return self._held >= HOLD_STEPS
        return self.scorer is not None and self.scorer.success_now()


def GoalEnv(task: str | Path | Problem | Task, **kwargs: Any) -> RsbEnv:
    """The environment of a goal task, by the name its class had (kept for callers and
    configs that name it): ``RsbEnv(load_goal_task(task), **kwargs)``.

    Raises:
        TaskError: for a question task, or a task file ``rsb lint --target rsb`` reports an
            error for (the itemised list, :func:`rsb_mj.lang.linter.load_goal_task`).
    """
    return RsbEnv(load_goal_task(task), **kwargs)
