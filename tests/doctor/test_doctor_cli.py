"""``rsb doctor`` and tools/make_doctor_goldens.py on this machine's real renderer."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.doctor.frames import REFERENCE_FRAMES, WIDTH
from rsb_mj.doctor.goldens import MANIFEST, default_folder, read_goldens
from rsb_mj.scene.fingerprint import renderer_fingerprint
from rsb_mj.scene.gl import library_present
from rsb_mj.workspace import CAMERAS

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = read_goldens(default_folder())
HERE = renderer_fingerprint()
#: The shipped goldens can only pass on the Mesa stack that drew them.
ON_GOLDEN_STACK = (HERE.vendor, HERE.renderer, HERE.version) == (
    SHIPPED.renderer.vendor,
    SHIPPED.renderer.renderer,
    SHIPPED.renderer.version,
)
needs_golden_stack = pytest.mark.skipif(
    not ON_GOLDEN_STACK,
    reason=f"the goldens were drawn by {SHIPPED.renderer.describe()}; this machine renders "
    f"with {HERE.describe()} (rsb doctor then says 'differs', as it should)",
)


def _tool():
    spec = importlib.util.spec_from_file_location(
        "make_doctor_goldens", ROOT / "tools" / "make_doctor_goldens.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _doctor(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["doctor", *args])
    return code, capsys.readouterr().out.splitlines()


def _row(lines: list[str], label: str) -> list[str]:
    """The cells after ``label`` in the frame table (columns are two or more spaces apart)."""
    (line,) = [line for line in lines if line.startswith(f"  {label}  ")]
    return re.split(r"\s{2,}", line.strip())[1:]


@needs_golden_stack
def test_this_machine_passes_against_the_shipped_goldens(capsys, tmp_path):
    code, lines = _doctor(capsys, "--out", str(tmp_path))
    assert code == 0
    assert lines[:3] == ["rsb doctor", "", "Environment"]
    names = [line.split()[0] for line in lines[3:8]]
    assert names == ["python", "rsb_mj", "mujoco", "numpy", "opencv"]
    assert f"  GL backend   {HERE.backend} (MUJOCO_GL={os.environ['MUJOCO_GL']})" in lines
    assert f"  GL renderer  {HERE.renderer}" in lines
    assert f"  fingerprint  {HERE.id} (reference render {HERE.reference_sha256[:12]})" in lines
    assert any(line.startswith("  cores        ") and "usable of" in line for line in lines)
    assert "Renderer: the goldens' own" in lines
    for frame in REFERENCE_FRAMES:
        assert _row(lines, frame.label) == ["0 / inf"] * 3 + ["pass"]
    assert "verdict: pass" in lines
    assert len(list(tmp_path.glob("*.png"))) == 3 * len(REFERENCE_FRAMES)
    diff = cv2.imread(str(tmp_path / "a2a_color_diff.png"))
    assert diff.shape == (120, 3 * WIDTH, 3) and not diff.any()


@needs_golden_stack
def test_the_tool_regenerates_the_shipped_goldens(tmp_path, capsys):
    tool = _tool()
    assert tool.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"renderer: {HERE.describe()} (fingerprint {HERE.id})\n")
    made = read_goldens(tmp_path)
    assert made.frames == SHIPPED.frames  # same scenes, same scene hashes
    assert made.renderer == HERE
    for frame in REFERENCE_FRAMES:
        for camera in CAMERAS:
            np.testing.assert_array_equal(
                made.images(frame.name)[camera], SHIPPED.images(frame.name)[camera]
            )
    # Goldens of another renderer are not overwritten without --renderer-change.
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    manifest["renderer"] = {**manifest["renderer"], "renderer": "softpipe"}
    del manifest["renderer"]["id"]
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert tool.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "holds goldens drawn by egl, Mesa/X.org softpipe" in err
    assert err.rstrip().endswith("(every machine is then compared with this renderer).")


def test_the_tool_has_help():
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_doctor_goldens.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "usage: make_doctor_goldens.py [-h] [--out DIR] [--renderer-change]" in result.stdout


def test_edited_goldens_differ_fail_and_name_a_changed_scene(capsys, tmp_path):
    """Goldens edited three ways: +3 levels on a 10x10 patch of A2A's head image (differs),
    a black RSB-Math-4 left wrist (fails), the V4 frame's scene hash (scene changed)."""
    folder = tmp_path / "goldens"
    shutil.copytree(default_folder(), folder)
    for name, edit in (("a2a_color", "patch"), ("rsb_math_4", "black")):
        path = folder / f"{name}.png"
        strip = cv2.imread(str(path))
        if edit == "patch":
            strip[50:60, 70:80] = np.clip(strip[50:60, 70:80].astype(int) + 3, 0, 255)
        else:
            strip[:, WIDTH : 2 * WIDTH] = 0
        cv2.imwrite(str(path), strip)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["frames"]["rsb_general_4_v4"]["scene_sha256"] = "0" * 64
    (folder / MANIFEST).write_text(json.dumps(manifest))

    code, lines = _doctor(capsys, "--goldens", str(folder))
    assert code == 1
    math_row = _row(lines, "RSB-Math-4 row 0")
    a2a_row = _row(lines, "A2A-Color row 0")
    v4_row = _row(lines, "RSB-General-4 row 0 V4")
    assert math_row[0] == "0 / inf" and math_row[1].endswith(" dB") and math_row[3] == "fails"
    if ON_GOLDEN_STACK:
        psnr = 10 * np.log10(255**2 / (300 * 9 / (120 * 160 * 3)))  # 300 values off by 3
        assert a2a_row == [f"3 / {psnr:.1f} dB", "0 / inf", "0 / inf", "differs"]
        assert v4_row == ["0 / inf"] * 3 + ["pass (other scene, see note)"]
    text = " ".join(lines)
    assert "verdict: fails" in lines
    assert "RSB-Math-4 row 0: left_wrist under 25 dB" in text
    assert "note: RSB-General-4 row 0 V4 is drawn from a scene that is not quite the one" in text
    assert "regenerate" not in text and "commit" not in text


def test_a_missing_golden_set_is_a_usage_error(capsys, tmp_path):
    assert main(["doctor", "--goldens", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"rsb doctor: error: {tmp_path}/{MANIFEST}: no golden set here; regenerate them: "
        "python tools/make_doctor_goldens.py\n"
    )


@needs_golden_stack
@pytest.mark.skipif(
    not library_present("osmesa"),
    reason="libOSMesa is not installed (apt-get install libosmesa6; .ci/run installs it)",
)
def test_under_osmesa_the_doctor_names_the_other_backend():
    env = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}
    result = subprocess.run(
        [sys.executable, "-m", "rsb_mj", "doctor"],
        env={**env, "MUJOCO_GL": "osmesa"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = result.stdout.splitlines()
    assert "  GL backend   osmesa (MUJOCO_GL=osmesa)" in lines
    assert "Renderer: not the goldens'; backend: osmesa here, egl in the goldens" in lines
    # Mesa's llvmpipe draws behind both backends here: the same pixels (measured 0 / inf).
    for frame in REFERENCE_FRAMES:
        assert _row(lines, frame.label) == ["0 / inf"] * 3 + ["pass"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "note: the renderer is not the goldens' (backend: osmesa here, egl in" in result.stdout
