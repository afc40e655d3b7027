"""The RSB suites as a vla-eval benchmark (``vla-eval run --no-docker -c CONFIG``).

vla-eval (``pip install 'rsb_mj[vla-eval]'``) resolves the config's
``benchmark: "rsb_mj.integrations.vla_eval:RsbBenchmark"`` import string, builds the
benchmark with ``params`` and steps it against a model server over its websocket protocol.
Shipped configs, one per suite: ``rsb_mj/integrations/configs/rsb_<suite>.yaml``
(:func:`config_path`).

Tasks: one per suite (``name`` = suite name); episode ``k`` of a task is row
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
(:func:`rsb_mj.evaluation.sealed.sealed_order`, keyed by the secret, the policy named
:data:`POLICY`), so pair partners and level twins are neither adjacent nor predictable
(``shuffle_seed`` is refused: a public seed orders nothing secretly). The outcomes go to
``outcomes`` (a JSON Lines file, one line per episode with the metrics above and the table
``row``; required in a sealed run, never sent), written once, atomically, when the benchmark
is cleaned up at the end of the run: keep it where the server cannot read it. Each line
carries ``"signature"``, the HMAC chain of ``rsb eval``'s sealed records
(:func:`rsb_mj.evaluation.sealed.sign_row`, the secret's record key);
``python -m rsb_mj.integrations.vla_eval_results --outcomes FILE --secret-file SECRET``
verifies every line (an edited, moved, removed or foreign line is refused with
``file:line``) before it reports the rates.

Policy faults: in a sealed run an action that is not one (not a (14,) array of finite
numbers) is the server's own fault, a scored failure (``policy_fault: true`` in its
outcome, ``done`` at once; in the run-on after a decided wrong choice it scores nothing, as
in ``rsb eval --sealed``), not an exception vla-eval would record as an unscored error,
so a server cannot have the episodes it is unsure of excluded; an ordinary run raises
:class:`~rsb_mj.errors.EnvError` and vla-eval records the episode's ``failure_reason``.
"""

from __future__ import annotations

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
from rsb_mj.errors import EnvError, RsbError
from rsb_mj.evaluation.jobs import Job
from rsb_mj.evaluation.sealed import Seal, read_seal, sealed_order, sign_row
from rsb_mj.policies.aloha_convention import get_convention
from rsb_mj.scene.aloha import HOME_ARM, QUALITIES
from rsb_mj.scoring.scorer import EpisodeScorer, Pacing
from rsb_mj.splits import SPLITS
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import table_rows
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
    """The shipped vla-eval config of a suite, e.g. ``configs/rsb_math_4.yaml``."""
    name = get_suite(suite).name
    return CONFIGS_DIR / f"{name.lower().replace('rsb-', 'rsb_').replace('-', '_')}.yaml"


