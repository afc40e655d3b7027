"""rsb_mj.doctor.check: verdicts and what to do, from the frame comparisons."""

from __future__ import annotations

import dataclasses
import math

from rsb_mj.doctor.check import DoctorResult, FrameResult, renderer_differences
from rsb_mj.doctor.compare import CameraDiff
from rsb_mj.doctor.frames import REFERENCE_FRAMES
from rsb_mj.doctor.goldens import default_folder, read_goldens
from rsb_mj.workspace import CAMERAS

GOLDENS = read_goldens(default_folder())
SAME = GOLDENS.renderer
OSMESA = dataclasses.replace(SAME, backend="osmesa")
SOFTPIPE = dataclasses.replace(SAME, renderer="softpipe", reference_sha256="cd" * 32)
MATH, A2A, V4 = REFERENCE_FRAMES


def _frame(frame, max_abs=0, psnr=math.inf, **kwargs):
    cams = tuple(CameraDiff(c, max_abs, psnr, False) for c in CAMERAS)
    return FrameResult(frame, cams, **kwargs)


def _result(renderer, *frames):
    rest = [_frame(f) for f in REFERENCE_FRAMES[len(frames) :]]
    return DoctorResult(renderer, GOLDENS, (*frames, *rest))


def test_identical_frames_on_the_goldens_renderer_pass():
    result = _result(SAME)
    assert result.verdict == "pass"
    assert result.advice() == [
        "pass: this machine draws the reference frames as the goldens show them; its scores "
        "are comparable with runs on the goldens' renderer."
    ]


def test_identical_frames_through_another_backend_pass_and_say_so():
    result = _result(OSMESA)
    assert result.verdict == "pass"
    note = result.advice()[1]
    assert note.startswith(
        "note: the renderer is not the goldens' (backend: osmesa here, egl in the goldens), "
        f"yet the pixels match. Runs made here carry renderer fingerprint {OSMESA.id} and "
        f"`rsb report` keeps them apart from runs of fingerprint {SAME.id} unless "
        "--allow-mixed-renderers"
    )


def test_another_rasterizer_differs_and_names_the_renderer():
    result = _result(SOFTPIPE, _frame(A2A, 83, 52.2))
    assert [f.verdict for f in result.frames] == ["differs", "pass", "pass"]
    first, second = result.advice()
    assert first.startswith(
        "differs: this machine draws the benchmark's frames differently from the goldens; "
        "what changed is the renderer (renderer: softpipe here, llvmpipe (LLVM 15.0.6, 256 "
        "bits) in the goldens; reference render: cdcdcdcdcdcd here, "
    )
    assert f"this machine's is {SOFTPIPE.id})" in first
    assert second.startswith(
        f"To draw the goldens' pixels, render as they were drawn ({SAME.describe()})"
    )
    assert second.endswith(
        "__EGL_VENDOR_LIBRARY_FILENAMES=/usr/share/glvnd/egl_vendor.d/50_mesa.json MUJOCO_GL=egl."
    )


def test_a_changed_scene_on_the_same_renderer_is_not_blamed_on_the_renderer():
    result = _result(SAME, _frame(MATH, 40, 30.0, scene_changed=True))
    first, second = result.advice()
    assert "what changed is the scene, not the renderer." in first
    assert second == (
        "note: RSB-Math-4 row 0 is drawn from a scene that is not quite the one the goldens "
        "were drawn from (its compiled model or pose differs: this checkout's scene code, "
        "frozen tables or mujoco). Part of the difference above may come from it, not from "
        "this machine. Compare scores only between runs of the same rsb_mj and mujoco versions."
    )
    assert result.advice(maintainer=True)[2] == (
        "maintainer: if the scene change is intended, regenerate the goldens on the goldens' "
        "renderer and commit them: python tools/make_doctor_goldens.py"
    )


def test_a_pass_from_a_changed_scene_gives_users_no_maintainer_chores():
    """A fresh clone with another mujoco passed with "(scene changed)" and was told to
    regenerate and commit the goldens: that is the maintainers' job (``--maintainer``)."""
    result = _result(SAME, _frame(MATH, 0, float("inf"), scene_changed=True))
    assert result.verdict == "pass"
    advice = result.advice()
    assert advice[1] == (
        "note: RSB-Math-4 row 0 is drawn from a scene that is not quite the one the goldens "
        "were drawn from (its compiled model or pose differs: this checkout's scene code, "
        "frozen tables or mujoco). Its frames match the goldens all the same: nothing to do. "
        "Compare scores only between runs of the same rsb_mj and mujoco versions."
    )
    assert len(advice) == 2 and not any("regenerate" in line for line in advice)


def test_blank_frames_and_drawing_errors_fail():
    blank = FrameResult(A2A, tuple(CameraDiff(c, 200, 5.0, c == "head") for c in CAMERAS))
    result = _result(SAME, FrameResult(MATH, (), error="RuntimeError: x"), blank)
    assert result.verdict == "fails"
    assert result.advice()[0].startswith(
        "fails: this machine does not draw the benchmark's scenes (RSB-Math-4 row 0: "
        "RuntimeError: x; A2A-Color row 0: head blank, left_wrist, right_wrist under 25 dB). "
        "Do not evaluate here: check the GL backend"
    )
    no_gl = dataclasses.replace(SAME, error="FatalError: no display")
    frames = tuple(FrameResult(f, (), error="no GL context") for f in REFERENCE_FRAMES)
    text = DoctorResult(no_gl, GOLDENS, frames).advice()[0]
    assert text.startswith("fails: this machine does not draw the benchmark's scenes (no GL "
                           "context: FatalError: no display). Do not evaluate here")  # fmt: skip


def test_renderer_differences_field_by_field():
    assert renderer_differences(SAME, SAME) == []
    assert renderer_differences(SOFTPIPE, SAME) == [
        f"renderer: softpipe here, {SAME.renderer} in the goldens",
        f"reference render: cdcdcdcdcdcd here, {SAME.reference_sha256[:12]} in the goldens",
    ]
