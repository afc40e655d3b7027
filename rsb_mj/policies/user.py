"""A user's policy factory, named ``module:factory`` or ``path/to/file.py:factory``.

``load_factory`` imports the factory and :func:`build_user_policy` calls it:

* module form (``my_pkg.my_policy:make``): imported from the Python path; a module that is
  not found there is looked up in the current folder too (as ``python -m`` would), so
  ``rsb eval`` finds your modules from your project's folder without ``PYTHONPATH``;
* file form (``examples/my_policy.py:make``, relative to the current folder or absolute):
  the file is loaded as a module named after it, with its folder first on the Python path
  (as ``python examples/my_policy.py`` would), so it can import its neighbours.

A factory may return a :class:`~rsb_mj.policies.base.Policy` or any object with
``act(obs)``; ``reset(env, obs, info)``, ``done``, ``text`` (a rationale written with the
last action), ``features`` (per-layer features of the last action, an attribute or a method:
:mod:`rsb_mj.policies.features`), ``status()`` and ``close()`` are optional, and a
``cameras`` attribute names the cameras it reads (default: all three). An object with
``act_batch(obs, slots)`` and ``reset_slot(slot, env, obs, info)`` is a batched policy
(``rsb eval --batch``, see :mod:`rsb_mj.policies.base`), with optional ``batch_size``,
``slot_done(slot)``, ``slot_text(slot)``, ``slot_features(slot)`` and ``slot_status(slot)``;
it needs no ``act``. :class:`UserPolicy`
adapts such an object.

Where the factory runs is the spec's business (:mod:`rsb_mj.policies.spec`): in a policy
process by default (:mod:`rsb_mj.policies.child`), in rsb's own process for ``inprocess:``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.policies.base import MAX_BATCH, Policy, PolicyStatus
from rsb_mj.policies.features import offers_features, read_features

#: Cameras a user policy reads when it does not say (``cameras`` attribute).
DEFAULT_CAMERAS = ("head", "left_wrist", "right_wrist")


def split_spec(spec: str) -> tuple[str, str] | None:
    """``(module or file, factory)`` of a user spec, or None when ``spec`` is not one.

    >>> split_spec("examples/my_policy.py:make")
    ('examples/my_policy.py', 'make')
    """
    where, sep, attr = spec.rpartition(":")
    if not (sep and where and attr.isidentifier()):
        return None
    if is_file_form(where) or all(part.isidentifier() for part in where.split(".")):
        return where, attr
    return None


def is_file_form(where: str) -> bool:
    """``where`` names a Python file (``.py``, or a path with a folder separator)."""
    return where.endswith(".py") or "/" in where or os.sep in where


def _with_current_folder(module: str) -> None:
    """Put the current folder first on the path when ``module`` is not found without it."""
    top = module.partition(".")[0]
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    cwd = os.getcwd()
    if found is None and cwd not in sys.path:
        sys.path.insert(0, cwd)
        importlib.invalidate_caches()


def check_user_spec(spec: str) -> None:
    """Check, without running any of its code, that the module or file of ``spec`` exists.

    Raises:
        EvalError: naming the module or file that is not there.
    """
    where, attr = _parts(spec)
    if is_file_form(where):
        _check_factory(spec, where, attr, _file(spec, where))
        return
    _with_current_folder(where)
    try:
        found = importlib.util.find_spec(where)
    except (ImportError, ValueError) as exc:
        raise EvalError(f"policy {spec!r}: cannot import {where!r} ({exc})") from None
    if found is None:
        raise EvalError(
            f"policy {spec!r}: cannot import {where!r}: no such module on the Python path "
            f"or in the current folder ({os.getcwd()})"
        )
    if found.origin and found.origin.endswith(".py"):
        _check_factory(spec, where, attr, Path(found.origin))


def _check_factory(spec: str, where: str, attr: str, path: Path) -> None:
    """Refuse a factory name that the module's source does not define (read, not run).

    A module that may define names at import time in ways its text does not show (``from
    ... import *``, a module ``__getattr__``, writes to ``globals()``) is not judged here:
    its factory is found when the policy process imports it.

    Raises:
        EvalError: for a source file with a syntax error (``path:line:col``), or a factory
            name it does not define, listing the callables that look like factories.
    """
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as exc:
        raise EvalError(
            f"policy {spec!r}: {path}:{exc.lineno or 1}:{exc.offset or 1}: syntax error: {exc.msg}"
        ) from None
    except (OSError, ValueError) as exc:
        raise EvalError(f"policy {spec!r}: {path}: cannot be read ({exc})") from None
    names = _top_level_names(tree)
    if names is None or attr in names:
        return
    raise EvalError(f"policy {spec!r}: {where} defines no {attr!r}; {_candidates(tree, where)}")


def _candidates(tree: ast.Module | None, where: str) -> str:
    found = factory_candidates(tree) if tree is not None else []
    if not found:
        return f"no callable of {where} looks like a factory (a function without arguments)"
    return f"callables that look like factories: {', '.join(found)}"


def factory_hint(where: str) -> str:
    """How to name the factory of the policy file ``where`` given without one: ``name the
    function ... e.g. WHERE:make (callables that look like factories: make, MyPolicy)``."""
    path = Path(where).expanduser()
    tree = None
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        if not path.is_file():
            return f"{where}: no such file (relative to {Path.cwd()})"
    example = next(iter(factory_candidates(tree) if tree else []), "FACTORY")
    return (
        f"name the function that builds the policy after a colon, e.g. {where}:{example} "
        f"({_candidates(tree, where)})"
    )


def factory_candidates(tree: ast.Module) -> list[str]:
    """Names of a module's top-level callables that look like factories: functions that can
    be called without arguments, then classes with an ``act`` or ``act_batch`` method."""
    out, classes = [], []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            required = len(args.posonlyargs) + len(args.args) - len(args.defaults)
            kw_required = any(d is None for d in args.kw_defaults)
            if required == 0 and not kw_required and not node.name.startswith("_"):
                out.append(node.name)
        elif isinstance(node, ast.ClassDef):
            methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            if methods & {"act", "act_batch"}:
                classes.append(node.name)
    return out + classes


#: Calls that may bind module names the module's text does not show.
DYNAMIC_CALLS = ("globals", "exec", "setattr", "vars")


def _top_level_names(tree: ast.Module) -> set[str] | None:
    """The names a module's top level binds (in any branch), or None when its text cannot
    tell (a star import, a module ``__getattr__``, ``global``, ``globals()``, ``exec``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None
        if isinstance(node, ast.Global):
            return None
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in DYNAMIC_CALLS:
            return None
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []):
                    stack.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])
            if isinstance(node, ast.For):
                names.update(_targets(node.target))
            if isinstance(node, ast.With):
                for item in node.items:
                    if item.optional_vars is not None:
                        names.update(_targets(item.optional_vars))
        else:
            for target in getattr(node, "targets", None) or [getattr(node, "target", None)]:
                if target is not None:
                    names.update(_targets(target))
        for sub in ast.walk(node) if isinstance(node, ast.stmt) else ():
            if isinstance(sub, ast.NamedExpr):
                names.update(_targets(sub.target))
    return None if "__getattr__" in names else names