class RsbBenchmark(StepBenchmark):
    """One RSB suite as a vla-eval ``StepBenchmark``.

    Args:
        suite: suite name, e.g. ``"RSB-Math-4"``.
        split: ``"eval"`` (default) or ``"train"`` table.
        start: first table row.
        shuffle_seed: if set, episode ``k`` is row ``start + perm[k]`` of a permutation
            of the rows from ``start`` on drawn with this seed (kept from the server).
        width, height: camera image size [px].
        quality: render preset ``"fast"`` or ``"full"``.
        send_wrist_image: also send the two wrist cameras (else only ``cam_high``).
        send_state: send the measured 14-D joint state.
        convention: the grippers' convention on the wire (``aloha``, the export's, or
            ``rsb``).
        tables: a folder of private tables (eval rows only) to run instead of the
            shipped table; never sent to the server. Implies ``sealed``.
        sealed: send no outcome to the server (see the module docstring); None: sealed
            exactly when ``tables`` is set. ``False`` with ``tables`` is refused.
        outcomes: the JSON Lines file a sealed run writes its signed outcomes to at
            cleanup (required when sealed; refused otherwise).
        secret_file: the private secret of a sealed run (required when sealed; with
            ``tables``, the one they were drawn from): it orders the episodes and signs
            the outcomes; never sent.
    """

    render_backends: ClassVar[frozenset[str]] = frozenset({"gpu", "cpu"})
    #: Step-row fields this benchmark records (vla-eval validates ``step_fields`` on them).
    _ALL_RECORD_FIELDS = frozenset({"reward", "done", "success", "grasped", "action", "state"})

    @classmethod
    def configure_render(cls, mode: str) -> dict[str, str]:
        """OSMesa for ``render: cpu``; rsb_mj's own choice (EGL) otherwise."""
        return configure_mujoco_render(mode)

    def __init__(
        self,
        suite: str = "RSB-Math-4",
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
    ) -> None:
        super().__init__()
        self.suite = get_suite(suite)
        check_images(width, height, quality)
        if split not in SPLITS:
            raise RsbError(f"unknown split {split!r}; valid choices: {', '.join(SPLITS)}")

        if sealed is None:
            sealed = tables is not None
        if tables is not None and not sealed:
            raise RsbError(
                "sealed: false with tables: a private draw always runs sealed (drop sealed)"
            )
        if sealed and shuffle_seed is not None:
            raise RsbError(
                "shuffle_seed with a sealed run: its episodes run in the order of the private "
                "secret (drop shuffle_seed)"
            )
        self._seal = sealed_params(bool(sealed), outcomes, secret_file, tables)
        self.sealed = bool(sealed)
        self._outcomes_path = Path(outcomes) if outcomes else None
        self._outcomes: list[dict[str, Any]] = []
        self._pacing: Pacing | None = None
        self._row = -1
        self._fault: str | None = None  # the server's own fault that ended the episode
        self._last_obs: Any = None
        rows = table_rows(self.suite.name, split, tables)
        if not 0 <= start < len(rows):
            raise RsbError(
                f"start {start}: the {self.suite.name} {split} table has rows 0..{len(rows) - 1}"
            )
        self.split, self.start = split, start
        order = np.arange(start, len(rows))
        if shuffle_seed is not None:
            order = np.random.default_rng(shuffle_seed).permutation(order)
        if self._seal is not None:
            max_steps = self.suite.max_steps
            jobs = [Job(self.suite.name, split, int(i), POLICY, max_steps) for i in order]
            order = np.array([job.index for job in sealed_order(jobs, self._seal)], dtype=int)
        self._rows = [rows[i] for i in order]
        self._row_index = [int(i) for i in order]
        self.send_wrist_image = bool(send_wrist_image)
        self.send_state = bool(send_state)
        self.convention = get_convention(convention)
        self.cameras = tuple(CAMERA_NAMES) if self.send_wrist_image else (VIDEO_CAMERA,)
        self._env_kwargs = {
            "width": width,
            "height": height,
            "quality": quality,
            "cameras": self.cameras,
        }
        self._env: Any = None
        self._instruction = ""
        self._reset_state: np.ndarray | None = None
        self._recorder = NullEpisodeRecorder()  # vla-eval's start_episode sets the real one

    # ---- vla-eval API ----------------------------------------------------------------------

    def get_tasks(self) -> list[Task]:
        """One task per suite; episodes are table rows."""
        return [{"name": self.suite.name, "suite": self.suite.name}]

    def get_metadata(self) -> dict[str, Any]:
        """Step limit (the suite's) and how many episodes the table holds from ``start``."""
        return {"max_steps": self.suite.max_steps, "max_episodes_per_task": len(self._rows)}

    def get_metric_keys(self) -> dict[str, str]:
        """Means of the TSR, GSR and correct-choice flags (none in a sealed run)."""
        if self.sealed:
            return {}
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

    def reset(self, task: Task) -> Any:
        """Reset the env on the table row of ``task["episode_idx"]``."""
        k = int(task.get("episode_idx", 0))
        if not 0 <= k < len(self._rows):
            raise RsbError(
                f"episode {k}: {self.suite.name} {self.split} has {len(self._rows)} rows from "
                f"row {self.start} (episodes_per_task <= {len(self._rows)})"
            )
        if self._env is None:
            # heavy: gymnasium, only once the server makes its env
            import gymnasium

            import rsb_mj  # noqa: F401  (registers the ids)

            self._env = gymnasium.make(self.suite.env_id, **self._env_kwargs)
        options: dict[str, Any] = {"episode": self._rows[k]}
        if self.sealed:  # scored here alone: the same work per step whatever the answer
            options["score"] = False
        obs, info = self._env.reset(options=options)
        self._row = self._row_index[k]
        self._fault, self._last_obs = None, obs
        if self.sealed:
            u = self._env.unwrapped
            cands = tuple(u.scene.candidates)
            self._pacing = Pacing(u.problem, cands, u.episode.target)
        self._instruction = info["instruction"]
        self._reset_state = np.array(obs["state"], dtype=np.float64)
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        return obs

    def step(self, action: Action) -> StepResult:
        """One 20 Hz control step with the ``actions`` of the server's reply."""
        fault = action_fault(action)
        if fault is not None:
            if not self.sealed:
                raise EnvError(fault)
            return self._policy_fault(fault)
        arr = np.asarray(action["actions"], dtype=np.float64)
        arr = self.convention.actions_from_server(arr[None])[0]
        obs, reward, terminated, truncated, info = self._env.step(arr)
        self._last_obs = obs
        self._recorder.record_video(obs["images"][VIDEO_CAMERA])
        if self.sealed:
            assert self._pacing is not None
            outcome = self._pacing.update(info["signals"])
            done = bool(truncated) or (outcome.decided and self._pacing.ended())
            self._recorder.record_step(
                done=done, action=arr.astype(np.float32), state=np.asarray(obs["state"], np.float32)
            )
            return StepResult(obs=obs, reward=0.0, done=done, info={})
        outcome = self._env.unwrapped.scorer.outcome
        self._recorder.record_step(
            reward=float(reward),
            done=bool(terminated or truncated),
            success=bool(info.get("is_success", outcome.success)),
            grasped=bool(outcome.grasped),
            action=arr.astype(np.float32),
            state=np.asarray(obs["state"], np.float32),
        )
        return StepResult(
            obs=obs, reward=float(reward), done=bool(terminated or truncated), info=info
        )

    def _policy_fault(self, fault: str) -> StepResult:
        """Sealed: end the episode at once as the server's own failure (its outcome says
        so; the scene does not move)."""
        self._fault = fault
        self._recorder.record_step(done=True)
        return StepResult(obs=self._last_obs, reward=0.0, done=True, info={})

    def _scorer(self) -> EpisodeScorer:
        """The episode's scorer: in a sealed run the answer's pacing scorer (the env scores
        nothing there, so that the work per step does not depend on the answer), else the
        env's."""
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
        """The one-attempt outcome of the episode so far; in a sealed run kept for
        ``outcomes`` and ``{"sealed": True}`` returned (vla-eval sends it to the server)."""
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
        outcome = {"suite": self.suite.name, "row": self._row, **result}
        outcome["policy_fault"] = faulted
        self._outcomes.append(outcome)
        return {"sealed": True}

    def cleanup(self) -> None:
        """Close the env (its GL contexts); a sealed run writes its ``outcomes``."""
        if self._env is not None:
            self._env.close()
            self._env = None
        if self._outcomes_path is not None and self._outcomes and self._seal is not None:
            lines, previous = [], ""
            for outcome in self._outcomes:
                line, previous = sign_row(outcome, self._seal, previous)
                lines.append(line + "\n")
            atomic_write_text(self._outcomes_path, "".join(lines), mode=0o600)


__all__ = ["ACTION_SPEC", "POLICY", "RsbBenchmark", "action_fault", "config_path", "sealed_params"]
