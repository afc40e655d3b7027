"""Tests of ``rsb render`` (rsb_mj/cli/render.py)."""

from __future__ import annotations

import cv2

from rsb_mj.cli import main


def test_render_writes_three_views_side_by_side(tmp_path, capsys):
    out = tmp_path / "views.png"
    args = ["render", "RSB-Math-4", "--seed", "1", "-o", str(out), "--width", "160"]
    assert main([*args, "--height", "120"]) == 0
    image = cv2.imread(str(out))
    assert image.shape == (120, 480, 3)
    printed = capsys.readouterr().out
    assert f"wrote {out} (480x120, head | left | right wrist)" in printed


def test_render_of_an_unknown_task_is_a_usage_error(tmp_path, capsys):
    assert main(["render", "no_such.bddl", "-o", str(tmp_path / "x.png")]) == 2
    assert "no_such.bddl: no such task file, and not a suite name" in capsys.readouterr().err
