"""Register the gymnasium ids when gymnasium is imported, not when rsb_mj is.

``import rsb_mj`` must register ``rsb_mj/RSB-*-v0`` for ``gymnasium.make``, but importing
gymnasium (and numpy with it) costs about 120 ms that every ``rsb`` command (``rsb lint``,
``rsb fmt``) would pay for nothing. :func:`register_when_gymnasium_loads` registers at once
if gymnasium is already imported; otherwise it puts a finder first on ``sys.meta_path``
that lets the normal machinery load gymnasium and registers right after gymnasium's module
has run (so registration sees a complete gymnasium), then removes itself.

The finder and loader follow the import protocols by their methods (``find_spec``;
``create_module`` / ``exec_module``) rather than subclassing ``importlib.abc``, whose import
pulls in ``importlib.resources`` and ``tempfile`` (about 20 ms at every start).
"""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any


class _AfterImport:
    """Runs ``callback`` once, right after module ``name`` has been executed."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # find the real spec with the other finders
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader, callback = spec.loader, self.callback

        class _Loader:
            def create_module(self, spec: Any) -> ModuleType | None:
                return loader.create_module(spec)

            def exec_module(self, module: ModuleType) -> None:
                loader.exec_module(module)
                callback()

        spec.loader = _Loader()
        return spec


def register_when_gymnasium_loads(register: Callable[[], None]) -> None:
    """Call ``register`` now if gymnasium is imported, else right after its import."""
    if "gymnasium" in sys.modules:
        register()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("gymnasium", register))
