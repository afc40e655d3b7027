"""The golden reference images shipped in ``assets/doctor/`` and how they are written.

A golden set is a folder with one PNG per :data:`~rsb_mj.doctor.frames.REFERENCE_FRAMES`
entry (its three cameras side by side, in :data:`~rsb_mj.workspace.CAMERAS` order) and
``goldens.json``: the image size and preset, the renderer fingerprint and library versions
that drew them, and per frame its label and :func:`~rsb_mj.doctor.frames.scene_sha256`.
``tools/make_doctor_goldens.py`` writes it (:func:`write_goldens`).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text
from rsb_mj.doctor.frames import HEIGHT, QUALITY, WIDTH, Rendered
from rsb_mj.errors import RsbError
from rsb_mj.lock import make_folder
from rsb_mj.resources import assets_dir
from rsb_mj.scene.fingerprint import RendererFingerprint
from rsb_mj.workspace import CAMERAS

__all__ = [
    "FORMAT",
    "MANIFEST",
    "REGENERATE",
    "GoldenFrame",
    "GoldenSet",
    "default_folder",
    "read_goldens",
    "write_goldens",
]

#: File name of the manifest inside a golden folder.
MANIFEST = "goldens.json"
#: Manifest format version.
FORMAT = 1
#: How to regenerate a golden set (named in every error about one).
REGENERATE = "python tools/make_doctor_goldens.py"


def default_folder() -> Path:
    """``assets/doctor``: the golden set shipped with rsb_mj."""
    return assets_dir() / "doctor"


@dataclass(frozen=True)
class GoldenFrame:
    """One golden frame: its label, image file and the scene hash it was drawn from."""

    label: str
    file: str
    scene_sha256: str


@dataclass(frozen=True)
class GoldenSet:
    """A golden folder's manifest (images are read on demand by :meth:`images`)."""

    folder: Path
    width: int
    height: int
    quality: str
    cameras: tuple[str, ...]
    renderer: RendererFingerprint
    versions: dict[str, str]
    frames: dict[str, GoldenFrame]

    def images(self, name: str) -> dict[str, np.ndarray]:
        """Camera -> uint8 RGB (height, width, 3) golden image of frame ``name``.

        Raises:
            RsbError: for a frame the set lacks, or an image that is missing, unreadable
                or not ``len(cameras) * width`` x ``height``.
        """
        if name not in self.frames:
            raise RsbError(
                f"{self.folder / MANIFEST}: no golden for frame {name!r} (it has "
                f"{', '.join(self.frames) or 'none'}); regenerate them: {REGENERATE}"
            )
        path = self.folder / self.frames[name].file
        strip = cv2.imread(str(path), cv2.IMREAD_COLOR)
        want = (self.height, self.width * len(self.cameras), 3)
        if strip is None or strip.shape != want:
            got = "unreadable" if strip is None else f"{strip.shape[1]}x{strip.shape[0]}"
            raise RsbError(
                f"{path}: golden image {got}, expected {want[1]}x{want[0]} PNG; "
                f"regenerate them: {REGENERATE}"
            )
        rgb = np.ascontiguousarray(strip[:, :, ::-1])
        return {
            cam: rgb[:, i * self.width : (i + 1) * self.width] for i, cam in enumerate(self.cameras)
        }


def _field(row: dict[str, Any], name: str, kind: type, where: Path) -> Any:
    value = row.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise RsbError(
            f"{where}: field {name!r} must be {kind.__name__}; regenerate them: {REGENERATE}"
        )
    return value


def read_goldens(folder: Path) -> GoldenSet:
    """The golden set in ``folder``.

    Raises:
        RsbError: naming the file (and line:col for bad JSON) and how to regenerate.
    """
    path = Path(folder) / MANIFEST
    try:
        row = json.loads(path.read_text())
    except FileNotFoundError:
        raise RsbError(f"{path}: no golden set here; regenerate them: {REGENERATE}") from None
    except json.JSONDecodeError as exc:
        raise RsbError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RsbError(f"{path}: cannot read ({exc})") from None
    if not isinstance(row, dict) or row.get("format") != FORMAT:
        raise RsbError(f"{path}: not a format-{FORMAT} golden manifest; regenerate: {REGENERATE}")
    frames = {}
    for name, entry in _field(row, "frames", dict, path).items():
        if not isinstance(entry, dict):
            raise RsbError(f"{path}: frame {name!r} must be an object")
        frames[name] = GoldenFrame(
            _field(entry, "label", str, path),
            _field(entry, "file", str, path),
            _field(entry, "scene_sha256", str, path),
        )
    cameras = _field(row, "cameras", list, path)
    return GoldenSet(
        folder=Path(folder),
        width=_field(row, "width", int, path),
        height=_field(row, "height", int, path),
        quality=_field(row, "quality", str, path),
        cameras=tuple(str(c) for c in cameras),
        renderer=RendererFingerprint.from_dict(row.get("renderer"), where=str(path)),
        versions={str(k): str(v) for k, v in _field(row, "versions", dict, path).items()},
        frames=frames,
    )


def write_goldens(
    folder: Path,
    rendered: list[Rendered],
    renderer: RendererFingerprint,
    versions: dict[str, str],
) -> list[Path]:
    """Write ``rendered`` as the golden set of ``folder`` (PNGs, then the manifest, each
    atomically); remove images an earlier manifest listed that are no longer frames.

    Returns:
        The files written, manifest last.
    """
    folder = make_folder(Path(folder))
    old: set[str] = set()
    if (folder / MANIFEST).is_file():
        with contextlib.suppress(RsbError):  # a damaged manifest is simply replaced
            old = {f.file for f in read_goldens(folder).frames.values()}
    written, frames = [], {}
    for item in rendered:
        strip = np.concatenate([item.images[cam] for cam in CAMERAS], axis=1)
        ok, png = cv2.imencode(".png", strip[:, :, ::-1], [cv2.IMWRITE_PNG_COMPRESSION, 9])
        if not ok:  # pragma: no cover - OpenCV always encodes uint8 RGB as PNG
            raise RsbError(f"cannot encode the golden image of {item.frame.name}")
        file = f"{item.frame.name}.png"
        atomic_write_bytes(folder / file, png.tobytes())
        written.append(folder / file)
        frames[item.frame.name] = {
            "label": item.frame.label,
            "file": file,
            "scene_sha256": item.scene_sha256,
        }
    manifest = {
        "format": FORMAT,
        "width": WIDTH,
        "height": HEIGHT,
        "quality": QUALITY,
        "cameras": list(CAMERAS),
        "renderer": renderer.to_dict(),
        "versions": versions,
        "frames": frames,
    }
    atomic_write_text(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    for stale in sorted(old - {entry["file"] for entry in frames.values()}):
        (folder / stale).unlink(missing_ok=True)
    written.append(folder / MANIFEST)
    return written
