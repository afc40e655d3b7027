"""Export rsb_mj demonstrations (HDF5, :mod:`rsb_mj.datasets.demo_file`) as a LeRobot dataset.

Two layouts of LeRobot's ``LeRobotDataset`` (written with pyarrow and PyAV, no lerobot
dependency; the ``lerobot-export`` extra installs both):

``3.0`` (lerobot >= 0.4)::

    meta/info.json                                   codebase_version "v3.0", fps, features
    meta/stats.json                                  min/max/mean/std/count (+ quantiles)
    meta/tasks.parquet                               task string (index) -> task_index
    meta/episodes/chunk-000/file-000.parquet         one row per episode: length, tasks,
                                                     data and video file/offsets, rsb metadata
    data/chunk-000/file-000.parquet                  every frame of every episode
    videos/observation.images.<cam>/chunk-000/file-000.mp4   every episode, back to back

``2.1`` (the lerobot openpi pins, for openpi fine-tuning)::

    meta/info.json, meta/tasks.jsonl, meta/episodes.jsonl, meta/episodes_stats.jsonl
    data/chunk-000/episode_000000.parquet            one file per episode
    videos/chunk-000/observation.images.<cam>/episode_000000.mp4

Features (ALOHA names, as openpi's ALOHA configs read them): ``observation.state`` and
``action`` float32 (14,) ``[left 6 joints (rad), left gripper, right 6, right gripper]``
in ALOHA's convention as openpi's ``LeRobotAlohaDataConfig`` (default ``adapt_to_pi=True``)
reads it (grippers: the state as the normalized finger position, the action as the
normalized joint angle; :class:`~rsb_mj.policies.aloha_convention.AlohaConvention`, named
with its scales in ``meta/info.json``'s ``rsb_convention``), ``observation.images.cam_high``,
``cam_left_wrist``, ``cam_right_wrist`` (H.264 MP4, from the ``head``, ``left_wrist``,
``right_wrist`` cameras), and LeRobot's ``timestamp``, ``frame_index``, ``episode_index``,
``index``, ``task_index``. The task is the demonstration's training prompt (the
instruction, or with ``rsb demos --cot`` the instruction and its ``<think>`` rationale);
fps is the 20 Hz control rate. Each episode's row also keeps ``rsb_episode`` (the episode
as JSON, so a dataset can be replayed in the env), ``rsb_success``, ``rsb_grasped`` and
``rsb_rationale`` (the train episode's chain of thought, a separate field from the task).

Fixture joints (tier-B goal scenes: drawers, a microwave door, a stove knob): when a
demonstration records its scene's articulated fixture joints (``/observations/fixture_joints``,
:mod:`rsb_mj.datasets.demo_file`), every frame carries their positions before the action
as ``observation.environment_state``, float32 (K,), LeRobot's key for privileged
environment state (lerobot's ``OBS_ENV_STATE``, a policy's ``ENV`` input); its ``names``
are the joints (``wooden_cabinet_1/middle_level`` ...), in the order of the first file
that has them, each later file's joints appended as they first appear (the HDF5's order
when the files share one scene). Units: m for a drawer's slide joint, rad for a door's or
knob's hinge. A frame of an episode whose scene lacks a joint (a question or tier-A
episode in the same folder) reads 0 there; each episode's row names the joints its scene
has (``rsb_fixture_joints``, JSON list) and ``meta/info.json`` names what the key holds
(``rsb_environment_state``: ``{"holds": "fixture_joints", "names": [...]}``). A folder
with no fixture joints exports as it always has, byte for byte. ``fixture_joints=False``
(``--no-fixture-joints``) leaves them out; the key also holds the instruction vector of
``instruction_features``, so the two cannot be exported together.

The dataset is built in a hidden sibling folder (every file written through
:mod:`rsb_mj.atomic`) and renamed into place at the end, so the output folder is complete
or absent; the folders of killed exports are removed by the next one
(:mod:`rsb_mj.datasets.staging`).
"""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text, writable_folder
from rsb_mj.datasets.demo_file import read_demo, read_demo_attrs
from rsb_mj.datasets.staging import remove_stale, staging_dir
from rsb_mj.errors import RsbError
from rsb_mj.evaluation.video import encode_mp4
from rsb_mj.policies.aloha_convention import DEFAULT_CONVENTION, get_convention
from rsb_mj.policies.instruction_features import INSTRUCTION_KEY, encode
from rsb_mj.policies.lerobot import ROBOT_TYPE, video_key
from rsb_mj.rates import CONTROL_HZ
from rsb_mj.scene.aloha import ARM_JOINT_NAMES, SIDES
from rsb_mj.workspace import ALOHA_CAMERA_NAMES

