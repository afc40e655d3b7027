"""Draw the reference frames, compare them with a golden set, and say what to do.

:func:`check_frames` renders every :data:`~rsb_mj.doctor.frames.REFERENCE_FRAMES` entry and
compares each camera with its golden (:mod:`rsb_mj.doctor.compare`). A :class:`DoctorResult`
holds the verdict (the worst frame's) and :meth:`DoctorResult.advice`: what the verdict means
for scores made on this machine and what to do, telling a changed renderer (the pixels
differ, the scene does not) from a changed scene (its compiled model or pose differs from
the one the goldens were drawn from).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rsb_mj.doctor.compare import FAIL_PSNR_DB, CameraDiff, compare_images, worst
from rsb_mj.doctor.frames import (
    HEIGHT,
    QUALITY,
    REFERENCE_FRAMES,
    WIDTH,
    ReferenceFrame,
    Rendered,
    render_frame,
)
from rsb_mj.doctor.goldens import REGENERATE, GoldenSet
from rsb_mj.errors import RsbError
from rsb_mj.scene.fingerprint import RendererFingerprint
from rsb_mj.version import mujoco_version
from rsb_mj.workspace import CAMERAS

__all__ = ["DoctorResult", "FrameResult", "check_frames", "renderer_differences"]

#: Where a GPU machine finds Mesa's EGL (glvnd vendor file): renders as on a CPU machine.
MESA_EGL_VENDOR = "/usr/share/glvnd/egl_vendor.d/50_mesa.json"


@dataclass(frozen=True)
class FrameResult:
    """One reference frame against its golden.

    Attributes:
        frame: the reference frame.
        cameras: one :class:`CameraDiff` per camera (empty when it could not be drawn).
        scene_changed: its scene hash differs from the one the golden was drawn from.
        error: why it could not be drawn ("" when it was).
        rendered: the images drawn, or None.
    """

    frame: ReferenceFrame
    cameras: tuple[CameraDiff, ...]
    scene_changed: bool = False
    error: str = ""
    rendered: Rendered | None = None

    @property
    def verdict(self) -> str:
        """The worst camera's verdict; ``fails`` when the frame could not be drawn."""
        return "fails" if self.error else worst([c.verdict for c in self.cameras])


def renderer_differences(here: RendererFingerprint, there: RendererFingerprint) -> list[str]:
    """``backend: osmesa here, egl in the goldens`` per field in which they differ."""
    names = ("backend", "vendor", "renderer", "version", "reference_sha256", "error")
    out = []
    for name in names:
        a, b = getattr(here, name), getattr(there, name)
        if a != b:
            label = "reference render" if name == "reference_sha256" else name
            if name == "reference_sha256":
                a, b = a[:12], b[:12]
            out.append(f"{label}: {a or '(none)'} here, {b or '(none)'} in the goldens")
    return out


