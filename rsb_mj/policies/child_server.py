"""The policy process's side of :mod:`rsb_mj.policies.child`: build the policy, serve it.

Started by :class:`~rsb_mj.policies.child.ChildPolicy` as ``python -c ...`` with the parent's
``sys.path``; :func:`main` reads requests from the socket until ``close`` or end of file.
Everything the policy's code raises (``BaseException``: ``KeyboardInterrupt`` and
``SystemExit`` too) is answered as an ``error`` reply and the loop goes on; what the policy
is handed is rebuilt from the frames alone (nothing else of rsb's reaches this process).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import resource
import socket
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from rsb_mj.env.views import PolicyEnv
from rsb_mj.errors import describe
from rsb_mj.policies import frames
from rsb_mj.policies.base import MAX_BATCH, Policy, PolicyStatus
from rsb_mj.policies.features import check_features, read_features
from rsb_mj.policies.lerobot import LeRobotPolicy
from rsb_mj.policies.user import build_user_policy
from rsb_mj.procs import worker_init

#: The protocol this module speaks (as :data:`rsb_mj.policies.child.PROTOCOL`).
PROTOCOL = 1
#: Longest ``text`` sent back [chars] (the runner keeps far less).
MAX_TEXT_CHARS = 65536


class _Raised(Exception):
    """The policy's code raised; ``reply`` is the error to send."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(reply["error"])
        self.reply = reply


def decode_space(value: Any) -> Any:
    """The gymnasium space of an :func:`~rsb_mj.policies.child.encode_space` value."""
    if value is None:
        return None
    # heavy: gymnasium, only for a policy that asks for its spaces
    from gymnasium import spaces

    kind = value.get("space")
    if kind == "Box":
        return spaces.Box(value["low"], value["high"], dtype=np.dtype(value["dtype"]))
    if kind == "Dict":
        return spaces.Dict({k: decode_space(v) for k, v in value["spaces"].items()})
    if kind == "Discrete":
        return spaces.Discrete(int(value["n"]), start=int(value["start"]))
    raise ValueError(f"unknown space {kind!r}")