VERSIONS = ("3.0", "2.1")
#: rsb_mj camera -> LeRobot/ALOHA camera name (:data:`rsb_mj.workspace.ALOHA_CAMERA_NAMES`).
CAMERA_NAMES = ALOHA_CAMERA_NAMES
#: The joint and gripper convention of ``observation.state`` and ``action``
#: (:mod:`rsb_mj.policies.aloha_convention`), named in ``meta/info.json``.
CONVENTION = get_convention(DEFAULT_CONVENTION)
#: Names of the 14 state/action dimensions (ALOHA order: each side's arm joints as the
#: robot model names them, :data:`rsb_mj.scene.aloha.ARM_JOINT_NAMES`, then its gripper).
MOTORS = [f"{side}_{joint}" for side in SIDES for joint in (*ARM_JOINT_NAMES, "gripper")]
CHUNKS_SIZE = 1000
QUANTILES = (0.01, 0.10, 0.50, 0.90, 0.99)
#: LeRobot's key for privileged environment state (lerobot's ``OBS_ENV_STATE``): the
#: fixture joints of a tier-B scene, or the instruction vector of ``instruction_features``.
ENV_STATE_KEY = INSTRUCTION_KEY
#: ``meta/info.json``'s name of what ``observation.environment_state`` holds.
ENV_STATE_INFO = "rsb_environment_state"


class ExportError(RsbError):
    """A LeRobot export failed: bad input folder, existing output, unknown version."""


@dataclass(frozen=True)
class ExportSummary:
    """What an export wrote."""

    out_dir: Path
    version: str
    episodes: int
    frames: int
    tasks: int
    cameras: tuple[str, ...]


def _pyarrow():
    try:
        # heavy: pyarrow (the lerobot-export extra)
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError(
            "LeRobot export needs pyarrow and PyAV: pip install 'rsb_mj[lerobot-export]'"
        ) from None
    return pa, pq


def _features(
    cameras: tuple[str, ...],
    height: int,
    width: int,
    version: str,
    instruction_dim: int = 0,
    joint_names: tuple[str, ...] = (),
) -> dict:
    vec = {"dtype": "float32", "shape": [14], "names": list(MOTORS)}
    feats: dict[str, Any] = {}
    for cam in cameras:
        feats[video_key(cam)] = {
            "dtype": "video",
            "shape": [height, width, 3],
            "names": ["height", "width", "channels"],
            "info": {
                "video.height": height,
                "video.width": width,
                "video.codec": "h264",
                "video.pix_fmt": "yuv420p",
                "video.is_depth_map": False,
                "video.fps": CONTROL_HZ,
                "video.channels": 3,
                "has_audio": False,
            },
        }
    feats["observation.state"] = dict(vec)
    feats["action"] = dict(vec)
    if instruction_dim:
        feats[INSTRUCTION_KEY] = {"dtype": "float32", "shape": [instruction_dim], "names": None}
    elif joint_names:
        feats[ENV_STATE_KEY] = {
            "dtype": "float32",
            "shape": [len(joint_names)],
            "names": list(joint_names),
        }
    for name, dtype in (
        ("timestamp", "float32"),
        ("frame_index", "int64"),
        ("episode_index", "int64"),
        ("index", "int64"),
        ("task_index", "int64"),
    ):
        feats[name] = {"dtype": dtype, "shape": [1], "names": None}
    if version == "3.0":
        for ft in feats.values():
            if ft["dtype"] != "video":
                ft["fps"] = CONTROL_HZ
    return feats


