"""Per-layer features of a torch model through forward hooks on named modules.

``rsb eval --features MODE --feature-modules NAME,...`` with a policy built on torch modules
(the LeRobot adapter, :mod:`rsb_mj.policies.lerobot`) hooks each named module
(``model.named_modules()`` names, e.g. ``model.encoder.layers.0`` of an ACT policy); the
output of its last forward call since the policy's latest ``act`` began is its layer:

* the module's output, or its first element when it returns a tuple or list (a transformer
  layer's hidden states), or a mapping's ``last_hidden_state`` (else its first value);
* detached, as float32 on the CPU;
* pooled to one vector: by default the mean over every axis but the last (tokens, and the
  batch of one rsb evaluates); ``NAME@first`` takes the first token instead (a CLS token),
  ``NAME@last`` the last one.

An ``act`` that runs no forward pass (a chunking policy executing its queue) reports no
features (None), so ``--features every:K`` counts the policy's inference calls only through
the acts that made one. Duck-typed: any object with ``named_modules()`` whose modules have
``register_forward_hook(fn) -> handle`` (torch's ``nn.Module``); torch is never imported here.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError

#: How token axes are pooled.
REDUCTIONS = ("mean", "first", "last")


def _tensor(output: Any) -> Any:
    """The tensor of a module's output (see the module docstring)."""
    if isinstance(output, tuple | list):
        return _tensor(output[0]) if output else None
    if hasattr(output, "keys") and not hasattr(output, "shape"):
        if "last_hidden_state" in output:
            return output["last_hidden_state"]
        return _tensor(next(iter(output.values()))) if len(output) else None
    return output


def pooled(output: Any, reduce: str = "mean") -> np.ndarray | None:
    """One float32 vector of a module's output: see the module docstring (None for an
    output without numbers)."""
    value = _tensor(output)
    if value is None:
        return None
    for step in ("detach", "float", "cpu", "numpy"):  # a torch tensor, step by step
        method = getattr(value, step, None)
        if callable(method):
            value = method()
    array = np.asarray(value, dtype=np.float32)
    if array.ndim == 0:
        return array.reshape(1)
    if array.ndim == 1:
        return array
    rows = array.reshape(-1, array.shape[-1])
    if reduce == "first":
        return rows[0]
    if reduce == "last":
        return rows[-1]
    return rows.mean(axis=0)


class ModuleFeatures:
    """Forward hooks on ``names`` of ``model`` (see the module docstring).

    Args:
        model: the torch model (anything with ``named_modules()``).
        specs: the modules to hook, ``NAME`` or ``NAME@REDUCTION`` (:data:`REDUCTIONS`;
            default mean), in depth order (the order the features are reported in, each
            under its module name).

    Raises:
        EvalError: for an unknown reduction, or a name that is not a module of ``model``
            (naming the closest module names).
    """

    def __init__(self, model: Any, specs: Sequence[str]) -> None:
        reduce: dict[str, str] = {}
        for spec in specs:
            name, _, how = spec.partition("@")
            if (how or "mean") not in REDUCTIONS:
                raise EvalError(
                    f"--feature-modules {spec!r}: pooling {how!r}; valid choices: "
                    + ", ".join(REDUCTIONS)
                )
            reduce[name] = how or "mean"
        names = tuple(reduce)
        modules = dict(model.named_modules())
        for name in names:
            if name not in modules:
                close = difflib.get_close_matches(name, list(modules), n=5, cutoff=0.5)
                shown = close or [n for n in modules if n][:8]
                raise EvalError(
                    f"--feature-modules: {name!r} is not a module of the policy's model; "
                    f"{'closest' if close else 'some'} module names: {', '.join(shown)} "
                    f"({len(modules)} in all)"
                )
        self.names = names
        self.reduce = reduce
        self._latest: dict[str, np.ndarray] = {}
        self._handles = [modules[n].register_forward_hook(self._hook(n)) for n in self.names]

    def _hook(self, name: str) -> Any:
        def hook(module: Any, inputs: Any, output: Any) -> None:
            vector = pooled(output, self.reduce[name])
            if vector is not None:
                self._latest[name] = vector

        return hook

    def clear(self) -> None:
        """Forget the outputs seen so far (call at the start of each ``act``)."""
        self._latest = {}

    def take(self) -> dict[str, np.ndarray] | None:
        """The hooked modules' outputs since :meth:`clear`, in ``names`` order; None when
        no hooked module ran."""
        got = {n: self._latest[n] for n in self.names if n in self._latest}
        return got or None

    def remove(self) -> None:
        """Remove the hooks."""
        for handle in self._handles:
            handle.remove()
        self._handles = []


__all__ = ["REDUCTIONS", "ModuleFeatures", "pooled"]
