"""The flat API of rsb_mj.scene resolves, and importing the package does not import MuJoCo."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rsb_mj.scene


@pytest.mark.parametrize("name", rsb_mj.scene.__all__)
def test_every_exported_name_resolves(name):
    assert getattr(rsb_mj.scene, name) is not None


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        rsb_mj.scene.nope  # noqa: B018


def test_package_and_layout_import_without_mujoco():
    code = (
        "import sys, rsb_mj.scene, rsb_mj.lang.layout, rsb_mj.scene.frames; "
        "assert 'mujoco' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
