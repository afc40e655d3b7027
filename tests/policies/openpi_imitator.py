"""A perfect imitator of an exported dataset, behind openpi's own transforms and server.

Runs in the openpi test venv (``tools/openpi_venv.sh``; not rsb_mj's interpreter, and it
imports nothing of rsb_mj), with openpi's source files from ``tests/third_party/openpi``::

    python openpi_imitator.py DATASET PORT [--model pi0|pi05] [--check]

Training side, as openpi fine-tunes on a LeRobot dataset:

1. the data config: openpi's ``LeRobotAlohaDataConfig`` (default ``adapt_to_pi=True``, delta
   joint actions) with docs/ecosystem.md's repack (the three ``cam_*`` images, state, action and the
   prompt) and ``prompt_from_task=True``, created for pi0's or pi0.5's model numbers (action
   dim 32, horizon 50; pi0.5: quantile normalization and the state in the prompt);
2. the frames as openpi's data loader reads them (``LeRobotDataset(repo, delta_timestamps=
   {"action": [t / fps for t in range(50)]})``, ``PromptFromLeRobotTask``): read here with
   pyarrow and PyAV the way lerobot returns them (state (14,), action chunk (50, 14) clamped
   at the episode's end, images CHW float 0..1 decoded from the MP4s, the task);
3. norm stats as openpi's ``scripts/compute_norm_stats.py`` computes them (repack and data
   transforms, ``RunningStats`` over ``state`` and ``actions``), saved and loaded through the
   data config's assets;
4. every frame through ``repack -> AlohaInputs -> DeltaActions -> Normalize -> model
   transforms`` (``ResizeImages``, ``TokenizePrompt`` with a tokenizer trained here on the
   tasks, since PaliGemma's cannot be downloaded; ``PadStatesAndActions``): the model-space
   inputs and targets a fine-tuned model learns.

Inference side, as openpi's ``create_trained_policy`` and ``Policy.infer`` compose it: the
observation through ``InjectDefaultPrompt -> AlohaInputs -> Normalize -> model transforms``;
the "model" is the imitator: it returns the targets of the training frame whose model-space
input is nearest (state first; frames whose states tie, e.g. every episode's first frame,
are told apart by their tokenized prompt and then their head image); then ``Unnormalize ->
AbsoluteActions -> AlohaOutputs`` turn them back into ALOHA actions, and openpi's
``WebsocketPolicyServer`` serves them on 127.0.0.1:PORT (``GET /healthz`` answers once the
frames are ready). Every query is appended to ``DATASET/../imitator_queries.jsonl``
(the matched episode and frame, and the state distance), for the test's messages.

``--check`` prints, instead of serving, the largest difference between the recorded actions
and the imitator's answer to each training frame's own observation (the transforms' round
trip without the environment), as JSON.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import io
import json
import logging
import os
import pathlib
import sys
import tempfile
import types
from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeAlias

OPENPI = pathlib.Path(__file__).resolve().parents[1] / "third_party" / "openpi"
sys.path[:0] = [str(OPENPI / "src"), str(OPENPI / "shims")]

import av  # noqa: E402
import etils.epath as epath  # noqa: E402
import jax  # noqa: E402
import numpy as np  # noqa: E402
import openpi.transforms as _transforms  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import sentencepiece  # noqa: E402
import tyro  # noqa: E402
from openpi.models import tokenizer as _tokenizer  # noqa: E402
from openpi.policies import aloha_policy  # noqa: E402
from openpi.serving import websocket_policy_server  # noqa: E402
from openpi.shared import download as _download  # noqa: E402
from openpi.shared import normalize as _normalize  # noqa: E402
from openpi.training import droid_rlds_dataset  # noqa: E402
from openpi_client import base_policy  # noqa: E402
from typing_extensions import override  # noqa: E402

#: The repack of docs/ecosystem.md's recipe: the export's keys -> the keys openpi's ALOHA
#: policy reads.
REPACK = {
    "images": {
        "cam_high": "observation.images.cam_high",
        "cam_left_wrist": "observation.images.cam_left_wrist",
        "cam_right_wrist": "observation.images.cam_right_wrist",
    },
    "state": "observation.state",
    "actions": "action",
    "prompt": "prompt",
}
#: States closer than this (model space, max norm) tie; the prompt and the image decide.
TIE = 1e-5


def _exec_classes(path: pathlib.Path, names: Sequence[str], namespace: dict) -> dict:
    """Run the top-level statements of openpi's file that define ``names`` (classes and
    annotated aliases), verbatim, in a module named ``namespace["__name__"]`` that holds
    ``namespace``; return the module's namespace."""
    tree = ast.parse(path.read_text(), str(path))
    keep = [
        node
        for node in tree.body
        if (isinstance(node, ast.ClassDef) and node.name in names)
        or (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id in names
        )
    ]
    found = {n.name if isinstance(n, ast.ClassDef) else n.target.id for n in keep}
    missing = set(names) - found
    if missing:
        raise SystemExit(f"{path}: no {sorted(missing)} (openpi changed?)")
    module = types.ModuleType(namespace["__name__"])
    module.__dict__.update(namespace)
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(ast.Module(body=keep, type_ignores=[]), str(path), "exec"), module.__dict__)
    return module.__dict__