class Server:
    """Serves one policy over ``sock`` (see :mod:`rsb_mj.policies.child` for the messages).

    Args:
        sock: this process's end of the socket pair.
        escape_fd: write end of the escape pipe (a forked copy reports itself there).
    """

    def __init__(self, sock: socket.socket, escape_fd: int) -> None:
        self.sock = sock
        self.escape_fd = escape_fd
        self.pid = os.getpid()
        self.policy: Policy | None = None
        self.forks = 0
        os.register_at_fork(after_in_parent=self._count_fork)

    def _count_fork(self) -> None:
        self.forks += 1

    def _stop_escaped_copy(self) -> None:
        """In a forked copy that returned here: report to rsb and exit at once."""
        if os.getpid() != self.pid:
            try:
                os.write(self.escape_fd, f"{os.getpid()}\n".encode())
            finally:
                os._exit(0)

    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run policy code; what it raises becomes an ``error`` reply."""
        try:
            return fn()
        except BaseException as exc:  # the policy's code: nothing of it ends this loop
            self._stop_escaped_copy()
            raise _Raised({"type": "error", "what": what, "error": describe(exc),
                           "kind": "policy"}) from None  # fmt: skip
        finally:
            self._stop_escaped_copy()

    def _hello(self, msg: dict[str, Any]) -> dict[str, Any]:

        if msg.get("protocol") != PROTOCOL:
            return _protocol_error(f"protocol {msg.get('protocol')!r}; this process speaks "
                                   f"{PROTOCOL}")  # fmt: skip
        spec = str(msg.get("spec"))
        if spec.startswith("lerobot:"):  # a checkpoint in a sealed run's sandbox
            policy = self._call("building it", lambda: LeRobotPolicy(spec))
        else:
            policy = self._call("building it", lambda: build_user_policy(spec))
        self.policy = policy
        offers = self._call("building it", lambda: bool(policy.offers_features))
        capabilities: dict[str, Any] = {"features": offers}
        if self._call("building it", lambda: bool(policy.batched)):
            size = self._call("building it", lambda: int(policy.batch_size))
            capabilities["batch"] = max(1, min(size, MAX_BATCH))
        return {
            "type": "ready",
            "protocol": PROTOCOL,
            "name": spec,
            "cameras": list(self._call("building it", lambda: tuple(policy.cameras))),
            "simulator": bool(policy.simulator),
            "privileged": bool(policy.privileged),
            "capabilities": capabilities,
        }

    def _state(self, policy: Policy, slot: int = 0) -> bool:
        if policy.batched:
            return bool(self._call("done", lambda: policy.slot_done(slot)))
        return bool(self._call("done", lambda: policy.done))

    def _reset(self, msg: dict[str, Any], policy: Policy) -> dict[str, Any]:

        view = msg["env"]
        env = PolicyEnv(
            action_space=decode_space(view["action_space"]),
            observation_space=decode_space(view["observation_space"]),
            candidates=tuple(view["candidates"]),
            control_hz=float(view["control_hz"]),
            instruction=str(view["instruction"]),
        )
        obs, info, slot = msg["obs"], msg["info"], int(msg.get("slot", 0))
        if policy.batched:
            self._call("reset()", lambda: policy.reset_slot(slot, env, obs, info))
        else:
            self._call("reset()", lambda: policy.reset(env, obs, info))
        return {"type": "state", "slot": slot, "done": self._state(policy, slot)}

    def _act(self, msg: dict[str, Any], policy: Policy) -> dict[str, Any]:
        obs, slot = msg["obs"], int(msg.get("slot", 0))
        if policy.batched:  # one item of a batch
            (item,) = self._act_batch({"items": [{"slot": slot, "obs": obs}]}, policy)["items"]
            if "error" in item:
                return {"type": "error", "what": item["what"], "error": item["error"],
                        "kind": "policy"}  # fmt: skip
            return {"type": "action", **item}
        action = self._call("act()", lambda: np.asarray(policy.act(obs), dtype=np.float64))
        text = self._call("text", lambda: policy.text)
        return {
            "type": "action",
            "slot": slot,
            "action": action,
            "done": self._state(policy),
            "text": None if text is None else str(text)[-MAX_TEXT_CHARS:],
        }

    def _features(self, msg: dict[str, Any], policy: Policy) -> dict[str, Any]:
        slot = int(msg.get("slot", 0))
        who = f"policy {policy.name}"
        if policy.batched:
            value = self._call("features", lambda: check_features(policy.slot_features(slot), who))
        else:
            value = self._call("features", lambda: check_features(read_features(policy), who))
        return {"type": "features", "slot": slot, "features": value}

    def _act_batch(self, msg: dict[str, Any], policy: Policy) -> dict[str, Any]:
        """One ``act_batch`` call for the request's items; an item the policy failed is
        ``{slot, what, error}`` (the others are answered)."""
        items = msg["items"]
        slots = [int(item["slot"]) for item in items]
        obs = [item["obs"] for item in items]
        actions = self._call("act_batch()", lambda: list(policy.act_batch(obs, slots)))
        if len(actions) != len(items):
            return {"type": "error", "what": "act_batch()", "kind": "policy",
                    "error": f"ValueError: returned {len(actions)} actions for {len(items)} "
                    "observations"}  # fmt: skip
        out = []
        for slot, action in zip(slots, actions, strict=True):
            try:
                if isinstance(action, BaseException):
                    raise _Raised({"what": "act_batch()", "error": describe(action)})
                array = self._call("act_batch()", lambda a=action: np.asarray(a, dtype=np.float64))
                done = self._state(policy, slot)
                text = self._call("text", lambda s=slot: policy.slot_text(s))
            except _Raised as raised:
                out.append({"slot": slot, "what": raised.reply["what"],
                            "error": raised.reply["error"]})  # fmt: skip
                continue
            out.append({
                "slot": slot,
                "action": array,
                "done": done,
                "text": None if text is None else str(text)[-MAX_TEXT_CHARS:],
            })  # fmt: skip
        return {"type": "actions", "items": out}

    def _status(self, msg: dict[str, Any], policy: Policy) -> dict[str, Any]:
        slot = int(msg.get("slot", 0))
        if policy.batched:
            status = self._call("status()", lambda: policy.slot_status(slot))
        else:
            status = self._call("status()", policy.status)
        if not isinstance(status, PolicyStatus):
            status = PolicyStatus()
        return {
            "type": "status",
            "slot": slot,
            "phase": str(status.phase),
            "failure": status.failure,
            "warnings": [str(w) for w in status.warnings],
        }

    def handle(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The reply to one request."""
        kind = msg["type"]
        try:
            if kind == "hello":
                return self._hello(msg)
            policy = self.policy
            if policy is None and kind != "close":
                return _protocol_error(f"{kind!r} before the policy was built (hello)")
            if kind == "reset":
                return self._reset(msg, policy)
            if kind == "act":
                return self._act(msg, policy)
            if kind == "act_batch" and policy.batched:
                return self._act_batch(msg, policy)
            if kind == "status":
                return self._status(msg, policy)
            if kind == "features":
                return self._features(msg, policy)
            if kind == "close":
                if policy is not None:
                    self._call("close()", policy.close)
                return {"type": "bye"}
        except _Raised as raised:
            return raised.reply
        return _protocol_error(f"unknown request type {kind!r}")

    def serve(self) -> None:
        """Answer requests until ``close`` or end of file."""
        while True:
            try:
                msg = frames.recv(self.sock)
            except frames.Closed:
                return
            except frames.FrameError as exc:
                self._send(_protocol_error(str(exc)))
                return
            self.forks = 0
            try:
                reply = self.handle(msg)
            except (KeyError, TypeError, ValueError) as exc:  # a malformed request
                reply = _protocol_error(f"malformed {msg.get('type')!r} request ({describe(exc)})")
            self._stop_escaped_copy()
            if self.forks:
                reply["forked"] = self.forks
            self._send(reply)
            if msg["type"] == "close":
                return

    def _send(self, reply: dict[str, Any]) -> None:
        try:
            frames.send(self.sock, reply)
        except frames.Closed:
            raise SystemExit(0) from None
        except frames.FrameError as exc:  # e.g. a status the policy filled with objects
            frames.send(self.sock, {"type": "error", "what": reply.get("type", "?"),
                                    "error": describe(exc), "kind": "policy"})  # fmt: skip


