"""Build a policy from its command-line spec.

Specs::

    noop | expert | random-grasp | nearest          built in
    random                                          random joint targets (any task)
    try-all | nearest-to-zone | fixed-letter        built in, language-blind
    fixed-position                                  (rsb_mj.policies.blind)
    openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]       an openpi policy server (websocket)
    lerobot:PATH[,KEY=VALUE...]                     a LeRobot checkpoint (rsb_mj.policies.lerobot)
    module:factory | path/to/file.py:factory        your own, in a policy process
    inprocess:module:factory                        your own, in rsb's process (debugging)

Your own policy (see :mod:`rsb_mj.policies.user` for what ``factory()`` may return and how
the module or file is found) runs in a policy process of its own and is handed only what
the policy interface promises (:mod:`rsb_mj.policies.child`). ``inprocess:`` builds it in
rsb's process instead, for a debugger or a policy that declares ``simulator = True`` or
``privileged = True``: nothing then stops it from reading the answer, so its records say
``privileged: true`` and its report rows carry the privileged mark (never ranked); the
``inprocess:`` prefix stays part of the policy's name in every record.

The forms are a registry: a new kind of spec is one :class:`SpecForm` in :data:`PREFIXES`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rsb_mj.errors import EvalError
from rsb_mj.policies import lerobot, sandbox
from rsb_mj.policies.base import Policy
from rsb_mj.policies.blind import (
    FixedLetterPolicy,
    FixedPositionPolicy,
    NearestToZonePolicy,
    TryAllPolicy,
)
from rsb_mj.policies.child import ChildPolicy
from rsb_mj.policies.noop import NoopPolicy
from rsb_mj.policies.openpi import OpenPiPolicy
from rsb_mj.policies.random_actions import RandomPolicy
from rsb_mj.policies.scripted import ExpertPolicy, NearestPolicy, RandomGraspPolicy
from rsb_mj.policies.user import (
    build_user_policy,
    check_user_spec,
    factory_hint,
    is_file_form,
    split_spec,
)

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
    "random": RandomPolicy,
}

#: The spec prefix of user code built in rsb's own process.
IN_PROCESS = "inprocess:"

__all__ = [
    "BUILTIN",
    "IN_PROCESS",
    "LENT",
    "PREFIXES",
    "SpecForm",
    "builds_in_workers",
    "check_spec",
    "make_policy",
    "policy_cameras",
]


@dataclass(frozen=True)
class SpecForm:
    """One kind of policy spec.

    Attributes:
        usage: the form as the valid choices list it (e.g. ``"openpi:HOST:PORT"``).
        build: the policy of a spec of this form.
        check: validates a spec before any episode, running none of the policy's code and
            opening no connection.
        in_workers: built only where episodes run (its code may be slow to load, or the
            user's): the runner neither builds it nor runs its preflight beforehand.
        sandboxed: its policy may run in a policy process: ``build`` also takes the
            sandbox settings (:func:`make_policy`'s ``settings``).
    """

    usage: str
    build: Callable[..., Policy]
    check: Callable[[str], None]
    in_workers: bool = False
    sandboxed: bool = False


def _build_and_close(spec: str) -> None:
    make_policy(spec).close()


def _openpi(spec: str) -> Policy:
    return OpenPiPolicy.from_spec(spec)


def _lerobot(name: str) -> Callable[[str], Any]:
    """``rsb_mj.policies.lerobot.<name>(spec)``, imported when first called."""

    def call(spec: str) -> Any:

        return getattr(lerobot, name)(spec)

    return call


def _lerobot_policy(spec: str, settings: sandbox.Sandbox | None = None) -> Policy:
    """A ``lerobot:`` checkpoint: in rsb's process, or in a sealed run (whose policy code
    runs only in the sandbox) in a sandboxed policy process like a policy file, the
    checkpoint's folder bound read-only. The convention the dataset names is read here
    and handed to the process in the spec it builds from (the dataset is not in its
    sight), so both ways run the same policy."""

    if not (sandbox.current() if settings is None else settings).sealed:
        return lerobot.LeRobotPolicy(spec)

    parsed = lerobot.parse_spec(spec)
    # the real path: only it is bound (lerobot-train's checkpoints/last is a symlink)
    options = spec[len("lerobot:") :].split(",")[1:]
    build = ",".join([f"lerobot:{os.path.realpath(parsed.path)}", *options])
    if parsed.convention is None:
        build += f",convention={lerobot.training_convention(parsed.path)}"
    policy = ChildPolicy(build, settings=settings)
    policy.name = spec
    return policy


def _child(spec: str, settings: sandbox.Sandbox | None = None) -> Policy:

    return ChildPolicy(spec, settings=settings)


def _user_part(spec: str) -> str:
    inner = spec[len(IN_PROCESS) :]
    if split_spec(inner) is None:
        raise EvalError(
            f"policy {spec!r}: expected inprocess:module:factory or "
            "inprocess:path/to/file.py:factory"
        )
    return inner


#: Policy objects lent by :func:`rsb_mj.evaluate` for the length of its run: label
#: (``inprocess:NAME``) -> the policy. Such a spec builds to the object itself.
LENT: dict[str, Policy] = {}


def _in_process(spec: str) -> Policy:
    policy = LENT[spec] if spec in LENT else build_user_policy(_user_part(spec))
    policy.name = spec
    policy.user_in_process = True
    return policy


def _check_in_process(spec: str) -> None:
    if spec not in LENT:
        check_user_spec(_user_part(spec))


#: Spec prefix -> its form, tried in order after the built-in names.
PREFIXES: dict[str, SpecForm] = {
    "openpi:": SpecForm("openpi:HOST:PORT[:HORIZON][,KEY=VALUE...]", _openpi, _build_and_close),
    "lerobot:": SpecForm(
        "lerobot:PATH[,KEY=VALUE...]",
        _lerobot_policy,
        _lerobot("check_spec"),
        in_workers=True,
        sandboxed=True,
    ),
    IN_PROCESS: SpecForm(
        "inprocess:module:factory", _in_process, _check_in_process, in_workers=True
    ),
}
#: A user's ``module:factory`` or ``path/to/file.py:factory`` (no prefix).
USER = SpecForm(
    "module:factory, path/to/file.py:factory",
    _child,
    check_user_spec,
    in_workers=True,
    sandboxed=True,
)
_BUILTIN_FORM = SpecForm("built in", lambda spec: BUILTIN[spec](), _build_and_close)


def spec_form(spec: str) -> SpecForm:
    """The form of ``spec``.

    Raises:
        EvalError: for a spec of no form, listing the valid ones.
    """
    if spec in BUILTIN:
        return _BUILTIN_FORM
    for prefix, form in PREFIXES.items():
        if spec.startswith(prefix):
            return form
    if split_spec(spec) is not None:
        return USER
    if is_file_form(spec.rstrip(":")):
        raise EvalError(f"policy {spec!r}: {factory_hint(spec.rstrip(':'))}")
    forms = ", ".join([*BUILTIN, *(f.usage for f in PREFIXES.values()), USER.usage])
    raise EvalError(f"unknown policy {spec!r}; valid choices: {forms}")


def make_policy(spec: str, settings: sandbox.Sandbox | None = None) -> Policy:
    """The policy named by ``spec`` (see the module docstring).

    Args:
        spec: the policy spec.
        settings: the sandbox settings a policy process runs with (a run's, handed on by
            its jobs); None: this process's (:func:`rsb_mj.policies.sandbox.current`).

    Raises:
        EvalError: for an unknown name or a malformed spec, listing the valid forms;
            PolicyError when a user's policy cannot be built.
    """
    form = spec_form(spec)
    return form.build(spec, settings) if form.sandboxed else form.build(spec)


def check_spec(spec: str) -> None:
    """Check ``spec`` before any episode runs, without running a user's code or connecting.

    Raises:
        EvalError: for an unknown or malformed spec, or a user module or file not there.
    """
    spec_form(spec).check(spec)


def builds_in_workers(spec: str) -> bool:
    """The policy of ``spec`` is built only where episodes run (see :class:`SpecForm`)."""
    return spec_form(spec).in_workers


def policy_cameras(spec: str) -> tuple[str, ...]:
    """Cameras the policy of ``spec`` reads, without connecting (a user's policy is built)."""
    if spec in BUILTIN:
        return ()
    if spec.startswith("openpi:"):
        return OpenPiPolicy.cameras
    policy = make_policy(spec)
    try:
        return tuple(policy.cameras)
    finally:
        policy.close()
