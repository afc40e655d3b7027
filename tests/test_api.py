"""The flat public API resolves, and importing it stays cheap."""

import ast
import subprocess
import sys

import rsb_mj
from rsb_mj.suites import A2A_SUITES


def test_every_name_in_all_resolves():
    for name in rsb_mj.__all__:
        assert getattr(rsb_mj, name) is not None, name


def test_unknown_attribute_is_an_attribute_error():
    try:
        rsb_mj.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert str(exc) == "module 'rsb_mj' has no attribute 'no_such_name'"
    else:
        raise AssertionError("expected AttributeError")


def test_every_error_derives_from_the_root():
    for name in rsb_mj.__all__:
        obj = getattr(rsb_mj, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, rsb_mj.RsbError), name


def test_import_does_not_load_mujoco_and_registers_the_suites():
    code = (
        "import sys, gymnasium, rsb_mj; "
        "ids = sorted(i for i in gymnasium.registry if i.startswith('rsb_mj/')); "
        "print('mujoco' in sys.modules, ids)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, ids = out.stdout.strip().split(" ", 1)
    ids = ast.literal_eval(ids)
    assert loaded == "False"
    assert ids == sorted(ids)
    suites = [*rsb_mj.SUITES.values(), *A2A_SUITES.values()]
    assert {s.env_id for s in suites} | {"rsb_mj/RSB-Task-v0"} <= set(ids)
    assert "rsb_mj/A2A-Color-v0" in ids and len([i for i in ids if "/A2A-" in i]) == 12