def openpi_config() -> types.SimpleNamespace:
    """openpi's ``ModelType`` and ALOHA data-config classes, executed from its source."""
    model = _exec_classes(
        OPENPI / "src/openpi/models/model.py",
        ["ModelType"],
        {"__name__": "openpi.models.model", "enum": enum},
    )

    @dataclasses.dataclass(frozen=True)
    class ModelConfig:
        """The numbers openpi's data config reads from ``pi0_config.Pi0Config``."""

        model_type: Any
        action_dim: int = 32
        action_horizon: int = 50
        max_token_len: int = 48
        discrete_state_input: bool = False

    _model = types.SimpleNamespace(ModelType=model["ModelType"], BaseModelConfig=ModelConfig)
    namespace = {
        "__name__": "openpi.training.config",
        "abc": __import__("abc"),
        "dataclasses": dataclasses,
        "logging": logging,
        "pathlib": pathlib,
        "Sequence": Sequence,
        "Any": Any,
        "Literal": Literal,
        "Protocol": Protocol,
        "TypeAlias": TypeAlias,
        "override": override,
        "tyro": tyro,
        "epath": epath,
        "_model": _model,
        "pi0_config": types.SimpleNamespace(Pi0Config=ModelConfig),
        "_tokenizer": _tokenizer,
        "aloha_policy": aloha_policy,
        "_download": _download,
        "_normalize": _normalize,
        "_transforms": _transforms,
        "droid_rlds_dataset": droid_rlds_dataset,
    }
    names = ["ModelType", "AssetsConfig", "DataConfig", "GroupFactory", "ModelTransformFactory"]
    names += ["DataConfigFactory", "LeRobotAlohaDataConfig"]
    config = _exec_classes(OPENPI / "src/openpi/training/config.py", names, namespace)
    return types.SimpleNamespace(ModelConfig=ModelConfig, **{n: config[n] for n in names})


def model_config(cfg: types.SimpleNamespace, name: str) -> Any:
    """pi0's or pi0.5's model numbers (``Pi0Config()`` / ``Pi0Config(pi05=True)``)."""
    if name == "pi05":
        return cfg.ModelConfig(cfg.ModelType.PI05, max_token_len=200, discrete_state_input=True)
    return cfg.ModelConfig(cfg.ModelType.PI0)


# ---- the dataset as openpi's data loader reads it (lerobot's LeRobotDataset, v2.1) -------


def _decode(path: pathlib.Path) -> np.ndarray:
    """Every frame of an MP4 as (T, 3, H, W) float32 in 0..1 (lerobot's video frames)."""
    with av.open(str(path)) as container:
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]
    return np.stack(frames).transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def lerobot_items(root: pathlib.Path, horizon: int) -> tuple[list[dict], dict[int, str]]:
    """The items ``LeRobotDataset(root, delta_timestamps={"action": [t / fps for t in
    range(horizon)]})`` returns, in index order, and ``meta.tasks``."""
    info = json.loads((root / "meta/info.json").read_text())
    assert info["codebase_version"] == "v2.1", info["codebase_version"]
    tasks = {
        int(row["task_index"]): row["task"]
        for row in map(json.loads, (root / "meta/tasks.jsonl").read_text().splitlines())
    }
    cameras = [k for k, f in info["features"].items() if f["dtype"] == "video"]
    items = []
    for ep in map(json.loads, (root / "meta/episodes.jsonl").read_text().splitlines()):
        index, chunk = ep["episode_index"], ep["episode_index"] // info["chunks_size"]
        table = pq.read_table(
            root / info["data_path"].format(episode_chunk=chunk, episode_index=index)
        )
        states = np.array(table["observation.state"].to_pylist(), np.float32)
        actions = np.array(table["action"].to_pylist(), np.float32)
        videos = {
            key: _decode(
                root
                / info["video_path"].format(episode_chunk=chunk, video_key=key, episode_index=index)
            )
            for key in cameras
        }
        length = len(states)
        for t in range(length):
            rows = np.minimum(np.arange(t, t + horizon), length - 1)  # clamped, as lerobot pads
            item = {
                "observation.state": states[t],
                "action": actions[rows],
                "action_is_pad": np.arange(t, t + horizon) >= length,
                "timestamp": np.float32(table["timestamp"][t].as_py()),
                "frame_index": np.int64(t),
                "episode_index": np.int64(index),
                "index": np.int64(table["index"][t].as_py()),
                "task_index": np.int64(table["task_index"][t].as_py()),
            }
            for key in cameras:
                item[key] = videos[key][min(t, len(videos[key]) - 1)]
            items.append(item)
    return items, tasks


