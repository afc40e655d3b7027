"""Packages load their public names on first access (rsb_mj.lazy)."""

import subprocess
import sys

import pytest

from rsb_mj.lazy import lazy_exports


def test_a_name_loads_its_module_once_and_stays():
    namespace: dict = {}
    getattr_, dir_ = lazy_exports("pkg", {"sqrt": "math", "dumps": "json"}, namespace)
    import math

    assert getattr_("sqrt") is math.sqrt
    assert namespace == {"sqrt": math.sqrt}
    assert dir_() == ["dumps", "sqrt"]
    with pytest.raises(AttributeError, match=r"^module 'pkg' has no attribute 'cos'$"):
        getattr_("cos")


def test_importing_a_package_loads_none_of_its_stages():
    code = (
        "import sys, rsb_mj, rsb_mj.episodes, rsb_mj.lang, rsb_mj.scene, rsb_mj.env; "
        "print(sorted(m for m in ('numpy', 'mujoco', 'rsb_mj.episodes.sampler', "
        "'rsb_mj.lang.linter', 'rsb_mj.env.rsb_env') if m in sys.modules)); "
        "from rsb_mj.episodes import sample_episode; from rsb_mj import load_task; "
        "print(sample_episode.__module__, load_task.__module__, 'numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines() == ["[]", "rsb_mj.episodes.sampler rsb_mj.lang.linter True"]
