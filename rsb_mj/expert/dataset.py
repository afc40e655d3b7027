"""The demonstration file format: one HDF5 file per episode.

Layout (``FORMAT = "rsb_mj-demo-v1"``)::

    /observations/state          float64 (T, 14)  measured joints before each action
    /observations/images/<cam>   vlen uint8 (T,)  JPEG bytes of each RGB frame
    /action                      float64 (T, 14)  joint targets [left 6, left gripper,
                                                  right 6, right gripper]
    attrs: format, instruction, suite, split, index, seed, task, task_sha256, question_id,
           question, options (JSON list), mapping (JSON), correct, target, episode (JSON row
           of rsb_mj.episode.Episode), cameras (JSON list), image_height, image_width,
           fps, num_frames, success, grasped, failure, mujoco_version, rsb_mj_version,
           rationale (the train episode's chain of thought, "" when none), prompt (the
           training prompt: the instruction, or with ``rsb demos --cot`` the instruction
           followed by ``<think>rationale</think>``)

Files are built in memory, written to a hidden temporary name, read back and checked
(:func:`verify_demo`), then renamed into place (:mod:`rsb_mj.atomic`), so a file with the
final name is complete; a resumed ``rsb demos`` re-verifies the files it counts as done.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import h5py
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.episode import Episode
from rsb_mj.errors import ExpertError

FORMAT = "rsb_mj-demo-v1"
#: JPEG quality of stored frames (0-100).
JPEG_QUALITY = 90


def episode_filename(index: int) -> str:
    """File name of the episode with row ``index``."""
    return f"episode_{index:06d}.hdf5"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes (the task-file hash stored with each demo)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def encode_jpeg(frame: np.ndarray) -> np.ndarray:
    """JPEG bytes (uint8 array) of an RGB uint8 (H, W, 3) frame."""
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]
    )
    if not ok:  # pragma: no cover - OpenCV fails only on malformed input
        raise ExpertError("JPEG encoding of a camera frame failed")
    return buf.reshape(-1)


def decode_jpeg(data: np.ndarray) -> np.ndarray:
    """RGB uint8 (H, W, 3) frame from JPEG bytes."""
    return cv2.cvtColor(
        cv2.imdecode(np.asarray(data, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB
    )


def write_demo(
    path: Path,
    *,
    episode: Episode,
    instruction: str,
    states: np.ndarray,
    actions: np.ndarray,
    images: dict[str, list[np.ndarray]],
    attrs: dict[str, Any],
) -> None:
    """Write one demonstration atomically: built in memory, written to a temporary file,
    checked with :func:`verify_demo`, renamed into place.

    Args:
        path: final file path.
        episode: the episode demonstrated.
        instruction: the instruction the policy received.
        states: (T, 14) states.
        actions: (T, 14) actions.
        images: camera -> T RGB frames (may be empty).
        attrs: further attributes (success, versions, task hash, ...).
    """
    vlen = h5py.vlen_dtype(np.dtype("uint8"))
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        obs = f.create_group("observations")
        obs.create_dataset("state", data=np.asarray(states, np.float64))
        f.create_dataset("action", data=np.asarray(actions, np.float64))
        grp = obs.create_group("images")
        height = width = 0
        for cam, frames in images.items():
            ds = grp.create_dataset(cam, shape=(len(frames),), dtype=vlen)
            for t, frame in enumerate(frames):
                ds[t] = encode_jpeg(frame)
            if frames:
                height, width = frames[0].shape[:2]
        row = episode.to_dict()
        f.attrs.update(
            {
                "format": FORMAT,
                "instruction": instruction,
                "suite": episode.suite,
                "split": episode.split,
                "index": episode.index,
                "seed": episode.seed,
                "task": episode.task,
                "question_id": episode.question_id,
                "question": episode.question,
                "options": json.dumps(list(episode.options)),
                "mapping": json.dumps(episode.mapping),
                "correct": episode.correct,
                "target": episode.target,
                "episode": json.dumps(row),
                "cameras": json.dumps(list(images)),
                "image_height": height,
                "image_width": width,
                "fps": 20,
                "num_frames": len(actions),
                **attrs,
            }
        )
    atomic_write_bytes(path, buf.getvalue(), verify=verify_demo)


def verify_demo(path: Path) -> None:
    """Check that ``path`` is a complete demonstration: it opens, has the format tag, and
    its states, actions and every camera's frames all have ``num_frames`` rows.

    Raises:
        ExpertError: naming the path and what is wrong (truncated, foreign, inconsistent).
    """
    try:
        with h5py.File(path, "r") as f:
            if f.attrs.get("format") != FORMAT:
                raise ExpertError(f"{path}: not an rsb_mj demonstration (format {FORMAT} expected)")
            n = int(f.attrs["num_frames"])
            shapes = {
                "observations/state": f["observations/state"].shape,
                "action": f["action"].shape,
            }
            for cam, ds in f["observations/images"].items():
                shapes[f"observations/images/{cam}"] = ds.shape
            # reading the data (not only the metadata) finds truncated files
            _ = f["action"][()], f["observations/state"][()]
            _ = [ds[-1] for ds in f["observations/images"].values() if len(ds)]
    except ExpertError:
        raise
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise ExpertError(f"{path}: unreadable demonstration ({exc})") from None
    for name, shape in shapes.items():
        if shape[0] != n or (name in ("observations/state", "action") and shape[1:] != (14,)):
            raise ExpertError(
                f"{path}: {name} has shape {shape}; expected {n} rows (num_frames)"
                + (" of 14" if name in ("observations/state", "action") else "")
            )


@dataclass
class Demo:
    """One demonstration read back (see the module docstring for the fields)."""

    states: np.ndarray
    actions: np.ndarray
    images: dict[str, list[np.ndarray]]
    attrs: dict[str, Any]

    @property
    def episode(self) -> Episode:
        """The demonstrated episode."""
        return Episode.from_dict(json.loads(self.attrs["episode"]))


def read_demo(path: Path, *, images: bool = True) -> Demo:
    """Read a demonstration file (decoding the JPEG frames when ``images``).

    Raises:
        ExpertError: if the file is not an rsb_mj demonstration.
    """
    with h5py.File(path, "r") as f:
        attrs = dict(f.attrs)
        if attrs.get("format") != FORMAT:
            raise ExpertError(f"{path}: not an rsb_mj demonstration (format {FORMAT} expected)")
        frames: dict[str, list[np.ndarray]] = {}
        if images:
            for cam, ds in f["observations/images"].items():
                frames[cam] = [decode_jpeg(x) for x in ds[()]]
        return Demo(
            states=f["observations/state"][()],
            actions=f["action"][()],
            images=frames,
            attrs=attrs,
        )
