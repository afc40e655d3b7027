"""The demonstration file format: one HDF5 file per episode.

Layout (``FORMAT = "rsb_mj-demo-v1"``)::

    /observations/state          float64 (T, 14)  measured joints before each action
    /observations/images/<cam>   vlen uint8 (T,)  JPEG bytes of each RGB frame
    /action                      float64 (T, 14)  joint targets [left 6, left gripper,
                                                  right 6, right gripper]
    /observations/fixture_joints float64 (T, K)   a goal scene's articulated fixture joints
                                                  before each action (a drawer's slide [m],
                                                  a door's or knob's hinge [rad]); only
                                                  where the scene has any (tier B), named
                                                  in order by the ``fixture_joints`` attr
    attrs: format, instruction, suite, split, index, seed, task, task_sha256, question_id,
           question, options (JSON list), mapping (JSON), correct, target, episode (JSON row
           of rsb_mj.episodes.episode.Episode, or of a goal episode: see below), cameras
           (JSON list), image_height, image_width,
           fps, num_frames, success, grasped, failure, mujoco_version, rsb_mj_version,
           rationale (the train episode's chain of thought, "" when none), prompt (the
           training prompt: the instruction, or with ``rsb demos --cot`` the instruction
           followed by ``<think>rationale</think>``)

A goal task's demonstration (:mod:`rsb_mj.datasets.demos`: an episode without a binding)
has no question: its ``kind`` attribute is ``"goal"``, the question attributes are absent,
``instruction`` is the task's ``:language`` (perturbed at a language level above 0),
``episode`` is the goal episode as JSON (task, seed, layout, object source, levels; see that
module), and it is named :func:`goal_demo_filename` instead of by row.

Files are built in memory, written to a hidden temporary name, read back and checked
(:func:`verify_demo`), then renamed into place (:mod:`rsb_mj.atomic`), so a file with the
final name is complete; a resumed ``rsb demos`` re-verifies the files it counts as done.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import h5py
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import ExpertError

FORMAT = "rsb_mj-demo-v1"
#: JPEG quality of stored frames (0-100).
JPEG_QUALITY = 90


def episode_filename(index: int) -> str:
    """File name of the episode with row ``index``."""
    return f"episode_{index:06d}.hdf5"


def goal_demo_filename(task: str | Path, seed: int) -> str:
    """``episode_<stem>-<sha8>_s<seed>.hdf5``: the file of a goal task's episode ``seed``
    (``task``: its task file; ``sha8``: the first 8 hex digits of the file's sha256, so two
    files of one name in different folders, or an edited file, get their own
    demonstrations, and goal and question demonstrations can share a folder)."""
    return f"episode_{Path(task).stem}-{file_sha256(Path(task))[:8]}_s{int(seed):06d}.hdf5"


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


@dataclass(frozen=True)
class EncodedFrames:
    """Every camera's frames of one demonstration as JPEG bytes.

    Attributes:
        jpegs: camera -> the JPEG bytes (uint8 arrays, :func:`encode_jpeg`) of its T frames,
            in the order of the cameras recorded.
        height, width: the frames' size [px] (0 x 0 without frames).
    """

    jpegs: dict[str, list[np.ndarray]]
    height: int = 0
    width: int = 0


def encode_frames(images: Mapping[str, Sequence[np.ndarray]]) -> EncodedFrames:
    """JPEG bytes of RGB uint8 (H, W, 3) frames, by camera."""
    height = width = 0
    for frames in images.values():
        if len(frames):
            height, width = frames[0].shape[:2]
    return EncodedFrames(
        {cam: [encode_jpeg(f) for f in frames] for cam, frames in images.items()}, height, width
    )


class FrameEncoder:
    """JPEG-encodes camera frames in one background thread as a recorder receives them.

    OpenCV releases the GIL while it encodes, so encoding overlaps stepping and rendering;
    a recorder keeps a few KiB of JPEG per frame instead of the raw frames (230 KiB each at
    320x240). Frames are encoded in arrival order; the result is what
    :func:`encode_frames` makes of the same frames. Close it (or use it as a context
    manager) to stop the thread.
    """

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="rsb-jpeg")
        self._jobs: dict[str, list[Future[np.ndarray]]] = {}
        self.height = self.width = 0

    def add(self, camera: str, frame: np.ndarray) -> None:
        """Queue ``frame`` (RGB uint8 (H, W, 3); not modified afterwards) of ``camera``."""
        if not self.height:
            self.height, self.width = frame.shape[:2]
        self._jobs.setdefault(camera, []).append(self._pool.submit(encode_jpeg, frame))

    def result(self) -> EncodedFrames:
        """Every frame queued so far, encoded (waits for the thread).

        Raises:
            ExpertError: a frame could not be encoded.
        """
        jpegs = {cam: [job.result() for job in jobs] for cam, jobs in self._jobs.items()}
        return EncodedFrames(jpegs, self.height, self.width)

    def close(self) -> None:
        """Drop what is still queued and stop the thread."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> FrameEncoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_demo(
    path: Path,
    *,
    episode: Episode | None,
    instruction: str,
    states: np.ndarray,
    actions: np.ndarray,
    images: Mapping[str, Sequence[np.ndarray]] | EncodedFrames,
    attrs: dict[str, Any],
    fixture_joints: tuple[Sequence[str], np.ndarray] | None = None,
) -> None:
    """Write one demonstration atomically: built in memory, written to a temporary file,
    checked with :func:`verify_demo`, renamed into place.

    Args:
        path: final file path.
        episode: the episode demonstrated; None for a goal task's (``attrs`` then carry
            ``kind``, ``suite``, ``seed``, ``task`` and ``episode``).
        instruction: the instruction the policy received.
        states: (T, 14) states.
        actions: (T, 14) actions.
        images: camera -> T RGB frames (may be empty), or the frames already encoded
            (:class:`EncodedFrames`, e.g. from a :class:`FrameEncoder`): the same file.
        attrs: further attributes (success, versions, task hash, ...).
        fixture_joints: the scene's articulated fixture joints (names, and their (T, K)
            positions before each action), written as ``/observations/fixture_joints`` and
            the ``fixture_joints`` attribute (JSON list of the names); None or no joint:
            neither is written (a file without them keeps its bytes).
    """
    frames = images if isinstance(images, EncodedFrames) else encode_frames(images)
    vlen = h5py.vlen_dtype(np.dtype("uint8"))
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        obs = f.create_group("observations")
        obs.create_dataset("state", data=np.asarray(states, np.float64))
        f.create_dataset("action", data=np.asarray(actions, np.float64))
        grp = obs.create_group("images")
        for cam, jpegs in frames.jpegs.items():
            ds = grp.create_dataset(cam, shape=(len(jpegs),), dtype=vlen)
            if jpegs:
                _write_column(ds, jpegs)
        joints = fixture_joints is not None and len(fixture_joints[0]) > 0
        if joints:
            obs.create_dataset("fixture_joints", data=np.asarray(fixture_joints[1], np.float64))
        f.attrs.update(
            {
                "format": FORMAT,
                "instruction": instruction,
                **(_question_attrs(episode) if episode is not None else {}),
                "cameras": json.dumps(list(frames.jpegs)),
                "image_height": frames.height,
                "image_width": frames.width,
                "fps": 20,
                "num_frames": len(actions),
                **attrs,
                **({"fixture_joints": json.dumps(list(fixture_joints[0]))} if joints else {}),
            }
        )
    atomic_write_bytes(path, buf.getvalue(), verify=verify_demo)


