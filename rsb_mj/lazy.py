"""Public names of a package that load their module on first access (PEP 562).

``rsb_mj`` and its packages keep a flat public API without importing every stage: ``import
rsb_mj`` does not load MuJoCo, and ``rsb lint`` does not load numpy. A package lists each
public name with the module that defines it and installs the two hooks::

    _EXPORTS = {"sample_episode": "rsb_mj.episodes.sampler", ...}
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``.

    Args:
        package: the package's name (for the error message).
        exports: public name -> the module that defines it.
        namespace: the package's ``globals()``; a name is stored there once loaded, so later
            accesses are plain lookups.

    Returns:
        ``__getattr__`` (imports the defining module on first access; AttributeError for a
        name that is not exported) and ``__dir__`` (the loaded and the exported names).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