@dataclass(frozen=True)
class DoctorResult:
    """The whole check: this process's renderer, the goldens and every frame."""

    renderer: RendererFingerprint
    goldens: GoldenSet
    frames: tuple[FrameResult, ...]

    @property
    def verdict(self) -> str:
        """``pass``, ``differs`` or ``fails``: the worst frame's."""
        return worst([f.verdict for f in self.frames])

    def advice(self, maintainer: bool = False) -> list[str]:
        """What the verdict means for scores from this machine and what to do (lines).

        Args:
            maintainer: also say how to regenerate the shipped goldens after an intended
                scene change (advice for rsb_mj's maintainers, not its users).
        """
        golden = self.goldens.renderer
        same = self.renderer.id == golden.id
        differs = "; ".join(renderer_differences(self.renderer, golden))
        changed = [f.frame.label for f in self.frames if f.scene_changed]
        lines = []
        if self.verdict == "pass":
            lines.append(
                "pass: this machine draws the reference frames as the goldens show them; its "
                "scores are comparable with runs on the goldens' renderer."
            )
            if not same:
                lines.append(
                    f"note: the renderer is not the goldens' ({differs}), yet the pixels "
                    f"match. Runs made here carry renderer fingerprint {self.renderer.id} and "
                    f"`rsb report` keeps them apart from runs of fingerprint {golden.id} "
                    "unless --allow-mixed-renderers, which these frames show to be safe for "
                    "the two."
                )
        elif self.verdict == "differs":
            if not same:
                cause = f"the renderer ({differs})" + (" and the scene" if changed else "")
            elif changed:
                cause = "the scene, not the renderer"
            else:
                cause = (
                    "neither the renderer's fingerprint nor the scene: this renderer draws "
                    "these frames differently from run to run, or the goldens were edited"
                )
            lines.append(
                "differs: this machine draws the benchmark's frames differently from the "
                f"goldens; what changed is {cause}. Policies see other pixels here, so success "
                "rates may move. Compare only runs with the same renderer fingerprint "
                f"(`rsb report` refuses to pool others; this machine's is {self.renderer.id}) "
                "and give the fingerprint with your numbers."
            )
            if not same:
                lines.append(
                    f"To draw the goldens' pixels, render as they were drawn ({golden.describe()})"
                    ": for Mesa's llvmpipe, MUJOCO_GL=egl on a machine without a GPU, or on one "
                    f"with a GPU __EGL_VENDOR_LIBRARY_FILENAMES={MESA_EGL_VENDOR} MUJOCO_GL=egl."
                )
        else:
            bad = [f for f in self.frames if f.verdict == "fails"]
            why = "; ".join(
                f"{f.frame.label}: " + (f.error or _fail_reason(f.cameras)) for f in bad
            )
            if self.renderer.error:
                why = f"no GL context: {self.renderer.error}"
            lines.append(
                f"fails: this machine does not draw the benchmark's scenes ({why}). Do not "
                "evaluate here: check the GL backend (MUJOCO_GL=egl needs libegl1 with Mesa "
                "or a GPU driver, MUJOCO_GL=osmesa needs libosmesa6), then look at the frames "
                "`rsb doctor --out DIR` writes beside their goldens."
            )
        if changed:
            mujoco_now = self.renderer_versions_note()
            matched = all(f.verdict == "pass" for f in self.frames if f.scene_changed)
            meaning = (
                "Its frames match the goldens all the same: nothing to do."
                if matched
                else "Part of the difference above may come from it, not from this machine."
            )
            lines.append(
                f"note: {', '.join(changed)} is drawn from a scene that is not quite the one "
                f"the goldens were drawn from (its compiled model or pose differs: this "
                f"checkout's scene code, frozen tables or mujoco{mujoco_now}). {meaning} "
                "Compare scores only between runs of the same rsb_mj and mujoco versions."
            )
            if maintainer:
                lines.append(
                    "maintainer: if the scene change is intended, regenerate the goldens on "
                    f"the goldens' renderer and commit them: {REGENERATE}"
                )
        return lines

    def renderer_versions_note(self) -> str:
        """`` 3.8.1 here, 3.7.0 in the goldens`` when the mujoco versions differ, else ""."""
        here, there = mujoco_version(), self.goldens.versions.get("mujoco", "")
        return f" {here} here, {there} in the goldens" if here != there else ""


def _fail_reason(cameras: Sequence[CameraDiff]) -> str:
    blank = [c.camera for c in cameras if c.blank]
    low = [c.camera for c in cameras if not c.blank and c.psnr_db < FAIL_PSNR_DB]
    parts = [f"{', '.join(blank)} blank"] if blank else []
    if low:
        parts.append(f"{', '.join(low)} under {FAIL_PSNR_DB:g} dB")
    return ", ".join(parts)


def check_frames(
    goldens: GoldenSet,
    renderer: RendererFingerprint,
    frames: Sequence[ReferenceFrame] = REFERENCE_FRAMES,
) -> DoctorResult:
    """Draw ``frames`` and compare them with ``goldens`` (nothing is drawn when
    ``renderer`` records that no GL context can be made: every frame then fails with it).

    Raises:
        RsbError: when the golden set was made at another size, preset or camera list, lacks
            a frame or holds a damaged image.
    """
    made = (goldens.width, goldens.height, goldens.quality, goldens.cameras)
    if made != (WIDTH, HEIGHT, QUALITY, CAMERAS):
        raise RsbError(
            f"{goldens.folder}: goldens drawn at {made[0]}x{made[1]} {made[2]} with cameras "
            f"{', '.join(made[3])}; the reference frames are {WIDTH}x{HEIGHT} {QUALITY} with "
            f"{', '.join(CAMERAS)}: regenerate them: {REGENERATE}"
        )
    results = []
    for frame in frames:
        expected = goldens.images(frame.name)  # a broken golden set is an error, not a verdict
        if renderer.error:
            results.append(FrameResult(frame, (), error=f"no GL context ({renderer.error})"))
            continue
        try:
            rendered = render_frame(frame)
        except Exception as exc:  # a renderer that cannot draw is the finding, not a crash
            cause = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
            results.append(FrameResult(frame, (), error=cause))
            continue
        diffs = tuple(
            compare_images(cam, rendered.images[cam], expected[cam]) for cam in goldens.cameras
        )
        changed = rendered.scene_sha256 != goldens.frames[frame.name].scene_sha256
        results.append(FrameResult(frame, diffs, changed, rendered=rendered))
    return DoctorResult(renderer, goldens, tuple(results))
