"""The flat public API resolves, and importing it stays cheap."""

import subprocess
import sys

import rsb_mj
from rsb_mj.lang.a2a import A2A_SOURCES


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
    a2a = [f"'rsb_mj/A2A-{c}-v0', " for c in sorted(c.title() for c in A2A_SOURCES)]
    assert out.stdout.strip() == (
        "False [" + "".join(a2a) + "'rsb_mj/RSB-General-10-v0', 'rsb_mj/RSB-General-4-v0', "
        "'rsb_mj/RSB-HardMath-10-v0', 'rsb_mj/RSB-HardMath-4-v0', 'rsb_mj/RSB-Math-10-v0', "
        "'rsb_mj/RSB-Math-4-v0', 'rsb_mj/RSB-Task-v0']"
    )