def _targets(target: ast.AST) -> set[str]:
    """The names an assignment target binds."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _parts(spec: str) -> tuple[str, str]:
    parts = split_spec(spec)
    if parts is None:
        raise EvalError(
            f"policy {spec!r}: expected module:factory or path/to/file.py:factory "
            "(factory: a Python name)"
        )
    return parts


def _file(spec: str, where: str) -> Path:
    path = Path(where).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.is_file():
        what = "not a regular file" if path.exists() else "no such file"
        raise EvalError(f"policy {spec!r}: {where}: {what} (relative to {Path.cwd()})")
    if path.suffix != ".py":
        raise EvalError(f"policy {spec!r}: {where}: a policy file ends in .py")
    return path


def _load_file(spec: str, where: str) -> Any:
    path = _file(spec, where).resolve()
    for module in list(sys.modules.values()):  # loaded before: the same module object
        if getattr(module, "__file__", None) == str(path):
            return module
    name = path.stem if path.stem.isidentifier() else "rsb_user_policy"
    if name in sys.modules:
        name = f"rsb_user_policy_{abs(hash(str(path)))}"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    loader = importlib.util.spec_from_file_location(name, path)
    if loader is None or loader.loader is None:
        raise EvalError(f"policy {spec!r}: {where}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader)
    sys.modules[name] = module
    try:
        loader.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_factory(spec: str) -> Callable[[], Any]:
    """The factory ``spec`` names, its module imported (runs the module's code).

    Raises:
        EvalError: for a module or file that is not there or a name that is not callable;
            whatever the module raises while it is imported.
    """
    where, attr = _parts(spec)
    if is_file_form(where):
        module = _load_file(spec, where)
    else:
        _with_current_folder(where)
        try:
            module = importlib.import_module(where)
        except ModuleNotFoundError as exc:
            raise EvalError(f"policy {spec!r}: cannot import {where!r} ({exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise EvalError(f"policy {spec!r}: {where} has no callable {attr!r}")
    return factory


def build_user_policy(spec: str) -> Policy:
    """Import the factory of ``spec``, call it and adapt what it returns.

    Raises:
        EvalError: see :func:`load_factory`, or for an object without ``act(obs)``;
            whatever the factory raises.
    """
    return adapt_policy(load_factory(spec)(), spec, f"{spec.rpartition(':')[2]}()")


def adapt_policy(made: Any, spec: str, what: str) -> Policy:
    """``made`` as a :class:`Policy` named ``spec``: itself, or a :class:`UserPolicy` around
    any object with ``act(obs)`` (or ``act_batch`` and ``reset_slot``); ``what`` names where
    it came from in errors (e.g. ``"make()"``).

    Raises:
        EvalError: for an object without ``act(obs)``, or a batched one without
            ``reset_slot``.
    """
    if isinstance(made, Policy):
        made.name = spec
        return made
    batched = callable(getattr(made, "act_batch", None))
    if batched and not callable(getattr(made, "reset_slot", None)):
        raise EvalError(
            f"policy {spec!r}: {what} returned an object with act_batch(obs, slots) but "
            "without reset_slot(slot, env, obs, info); a batched policy needs both"
        )
    if not (batched or callable(getattr(made, "act", None))):
        raise EvalError(f"policy {spec!r}: {what} returned an object without act(obs)")
    return UserPolicy(spec, made)


class UserPolicy(Policy):
    """Adapts a user's object with ``act`` or ``act_batch`` (and optionally
    reset/done/text/features/status/close, the batched ``reset_slot``/``slot_*``,
    ``cameras``, ``batch_size``, and the ``simulator``/``privileged`` declarations of
    :class:`Policy`)."""

    def __init__(self, name: str, inner: Any) -> None:
        self.name = name
        self.inner = inner
        self.cameras = tuple(getattr(inner, "cameras", DEFAULT_CAMERAS))
        self.simulator = bool(getattr(inner, "simulator", False))
        self.privileged = bool(getattr(inner, "privileged", False))
        self.batch_size = int(getattr(inner, "batch_size", MAX_BATCH))

    @property
    def batched(self) -> bool:
        """The user's object has ``act_batch`` (and ``reset_slot``)."""
        return callable(getattr(self.inner, "act_batch", None))

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Forward to the user's ``reset`` if it has one (a batched one's slot 0 else)."""
        if hasattr(self.inner, "reset"):
            self.inner.reset(env, obs, info)
        elif self.batched:
            self.inner.reset_slot(0, env, obs, info)

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """Forward to the user's ``act`` (a batched one's ``act_batch`` in slot 0 else)."""
        if not hasattr(self.inner, "act") and self.batched:
            (action,) = self.inner.act_batch([obs], [0])
            if isinstance(action, BaseException):
                raise action
            return np.asarray(action, dtype=np.float64)
        return np.asarray(self.inner.act(obs), dtype=np.float64)

    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Forward to the user's ``reset_slot``."""
        self.inner.reset_slot(slot, env, obs, info)

    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """Forward to the user's ``act_batch``."""
        return list(self.inner.act_batch(obs, slots))

    def slot_done(self, slot: int) -> bool:
        """The user's ``slot_done(slot)``, False if absent."""
        fn = getattr(self.inner, "slot_done", None)
        return bool(fn(slot)) if callable(fn) else False

    def slot_text(self, slot: int) -> str | None:
        """The user's ``slot_text(slot)``, None if absent."""
        fn = getattr(self.inner, "slot_text", None)
        value = fn(slot) if callable(fn) else None
        return None if value is None else str(value)

    def slot_features(self, slot: int) -> Any:
        """The user's ``slot_features(slot)`` (per-layer features of that slot's last
        action), None if absent."""
        fn = getattr(self.inner, "slot_features", None)
        return fn(slot) if callable(fn) else None

    def slot_status(self, slot: int) -> PolicyStatus:
        """The user's ``slot_status(slot)`` if it returns a :class:`PolicyStatus`."""
        fn = getattr(self.inner, "slot_status", None)
        value = fn(slot) if callable(fn) else None
        return value if isinstance(value, PolicyStatus) else PolicyStatus()

    @property
    def done(self) -> bool:
        """The user's ``done`` (a batched one's ``slot_done(0)`` without it), False if absent."""
        if not hasattr(self.inner, "done") and self.batched:
            return self.slot_done(0)
        return bool(getattr(self.inner, "done", False))

    @property
    def text(self) -> str | None:
        """The user's ``text`` (a rationale written with the last action; a batched one's
        ``slot_text(0)`` without it), None if absent."""
        if not hasattr(self.inner, "text") and self.batched:
            return self.slot_text(0)
        value = getattr(self.inner, "text", None)
        return None if value is None else str(value)

    @property
    def offers_features(self) -> bool:
        """The user's object has a ``features`` attribute or method (or, batched, a
        ``slot_features`` method)."""
        return offers_features(self.inner) or callable(getattr(self.inner, "slot_features", None))

    @property
    def features(self) -> Any:
        """The user's ``features`` (attribute, or what its method returns; a batched one's
        ``slot_features(0)`` without it), None if absent."""
        if not offers_features(self.inner) and self.batched:
            return self.slot_features(0)
        return read_features(self.inner)

    def status(self) -> PolicyStatus:
        """The user's ``status()`` (a batched one's ``slot_status(0)`` without it) if it
        returns a :class:`PolicyStatus`."""
        if not hasattr(self.inner, "status") and self.batched:
            return self.slot_status(0)
        status = getattr(self.inner, "status", None)
        value = status() if callable(status) else None
        return value if isinstance(value, PolicyStatus) else PolicyStatus()

    def close(self) -> None:
        """Forward to the user's ``close`` if it has one."""
        if hasattr(self.inner, "close"):
            self.inner.close()
