"""User policies in a process of their own, talking to rsb over a socket (protocol 1).

``--policy module:factory`` (or ``path/to/file.py:factory``) builds the policy in a *policy
process*: a fresh Python interpreter (``subprocess``, never ``fork``: it inherits none of
rsb's memory) that imports the factory, calls it and serves the policy's methods. All it
ever receives is what :mod:`rsb_mj.policies.base` promises: the observation, the
instruction, the spaces, the candidate names, the control rate and the public ``info``
(``instruction``, ``candidates``, ``step``, ``signals``, ``sim``), copied over the socket.
Walking the interpreter's frames (``sys._getframe``) or its objects (``gc.get_objects``)
finds nothing of the episode. Nor can the policy read rsb's memory through
``/proc/<pid>/mem`` or ``ptrace`` (Linux): rsb's process turns itself non-dumpable when it
starts one (``PR_SET_DUMPABLE``), and the policy process gives up ``CAP_SYS_PTRACE`` and new
privileges before it imports any of the policy's code (so this holds for root too). What
stays public stays readable: the frozen episode tables are files of the repository.

Whatever the policy's code does becomes at worst a fault of the episode
(``error_kind == "policy"``: a scored failure, :mod:`rsb_mj.evaluation.faults`), and the
run goes on with a fresh policy process: it raises
anything (``KeyboardInterrupt`` and ``SystemExit`` included), its process ends
(``os._exit``, a crash in native code, killed), it breaks the protocol, or it forks and lets
the copy return into the server loop (the copy is stopped before it can answer; see
*Forks*). The process runs in a session of its own (a Ctrl-C at the terminal reaches rsb
alone, which then stops the policy), ends with rsb's process (``PR_SET_DEATHSIG`` and a
watchdog, as pool workers do: :mod:`rsb_mj.procs`), and ``close`` kills its whole process
group.

Output: the process's stdout and stderr are one pipe that rsb reads (a thread per policy
process, :func:`relay_output`) and copies to its own stderr, each line prefixed ``[policy
SPEC] ``, never rsb's own descriptors: a policy that reopens ``/proc/self/fd/2`` reaches
that pipe, not rsb's log, and cannot truncate it (issue 45).

Protocol
--------
Transport: one end of a Unix stream socket pair each; every message is one frame of
:mod:`rsb_mj.policies.frames` (openpi's msgpack-numpy format, never pickle), a
map with a ``type``. rsb sends one request and reads one reply, strictly in turn.

Requests (rsb -> policy process) and their replies:

``hello`` ``{protocol: 1, spec}``
    Build the policy from ``spec``. Reply ``ready`` ``{protocol, name, cameras: [str],
    simulator: bool, privileged: bool, capabilities: {features: bool, batch?: B}}``. rsb
    refuses a policy that declares ``simulator`` or ``privileged`` (neither the simulator
    nor the answer leaves rsb's process; run such a class with ``inprocess:``).
    ``capabilities.features`` is true when the policy has a ``features`` attribute or
    method (:mod:`rsb_mj.policies.features`; a batched one: ``slot_features``); an absent
    key means false.
``reset`` ``{slot, env, obs, info}``
    Start the episode of ``slot``. ``env``: ``{action_space, observation_space,
    candidates, control_hz, instruction}`` (rebuilt as a :class:`~rsb_mj.env.views.
    PolicyEnv`; spaces as ``{space: "Box", low, high, dtype}``, ``{space: "Dict", spaces:
    {name: ...}}``, ``{space: "Discrete", n, start}`` or null). Reply ``state`` ``{slot,
    done}``.
``act`` ``{slot, obs}``
    The next action. Reply ``action`` ``{slot, action, done, text}``: ``action`` a float64
    array (14,) or (H, 14) (converted in the policy process with ``np.asarray(...,
    float64)``, so a string or a ragged list fails there, as ``act() raised ...``);
    ``done`` and ``text`` read right after ``act``.
``act_batch`` ``{items: [{slot, obs}, ...]}`` (only when ``capabilities.batch`` is B)
    One ``act_batch`` call of the policy for at most B items. Reply ``actions`` ``{items:
    [...]}``, one item per request item in order: ``{slot, action, done, text}`` as
    ``action`` above, or ``{slot, what, error}`` for an episode the policy failed (an
    exception in its place in ``act_batch``'s list, an action that is not numbers); the
    call raising is an ``error`` reply (every item fails).
``status`` ``{slot}``
    Reply ``status`` ``{slot, phase, failure, warnings}`` (a
    :class:`~rsb_mj.policies.base.PolicyStatus`).
``features`` ``{slot}``
    Sent only to a process that announced ``capabilities.features``, and only after an
    ``act`` (or ``act_batch`` item) of that slot whose features ``rsb eval --features``
    stores. Reply ``features`` ``{slot,
    features}``: the policy's per-layer features of that ``act``, read at this request (a
    map layer name -> float32 1-D array, checked in the policy process with
    :func:`~rsb_mj.policies.features.check_features`), or null for none. Nothing is sent
    back to the policy: it is never told which acts were asked for.
``close`` ``{}``
    Call the policy's ``close``; reply ``bye`` ``{}``; the process exits.

Any request may be answered ``error`` ``{what, error, kind}``: ``what`` the call
(``"building it"``, ``"reset()"``, ``"act()"``, ``"act_batch()"``, ``"done"``, ``"text"``,
``"status()"``, ``"features"``, ``"close()"``), ``error`` its ``"Type: message"``, ``kind``
``"policy"`` (the policy's code raised) or ``"protocol"`` (a request it could not read).
``slot`` is the episode's slot: always 0 for a policy without ``capabilities.batch``; a
batched policy (``act_batch``, see :mod:`rsb_mj.policies.base`) holds one episode per slot,
reset per slot (``reset_slot``), its ``done``, ``text``, ``status`` and ``features`` per
slot (``slot_done``, ``slot_text``, ``slot_status``, ``slot_features``); a reply echoes the
slot. ``capabilities.batch`` is announced when the policy is batched: B = its
``batch_size`` (at most :data:`~rsb_mj.policies.base.MAX_BATCH`).

Forks: a reply carries ``forked: n`` when the policy's code called ``os.fork`` ``n`` times
during the request. A forked copy that returns into the server loop writes its pid to an
*escape pipe* held by rsb and exits at once; told of a fork, rsb waits up to
:data:`FORK_GRACE_S` on that pipe, and a pid there makes the episode a policy error. (A copy
that execs or exits by itself, as ``subprocess`` and multiprocessing workers do, is fine.)

Extending it (rules that keep protocol 1 peers working):

1. Receivers ignore keys they do not know; an absent optional key keeps its protocol 1
   meaning.
2. A request type the policy process does not know is answered ``error`` with ``kind:
   "protocol"`` (never by exiting), so rsb can fall back.
3. A new ability is announced by the policy process in ``ready.capabilities`` and used by
   rsb only when announced; optional reply content is asked for in ``hello``, so a process
   that does not know it never sees the request.
4. ``protocol`` changes only for a change that breaks these rules.

Built on these rules: **per-layer features** (issue 29): the ``features`` capability and
request above. A separate request, rather than a key of every ``action`` reply, so that
only the acts whose features are stored pay for them; with batched queries it stays per
slot (one ``features`` request per slot whose features are stored, after the
``act_batch``). **Batched queries** (issue 25): the ``batch`` capability and the
``act_batch`` request above.

Cost: one ``act`` round trip with three 224x224 RGB images is well under a millisecond
(``tools/bench_child_policy.py``; the figure is in docs/ecosystem.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from typing import IO, Any

import numpy as np

from rsb_mj.errors import PolicyError
from rsb_mj.policies import frames, sandbox
from rsb_mj.policies.base import MAX_BATCH, Policy, PolicyStatus
from rsb_mj.policies.lerobot import parse_spec
from rsb_mj.policies.user import is_file_form, split_spec

#: The protocol this module speaks (see the module docstring).
PROTOCOL = 1
#: Seconds a policy process may take to start and build the policy (its factory may load
#: a large checkpoint).
STARTUP_TIMEOUT_S = 600.0
#: Seconds rsb waits for a forked copy to report that it returned into the server loop.
FORK_GRACE_S = 1.0
#: Seconds ``close`` waits for the process to exit before killing it.
CLOSE_TIMEOUT_S = 5.0
#: Socket buffer size asked for [bytes] (the kernel may cap it): one observation fits.
SOCKET_BUFFER_BYTES = 4 << 20
#: Longest error text kept from a policy process [chars].
MAX_ERROR_CHARS = 2000
#: Most bytes of a policy process's output (stdout and stderr) rsb relays to its stderr; the
#: rest is read and dropped, so a policy that prints without end neither blocks nor floods.
MAX_OUTPUT_BYTES = 1 << 20
#: Longest line of a policy process's output relayed [chars] (longer lines are cut).
MAX_OUTPUT_LINE_CHARS = 1000
#: ``PR_SET_DUMPABLE`` from ``<linux/prctl.h>``.
_PR_SET_DUMPABLE = 4

_BOOT = (
    "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
    "from rsb_mj.policies.child_server import main; "
    "main(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), json.loads(sys.argv[5]), "
    "json.loads(sys.argv[6]))"
)


def forbid_memory_access() -> bool:
    """Linux: make this process non-dumpable, so other processes of the same user (a policy
    process) cannot read its memory (``/proc/<pid>/mem``, ``ptrace``); True when done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def encode_space(space: Any) -> Any:
    """A gymnasium space as a frame value (see the module docstring), None for None.

    Raises:
        PolicyError: for a space other than Box, Dict or Discrete.
    """
    if space is None:
        return None
    kind = type(space).__name__
    if kind == "Box":
        return {"space": "Box", "low": space.low, "high": space.high, "dtype": space.dtype.str}
    if kind == "Dict":
        return {"space": "Dict", "spaces": {k: encode_space(v) for k, v in space.spaces.items()}}
    if kind == "Discrete":
        return {"space": "Discrete", "n": int(space.n), "start": int(space.start)}
    raise PolicyError(f"cannot send a {kind} space to a policy process (Box, Dict, Discrete)")