# ---- the tokenizer PaligemmaTokenizer loads (its own cannot be downloaded here) ----------


def install_tokenizer(tasks: Sequence[str]) -> None:
    """Train a small SentencePiece model on the tasks and put it where openpi's
    ``download.maybe_download("gs://big_vision/paligemma_tokenizer.model")`` finds it."""
    cache = pathlib.Path(tempfile.mkdtemp(prefix="openpi-cache-"))
    os.environ["OPENPI_DATA_HOME"] = str(cache)
    model = io.BytesIO()
    lines = [t.strip().replace("_", " ").replace("\n", " ") for t in tasks] * 20
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=400,
        hard_vocab_limit=False,
        model_type="bpe",
        bos_id=1,
        eos_id=2,
        pad_id=0,
        unk_id=3,
        minloglevel=2,
    )
    path = cache / "big_vision" / "paligemma_tokenizer.model"
    path.parent.mkdir(parents=True)
    path.write_bytes(model.getvalue())


# ---- the imitator ------------------------------------------------------------------------


@dataclasses.dataclass
class Frames:
    """Model-space inputs and targets of every training frame."""

    states: np.ndarray  # (N, 32) normalized, padded
    tokens: list[bytes]  # tokenized prompt per frame
    images: np.ndarray  # (N, 56, 56, 3) float32: the base image, 4x smaller
    targets: np.ndarray  # (N, 50, 32) normalized, padded
    where: list[tuple[int, int]]  # (episode, frame)


def _small(image: np.ndarray) -> np.ndarray:
    return np.asarray(image, np.float32).reshape(56, 4, 56, 4, 3).mean(axis=(1, 3))


class ImitatorPolicy(base_policy.BasePolicy):
    """openpi's ``Policy.infer`` with the model replaced by a lookup of the training frames."""

    def __init__(
        self, data_config: Any, norm_stats: dict, frames: Frames, log: pathlib.Path | None
    ):
        self._input_transform = _transforms.compose(
            [
                _transforms.InjectDefaultPrompt(None),
                *data_config.data_transforms.inputs,
                _transforms.Normalize(norm_stats, use_quantiles=data_config.use_quantile_norm),
                *data_config.model_transforms.inputs,
            ]
        )
        self._output_transform = _transforms.compose(
            [
                *data_config.model_transforms.outputs,
                _transforms.Unnormalize(norm_stats, use_quantiles=data_config.use_quantile_norm),
                *data_config.data_transforms.outputs,
            ]
        )
        self.frames, self.log = frames, log

    def match(self, inputs: dict) -> tuple[int, float]:
        """The training frame nearest to the model-space ``inputs`` and its state distance."""
        d = np.abs(self.frames.states - np.asarray(inputs["state"])[None]).max(axis=1)
        tied = np.flatnonzero(d <= d.min() + TIE)
        if len(tied) > 1:
            tokens = np.asarray(inputs["tokenized_prompt"]).tobytes()
            same = [i for i in tied if self.frames.tokens[i] == tokens]
            tied = np.asarray(same or tied)
            image = _small(inputs["image"]["base_0_rgb"])
            tied = tied[
                [int(np.argmin(np.abs(self.frames.images[tied] - image).mean(axis=(1, 2, 3))))]
            ]
        return int(tied[0]), float(d[tied[0]])

    @override
    def infer(self, obs: dict) -> dict:  # type: ignore[misc]
        inputs = jax.tree.map(lambda x: x, obs)
        inputs = self._input_transform(inputs)
        i, dist = self.match(inputs)
        outputs = {"state": inputs["state"], "actions": self.frames.targets[i].copy()}
        outputs = self._output_transform(outputs)
        if self.log is not None:
            with self.log.open("a") as f:
                f.write(
                    json.dumps(
                        {
                            "episode": self.frames.where[i][0],
                            "frame": self.frames.where[i][1],
                            "state_distance": dist,
                        }
                    )
                    + "\n"
                )
        return outputs


