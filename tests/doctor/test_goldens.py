"""rsb_mj.doctor.goldens: the shipped golden set, and reading and writing one."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from rsb_mj.doctor.frames import HEIGHT, REFERENCE_FRAMES, WIDTH, Rendered
from rsb_mj.doctor.goldens import MANIFEST, default_folder, read_goldens, write_goldens
from rsb_mj.errors import RsbError
from rsb_mj.scene.fingerprint import RendererFingerprint
from rsb_mj.workspace import CAMERAS

FP = RendererFingerprint("egl", "Mesa/X.org", "llvmpipe", "4.5 Mesa 22.3.6", "ab" * 32)


def _rendered(frame, seed):
    rng = np.random.default_rng(seed)
    images = {c: rng.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8) for c in CAMERAS}
    return Rendered(frame, images, f"{seed:064x}")


def test_the_shipped_set_holds_every_reference_frame_and_stays_small():
    goldens = read_goldens(default_folder())
    assert list(goldens.frames) == [f.name for f in REFERENCE_FRAMES]
    assert [g.label for g in goldens.frames.values()] == [f.label for f in REFERENCE_FRAMES]
    assert (goldens.width, goldens.height, goldens.quality) == (WIDTH, HEIGHT, "fast")
    assert goldens.cameras == CAMERAS
    assert goldens.renderer.backend == "egl" and goldens.renderer.error == ""
    assert goldens.versions["mujoco"] == "3.8.1"
    files = sorted(p.name for p in default_folder().iterdir())
    assert files == sorted([MANIFEST, *(f"{f.name}.png" for f in REFERENCE_FRAMES)])
    assert sum(p.stat().st_size for p in default_folder().iterdir()) < 300_000
    for frame in REFERENCE_FRAMES:
        images = goldens.images(frame.name)
        assert list(images) == list(CAMERAS)
        assert all(i.shape == (HEIGHT, WIDTH, 3) and i.std() > 10 for i in images.values())


def test_written_goldens_read_back_pixel_for_pixel(tmp_path):
    rendered = [_rendered(f, i) for i, f in enumerate(REFERENCE_FRAMES)]
    written = write_goldens(tmp_path, rendered, FP, {"mujoco": "3.8.1"})
    assert [p.name for p in written] == [f"{f.name}.png" for f in REFERENCE_FRAMES] + [MANIFEST]
    goldens = read_goldens(tmp_path)
    assert goldens.renderer == FP and goldens.versions == {"mujoco": "3.8.1"}
    for item in rendered:
        assert goldens.frames[item.frame.name].scene_sha256 == item.scene_sha256
        back = goldens.images(item.frame.name)
        for camera in CAMERAS:
            np.testing.assert_array_equal(back[camera], item.images[camera])
    # A frame set without the last frame: its image goes with it.
    write_goldens(tmp_path, rendered[:-1], FP, {})
    assert not (tmp_path / f"{REFERENCE_FRAMES[-1].name}.png").exists()
    with pytest.raises(RsbError, match=rf"no golden for frame '{REFERENCE_FRAMES[-1].name}'"):
        read_goldens(tmp_path).images(REFERENCE_FRAMES[-1].name)


def test_a_missing_or_damaged_set_says_how_to_regenerate(tmp_path):
    with pytest.raises(
        RsbError,
        match=rf"^{re.escape(str(tmp_path))}/{MANIFEST}: no golden set here; regenerate them: "
        r"python tools/make_doctor_goldens.py$",
    ):
        read_goldens(tmp_path)
    (tmp_path / MANIFEST).write_text('{"format": 1,\n  "width": }')
    with pytest.raises(RsbError, match=rf"{MANIFEST}:2:12: not valid JSON \(Expecting value\)"):
        read_goldens(tmp_path)
    (tmp_path / MANIFEST).write_text('{"format": 0}')
    with pytest.raises(RsbError, match=r"not a format-1 golden manifest"):
        read_goldens(tmp_path)
    shutil.copytree(default_folder(), tmp_path / "copy")
    manifest = json.loads((tmp_path / "copy" / MANIFEST).read_text())
    manifest["width"] = "160"
    (tmp_path / "copy" / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(RsbError, match=r"field 'width' must be int; regenerate them"):
        read_goldens(tmp_path / "copy")
    manifest["width"] = WIDTH
    (tmp_path / "copy" / MANIFEST).write_text(json.dumps(manifest))
    (tmp_path / "copy" / "a2a_color.png").write_bytes(b"not a png")
    with pytest.raises(RsbError, match=r"a2a_color.png: golden image unreadable, expected 480x120"):
        read_goldens(tmp_path / "copy").images("a2a_color")