def _view(env: Any) -> dict[str, Any]:
    """The public fields of a :class:`~rsb_mj.env.views.PolicyEnv` as a frame value."""
    return {
        "action_space": encode_space(getattr(env, "action_space", None)),
        "observation_space": encode_space(getattr(env, "observation_space", None)),
        "candidates": tuple(env.candidates),
        "control_hz": float(env.control_hz),
        "instruction": str(env.instruction),
    }


def _public(info: dict[str, Any]) -> dict[str, Any]:
    """The public ``info`` keys a policy process gets."""
    keys = ("instruction", "candidates", "step", "signals", "sim")
    return {k: info[k] for k in keys if k in info}


def _exit_cause(proc: subprocess.Popen, sandboxed: bool = False) -> str:
    try:
        code = proc.wait(timeout=CLOSE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "closed its connection"
    if sandboxed and code > 128:  # bwrap exits 128 + n when its command is killed by n
        code = 128 - code
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class ChildPolicy(Policy):
    """A user's policy served by a policy process (see the module docstring).

    Args:
        spec: ``module:factory`` or ``path/to/file.py:factory``.
        startup_timeout_s: seconds the process may take to build the policy.
        settings: the sandbox settings (a run's, from its job); None: this process's
            (:func:`rsb_mj.policies.sandbox.current`).

    Raises:
        PolicyError: when the policy cannot be built (its factory raised, the module is not
            there, the process died) or declares ``simulator``/``privileged``.
    """

    def __init__(
        self,
        spec: str,
        *,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        settings: sandbox.Sandbox | None = None,
    ) -> None:
        self.name = spec
        self.cameras: tuple[str, ...] = ()
        self.capabilities: dict[str, Any] = {}
        self._done = False
        self._text: str | None = None
        self._busy = False
        self._batch = 0
        #: Seconds the policy may take to answer one request once built (``reset``, ``act``,
        #: ``status``, ...; ``rsb eval --request-timeout``); None: no limit. A policy that
        #: hangs past it fails its episode as its own fault.
        self.request_timeout_s: float | None = None
        forbid_memory_access()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        for sock in (ours, theirs):
            for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, opt, SOCKET_BUFFER_BYTES)
        settings = sandbox.current() if settings is None else settings
        self.sandboxed = sandbox.check(settings, spec)
        path = [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
        argv = [sys.executable, "-c", _BOOT, json.dumps(path)]
        escape_r, escape_w = os.pipe()
        # In the sandbox the policy process's parent is the PID namespace's first process
        # (pid 1); when that one dies, the kernel ends every process of the namespace.
        parent = 1 if self.sandboxed else os.getpid()
        limits = json.dumps(settings.limits() if self.sandboxed else {})
        user = json.dumps(sandbox.NOBODY if self.sandboxed and settings.as_nobody else None)
        argv += [str(theirs.fileno()), str(escape_w), str(parent), limits, user]
        env, pass_fds = None, [theirs.fileno(), escape_w]
        if self.sandboxed:
            launch = sandbox.launch(settings, argv, reads=spec_code(spec), path=path,
                                    named=spec_named(spec))  # fmt: skip
            argv, env = launch.argv, launch.env
            pass_fds.append(launch.args_fd)
        try:
            # stdout and stderr: a pipe of rsb's, never rsb's own descriptors (a policy that
            # reopened /proc/self/fd/2 would read rsb's log, or truncate it)
            self._proc = subprocess.Popen(
                argv,
                pass_fds=tuple(pass_fds),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )  # fmt: skip
        finally:
            theirs.close()
            os.close(escape_w)
            if self.sandboxed:
                launch.close()
        assert self._proc.stdout is not None
        threading.Thread(
            target=relay_output, args=(self._proc.stdout, spec, sys.stderr), daemon=True,
            name=f"rsb policy output {self._proc.pid}",
        ).start()  # fmt: skip
        self._sock, self._escape = ours, escape_r
        self._finalizer = weakref.finalize(self, _release, self._proc, ours, escape_r)
        try:
            ready = self._request(
                {"type": "hello", "protocol": PROTOCOL, "spec": spec},
                "ready",
                "building it",
                timeout_s=startup_timeout_s,
            )
        except BaseException:
            self.close()
            raise
        self.cameras = tuple(str(c) for c in ready.get("cameras", ()))
        capabilities = ready.get("capabilities")
        self.capabilities = dict(capabilities) if isinstance(capabilities, dict) else {}
        batch = capabilities.get("batch") if isinstance(capabilities, dict) else None
        self._batch = batch if isinstance(batch, int) and not isinstance(batch, bool) else 0
        if self._batch > 0:
            self.batch_size = min(self._batch, MAX_BATCH)
        self._slots: dict[int, tuple[bool, str | None]] = {}  # slot -> (done, text)
        declared = [k for k in ("simulator", "privileged") if ready.get(k)]
        if declared:
            self.close()
            raise PolicyError(
                f"policy {spec}: declares {declared[0]} = True, but neither the simulator nor "
                f"the answer leaves rsb's process; run it there with --policy inprocess:{spec} "
                "(its records are then marked privileged and never ranked)"
            )

    @property
    def pid(self) -> int:
        """The policy process's pid."""
        return int(self._proc.pid)

    def _fail(self, what: str, message: str) -> PolicyError:
        return PolicyError(f"policy {self.name}: {what}: {message}")

    def _request(
        self, message: dict[str, Any], expect: str, what: str, *, timeout_s: float | None = None
    ) -> dict[str, Any]:
        """Send ``message``, return the reply of type ``expect``.

        Raises:
            PolicyError: for an error reply, a dead process, a broken protocol or a copy of
                the process that escaped a fork.
        """
        if self._proc.poll() is not None:
            raise self._fail(what, f"its process {_exit_cause(self._proc, self.sandboxed)} earlier")
        if self._busy:
            raise self._fail(what, "the policy process is out of step (an earlier call was "
                             "interrupted); it is restarted for the next episode")  # fmt: skip
        self._busy = True
        self._sock.settimeout(timeout_s)
        try:
            frames.send(self._sock, message)
            reply = frames.recv(self._sock)
        except frames.Closed:
            cause = _exit_cause(self._proc, self.sandboxed)
            raise self._fail(what, f"its process {cause} (the episode is its failure)") from None
        except TimeoutError:
            raise self._fail(what, f"no answer within {timeout_s:g} s") from None
        except frames.FrameError as exc:
            raise self._fail(what, f"the policy process broke the protocol ({exc})") from None
        self._busy = False
        self._check_escape(what, int(reply.get("forked") or 0))
        kind = reply["type"]
        if kind == "error":
            error = str(reply.get("error", ""))[:MAX_ERROR_CHARS]
            if reply.get("kind") == "protocol":
                raise self._fail(what, f"the policy process could not read the request ({error})")
            if reply.get("what") == "building it":
                raise PolicyError(f"policy {self.name}: building it failed: {error}")
            raise PolicyError(f"policy {self.name}: {reply.get('what', what)} raised {error}")
        if kind != expect:
            self._busy = True  # out of step: never reused
            raise self._fail(what, f"the policy process answered {kind!r}, expected {expect!r}")
        return reply

    def _check_escape(self, what: str, forked: int) -> None:
        """Raise when a forked copy of the policy process returned into its server loop."""
        ready, _, _ = select.select([self._escape], [], [], FORK_GRACE_S if forked else 0.0)
        if not ready:
            return
        if not os.read(self._escape, 4096):  # end of file: the process is gone (said later)
            return
        self._busy = True  # never reused: the process is restarted for the next episode
        raise self._fail(
            what,
            "the policy forked a process that returned into rsb's policy loop; the copy was "
            "stopped, and the episode is its failure",
        )

    def reset(self, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """Send the episode's start (the view's public fields, ``obs`` and public ``info``)."""
        reply = self._request(
            {"type": "reset", "slot": 0, "env": _view(env), "obs": obs, "info": _public(info)},
            "state",
            "reset()",
            timeout_s=self.request_timeout_s,
        )
        self._done, self._text = bool(reply.get("done")), None

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        """The policy's action for ``obs`` (also updates ``done`` and ``text``)."""
        reply = self._request(
            {"type": "act", "slot": 0, "obs": obs}, "action", "act()",
            timeout_s=self.request_timeout_s,
        )  # fmt: skip
        action, text = reply.get("action"), reply.get("text")
        if not isinstance(action, np.ndarray):
            raise self._fail("act()", f"the policy process sent {type(action).__name__}, "
                             "not an array")  # fmt: skip
        if text is not None and not isinstance(text, str):
            raise self._fail("text", f"the policy process sent {type(text).__name__}")
        self._done, self._text = bool(reply.get("done")), text
        return action

    @property
    def done(self) -> bool:
        """The policy's ``done`` after its last ``reset`` or ``act``."""
        return self._done

    @property
    def text(self) -> str | None:
        """The policy's ``text`` after its last ``act``."""
        return self._text

    @property
    def offers_features(self) -> bool:
        """The policy process announced the ``features`` capability."""
        return bool(self.capabilities.get("features"))

    @property
    def features(self) -> Any:
        """The policy's per-layer features of its last ``act`` (a ``features`` request), or
        None when it offers none."""
        return self.slot_features(0)

    def slot_features(self, slot: int) -> Any:
        """The per-layer features of the last ``act`` of the episode in ``slot`` (a
        ``features`` request), or None when the policy offers none."""
        if not self.offers_features:
            return None
        reply = self._request(
            {"type": "features", "slot": slot}, "features", "features",
            timeout_s=self.request_timeout_s,
        )  # fmt: skip
        return reply.get("features")

    # ---- batched policies ------------------------------------------------------------

    @property
    def batched(self) -> bool:
        """The policy process announced ``capabilities.batch``."""
        return self._batch > 0

    def reset_slot(self, slot: int, env: Any, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """``reset`` of the episode in ``slot``."""
        reply = self._request(
            {"type": "reset", "slot": slot, "env": _view(env), "obs": obs,
             "info": _public(info)},
            "state",
            "reset()",
            timeout_s=self.request_timeout_s,
        )  # fmt: skip
        self._slots[slot] = (bool(reply.get("done")), None)

    def act_batch(self, obs: list[dict[str, Any]], slots: list[int]) -> list[Any]:
        """One ``act_batch`` request: an action per item, a :class:`PolicyError` in place
        of an item the policy failed (see the module docstring)."""
        asked = [{"slot": s, "obs": o} for s, o in zip(slots, obs, strict=True)]
        reply = self._request(
            {"type": "act_batch", "items": asked}, "actions", "act_batch()",
            timeout_s=self.request_timeout_s,
        )  # fmt: skip
        items = reply.get("items")
        if not isinstance(items, list) or [
            i.get("slot") if isinstance(i, dict) else None for i in items
        ] != list(slots):
            self._busy = True  # out of step: never reused
            raise self._fail("act_batch()", "the policy process answered other slots than asked")
        out: list[Any] = []
        for slot, item in zip(slots, items, strict=True):
            if "error" in item:
                error = str(item.get("error", ""))[:MAX_ERROR_CHARS]
                out.append(
                    PolicyError(f"policy {self.name}: {item.get('what', 'act_batch()')} "
                                f"raised {error}")
                )  # fmt: skip
                continue
            action, text = item.get("action"), item.get("text")
            if not isinstance(action, np.ndarray):
                out.append(self._fail("act_batch()", f"the policy process sent "
                                      f"{type(action).__name__}, not an array"))  # fmt: skip
                continue
            if text is not None and not isinstance(text, str):
                out.append(self._fail("text", f"the policy process sent {type(text).__name__}"))
                continue
            self._slots[slot] = (bool(item.get("done")), text)
            out.append(action)
        return out

    def slot_done(self, slot: int) -> bool:
        """The ``done`` of ``slot`` after its last ``reset`` or action."""
        return self._slots.get(slot, (False, None))[0]

    def slot_text(self, slot: int) -> str | None:
        """The ``text`` of ``slot`` after its last action."""
        return self._slots.get(slot, (False, None))[1]

    def slot_status(self, slot: int) -> PolicyStatus:
        """The ``status()`` of the episode in ``slot``."""
        return self._status(slot)

    def status(self) -> PolicyStatus:
        """The policy's ``status()``."""
        return self._status(0)

    def _status(self, slot: int) -> PolicyStatus:
        reply = self._request(
            {"type": "status", "slot": slot}, "status", "status()",
            timeout_s=self.request_timeout_s,
        )  # fmt: skip
        warnings = reply.get("warnings") or []
        return PolicyStatus(
            phase=str(reply.get("phase") or ""),
            failure=None if reply.get("failure") is None else str(reply["failure"]),
            warnings=tuple(str(w) for w in warnings) if isinstance(warnings, list) else (),
        )

    def close(self) -> None:
        """Ask the policy to close, then end its process group (at once when out of step)."""
        polite = self._proc.poll() is None and not self._busy
        if polite:
            try:
                self._request({"type": "close"}, "bye", "close()", timeout_s=CLOSE_TIMEOUT_S)
            except PolicyError:
                polite = False
        if polite:
            _wait_unreaped(self._proc.pid, CLOSE_TIMEOUT_S)
        self._finalizer()


def _printable(text: str) -> str:
    """``text`` with control characters (terminal escapes, carriage returns) as ``?``."""
    return "".join(c if c.isprintable() or c == "\t" else "?" for c in text)


def relay_output(pipe: IO[bytes], spec: str, stream: IO[str]) -> None:
    """Copy a policy process's output from ``pipe`` to ``stream`` until the pipe ends, each
    line prefixed ``[policy SPEC] `` (so it can never pass for rsb's own lines), control
    characters replaced, lines split every :data:`MAX_OUTPUT_LINE_CHARS` bytes and the whole at
    :data:`MAX_OUTPUT_BYTES` (the rest is read and dropped: the policy never blocks on it)."""
    relayed = 0
    prefix = f"[policy {_printable(spec)}] "
    with contextlib.suppress(OSError, ValueError):
        for raw in iter(lambda: pipe.readline(MAX_OUTPUT_LINE_CHARS), b""):
            if relayed >= MAX_OUTPUT_BYTES:
                continue
            relayed += len(raw)
            line = _printable(raw.decode(errors="replace").rstrip("\n"))
            if relayed >= MAX_OUTPUT_BYTES:
                line += f" [output capped at {MAX_OUTPUT_BYTES} bytes; the rest is dropped]"
            with contextlib.suppress(OSError, ValueError):
                stream.write(prefix + line + "\n")
                stream.flush()
    with contextlib.suppress(OSError):
        pipe.close()


def spec_code(spec: str) -> list[str]:
    """The policy's own code, bound into its sandbox: the folder of a policy file or of a
    ``lerobot:`` checkpoint, a module's top-level package folder (or module file); ``[]``
    for a module that is not found (its import then fails in the policy process)."""

    if spec.startswith("lerobot:"):
        # both spellings: a checkpoint named through a link (``checkpoints/last``) is read
        # through its real folder too (LeRobot resolves it)
        given = os.path.abspath(parse_spec(spec).path)
        return list(dict.fromkeys([given, os.path.realpath(given)]))
    parts = split_spec(spec)
    if parts is None:
        return []
    if is_file_form(parts[0]):
        return [os.path.dirname(os.path.abspath(parts[0]))]
    found = sandbox.module_folder(parts[0])
    return [found] if found else []


def spec_named(spec: str) -> list[str]:
    """What the policy's spec names, which it must read in full: a ``lerobot:``
    checkpoint's folder (both spellings, as :func:`spec_code`) or a policy file; ``[]`` for
    a module (only its folder is checked). In a sealed run as root these are checked file by
    file before the first episode, and their files only root may read are bound as readable
    copies (:func:`~rsb_mj.policies.sandbox.staged_files`)."""
    if spec.startswith("lerobot:"):
        return spec_code(spec)
    parts = split_spec(spec)
    if parts is None or not is_file_form(parts[0]):
        return []
    return [os.path.abspath(parts[0])]


def _wait_unreaped(pid: int, timeout_s: float) -> None:
    """Wait up to ``timeout_s`` for process ``pid`` to exit, leaving it unreaped (so its pid,
    and with it its process group's id, is not reused before the group is killed)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
        except ChildProcessError:
            return
        time.sleep(0.005)


def _release(proc: subprocess.Popen, sock: socket.socket, escape: int) -> None:
    """Kill the policy process's group (forked copies included), reap it, free the ends."""
    _kill_group(proc.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=CLOSE_TIMEOUT_S)
    sock.close()
    with contextlib.suppress(OSError):
        os.close(escape)
