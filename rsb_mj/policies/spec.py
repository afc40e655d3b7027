"""Build a policy from its command-line spec.

Specs::

    noop | expert | random-grasp | nearest          built in
    try-all | nearest-to-zone | fixed-letter        built in, language-blind
    fixed-position                                  (rsb_mj.policies.blind)
    openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]       an openpi policy server (websocket)
    package.module:factory                          your own: factory() returns a policy

A user's factory may return any object with ``act(obs)``; ``reset(env, obs, info)``,
``done``, ``text`` (a rationale written with the last action) and ``close()`` are optional,
and a ``cameras`` attribute names the cameras it reads (default: all three).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError
from rsb_mj.policies.base import Policy
from rsb_mj.policies.blind import (
    FixedLetterPolicy,
    FixedPositionPolicy,
    NearestToZonePolicy,
    TryAllPolicy,
)
from rsb_mj.policies.noop import NoopPolicy
from rsb_mj.policies.openpi import OpenPiPolicy
from rsb_mj.policies.scripted import ExpertPolicy, NearestPolicy, RandomGraspPolicy

#: Built-in policy name -> class.
BUILTIN: dict[str, Callable[[], Policy]] = {
    "noop": NoopPolicy,
    "expert": ExpertPolicy,
    "random-grasp": RandomGraspPolicy,
    "nearest": NearestPolicy,
    "try-all": TryAllPolicy,
    "nearest-to-zone": NearestToZonePolicy,
    "fixed-letter": FixedLetterPolicy,
    "fixed-position": FixedPositionPolicy,
}

_FORMS = (
    "noop, expert, random-grasp, nearest, try-all, nearest-to-zone, fixed-letter, "
    "fixed-position, openpi:HOST:PORT[:HORIZON][,KEY=VALUE...], module:factory"
)


class UserPolicy(Policy):
    """Adapts a user's object with ``act`` (and optionally reset/done/close/cameras)."""

    def __init__(self, name: str, inner: Any) -> None:
        self.name = name
        self.inner = inner
        self.cameras = tuple(getattr(inner, "cameras", ("head", "left_wrist", "right_wrist")))

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Forward to the user's ``reset`` if it has one."""
        if hasattr(self.inner, "reset"):
            self.inner.reset(env, obs, info)

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """Forward to the user's ``act``."""
        return np.asarray(self.inner.act(obs), dtype=np.float64)

    @property
    def done(self) -> bool:
        """The user's ``done``, False if absent."""
        return bool(getattr(self.inner, "done", False))

    @property
    def text(self) -> str | None:
        """The user's ``text`` (a rationale written with the last action), None if absent."""
        value = getattr(self.inner, "text", None)
        return None if value is None else str(value)

    def close(self) -> None:
        """Forward to the user's ``close`` if it has one."""
        if hasattr(self.inner, "close"):
            self.inner.close()


def _openpi(spec: str) -> Policy:
    return OpenPiPolicy.from_spec(spec)


def _user(spec: str) -> Policy:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EvalError(f"policy {spec!r}: cannot import {module_name!r} ({exc})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise EvalError(f"policy {spec!r}: {module_name} has no callable {attr!r}")
    made = factory()
    if isinstance(made, Policy):
        made.name = spec
        return made
    if not callable(getattr(made, "act", None)):
        raise EvalError(f"policy {spec!r}: {attr}() returned an object without act(obs)")
    return UserPolicy(spec, made)


def make_policy(spec: str) -> Policy:
    """The policy named by ``spec`` (see the module docstring).

    Raises:
        EvalError: for an unknown name or a malformed spec, listing the valid forms.
    """
    if spec in BUILTIN:
        return BUILTIN[spec]()
    if spec.startswith("openpi:"):
        return _openpi(spec)
    module_name, sep, attr = spec.partition(":")
    if sep and module_name and attr.isidentifier():
        return _user(spec)
    raise EvalError(f"unknown policy {spec!r}; valid choices: {_FORMS}")


def policy_cameras(spec: str) -> tuple[str, ...]:
    """Cameras the policy of ``spec`` reads, without connecting or importing user code."""
    if spec in BUILTIN:
        return ()
    if spec.startswith("openpi:"):
        return OpenPiPolicy.cameras
    return make_policy(spec).cameras
