"""rsb_mj.scene.fingerprint: what drew the pixels, taken from a real GL context."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from rsb_mj.errors import RsbError
from rsb_mj.scene.fingerprint import (
    REFERENCE_SIZE,
    RendererFingerprint,
    reference_render,
    reference_spec,
    renderer_fingerprint,
)
from rsb_mj.scene.gl import active_backend, library_present

PRINT = (
    "import json; from rsb_mj.scene.fingerprint import renderer_fingerprint as f; "
    "print(json.dumps(f().to_dict()))"
)


def fingerprint_in(**env: str) -> dict:
    """The fingerprint a fresh process with these environment variables takes (as from a
    shell: without the PYOPENGL_PLATFORM MuJoCo set in this process for its backend)."""
    clean = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}
    result = subprocess.run(
        [sys.executable, "-c", PRINT],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_the_fingerprint_names_this_process_renderer():
    fp = renderer_fingerprint()
    assert fp.error == ""
    assert fp.backend == active_backend() == os.environ["MUJOCO_GL"]
    assert fp.vendor and fp.renderer and fp.version
    assert re.fullmatch(r"[0-9a-f]{64}", fp.reference_sha256)
    assert re.fullmatch(r"[0-9a-f]{16}", fp.id)
    assert renderer_fingerprint() is fp  # taken once per process
    row = fp.to_dict()
    fields = ["id", "backend", "vendor", "renderer", "version", "reference_sha256", "error"]
    assert list(row) == fields
    assert RendererFingerprint.from_dict(row) == fp
    assert fp.describe() == (
        f"{fp.backend}, {fp.vendor} {fp.renderer}, OpenGL {fp.version}; "
        f"reference render {fp.reference_sha256[:12]}"
    )


def test_the_reference_render_is_the_same_bytes_in_another_process():
    assert fingerprint_in() == renderer_fingerprint().to_dict()


def test_the_reference_scene_is_drawn_lit_and_textured():
    frame, strings, backend = reference_render()
    fp = renderer_fingerprint()
    width, height = REFERENCE_SIZE
    assert frame.shape == (height, width, 3) and frame.dtype.name == "uint8"
    assert frame.std() > 20  # floor checker, lit primitives: not a flat frame
    assert (strings, backend) == ((fp.vendor, fp.renderer, fp.version), fp.backend)
    model = reference_spec().compile()
    assert (model.ngeom, model.nlight, model.ncam, model.ntex) == (5, 2, 1, 1)


@pytest.mark.skipif(
    not library_present("osmesa"),
    reason="libOSMesa is not installed (apt-get install libosmesa6; .ci/run installs it)",
)
def test_osmesa_is_another_fingerprint():
    here = renderer_fingerprint()
    osmesa = fingerprint_in(MUJOCO_GL="osmesa")
    assert osmesa["backend"] == "osmesa" and osmesa["error"] == ""
    assert osmesa["id"] != here.id
    if osmesa["renderer"] == here.renderer and osmesa["version"] == here.version:
        # One Mesa driver behind both backends (llvmpipe here): the same bytes.
        assert osmesa["reference_sha256"] == here.reference_sha256


def test_another_rasterizer_changes_the_reference_render():
    here = renderer_fingerprint()
    if not here.vendor.startswith("Mesa") or "llvmpipe" not in here.renderer:
        pytest.skip(f"softpipe is Mesa's second rasterizer; this machine renders with {here}")
    soft = fingerprint_in(GALLIUM_DRIVER="softpipe")
    assert soft["renderer"] == "softpipe"
    assert soft["reference_sha256"] != here.reference_sha256
    assert soft["id"] != here.id


def test_no_gl_context_is_recorded_not_raised():
    fp = fingerprint_in(MUJOCO_GL="disable")
    assert fp["backend"] == "disable"
    assert (fp["vendor"], fp["renderer"], fp["version"], fp["reference_sha256"]) == ("",) * 4
    assert fp["error"].startswith("AttributeError: ")
    described = RendererFingerprint.from_dict(fp).describe()
    assert described == f"disable, no GL context ({fp['error']})"


def test_from_dict_names_what_is_wrong():
    row = renderer_fingerprint().to_dict()
    with pytest.raises(RsbError, match=r"^run.json: renderer id 'x' does not match its fields"):
        RendererFingerprint.from_dict({**row, "id": "x"}, where="run.json")
    with pytest.raises(RsbError, match=r"^r: renderer field 'vendor' must be a string$"):
        RendererFingerprint.from_dict({k: v for k, v in row.items() if k != "vendor"}, where="r")
    with pytest.raises(RsbError, match=r"^r: a renderer fingerprint must be an object$"):
        RendererFingerprint.from_dict("egl", where="r")
    older = {k: v for k, v in row.items() if k not in ("id", "error")}
    assert RendererFingerprint.from_dict(older).error == ""
