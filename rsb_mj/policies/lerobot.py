"""``lerobot:PATH[,device=cuda][,convention=NAME]``: a LeRobot checkpoint run inside ``rsb eval``.

``PATH`` is the ``pretrained_model`` folder ``lerobot-train`` writes
(``outputs/train/RUN/checkpoints/last/pretrained_model``), or a checkpoint folder holding
one. It is loaded with lerobot's own classes, as lerobot's own inference does: the config
with ``PreTrainedConfig.from_pretrained``, the policy class of its ``type`` with
``get_policy_class(type).from_pretrained``, the saved pre- and post-processors
(normalization) with ``make_pre_post_processors``. Needs the ``lerobot-policy`` extra
(``pip install 'rsb_mj[lerobot-policy]'``, or ``tools/lerobot_venv.sh``).

Each control step goes through lerobot's ``predict_action`` (its real-robot inference
path): the observation below -> ``prepare_observation_for_inference`` (HWC uint8 -> CHW
float32 in [0, 1], batch of one) -> the pre-processor -> ``policy.select_action`` ->
the post-processor -> one (14,) joint-position target in the env's action order. Policies
that predict chunks (ACT, SmolVLA, pi0, diffusion) keep their own queue of
``n_action_steps`` actions in ``select_action``, so a chunk is executed to its end before
the next inference, exactly as in lerobot's own eval loop.

Observation handed to the policy (the names of ``rsb export-lerobot``, so a checkpoint
trained on an export reads what it trained on)::

    observation.images.cam_high         <- obs["images"]["head"]         (H, W, 3) uint8
    observation.images.cam_left_wrist   <- obs["images"]["left_wrist"]
    observation.images.cam_right_wrist  <- obs["images"]["right_wrist"]
    observation.state                   <- obs["state"] in the dataset's convention, float32
    task                                <- the episode's instruction (info["instruction"])
    observation.environment_state       <- the instruction's hashed n-gram vector, only for a
                                           checkpoint trained on rsb export-lerobot
                                           --instruction-features DIM (its length is DIM);
                                           a checkpoint trained on an export whose key holds
                                           a tier-B scene's fixture joints (privileged state)
                                           is refused when its dataset says so

Conventions (:mod:`rsb_mj.policies.aloha_convention`): ``rsb export-lerobot`` writes the
state and action grippers in ALOHA's scales and names the convention in the dataset's
``meta/info.json`` (``rsb_convention``). The adapter reads it from the dataset the checkpoint
was trained on (``train_config.json``'s ``dataset.root``): the state goes to the policy
through ``state_to_server``, and the action that leaves the post-processor comes back to
rsb_mj's scale through ``actions_from_server``. A dataset that names no convention (exported
before datasets did) is ``rsb`` (no mapping); when the dataset is not on this machine the
export's own convention is assumed; ``,convention=aloha|rsb`` overrides both.

Only the cameras the checkpoint declares are rendered. Images whose size differs from
the checkpoint's declared (3, H, W) are resized with padding to it (openpi's rule,
:func:`rsb_mj.policies.openpi.resize_with_pad`); an export at the env's size (320x240 by
default) is passed through untouched. The task is the instruction even for a dataset
exported from ``rsb demos --cot`` (whose task is the training prompt with its rationale):
at evaluation a policy gets only the instruction.

Nothing is downloaded: ``PATH`` must be a local folder, and a backbone's
``pretrained_backbone_weights`` (ImageNet, fetched when ACT or diffusion is *built*) is
cleared before the policy is built, since the checkpoint's weights replace it anyway.
Triton is kept out of the process (``torch.compile`` is off): its bundled LLVM crashes a
process that has already loaded Mesa's renderer, as ``rsb eval`` has by the time it builds
a policy. torch's random generator is seeded at each reset from the instruction and the candidate
names, so sampling policies (diffusion, flow matching) draw the same noise for the same
episode.

Per-layer features (``rsb eval --features MODE --feature-modules NAME,...``): forward hooks
on the named modules of the lerobot policy (``policy.named_modules()`` names, e.g.
``model.encoder.layers.0`` and ``model.decoder.layers.0`` of ACT), each pooled to the mean
over its tokens (:mod:`rsb_mj.policies.feature_hooks`); an act that runs no inference (a
chunk's queued actions) reports none.

Batched (``rsb eval --batch B``): an ACT checkpoint without temporal ensembling (a pure
function of the observation, its chunk executed to the end: nothing kept per episode but
the task) is one batched policy per worker: the observations of the episodes waiting for
an action go through the pre-processor one by one, are stacked, and take one
``predict_action_chunk`` forward; each episode gets its first ``n_action_steps`` rows
through the post-processor, as the chunk ``select_action`` would have queued. Other
policies keep per-episode state in the model (observation histories, ensembles, noise
drawn from torch's one generator) and are built once per slot instead, and so is a policy
with ``--feature-modules`` (its hooks pool one episode's forward; a batched forward would
mix the episodes of the batch).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.policies.aloha_convention import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    Convention,
    get_convention,
)
from rsb_mj.policies.base import ACTION_DIM, Policy
from rsb_mj.policies.feature_hooks import ModuleFeatures
from rsb_mj.policies.instruction_features import INSTRUCTION_KEY
from rsb_mj.policies.instruction_features import encode as encode_instruction
from rsb_mj.resize import resize_with_pad
from rsb_mj.workspace import ALOHA_CAMERA_NAMES

#: The spec form, as error messages and the spec registry list it.
FORM = "lerobot:PATH[,device=cuda][,convention=aloha|rsb]"
#: The spec's options and their valid values (None: any non-empty value).
OPTIONS = ("device", "convention")
#: The extra that installs lerobot (and torch) for this adapter.
EXTRA = "lerobot-policy"
#: LeRobot's feature names of the state and action (``rsb export-lerobot`` writes them too).
STATE_KEY = "observation.state"
ACTION_KEY = "action"
#: The robot type of the export's datasets, handed to the pre-processor.
ROBOT_TYPE = "aloha"


def video_key(camera: str) -> str:
    """LeRobot feature key of an rsb_mj camera, e.g. ``observation.images.cam_high``."""
    return f"observation.images.{ALOHA_CAMERA_NAMES[camera]}"


#: LeRobot image feature -> rsb_mj camera.
CAMERA_OF_KEY = {video_key(cam): cam for cam in ALOHA_CAMERA_NAMES}


@dataclass(frozen=True)
class Checkpoint:
    """What a checkpoint's ``config.json`` declares (read without lerobot).

    Attributes:
        path: the ``pretrained_model`` folder.
        policy_type: lerobot's policy name (``act``, ``smolvla``, ``diffusion``, ...).
        cameras: rsb_mj cameras of its image features, in the config's order.
        image_hw: (height, width) [px] of each image feature, by rsb_mj camera.
        convention: the state/action convention the policy was trained in.
        instruction_dim: length of its ``observation.environment_state`` (the instruction's
            vector, :mod:`rsb_mj.policies.instruction_features`); 0 when it has none.
    """

    path: Path
    policy_type: str
    cameras: tuple[str, ...]
    image_hw: dict[str, tuple[int, int]]
    convention: str
    instruction_dim: int = 0


@dataclass(frozen=True)
class Spec:
    """A parsed ``lerobot:`` spec.

    Attributes:
        path: the checkpoint path as given.
        device: torch device (``cpu``, ``cuda``, ``cuda:N``).
        convention: the convention named in the spec, or None (read from the dataset).
    """

    path: Path
    device: str = "cpu"
    convention: str | None = None


def parse_spec(spec: str) -> Spec:
    """The parts of ``lerobot:PATH[,device=DEVICE][,convention=NAME]``.

    Raises:
        EvalError: for a spec of another form, an empty path, an unknown option or value.
    """
    if not spec.startswith("lerobot:"):
        raise EvalError(f"policy {spec!r}: expected {FORM}")
    head, *options = spec[len("lerobot:") :].split(",")
    if not head:
        raise EvalError(f"policy {spec!r}: no checkpoint path ({FORM})")
    values: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or key not in OPTIONS or not value:
            raise EvalError(
                f"policy {spec!r}: unknown option {option!r} ({FORM}); valid keys: "
                + ", ".join(OPTIONS)
            )
        values[key] = value
    device = values.get("device", "cpu")
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        raise EvalError(f"policy {spec!r}: device {device!r}; valid choices: cpu, cuda, cuda:N")
    convention = values.get("convention")
    if convention is not None and convention not in CONVENTIONS:
        raise EvalError(
            f"policy {spec!r}: convention {convention!r}; valid choices: "
            + ", ".join(sorted(CONVENTIONS))
        )
    return Spec(Path(head).expanduser(), device, convention)


def training_convention(checkpoint: Path) -> str:
    """The convention of the dataset a checkpoint was trained on.

    ``train_config.json``'s ``dataset.root`` -> ``meta/info.json``'s ``rsb_convention``
    name; ``"rsb"`` for a dataset that names none (exported before datasets did); the
    export's own convention when the dataset cannot be read (e.g. a checkpoint copied to
    another machine).
    """
    try:
        info = _training_info(checkpoint)
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_CONVENTION
    named = info.get("rsb_convention") if isinstance(info, dict) else None
    return str(named["name"]) if isinstance(named, dict) and "name" in named else "rsb"


def _training_info(checkpoint: Path) -> Any:
    """``meta/info.json`` (parsed) of the dataset a checkpoint was trained on
    (``train_config.json``'s ``dataset.root``).

    Raises:
        OSError, ValueError, KeyError, TypeError: when either cannot be read.
    """
    train = json.loads((checkpoint / "train_config.json").read_text())
    return json.loads((Path(train["dataset"]["root"]) / "meta" / "info.json").read_text())


def _fixture_joints_trained(checkpoint: Path) -> list[str] | None:
    """The fixture joints a checkpoint's ``observation.environment_state`` was trained on
    (its dataset's ``rsb_environment_state``); None for the instruction vector or a
    dataset that cannot be read."""
    try:
        info = _training_info(checkpoint)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    held = info.get("rsb_environment_state") if isinstance(info, dict) else None
    if isinstance(held, dict) and held.get("holds") == "fixture_joints":
        return [str(n) for n in held.get("names", [])]
    return None


def read_checkpoint(spec: str) -> Checkpoint:
    """The checkpoint of ``spec``, from its ``config.json`` (no lerobot, no torch).

    Raises:
        EvalError: when PATH holds no LeRobot ``config.json``, or the checkpoint reads or
            writes features other than rsb_mj's (its cameras, a (14,) state and action).
    """
    path = parse_spec(spec).path
    if (path / "pretrained_model" / "config.json").is_file():
        path = path / "pretrained_model"
    config_file = path / "config.json"
    if not config_file.is_file():
        raise EvalError(
            f"policy {spec!r}: {path} holds no LeRobot checkpoint (no config.json); pass the "
            "pretrained_model folder lerobot-train wrote, e.g. "
            "outputs/train/RUN/checkpoints/last/pretrained_model"
        )
    try:
        config = json.loads(config_file.read_text())
        policy_type = str(config["type"])
        inputs = dict(config["input_features"])
        outputs = dict(config["output_features"])
    except (ValueError, KeyError, TypeError) as exc:
        raise EvalError(f"{config_file}: not a LeRobot policy config ({exc!r})") from None
    cameras: list[str] = []
    image_hw: dict[str, tuple[int, int]] = {}
    instruction_dim = 0
    for key, feature in inputs.items():
        kind, shape = _feature(config_file, "input_features", key, feature)
        if kind == "VISUAL":
            if key not in CAMERA_OF_KEY:
                raise EvalError(
                    f"{config_file}: image feature {key!r} is not an rsb_mj camera; valid "
                    f"choices: {', '.join(CAMERA_OF_KEY)}"
                )
            cam = CAMERA_OF_KEY[key]
            cameras.append(cam)
            image_hw[cam] = (shape[1], shape[2]) if len(shape) == 3 else (0, 0)
        elif key == STATE_KEY and shape != (ACTION_DIM,):
            raise EvalError(f"{config_file}: {STATE_KEY} has shape {list(shape)}; rsb_mj's is [14]")
        elif key == INSTRUCTION_KEY:
            if len(shape) != 1 or shape[0] < 1:
                raise EvalError(
                    f"{config_file}: {INSTRUCTION_KEY} has shape {list(shape)}; rsb_mj's is "
                    "[DIM] (rsb export-lerobot --instruction-features DIM)"
                )
            joints = _fixture_joints_trained(path)
            if joints is not None:
                raise EvalError(
                    f"{config_file}: its {INSTRUCTION_KEY} input was trained on fixture joint "
                    f"positions ({', '.join(joints)}), privileged "
                    "state rsb eval does not give a policy; train on an export made with rsb "
                    "export-lerobot --no-fixture-joints"
                )
            instruction_dim = shape[0]
        elif key != STATE_KEY:
            raise EvalError(
                f"{config_file}: input feature {key!r} is not one rsb_mj provides; valid "
                f"choices: {', '.join([*CAMERA_OF_KEY, STATE_KEY, INSTRUCTION_KEY])}"
            )
    action_shape = (
        _feature(config_file, "output_features", ACTION_KEY, outputs[ACTION_KEY])[1]
        if ACTION_KEY in outputs
        else ()
    )
    if action_shape != (ACTION_DIM,):
        raise EvalError(
            f"{config_file}: output {ACTION_KEY!r} has shape {list(action_shape)}; rsb_mj's "
            "action is [14] joint positions"
        )
    convention = parse_spec(spec).convention or training_convention(path)
    if convention not in CONVENTIONS:
        raise EvalError(
            f"{path}: trained on a dataset in convention {convention!r}, which rsb_mj does not "
            f"know; valid choices: {', '.join(sorted(CONVENTIONS))} (set ,convention=NAME)"
        )
    return Checkpoint(path, policy_type, tuple(cameras), image_hw, convention, instruction_dim)


def _feature(
    config_file: Path, block: str, key: str, feature: object
) -> tuple[str, tuple[int, ...]]:
    """The type and shape of one feature of a checkpoint's ``config.json``.

    Raises:
        EvalError: naming the file and the feature, when the feature is not an object with an
            optional string ``type`` and a ``shape`` that is a list of non-negative integers.
    """
    where = f"{config_file}: {block}.{key}"
    if not isinstance(feature, dict):
        raise EvalError(
            f'{where} is {json.dumps(feature)}; a feature is an object with "type" and '
            '"shape", e.g. {"type": "STATE", "shape": [14]}'
        )
    kind = feature.get("type", "")
    shape = feature.get("shape", [])
    if not isinstance(kind, str):
        raise EvalError(f'{where}: type is {json.dumps(kind)}; expected a string such as "STATE"')
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise EvalError(
            f"{where}: shape is {json.dumps(shape)}; expected a list of non-negative integers, "
            "e.g. [14]"
        )
    return kind, tuple(shape)


def check_spec(spec: str) -> None:
    """Validate a ``lerobot:`` spec before any episode: the spec, the checkpoint's config,
    and that lerobot can be imported (without importing it)."""
    read_checkpoint(spec)

    try:
        found = importlib.util.find_spec("lerobot")
    except (ImportError, ValueError):  # a broken install, or one blocked in sys.modules
        found = None
    if found is None:
        raise EvalError(_missing(spec, "No module named 'lerobot'"))


def _missing(spec: str, why: str) -> str:
    return (
        f"policy {spec!r}: lerobot is not installed in this Python ({why}); "
        f"pip install 'rsb_mj[{EXTRA}]' (or build a venv with tools/lerobot_venv.sh)"
    )


def episode_seed(instruction: str, candidates: tuple[str, ...]) -> int:
    """torch's seed for an episode: sha256 of its instruction and candidate names (63 bits)."""
    text = "\n".join([instruction, *candidates])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


class LeRobotPolicy(Policy):
    """A LeRobot ``PreTrainedPolicy`` with its saved processors (see the module docstring).

    Args:
        spec: ``lerobot:PATH[,device=DEVICE]``.

    Raises:
        EvalError: for a bad spec or checkpoint, lerobot missing (naming the extra), or a
            CUDA device torch does not see.
    """

    def __init__(self, spec: str) -> None:
        self.name = spec
        self.checkpoint = read_checkpoint(spec)
        self.cameras = self.checkpoint.cameras
        self.convention: Convention = get_convention(self.checkpoint.convention)
        device = parse_spec(spec).device
        if "triton" not in sys.modules:
            # Triton (torch.compile's GPU kernels) bundles an LLVM that crashes (SIGSEGV) a
            # process where Mesa's renderer, with its own LLVM, is loaded: rsb eval renders
            # before it builds policies. lerobot's inference does not compile.
            sys.modules["triton"] = None  # type: ignore[assignment]
        try:
            # heavy: torch and lerobot (their own venv)
            import torch
            from lerobot.configs.policies import PreTrainedConfig
            from lerobot.policies.factory import get_policy_class, make_pre_post_processors
            from lerobot.utils.control_utils import predict_action
        except ImportError as exc:
            raise EvalError(_missing(spec, str(exc))) from None
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise EvalError(f"policy {spec!r}: device {device!r} but torch sees no CUDA device")
        path = str(self.checkpoint.path)
        config = PreTrainedConfig.from_pretrained(path, local_files_only=True)
        config.device = device
        if getattr(config, "pretrained_backbone_weights", None) is not None:
            config.pretrained_backbone_weights = None  # replaced by model.safetensors
        if getattr(config, "compile_model", False):
            config.compile_model = False  # no Triton (above)
        self._policy = get_policy_class(config.type).from_pretrained(path, config=config)
        self._policy.to(device)
        self._policy.eval()
        self._pre, self._post = make_pre_post_processors(
            self._policy.config,
            path,
            preprocessor_overrides={"device_processor": {"device": device}},
        )
        self._torch = torch
        self._device = torch.device(device)
        self._predict = predict_action
        self._task = ""
        self._tasks: dict[int, str] = {}  # batched: each slot's instruction
        self._hooks: ModuleFeatures | None = None

    @property
    def feature_modules(self) -> tuple[str, ...]:
        """The hooked modules (``rsb eval --feature-modules``); setting them installs the
        hooks (:class:`~rsb_mj.policies.feature_hooks.ModuleFeatures`).

        Raises:
            EvalError: on setting, for a name that is not a module of the policy.
        """
        return () if self._hooks is None else self._hooks.names

    @feature_modules.setter
    def feature_modules(self, specs: tuple[str, ...]) -> None:
        if self._hooks is not None:
            self._hooks.remove()
            self._hooks = None
        if specs:
            self._hooks = ModuleFeatures(self._policy, specs)

    @property
    def offers_features(self) -> bool:
        """True once ``feature_modules`` are hooked."""
        return self._hooks is not None

    @property
    def features(self) -> dict[str, np.ndarray] | None:
        """The hooked modules' pooled outputs of the last ``act`` (None: it ran no
        inference, or nothing is hooked)."""
        return None if self._hooks is None else self._hooks.take()

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Clear the policy's action queue; the instruction becomes the task; seed torch."""
        self._task = str(info.get("instruction", getattr(env, "instruction", "")))
        self._policy.reset()
        candidates = tuple(getattr(env, "candidates", ()))
        self._torch.manual_seed(episode_seed(self._task, candidates))

    def frame(self, obs: dict[str, Any], task: str | None = None) -> dict[str, np.ndarray]:
        """The observation in lerobot's names, before ``prepare_observation_for_inference``:
        HWC uint8 images at the checkpoint's size, the float32 (14,) state in the
        training data's convention, and the instruction's vector of ``task`` (default: this
        episode's) when the checkpoint reads one."""

        frame: dict[str, np.ndarray] = {}
        images = obs.get("images", {})
        for cam in self.cameras:
            image = np.asarray(images[cam], dtype=np.uint8)
            height, width = self.checkpoint.image_hw[cam]
            if height and width and image.shape[:2] != (height, width):
                image = resize_with_pad(image, height, width)
            frame[video_key(cam)] = np.array(image)  # torch wants a writable array
        state = self.convention.state_to_server(np.asarray(obs["state"], dtype=np.float64))
        frame[STATE_KEY] = np.asarray(state, dtype=np.float32)
        if self.checkpoint.instruction_dim:
            text = self._task if task is None else task
            frame[INSTRUCTION_KEY] = encode_instruction(text, self.checkpoint.instruction_dim)
        return frame

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """One (14,) action: lerobot's ``predict_action`` on this step's observation, back
        from the training data's convention to rsb_mj's."""
        if self._hooks is not None:
            self._hooks.clear()
        action = self._predict(
            self.frame(obs),
            self._policy,
            self._device,
            self._pre,
            self._post,
            bool(getattr(self._policy.config, "use_amp", False)),
            task=self._task,
            robot_type=ROBOT_TYPE,
        )
        row = action.reshape(1, -1).detach().to("cpu").numpy().astype(np.float64)
        return self.convention.actions_from_server(row)[0]

    # ---- batched (see the module docstring) ----------------------------------------------

    @property
    def batched(self) -> bool:
        """An ACT checkpoint without temporal ensembling and without feature hooks: one
        batched forward per call."""
        if self._hooks is not None:
            return False
        config = self._policy.config
        return config.type == "act" and getattr(config, "temporal_ensemble_coeff", None) is None

    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """The slot's instruction becomes its task (the model keeps nothing per episode)."""
        self._tasks[slot] = str(info.get("instruction", getattr(env, "instruction", "")))

    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """One ``predict_action_chunk`` forward for every observation: each episode's first
        ``n_action_steps`` rows (H, 14), post-processed, in rsb_mj's convention."""
        # heavy: lerobot (its own venv)
        from lerobot.policies.utils import prepare_observation_for_inference

        torch = self._torch
        items = []
        with torch.inference_mode():
            for o, slot in zip(obs, slots, strict=True):
                item = prepare_observation_for_inference(
                    self.frame(o, self._tasks.get(slot, "")),
                    self._device,
                    self._tasks.get(slot, ""),
                    ROBOT_TYPE,
                )
                items.append(self._pre(item))
            batch = {
                key: torch.cat([item[key] for item in items])
                if isinstance(items[0][key], torch.Tensor)
                else [item[key] for item in items]
                for key in items[0]
            }
            steps = int(self._policy.config.n_action_steps)
            chunks = self._policy.predict_action_chunk(batch)[:, :steps]
            rows = self._post(chunks.reshape(-1, chunks.shape[-1]))
        actions = rows.detach().to("cpu").numpy().astype(np.float64).reshape(len(obs), steps, -1)
        return [self.convention.actions_from_server(a) for a in actions]


def make_lerobot_policy(spec: str) -> Policy:
    """The :class:`LeRobotPolicy` of ``lerobot:PATH[,device=...][,convention=...]``."""
    return LeRobotPolicy(spec)
