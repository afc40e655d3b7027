"""The environment of a goal task (a LIBERO / VLA-Arena style file) on the Aloha.

Same action and observation layout as :class:`rsb_mj.env.RsbEnv`: the action is 14 joint
targets ``[left 6 (rad), left gripper (0 closed .. 1 open), right 6, right gripper]`` held
for one control period; the observation is ``{"state": (14,), "images": {camera: HxWx3}}``.

An episode is a seed (:meth:`rsb_mj.scene.goal_scene.GoalScene.reset`: layout drawn, settled,
checked): ``reset(seed=S)``, or ``reset(options={"episode": Episode})`` as the runner
resets: a bare seed's episode (:meth:`~rsb_mj.episodes.episode.Episode.seeded`)
draws its layout, a frozen table row's (:mod:`rsb_mj.tables.goal`) is placed at the row's
poses and then settled and checked as a drawn one; a seed with no valid layout, or a frozen
layout that is not a valid start, raises :class:`~rsb_mj.errors.LayoutError`.
``info["episode"]`` is the episode. ``info["instruction"]`` is the task's ``:language``;
``info["sim"]`` (at reset) the simulation settings as :class:`rsb_mj.env.RsbEnv`'s and the head
camera's pose, framed for the task (``head_camera``: :mod:`rsb_mj.scene.goal_camera`);
``info["goal"]`` (at reset) names the task's tier, its predicate semantics and the object
source; ``info["signals"]`` (each step) is the goal's truth per relation
(:class:`~rsb_mj.scoring.signals.GoalSignals`, what the runner's scorer reads).
Success: the ``:goal`` conjunction holds for :data:`~rsb_mj.scoring.goal_predicates.
HOLD_STEPS` consecutive control steps (the episode then terminates with reward 1); the step
limit (``max_steps``) truncates a failed one. ``info["cost"]`` is the step's ``:cost``
(VLA-Arena's CBDDL safety cost, :mod:`rsb_mj.scoring.cost`), 0 without one; with one,
``info["cost_terms"]`` (at reset) and ``info["cost_violations"]`` (each step) as
:class:`rsb_mj.env.RsbEnv` reports them.

Perturbations (``visual_level``, ``language_level``, 0-4, as :class:`rsb_mj.env.RsbEnv`'s):
the visual levels of :class:`rsb_mj.perturb.visual.VisualPerturber` (light, table and floor
colors, head camera, sensor noise; every task object keeps its stand-in's colors up to a small
jitter) and the language levels of :func:`rsb_mj.perturb.language.perturb_goal_instruction`
(words of ``:language`` substituted), both drawn from the episode seed, so a seed gives the
same pixels and words. ``info["perturbation"]`` records the levels and every drawn parameter.
Neither touches the physics: the layout and the expert's actions of a seed do not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import gymnasium
import mujoco
import numpy as np
from gymnasium import spaces

from rsb_mj.env.cameras import CameraRig
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EnvError, EpisodeError, EvalError, LayoutError, SceneError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.digest import task_digest
from rsb_mj.lang.frame_map import layout_change
from rsb_mj.lang.goal_task import GoalTask, warnings_of
from rsb_mj.lang.linter import load_goal_task
from rsb_mj.perturb.language import check_level, perturb_goal_instruction
from rsb_mj.perturb.visual import VisualPerturber
from rsb_mj.rates import CONTROL_HZ, PHYSICS_HZ
from rsb_mj.scene.aloha import (
    FINGER_CLOSED,
    FINGER_OPEN,
    SIDES,
    arm_joints,
    finger_joints,
    finger_to_gripper,
)
from rsb_mj.scene.assets import STANDINS_SOURCE, ObjectSource
from rsb_mj.scene.goal_scene import GoalScene, compile_goal_scene
from rsb_mj.scoring.cost import END_COST, CostMeter
from rsb_mj.scoring.goal_predicates import HOLD_STEPS, GoalChecker
from rsb_mj.scoring.signals import GoalSignals
from rsb_mj.suites import GOAL_MAX_STEPS
from rsb_mj.workspace import CAMERAS


def _same_file(row_task: str, path: str | Path) -> bool:
    """Whether a row's task file (relative to ``tasks/``, after ``suite::`` in a run's
    source, or a path) is ``path``."""
    a, b = Path(row_task.rpartition("::")[2]), Path(path).resolve()
    return (a.resolve() == b) if a.is_absolute() else b.as_posix().endswith("/" + a.as_posix())


class GoalEnv(gymnasium.Env):
    """A goal task's environment (module docstring).

    Args:
        task: a task file path, a parsed problem or a :class:`GoalTask`.
        cameras: the cameras observed (``()`` for none: fast).
        width, height: image size [px].
        quality: ``"fast"`` or ``"full"`` meshes.
        control_hz: control rate [Hz] (a divisor of the physics rate).
        max_steps: the step limit.
        objects: where object models come from (the shipped stand-ins by default).
        visual_level, language_level: the perturbation levels (0-4; module docstring).

    Raises:
        EnvError: for a level outside 0..4 or a control rate that does not divide the
            physics rate.
        TaskError: for a task file ``rsb lint --target rsb`` reports an error for (the
            itemised list, :func:`rsb_mj.lang.linter.load_goal_task`).

    Privileged attributes (the expert's): ``task``, ``scene``, ``checker``, ``model``,
    ``data``, ``seed``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": CONTROL_HZ}

    def __init__(
        self,
        task: str | Path | Problem | GoalTask,
        *,
        cameras: tuple[str, ...] = CAMERAS,
        width: int = 320,
        height: int = 240,
        quality: str = "fast",
        control_hz: int = CONTROL_HZ,
        max_steps: int = GOAL_MAX_STEPS,
        objects: ObjectSource | None = None,
        visual_level: int = 0,
        language_level: int = 0,
    ) -> None:
        if PHYSICS_HZ % control_hz:
            raise EnvError(f"control_hz {control_hz} does not divide the physics rate")
        try:
            self.language_level = check_level(language_level)
        except EpisodeError as exc:
            raise EnvError(str(exc)) from None
        self.task: GoalTask = load_goal_task(task)
        #: What the scene builds differently from the file (``path:line:col: message``).
        self.warnings = [i.format(self.task.path) for i in warnings_of(self.task)]
        problem = self.task.problem
        self._cost: CostMeter | None = None
        if problem.cost_terms:
            try:
                self._cost = CostMeter(problem)
            except EvalError as exc:  # e.g. a term naming an undeclared fixture
                self.warnings.append(f"{exc} (the :cost is not evaluated)")
        probes = self._cost.probes if self._cost is not None else ()
        #: Where the objects come from (the shipped stand-ins unless the user's assets).
        self.objects: ObjectSource = objects or STANDINS_SOURCE
        self.scene: GoalScene = compile_goal_scene(
            self.task, quality=quality, objects=self.objects, probes=probes
        )
        self.model: mujoco.MjModel = self.scene.model
        self.data = mujoco.MjData(self.model)
        if self._cost is not None:
            self._cost.bind(self.model)
        self.checker = GoalChecker(self.model, self.task)
        self.control_hz, self.substeps = control_hz, PHYSICS_HZ // control_hz
        self.metadata = {**self.metadata, "render_fps": control_hz}
        self.max_steps = max_steps
        self.instruction = self.task.instruction
        self.candidates = tuple(self.task.objects)
        self.seed = 0
        self._rig = CameraRig(self.model, tuple(cameras), width, height, quality)
        self.quality = quality
        source = Path(self.task.path)
        # the task file and every file it names (rsb_mj.lang.digest), as RsbEnv records it
        self.task_sha256 = task_digest(source).sha256 if source.is_file() else ""
        self.visual = VisualPerturber(
            self.model, problem, self.candidates, visual_level, (width, height)
        )
        #: The episode's perturbation record (levels and every drawn parameter).
        self.perturbation: dict[str, Any] = {}
        m = self.model
        ids, src = [], []
        for s, side in enumerate(SIDES):
            for j, name in enumerate(arm_joints(side)):
                ids.append(m.actuator(name).id)
                src.append(7 * s + j)
            for name in finger_joints(side):
                ids.append(m.actuator(name).id)
                src.append(7 * s + 6)
        self._act_ids, self._act_src = np.array(ids), np.array(src)
        self._is_finger = np.isin(self._act_src, [6, 13])
        self._arm_adr = np.array(
            [m.joint(n).qposadr[0] for side in SIDES for n in arm_joints(side)]
        )
        self._finger_adr = np.array(
            [[m.joint(n).qposadr[0] for n in finger_joints(side)] for side in SIDES]
        )
        low = np.array([m.actuator_ctrlrange[i][0] for i in ids])
        high = np.array([m.actuator_ctrlrange[i][1] for i in ids])
        lo, hi = np.zeros(14), np.ones(14)
        for k, i in enumerate(self._act_src):
            if not self._is_finger[k]:
                lo[i], hi[i] = low[k], high[k]
        self.action_space = spaces.Box(lo, hi, shape=(14,), dtype=np.float64)
        state = {"state": spaces.Box(-2 * np.pi, 2 * np.pi, shape=(14,), dtype=np.float64)}
        if self._rig.cameras:
            image = spaces.Box(0, 255, shape=(int(height), int(width), 3), dtype=np.uint8)
            state["images"] = spaces.Dict({c: image for c in self._rig.cameras})
        self.observation_space = spaces.Dict(state)
        self._held = 0
        self._steps = 0
        self.layout: dict[str, tuple[float, float, float, float]] = {}
        self.episode: Episode = Episode.seeded(self.task.path, 0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start the episode of ``seed`` (0 when None), or of ``options["episode"]`` (a
        :class:`~rsb_mj.episodes.episode.Episode`): a bare seed's layout drawn, a
        frozen row's placed at its poses; then settled and checked.

        Raises:
            LayoutError: when no valid layout is found for the seed, or a frozen layout is
                not a valid start (naming the row and why).
            EnvError: for an ``options["episode"]`` that is not a goal task's
                :class:`Episode` (one with no binding), or a row of another task file.
        """
        episode = (options or {}).get("episode")
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
        if self.visual.active:
            self.visual.restore()
        if episode.frozen:
            why = self.scene.place(self.data, dict(episode.layout), self.checker.holds)
            if why is not None:
                raise LayoutError(
                    f"{episode.suite} {episode.split} table, {episode.task} row {episode.index} "
                    f"(seed {episode.seed}): the frozen layout is not a valid start ({why}); "
                    f"refreeze it: rsb episodes build {episode.suite or episode.task}"
                )
            self.layout = dict(episode.layout)
        else:
            try:
                self.layout = self.scene.reset(self.data, self.seed, self.checker.holds)
            except SceneError as exc:
                raise LayoutError(str(exc)) from None
        self.episode = episode
        record = self.visual.apply_seed(self.data, self.seed, None)
        base = self.task.instruction if episode.instruction is None else episode.instruction
        self.instruction, language = perturb_goal_instruction(base, self.seed, self.language_level)
        self.perturbation = {**record, "language_level": self.language_level, "language": language}
        self._held = 0
        self._steps = 0
        self._violations: tuple[bool, ...] = ()
        self.checker.light(self.data)  # a stove's burner lit while on (tier B; else nothing)
        info = self._info(False)
        info["goal"] = self.goal_info
        info["sim"] = {
            "mujoco": mujoco.__version__,
            "quality": self.quality,
            "control_hz": self.control_hz,
            "timestep": float(self.model.opt.timestep),
            "substeps": self.substeps,
            "task_sha256": self.task_sha256,
            "perturbation": self.perturbation,
            "head_camera": self.head_camera,
        }
        if change := layout_change(self.task):  # a floor scene on the table (tier C) only
            info["sim"]["layout_change"] = change
        if self._cost is not None:
            self._cost.reset(self.data.sensordata.copy())
            info["cost_terms"] = {
                "terms": [(t.text, t.kind) for t in self._cost.terms],
                "implicit_and": self._cost.implicit_and,
            }
        return self._obs(), info

    @property
    def head_camera(self) -> dict[str, Any]:
        """The head camera's pose, framed for this task (:mod:`rsb_mj.scene.goal_camera`):
        ``{"pos": eye [m, world], "xyaxes": camera x and y axes (world), "fovy": [deg]}``
        (``info["sim"]["head_camera"]``, a record's ``sim.head_camera``)."""
        assert self.scene.head is not None
        return self.scene.head.as_dict()

    @property
    def goal_info(self) -> dict[str, str]:
        """What a goal record names besides the episode: the task's ``tier``, its predicate
        ``semantics`` (``libero``, ``vla_arena``), the ``objects`` source and its
        ``objects_fingerprint`` (``""`` for the stand-ins)."""
        return {
            "tier": self.task.tier,
            "semantics": self.task.source,
            "objects": self.objects.label,
            "objects_fingerprint": self.objects.fingerprint,
        }

    def step(self, action: np.ndarray) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Hold the 14-D joint targets for one control period.

        Raises:
            EnvError: for an action that is not 14 finite numbers.
        """
        a = np.asarray(action, dtype=np.float64)
        if a.shape != (14,) or not np.all(np.isfinite(a)):
            raise EnvError(f"action must be 14 finite numbers, got shape {a.shape}")
        ctrl = a[self._act_src]
        fingers = FINGER_CLOSED + np.clip(ctrl, 0.0, 1.0) * (FINGER_OPEN - FINGER_CLOSED)
        self.data.ctrl[self._act_ids] = np.where(self._is_finger, fingers, ctrl)
        cost = 0.0
        if self._cost is None:
            mujoco.mj_step(self.model, self.data, nstep=self.substeps)
        else:
            rows = np.empty((self.substeps, self.model.nsensordata))
            for k in range(self.substeps):
                mujoco.mj_step(self.model, self.data)
                rows[k] = self.data.sensordata
            cost, self._violations = self._cost.step(rows)
        self._steps += 1
        terms = tuple(self.checker.terms(self.data))
        holds = all(terms)
        self._held = self._held + 1 if holds else 0
        success = self._held >= HOLD_STEPS
        truncated = not success and self._steps >= self.max_steps
        self.checker.light(self.data)
        info = self._info(success)
        info["cost"] = cost
        info["signals"] = GoalSignals(self.checker.relations, terms)
        if self._cost is not None:
            info["cost_violations"] = self._violations
        return self._obs(), float(success), success, truncated, info

    def end_cost(self) -> float:
        """The ``:cost`` end terms (``Collide``, ``Fall``, ``NotOn``: :data:`END_COST` each)
        that hold at the last step, to add to the summed step costs when the episode ends."""
        if self._cost is None or not self._violations:
            return 0.0
        kinds = [t.kind for t in self._cost.terms]
        return END_COST * sum(
            v and k == "end" for v, k in zip(self._violations, kinds, strict=True)
        )

    def state(self) -> np.ndarray:
        """Measured 14-D state in the action layout."""
        out = np.empty(14)
        out[[0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]] = self.data.qpos[self._arm_adr]
        out[[6, 13]] = finger_to_gripper(self.data.qpos[self._finger_adr].mean(axis=1))
        return out

    def _obs(self) -> dict[str, Any]:
        if not self._rig.cameras:
            return {"state": self.state()}
        images = self.visual.noise(self._rig.render_all(self.data), self._steps)
        return {"state": self.state(), "images": images}

    def _info(self, success: bool) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "candidates": self.candidates,
            "step": self._steps,
            "is_success": success,
            "cost": 0.0,
            "episode": self.episode,
            "perturbation": self.perturbation,
        }

    def close(self) -> None:
        """Free rendering contexts."""
        self._rig.close()