def _protocol_error(message: str) -> dict[str, Any]:
    return {"type": "error", "what": "the request", "error": message, "kind": "protocol"}


#: ``CAP_SYS_PTRACE`` from ``<linux/capability.h>``.
_CAP_SYS_PTRACE = 19
#: ``PR_CAPBSET_DROP`` and ``PR_SET_NO_NEW_PRIVS`` from ``<linux/prctl.h>``.
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 24, 38
#: ``_LINUX_CAPABILITY_VERSION_3``.
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = (("version", ctypes.c_uint32), ("pid", ctypes.c_int))


class _CapData(ctypes.Structure):
    _fields_ = (
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    )


def drop_ptrace() -> bool:
    """Linux: give up reading other processes' memory for good (this process and what it
    execs): no new privileges, ``CAP_SYS_PTRACE`` dropped from the bounding, effective,
    permitted and inheritable sets. rsb's process is non-dumpable too
    (:func:`~rsb_mj.policies.child.forbid_memory_access`), so even a policy running as root
    cannot read it through ``/proc/<pid>/mem``. True when done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(_PR_CAPBSET_DROP, _CAP_SYS_PTRACE, 0, 0, 0)  # EPERM unless privileged
        header, data = _CapHeader(_CAP_VERSION_3, 0), (_CapData * 2)()
        if libc.capget(ctypes.byref(header), data) != 0:
            return False
        keep = ~(1 << _CAP_SYS_PTRACE) & 0xFFFFFFFF
        data[0].effective &= keep
        data[0].permitted &= keep
        data[0].inheritable &= keep
        return libc.capset(ctypes.byref(header), data) == 0
    except (OSError, AttributeError):
        return False


def set_limits(limits: dict[str, int]) -> None:
    """Lower this process's soft and hard limits (``resource`` name -> value): without
    ``CAP_SYS_RESOURCE`` (the sandbox drops it) nothing in the process can raise them."""

    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))


def become(uid: int) -> None:
    """Turn this root process into user and group ``uid`` (no supplementary group) for
    good: every user and group id changes, which clears its capabilities.

    Raises:
        OSError: when the switch is refused (no ``CAP_SETUID``/``CAP_SETGID``).
    """
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError(f"still user {os.geteuid()} after switching to {uid}")


def enter_sandbox(limits: dict[str, int] | None = None, user: int | None = None) -> None:
    """What a policy process does before any policy code: give up ``ptrace``, take the
    sandbox's limits, and (a sealed run as root, :mod:`rsb_mj.policies.sandbox`) become
    user ``user``."""
    drop_ptrace()
    set_limits(limits or {})
    if user is not None:
        become(user)


def main(
    sock_fd: int,
    escape_fd: int,
    parent_pid: int,
    limits: dict[str, int] | None = None,
    user: int | None = None,
) -> None:
    """Entry point of a policy process: :func:`enter_sandbox`, end with rsb's process (or
    the sandbox's first process; after the switch of user, which would clear that
    signal), serve until closed."""

    enter_sandbox(limits, user)
    worker_init(parent_pid)
    sock = socket.socket(fileno=sock_fd)
    try:
        Server(sock, escape_fd).serve()
    except OSError as exc:  # the policy's code closed (or broke) this process's socket
        print(f"rsb policy process: its socket to rsb failed ({exc.strerror or exc}): the "
              "policy's code closed it; the episode is its failure", file=sys.stderr)  # fmt: skip
        raise SystemExit(1) from None
    finally:
        with contextlib.suppress(OSError):  # already closed by the policy's code
            sock.close()