def build(
    dataset: pathlib.Path, model: str, log: pathlib.Path | None
) -> tuple[ImitatorPolicy, list[dict], dict[int, str]]:
    """The imitator of ``dataset`` for ``model`` ("pi0" or "pi05"), the raw items (as
    lerobot returns them) and the tasks."""
    cfg = openpi_config()
    mcfg = model_config(cfg, model)
    items, tasks = lerobot_items(dataset, mcfg.action_horizon)
    install_tokenizer(list(tasks.values()))
    assets = pathlib.Path(tempfile.mkdtemp(prefix="openpi-assets-"))
    factory = cfg.LeRobotAlohaDataConfig(
        repo_id=str(dataset),
        assets=cfg.AssetsConfig(asset_id="rsb_export"),
        repack_transforms=_transforms.Group(inputs=[_transforms.RepackTransform(REPACK)]),
        base_config=cfg.DataConfig(prompt_from_task=True),
    )
    prompt = _transforms.PromptFromLeRobotTask(tasks)
    # scripts/compute_norm_stats.py: repack + data transforms, RunningStats of state and actions
    data_config = factory.create(assets, mcfg)
    assert data_config.norm_stats is None  # none saved yet
    stats = {key: _normalize.RunningStats() for key in ("state", "actions")}
    pre = _transforms.compose(
        [prompt, *data_config.repack_transforms.inputs, *data_config.data_transforms.inputs]
    )
    for item in items:
        sample = pre(jax.tree.map(lambda x: x.copy() if isinstance(x, np.ndarray) else x, item))
        for key in stats:
            stats[key].update(np.asarray(sample[key])[None])
    _normalize.save(assets / "rsb_export", {k: s.get_statistics() for k, s in stats.items()})
    data_config = factory.create(assets, mcfg)  # now with the saved norm stats
    assert data_config.norm_stats is not None
    # data_loader.transform_dataset: repack, data transforms, Normalize, model transforms
    train = _transforms.compose(
        [
            prompt,
            *data_config.repack_transforms.inputs,
            *data_config.data_transforms.inputs,
            _transforms.Normalize(
                data_config.norm_stats, use_quantiles=data_config.use_quantile_norm
            ),
            *data_config.model_transforms.inputs,
        ]
    )
    states, tokens, images, targets, where = [], [], [], [], []
    for item in items:
        sample = train(jax.tree.map(lambda x: x.copy() if isinstance(x, np.ndarray) else x, item))
        states.append(np.asarray(sample["state"]))
        tokens.append(np.asarray(sample["tokenized_prompt"]).tobytes())
        images.append(_small(sample["image"]["base_0_rgb"]))
        targets.append(np.asarray(sample["actions"]))
        where.append((int(item["episode_index"]), int(item["frame_index"])))
    frames = Frames(np.stack(states), tokens, np.stack(images), np.stack(targets), where)
    policy = ImitatorPolicy(data_config, data_config.norm_stats, frames, log)
    return policy, items, tasks


def check(policy: ImitatorPolicy, items: list[dict], tasks: dict[int, str]) -> dict:
    """Each training frame's own observation (as a client would send it) -> the served
    actions; their largest difference from the recorded action chunk."""
    worst = {"joints": 0.0, "grippers": 0.0, "mismatched": 0}
    for n, item in enumerate(items):
        obs = {
            "state": item["observation.state"],
            "images": {
                k.split(".")[-1]: (item[k] * 255).round().astype(np.uint8)
                for k in item
                if k.startswith("observation.images.")
            },
            "prompt": tasks[int(item["task_index"])],
        }
        inputs = policy._input_transform(jax.tree.map(lambda x: x, obs))
        i, _ = policy.match(inputs)
        worst["mismatched"] += int(i != n)
        out = policy.infer(obs)["actions"]
        err = np.abs(out - item["action"])
        worst["joints"] = max(worst["joints"], float(np.delete(err, [6, 13], axis=1).max()))
        worst["grippers"] = max(worst["grippers"], float(err[:, [6, 13]].max()))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("port", type=int)
    parser.add_argument("--model", choices=("pi0", "pi05"), default="pi0")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # openpi warns that rsb's prompts pass 48 tokens
    log = args.dataset.parent / "imitator_queries.jsonl"
    policy, items, tasks = build(args.dataset, args.model, None if args.check else log)
    if args.check:
        print(json.dumps(check(policy, items, tasks)))
        return
    server = websocket_policy_server.WebsocketPolicyServer(policy, host="127.0.0.1", port=args.port)
    server.serve_forever()


if __name__ == "__main__":
    main()
