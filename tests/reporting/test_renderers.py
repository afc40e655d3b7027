"""Renderer fingerprints in runs and the rule that ``rsb report`` pools one renderer only.

The last test makes two real runs, one drawn through EGL (two spawned workers) and one
through OSMesa, and reports over both.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from rsb_mj.cli import main
from rsb_mj.errors import EvalError
from rsb_mj.evaluation.records import append_record, read_records
from rsb_mj.evaluation.run_folder import RECORDS_FILE, RUN_FILE
from rsb_mj.evaluation.runner import EvalConfig, run_eval
from rsb_mj.reporting.renderers import UNRECORDED, renderer_groups, renderer_lines
from rsb_mj.scene.fingerprint import RendererFingerprint, renderer_fingerprint
from rsb_mj.scene.gl import library_present
from tests.evaluation.test_metrics import rec

EGL = RendererFingerprint("egl", "Mesa/X.org", "llvmpipe", "4.5 Mesa 22.3.6", "ab" * 32)
OSMESA = dataclasses.replace(EGL, backend="osmesa")
SOFTPIPE = dataclasses.replace(EGL, renderer="softpipe", reference_sha256="cd" * 32)


def _drawn(fingerprint, index=0, **kw):
    r = rec(index, grasped=True, success=True, choice_letter="A", **kw)
    sim = {**r.sim} if fingerprint is None else {**r.sim, "renderer": fingerprint.to_dict()}
    return dataclasses.replace(r, sim=sim)


def test_one_renderer_is_named_in_one_line():
    runs = {"a": [_drawn(EGL, 0), _drawn(EGL, 1)], "b": [_drawn(EGL, 0, policy="q")]}
    assert renderer_lines(runs) == [f"Renderer: {EGL.id}: {EGL.describe()}"]
    assert renderer_groups(runs) == {EGL.id: (EGL, ["a", "b"])}


def test_two_backends_are_refused_naming_both_and_what_differs():
    runs = {"egl:p": [_drawn(EGL)], "osmesa:p": [_drawn(OSMESA)]}
    with pytest.raises(EvalError) as caught:
        renderer_lines(runs)
    assert str(caught.value) == (
        "these runs were drawn by 2 renderers (they differ in: backend; their reference "
        "renders are identical: `rsb doctor` on each machine shows whether the benchmark's "
        "frames match too), and success rates move with the pixels a policy sees:\n"
        f"- {EGL.id}: {EGL.describe()}: rows egl:p\n"
        f"- {OSMESA.id}: {OSMESA.describe()}: rows osmesa:p\n"
        "report them separately, or pass --allow-mixed-renderers to pool them (the report's "
        "header then says so)"
    )
    lines = renderer_lines(runs, allow_mixed=True)
    assert lines[0] == (
        "Renderers: MIXED, pooled on request (--allow-mixed-renderers): 2 renderers drew "
        "these records, so rates below combine different pixels:"
    )
    assert lines[1:] == [
        f"- {EGL.id}: {EGL.describe()}: rows egl:p",
        f"- {OSMESA.id}: {OSMESA.describe()}: rows osmesa:p",
    ]


def test_another_rasterizer_in_one_run_is_refused():
    runs = {"p": [_drawn(EGL, 0), _drawn(SOFTPIPE, 1)]}
    with pytest.raises(EvalError, match=r"\(they differ in: renderer, reference render\)"):
        renderer_lines(runs)


def test_records_without_a_fingerprint_pool_only_with_each_other():
    old = {"p": [_drawn(None, 0), _drawn(None, 1)]}
    assert renderer_lines(old) == [
        f"Renderer: {UNRECORDED} (records made before rsb_mj recorded renderer fingerprints)"
    ]
    with pytest.raises(EvalError, match=r"records without a fingerprint cannot be shown to"):
        renderer_lines({**old, "q": [_drawn(EGL)]})


def test_error_records_do_not_count_and_a_bad_fingerprint_is_named():
    error = dataclasses.replace(_drawn(OSMESA, 5), termination="error", error="boom")
    assert renderer_lines({"p": [_drawn(EGL), error]}) == [f"Renderer: {EGL.id}: {EGL.describe()}"]
    bad = _drawn(EGL, 7)
    bad = dataclasses.replace(bad, sim={**bad.sim, "renderer": {**EGL.to_dict(), "id": "0"}})
    with pytest.raises(EvalError, match=r"^p: RSB-Math-4 eval row 7: renderer id '0' does not"):
        renderer_lines({"p": [bad]})


def test_report_refuses_mixed_renderers_before_writing(tmp_path, capsys):
    for name, fingerprint in (("a", EGL), ("b", SOFTPIPE)):
        (tmp_path / name).mkdir()
        append_record(tmp_path / name / RECORDS_FILE, _drawn(fingerprint))
    out = tmp_path / "report"
    assert main(["report", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(
        "rsb report: error: these runs were drawn by 2 renderers (they differ in: renderer, "
        "reference render), and"
    )
    assert not out.exists()


def _osmesa_env():
    env = {k: v for k, v in os.environ.items() if k != "PYOPENGL_PLATFORM"}
    return {**env, "MUJOCO_GL": "osmesa"}


@pytest.mark.skipif(
    not library_present("osmesa"),
    reason="libOSMesa is not installed (apt-get install libosmesa6; .ci/run installs it)",
)
def test_an_egl_run_and_an_osmesa_run_are_not_pooled(tmp_path, capsys):
    here = renderer_fingerprint()
    assert here.backend == "egl"
    egl_dir, osmesa_dir = tmp_path / "egl", tmp_path / "osmesa"
    config = EvalConfig(
        suites=("RSB-Math-4",), policies=("noop",), episodes=2, out=egl_dir, max_steps=3,
        workers=2, progress=False,
    )  # fmt: skip
    records = run_eval(config)
    assert json.loads((egl_dir / RUN_FILE).read_text())["renderer"] == here.to_dict()
    # Each record holds the fingerprint its (spawned) worker took.
    assert [r.sim["renderer"] for r in records] == [here.to_dict()] * 2
    assert [r.sim["renderer"] for r in read_records(egl_dir / RECORDS_FILE)] == [here.to_dict()] * 2

    command = [sys.executable, "-m", "rsb_mj", "eval", "--suite", "RSB-Math-4", "--policy",
               "noop", "--episodes", "1", "--max-steps", "3", "--out", str(osmesa_dir),
               "--no-progress"]  # fmt: skip
    subprocess.run(command, env=_osmesa_env(), capture_output=True, timeout=300, check=True)
    osmesa = json.loads((osmesa_dir / RUN_FILE).read_text())["renderer"]
    assert osmesa["backend"] == "osmesa" and osmesa["id"] != here.id
    (record,) = read_records(osmesa_dir / RECORDS_FILE)
    assert record.sim["renderer"] == osmesa

    out = tmp_path / "report"
    args = ["report", str(egl_dir), str(osmesa_dir), "--out", str(out), "--no-plots"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("rsb report: error: these runs were drawn by 2 renderers (they")
    assert f"- {here.id}: {here.describe()}: rows egl:noop\n" in err
    assert f"- {osmesa['id']}: osmesa, " in err and ": rows osmesa:noop\n" in err
    assert not out.exists()

    assert main([*args, "--allow-mixed-renderers"]) == 0
    report = (out / "report.md").read_text()
    assert "Renderers: MIXED, pooled on request (--allow-mixed-renderers): 2 renderers" in report
    assert f"- {here.id}: {here.describe()}: rows egl:noop" in report

    assert main(["report", str(egl_dir), "--no-plots"]) == 0
    single = (egl_dir / "report" / "report.md").read_text()
    assert f"\nRenderer: {here.id}: {here.describe()}\n" in single
