"""``rsb doctor``: is this machine's renderer the one the benchmark's numbers were drawn with?

Modules: :mod:`~rsb_mj.doctor.frames` (the fixed reference frames: three cameras of an RSB
scene, an Act2Answer plate scene and a V4 visual-perturbation frame),
:mod:`~rsb_mj.doctor.goldens` (the golden images shipped in ``assets/doctor/``),
:mod:`~rsb_mj.doctor.compare` (max abs difference, PSNR, pass / differs / fails),
:mod:`~rsb_mj.doctor.check` (the whole check and what to do),
:mod:`~rsb_mj.doctor.environment` (versions, cores, memory). The renderer fingerprint every
run records is :mod:`rsb_mj.scene.fingerprint`.
"""

from __future__ import annotations

from rsb_mj.lazy import lazy_exports

#: Public name -> defining module (imported on first access).
_EXPORTS = {
    "REFERENCE_FRAMES": "rsb_mj.doctor.frames",
    "ReferenceFrame": "rsb_mj.doctor.frames",
    "render_frame": "rsb_mj.doctor.frames",
    "CameraDiff": "rsb_mj.doctor.compare",
    "compare_images": "rsb_mj.doctor.compare",
    "GoldenSet": "rsb_mj.doctor.goldens",
    "read_goldens": "rsb_mj.doctor.goldens",
    "write_goldens": "rsb_mj.doctor.goldens",
    "DoctorResult": "rsb_mj.doctor.check",
    "check_frames": "rsb_mj.doctor.check",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