def _question_attrs(episode: Episode) -> dict[str, Any]:
    """The attributes of a question episode (in the order the format has always written)."""
    return {
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
        "episode": json.dumps(episode.to_dict()),
    }


def _write_column(ds: h5py.Dataset, rows: Sequence[np.ndarray]) -> None:
    """Write every row of the 1-D variable-length uint8 dataset ``ds`` in one HDF5 call.

    The file's bytes are those of writing row by row (``ds[t] = row``), about 5x faster.
    The low-level write is needed because ``ds[...] = column`` stacks rows of equal length
    into a 2-D array and fails.
    """
    column = np.empty(len(rows), dtype=ds.dtype)
    for t, row in enumerate(rows):
        column[t] = row
    ds.id.write(h5py.h5s.create_simple((len(rows),)), ds.id.get_space(), column)


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
            if "fixture_joints" in f["observations"]:
                shapes["observations/fixture_joints"] = f["observations/fixture_joints"].shape
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
    #: A goal scene's articulated fixture joints before each action, (T, K) [m or rad],
    #: named by ``json.loads(attrs["fixture_joints"])``; None where the file has none.
    fixture_joints: np.ndarray | None = None

    @property
    def is_goal(self) -> bool:
        """A goal task's demonstration (no question)."""
        return self.attrs.get("kind") == "goal"

    @property
    def episode(self) -> Episode:
        """The demonstrated question episode.

        Raises:
            ExpertError: for a goal task's demonstration (read ``attrs["episode"]``).
        """
        if self.is_goal:
            raise ExpertError(
                "a goal task's demonstration has no question episode; its goal episode is "
                "json.loads(demo.attrs['episode'])"
            )
        return Episode.from_dict(json.loads(self.attrs["episode"]), goal=False)


def read_demo_attrs(path: Path) -> dict[str, Any]:
    """A demonstration file's attributes alone (no arrays read).

    Raises:
        ExpertError: if the file is not an rsb_mj demonstration.
    """
    with h5py.File(path, "r") as f:
        return _demo_attrs(path, f)


def _demo_attrs(path: Path, f: h5py.File) -> dict[str, Any]:
    """The attributes of the open file ``f`` at ``path``, checked to be a demonstration's."""
    attrs = dict(f.attrs)
    if attrs.get("format") != FORMAT:
        raise ExpertError(f"{path}: not an rsb_mj demonstration (format {FORMAT} expected)")
    return attrs


def read_demo(path: Path, *, images: bool = True) -> Demo:
    """Read a demonstration file (decoding the JPEG frames when ``images``).

    Raises:
        ExpertError: if the file is not an rsb_mj demonstration.
    """
    with h5py.File(path, "r") as f:
        attrs = _demo_attrs(path, f)
        frames: dict[str, list[np.ndarray]] = {}
        if images:
            for cam, ds in f["observations/images"].items():
                frames[cam] = [decode_jpeg(x) for x in ds[()]]
        joints = f["observations"].get("fixture_joints")
        return Demo(
            states=f["observations/state"][()],
            actions=f["action"][()],
            images=frames,
            attrs=attrs,
            fixture_joints=None if joints is None else joints[()],
        )