def _stats(values: np.ndarray, *, quantiles: bool = True) -> dict[str, np.ndarray]:
    """LeRobot stats of (N, D) values over axis 0."""
    v = np.asarray(values, np.float64)
    out = {
        "min": v.min(axis=0),
        "max": v.max(axis=0),
        "mean": v.mean(axis=0),
        "std": v.std(axis=0),
        "count": np.array([len(v)]),
    }
    if quantiles:
        for q, qv in zip(QUANTILES, np.quantile(v, QUANTILES, axis=0), strict=True):
            out[f"q{round(q * 100):02d}"] = qv
    return out


def _image_stats(frames: np.ndarray) -> dict[str, np.ndarray]:
    """Per-channel stats of (T, H, W, 3) uint8 frames scaled to [0, 1], shaped (3, 1, 1)."""
    px = frames.reshape(-1, 3).astype(np.float64) / 255.0
    stats = _stats(px, quantiles=False)
    return {k: (v if k == "count" else v.reshape(3, 1, 1)) for k, v in stats.items()} | {
        "count": np.array([len(frames)])
    }


def _aggregate(per_episode: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Dataset stats from episode stats (count-weighted mean and pooled variance, as
    lerobot's ``aggregate_stats``); quantiles are count-weighted means of the episodes'."""
    counts = np.array([s["count"][0] for s in per_episode], np.float64)
    w = counts / counts.sum()
    shape = per_episode[0]["mean"].shape
    wb = w.reshape((-1,) + (1,) * len(shape))
    means = np.stack([s["mean"] for s in per_episode])
    mean = (wb * means).sum(axis=0)
    var = (wb * (np.stack([s["std"] for s in per_episode]) ** 2 + (means - mean) ** 2)).sum(0)
    out = {
        "min": np.min(np.stack([s["min"] for s in per_episode]), axis=0),
        "max": np.max(np.stack([s["max"] for s in per_episode]), axis=0),
        "mean": mean,
        "std": np.sqrt(var),
        "count": np.array([int(counts.sum())]),
    }
    for key in per_episode[0]:
        if key.startswith("q"):
            out[key] = (wb * np.stack([s[key] for s in per_episode])).sum(axis=0)
    return out


def _jsonable(stats: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, Any]]:
    return {f: {k: np.asarray(v).tolist() for k, v in s.items()} for f, s in stats.items()}


def _parquet_bytes(table: Any) -> bytes:
    _, pq = _pyarrow()
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        atomic_write_text(path, data)
    else:
        atomic_write_bytes(path, data)


def _json(obj: Any) -> str:
    return json.dumps(obj, indent=4) + "\n"


def _frames_table(frames: dict[str, np.ndarray]) -> Any:
    """The parquet table of frame columns (vectors as fixed-size float32 lists)."""
    pa, _ = _pyarrow()
    cols = {}
    for key in ("observation.state", "action"):
        arr = np.ascontiguousarray(frames[key], np.float32)
        cols[key] = pa.FixedSizeListArray.from_arrays(pa.array(arr.reshape(-1)), 14)
    if ENV_STATE_KEY in frames:
        arr = np.ascontiguousarray(frames[ENV_STATE_KEY], np.float32)
        cols[ENV_STATE_KEY] = pa.FixedSizeListArray.from_arrays(
            pa.array(arr.reshape(-1)), arr.shape[1]
        )
    cols["timestamp"] = pa.array(frames["timestamp"].astype(np.float32))
    for key in ("frame_index", "episode_index", "index", "task_index"):
        cols[key] = pa.array(frames[key].astype(np.int64))
    return pa.table(cols)


@dataclass
class _Episode:
    states: np.ndarray
    actions: np.ndarray
    images: dict[str, np.ndarray]
    instruction: str
    attrs: dict[str, Any]
    #: The scene's articulated fixture joints (names, HDF5 order) and their (T, K)
    #: positions [m or rad] before each action; () and None where the file has none.
    joint_names: tuple[str, ...] = ()
    joints: np.ndarray | None = None


def _load(path: Path, cameras: tuple[str, ...]) -> _Episode:
    demo = read_demo(path, images=bool(cameras))
    missing = [c for c in cameras if c not in demo.images]
    if missing:
        raise ExportError(
            f"{path}: no frames of cameras {missing}; it has {sorted(demo.images)} "
            "(write demos with --cameras head,left_wrist,right_wrist)"
        )
    return _Episode(
        states=np.asarray(demo.states),
        actions=np.asarray(demo.actions),
        images={c: np.stack(demo.images[c]) for c in cameras},
        # the training prompt (instruction, + <think>rationale</think> with rsb demos --cot);
        # files written before prompts were stored carry only the instruction
        instruction=str(demo.attrs.get("prompt") or demo.attrs["instruction"]),
        attrs=demo.attrs,
        joint_names=_joint_names(demo.attrs),
        joints=demo.fixture_joints,
    )


def _joint_names(attrs: dict[str, Any]) -> tuple[str, ...]:
    """A demonstration's fixture joint names (its ``fixture_joints`` attribute; () if none)."""
    return tuple(json.loads(attrs["fixture_joints"])) if "fixture_joints" in attrs else ()


def _dataset_joints(paths: list[Path], successful_only: bool) -> tuple[str, ...]:
    """The fixture joints of the exported episodes: the first file's, then each later
    file's new ones as they first appear (() when no exported file has any)."""
    names: dict[str, None] = {}
    for path in paths:
        attrs = read_demo_attrs(path)
        if successful_only and not bool(attrs.get("success", False)):
            continue
        names.update(dict.fromkeys(_joint_names(attrs)))
    return tuple(names)


def _joint_frames(ep: _Episode, joint_names: tuple[str, ...], path: Path) -> np.ndarray:
    """The (T, len(joint_names)) positions of the dataset's joints in ``ep``: its own
    recorded columns by name, 0 for a joint its scene lacks."""
    length = len(ep.actions)
    out = np.zeros((length, len(joint_names)), np.float64)
    if not ep.joint_names:
        return out
    joints = np.asarray(ep.joints, np.float64) if ep.joints is not None else None
    if joints is None or joints.shape != (length, len(ep.joint_names)):
        raise ExportError(
            f"{path}: /observations/fixture_joints has shape "
            f"{None if joints is None else list(joints.shape)}; its {len(ep.joint_names)} "
            f"fixture_joints names and {length} actions need [{length}, {len(ep.joint_names)}]"
        )
    for k, name in enumerate(ep.joint_names):
        out[:, joint_names.index(name)] = joints[:, k]
    return out


def find_demos(demo_dir: Path) -> list[Path]:
    """The demonstration files of a folder written by ``rsb demos``, in row order.

    Raises:
        ExportError: if the folder is missing or holds no ``episode_*.hdf5``.
    """
    demo_dir = Path(demo_dir)
    if not demo_dir.is_dir():
        raise ExportError(f"{demo_dir}: no such folder of demonstrations")
    paths = sorted(demo_dir.glob("episode_*.hdf5"))
    if not paths:
        raise ExportError(f"{demo_dir}: no demonstrations (episode_*.hdf5) in it")
    return paths


def export_lerobot(
    demo_dir: Path,
    out_dir: Path,
    *,
    version: str = "3.0",
    cameras: tuple[str, ...] = tuple(CAMERA_NAMES),
    successful_only: bool = True,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    instruction_features: int = 0,
    fixture_joints: bool = True,
) -> ExportSummary:
    """Convert every demonstration in ``demo_dir`` into a LeRobot dataset at ``out_dir``.

    Args:
        demo_dir: folder of ``episode_*.hdf5`` files (``rsb demos``).
        out_dir: the dataset folder to create (must not exist or be empty).
        version: ``"3.0"`` or ``"2.1"``.
        cameras: rsb_mj cameras to export (subset of ``head``, ``left_wrist``,
            ``right_wrist``).
        successful_only: skip demonstrations whose expert failed.
        overwrite: replace an existing dataset at ``out_dir`` (only once the new one is
            complete).
        progress: called with (done, total) after each episode.
        instruction_features: when above 0, every frame also carries the instruction as
            ``observation.environment_state``, a vector of this length
            (:mod:`rsb_mj.policies.instruction_features`), for policies with no text encoder.
        fixture_joints: export the demonstrations' fixture joint positions [m or rad] as
            ``observation.environment_state`` (see the module docstring); False leaves
            them out. A folder without fixture joints exports the same either way.

    Raises:
        ExportError: for an unknown version or camera, an existing non-empty ``out_dir``,
            no (successful) demonstrations, inconsistent image sizes, a fixture joint
            array that does not match its names, or ``instruction_features`` on
            demonstrations with fixture joints (both would be
            ``observation.environment_state``) unless ``fixture_joints`` is False.
    """
    if version not in VERSIONS:
        raise ExportError(f"unknown LeRobot version {version!r}; valid choices: 3.0, 2.1")
    unknown = [c for c in cameras if c not in CAMERA_NAMES]
    if unknown:
        raise ExportError(f"unknown cameras {unknown}; valid choices: {', '.join(CAMERA_NAMES)}")
    if instruction_features < 0:
        raise ExportError(
            f"--instruction-features is {instruction_features}; valid: 0 (off) or a length >= 1"
        )
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ExportError(f"{out_dir}: exists and is a file, not a folder; name a new folder")
    if out_dir.exists() and any(out_dir.iterdir()) and not overwrite:
        raise ExportError(f"{out_dir}: exists and is not an empty folder; choose a new one")
    # the dataset is built beside out_dir and renamed into place: its parent must be writable
    writable_folder(out_dir.parent, f"the dataset {out_dir.name} (-o)")
    paths = find_demos(demo_dir)
    joint_names = _dataset_joints(paths, successful_only) if fixture_joints else ()
    if joint_names and instruction_features:
        raise ExportError(
            f"{demo_dir}: its demonstrations record fixture joints ({', '.join(joint_names)}), "
            f"exported as {ENV_STATE_KEY}, which --instruction-features would fill with the "
            "instruction; add --no-fixture-joints to export the instruction vector instead"
        )
    _pyarrow()
    remove_stale(out_dir)
    build = staging_dir(out_dir, ".tmp")
    try:
        summary = _build(
            paths,
            build,
            version,
            tuple(cameras),
            successful_only,
            progress,
            instruction_features,
            joint_names,
        )
        if out_dir.exists():
            old = staging_dir(out_dir, ".old")
            os.replace(out_dir, old / "ds")
            shutil.rmtree(old)
        os.replace(build, out_dir)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return ExportSummary(out_dir, version, *summary, tuple(cameras))


def _build(
    paths: list[Path],
    root: Path,
    version: str,
    cameras: tuple[str, ...],
    successful_only: bool,
    progress: Callable[[int, int], None] | None,
    instruction_dim: int = 0,
    joint_names: tuple[str, ...] = (),
) -> tuple[int, int, int]:
    pa, _ = _pyarrow()
    tasks: dict[str, int] = {}
    episodes: list[dict[str, Any]] = []
    ep_stats: list[dict[str, dict[str, np.ndarray]]] = []
    frame_tables = []
    videos: dict[str, list[np.ndarray]] = {c: [] for c in cameras}
    size: tuple[int, int] | None = None
    total = 0
    for n, path in enumerate(paths):
        ep = _load(path, cameras)
        if successful_only and not bool(ep.attrs.get("success", False)):
            if progress:
                progress(n + 1, len(paths))
            continue
        for cam in cameras:
            shape = ep.images[cam].shape[1:3]
            if size is None:
                size = (int(shape[0]), int(shape[1]))
            elif tuple(shape) != size:
                raise ExportError(
                    f"{path}: {cam} frames are {shape[1]}x{shape[0]} px; earlier episodes' "
                    f"are {size[1]}x{size[0]}"
                )
        index = len(episodes)
        length = len(ep.actions)
        task_index = tasks.setdefault(ep.instruction, len(tasks))
        frame_index = np.arange(length)
        frames = {
            "observation.state": CONVENTION.state_to_server(ep.states),
            "action": CONVENTION.actions_to_server(ep.actions),
            "timestamp": (frame_index / CONTROL_HZ).astype(np.float32),
            "frame_index": frame_index,
            "episode_index": np.full(length, index),
            "index": total + frame_index,
            "task_index": np.full(length, task_index),
        }
        if instruction_dim:
            # the instruction alone (a --cot task also holds the rationale): what eval sees
            vec = encode(str(ep.attrs.get("instruction", ep.instruction)), instruction_dim)
            frames[INSTRUCTION_KEY] = np.tile(vec, (length, 1))
        elif joint_names:
            frames[ENV_STATE_KEY] = _joint_frames(ep, joint_names, path)
        stats = {
            key: _stats(np.asarray(val, np.float32).reshape(length, -1).astype(np.float64))
            for key, val in frames.items()
        }
        for cam in cameras:
            stats[video_key(cam)] = _image_stats(ep.images[cam])
        ep_stats.append(stats)
        table = _frames_table(frames)
        meta: dict[str, Any] = {
            "episode_index": index,
            "tasks": [ep.instruction],
            "length": length,
            "rsb_episode": str(ep.attrs["episode"]),
            "rsb_success": bool(ep.attrs.get("success", False)),
            "rsb_grasped": bool(ep.attrs.get("grasped", False)),
            "rsb_rationale": str(ep.attrs.get("rationale", "")),
            "rsb_source": path.name,
        }
        if joint_names:
            meta["rsb_fixture_joints"] = json.dumps(list(ep.joint_names))
        if version == "2.1":
            _write(
                root / f"data/chunk-{index // CHUNKS_SIZE:03d}/episode_{index:06d}.parquet",
                _parquet_bytes(table),
            )
            for cam in cameras:
                rel = (
                    f"videos/chunk-{index // CHUNKS_SIZE:03d}/{video_key(cam)}/"
                    f"episode_{index:06d}.mp4"
                )
                _write(root / rel, encode_mp4(ep.images[cam], CONTROL_HZ))
        else:
            frame_tables.append(table)
            start = total / CONTROL_HZ
            meta |= {
                "data/chunk_index": 0,
                "data/file_index": 0,
                "dataset_from_index": total,
                "dataset_to_index": total + length,
            }
            for cam in cameras:
                videos[cam].append(ep.images[cam])
                meta |= {
                    f"videos/{video_key(cam)}/chunk_index": 0,
                    f"videos/{video_key(cam)}/file_index": 0,
                    f"videos/{video_key(cam)}/from_timestamp": start,
                    f"videos/{video_key(cam)}/to_timestamp": start + length / CONTROL_HZ,
                }
            meta |= {"meta/episodes/chunk_index": 0, "meta/episodes/file_index": 0}
        episodes.append(meta)
        total += length
        if progress:
            progress(n + 1, len(paths))
    if not episodes:
        raise ExportError(f"{paths[0].parent}: no successful demonstrations to export")
    height, width = size if size is not None else (0, 0)
    features = _features(cameras, height, width, version, instruction_dim, joint_names)
    stats = {key: _aggregate([s[key] for s in ep_stats]) for key in ep_stats[0]}
    info: dict[str, Any] = {
        "codebase_version": f"v{version}",
        "robot_type": ROBOT_TYPE,
        "total_episodes": len(episodes),
        "total_frames": total,
        "total_tasks": len(tasks),
        "rsb_convention": CONVENTION.metadata(),
    }
    if joint_names:
        info[ENV_STATE_INFO] = {"holds": "fixture_joints", "names": list(joint_names)}
    if version == "2.1":
        info |= {
            "total_videos": len(episodes) * len(cameras),
            "total_chunks": (len(episodes) - 1) // CHUNKS_SIZE + 1,
            "chunks_size": CHUNKS_SIZE,
            "fps": CONTROL_HZ,
            "splits": {"train": f"0:{len(episodes)}"},
            "data_path": "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet",
            "video_path": (
                "videos/chunk-{episode_chunk:03d}/{video_key}/episode_{episode_index:06d}.mp4"
                if cameras
                else None
            ),
            "features": features,
        }
        lines = lambda rows: "".join(json.dumps(r) + "\n" for r in rows)  # noqa: E731
        _write(
            root / "meta/tasks.jsonl", lines({"task_index": i, "task": t} for t, i in tasks.items())
        )
        _write(root / "meta/episodes.jsonl", lines(episodes))
        _write(
            root / "meta/episodes_stats.jsonl",
            lines({"episode_index": i, "stats": _jsonable(s)} for i, s in enumerate(ep_stats)),
        )
    else:
        info |= {
            "chunks_size": CHUNKS_SIZE,
            "data_files_size_in_mb": 100,
            "video_files_size_in_mb": 200,
            "fps": CONTROL_HZ,
            "splits": {"train": f"0:{len(episodes)}"},
            "data_path": "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet",
            "video_path": (
                "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
                if cameras
                else None
            ),
            "features": features,
        }
        _write(
            root / "data/chunk-000/file-000.parquet", _parquet_bytes(pa.concat_tables(frame_tables))
        )
        for cam in cameras:
            _write(
                root / f"videos/{video_key(cam)}/chunk-000/file-000.mp4",
                encode_mp4((f for ep in videos[cam] for f in ep), CONTROL_HZ),
            )
        task_table = pa.table(
            {
                "task_index": pa.array(list(tasks.values()), pa.int64()),
                "__index_level_0__": pa.array(list(tasks), pa.string()),
            }
        ).replace_schema_metadata({b"pandas": json.dumps(_PANDAS_TASKS_META).encode()})
        _write(root / "meta/tasks.parquet", _parquet_bytes(task_table))
        for meta, s in zip(episodes, ep_stats, strict=True):
            for feat, fs in s.items():
                for k, v in fs.items():
                    meta[f"stats/{feat}/{k}"] = np.asarray(v, np.float64).reshape(-1).tolist()
        _write(
            root / "meta/episodes/chunk-000/file-000.parquet",
            _parquet_bytes(pa.Table.from_pylist(episodes)),
        )
    _write(root / "meta/info.json", _json(info))
    _write(root / "meta/stats.json", _json(_jsonable(stats)))
    return len(episodes), total, len(tasks)


# pandas metadata of ``tasks.parquet``: lerobot writes a DataFrame indexed by the task
# string (``pd.DataFrame({"task_index": ...}, index=tasks).to_parquet``) and reads it back
# with ``pd.read_parquet``; this metadata restores that index.
_PANDAS_TASKS_META = {
    "index_columns": ["__index_level_0__"],
    "column_indexes": [
        {
            "name": None,
            "field_name": None,
            "pandas_type": "unicode",
            "numpy_type": "object",
            "metadata": {"encoding": "UTF-8"},
        }
    ],
    "columns": [
        {
            "name": "task_index",
            "field_name": "task_index",
            "pandas_type": "int64",
            "numpy_type": "int64",
            "metadata": None,
        },
        {
            "name": None,
            "field_name": "__index_level_0__",
            "pandas_type": "unicode",
            "numpy_type": "object",
            "metadata": None,
        },
    ],
    "creator": {"library": "pyarrow", "version": "rsb_mj"},
    "pandas_version": "2.0.0",
}
