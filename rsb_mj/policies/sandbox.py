"""The sandbox a policy process runs in: bubblewrap (``bwrap``) with Linux namespaces.

A file or module policy (:mod:`rsb_mj.policies.child`) runs as ``bwrap ... python -c ...``:

* **file system**: a fresh root holding, read-only, the system's ``/usr`` and ``/etc`` (and
  the ``/bin``, ``/lib*``, ``/sbin`` links or folders), the Python installation
  (``sys.prefix``, ``sys.base_prefix``), every folder of rsb's ``sys.path``, the current
  folder, the policy file's folder and the folders of :attr:`Sandbox.binds` (``rsb eval
  --sandbox-bind DIR``: a checkpoint elsewhere); a private, empty ``/tmp`` (``HOME`` points
  there); a minimal ``/dev``; a ``/proc`` of the sandbox's own processes. Paths of
  :attr:`Sandbox.hide` that lie inside a bound folder (the private tables, the run folder,
  the secret) are covered by an empty folder or ``/dev/null``: the policy cannot read them,
  even as root, and never sees rsb's other files (home folder, other runs);
* **processes**: new PID, IPC, UTS, cgroup and user namespaces (``--unshare-all``): the
  policy sees no process of rsb's (``/proc/<rsb pid>/cmdline``, ``/proc/<pid>/mem``), and
  ``--die-with-parent`` plus the PID namespace end *every* process it started when the
  sandbox ends (a ``setsid`` double fork included: when the namespace's first process dies,
  the kernel kills the rest); ``--new-session`` (no terminal injection);
* **privileges**: ``--cap-drop ALL`` (no ``CAP_DAC_OVERRIDE``, no ``CAP_SYS_PTRACE``, also
  when rsb runs as root), no new privileges;
* **network**: none by default (``--unshare-net``: only a loopback of its own);
  :attr:`Sandbox.network` shares the host's (``rsb eval --sandbox-network``);
* **limits** (``setrlimit`` in the policy process before any policy code runs, so the code
  cannot raise them again): address space :attr:`Sandbox.memory_bytes`, file size
  :attr:`Sandbox.file_bytes`, processes :attr:`Sandbox.processes` (counted per user id by
  the kernel; not applied when rsb runs as root, whose count is the whole machine's);
* **GPU**: not by default. :attr:`Sandbox.gpu` (``rsb eval --sandbox-gpu``) binds the
  ``/dev/nvidia*`` and ``/dev/dri`` devices and ``/sys`` read-only, and lifts the address
  space limit (CUDA reserves far more address space than it uses). The GPU is then shared
  with rsb's renderer: a policy can read the GPU memory of nothing but its own context
  (the driver isolates contexts), but it can slow rsb down; a leaderboard that cares runs
  models behind a policy server instead.

Where ``bwrap`` is missing or user namespaces are refused, :func:`available` says why; an
ordinary run then warns once and runs the policy process unsandboxed, a sealed run refuses
file and module policies and names the alternative (a policy server, ``openpi:``).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from rsb_mj.errors import PolicyError

#: Environment variable through which the evaluator hands its sandbox settings to its
#: workers (JSON of :class:`Sandbox`); never passed into the sandbox.
ENV_VAR = "RSB_SANDBOX"
#: Default address-space limit of a policy process [bytes].
DEFAULT_MEMORY_BYTES = 32 << 30
#: Default largest file a policy process may write [bytes] (its ``/tmp`` is memory).
DEFAULT_FILE_BYTES = 1 << 30
#: Default process limit of a policy process's user (non-root runs only).
DEFAULT_PROCESSES = 4096
#: Seconds the check that bwrap works may take.
_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Sandbox:
    """How policy processes are sandboxed.

    Attributes:
        enabled: run policy processes in ``bwrap`` (False: unsandboxed, ``--no-sandbox``).
        sealed: a sealed run: refuse to run a policy process without the sandbox.
        hide: absolute paths the policy must not read (tables, run folder, secret).
        binds: extra folders the policy may read (``--sandbox-bind``).
        network: share the host's network (default: none).
        gpu: bind the GPU devices (see the module docstring).
        memory_bytes: address-space limit [bytes] (0: none; none with ``gpu``).
        file_bytes: largest file the policy may write [bytes] (0: none).
        processes: process limit of the policy's user, non-root runs only (0: none).
    """

    enabled: bool = True
    sealed: bool = False
    hide: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()
    network: bool = False
    gpu: bool = False
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    file_bytes: int = DEFAULT_FILE_BYTES
    processes: int = DEFAULT_PROCESSES

    def to_json(self) -> str:
        """The settings as JSON (for :data:`ENV_VAR`)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Sandbox:
        """Settings written by :meth:`to_json`."""
        data = json.loads(text)
        for key in ("hide", "binds"):
            data[key] = tuple(data.get(key) or ())
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def limits(self) -> dict[str, int]:
        """The ``setrlimit`` limits of the policy process: resource name -> bytes or count."""
        out: dict[str, int] = {}
        if self.memory_bytes and not self.gpu:
            out["RLIMIT_AS"] = int(self.memory_bytes)
        if self.file_bytes:
            out["RLIMIT_FSIZE"] = int(self.file_bytes)
        if self.processes and os.geteuid() != 0:
            out["RLIMIT_NPROC"] = int(self.processes)
        return out


def current() -> Sandbox:
    """The settings this process runs policies with (:data:`ENV_VAR`, else the defaults)."""
    text = os.environ.get(ENV_VAR)
    return Sandbox.from_json(text) if text else Sandbox()


def install(settings: Sandbox) -> None:
    """Make ``settings`` this process's (and its future workers') sandbox settings."""
    os.environ[ENV_VAR] = settings.to_json()


@functools.cache
def available() -> str | None:
    """None when ``bwrap`` can build a sandbox here, else why not (one line)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux namespaces (this is {sys.platform})"
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = [exe, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
             *_system_binds(), "--proc", "/proc", "--dev", "/dev", "true"]  # fmt: skip
    try:
        done = subprocess.run(probe, capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run ({exc})"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot create namespaces here ({said[-1] if said else done.returncode})"
    return None


_warned = False


def check(settings: Sandbox, spec: str) -> bool:
    """Whether the policy process of ``spec`` runs sandboxed: True when it does; False
    (after one warning per process) for an ordinary run where the sandbox is off or
    unavailable.

    Raises:
        PolicyError: for a sealed run without a working sandbox.
    """
    global _warned
    why = "it is turned off (--no-sandbox)" if not settings.enabled else available()
    if why is None:
        return True
    if settings.sealed:
        raise PolicyError(
            f"policy {spec}: a sealed run runs policy code only in the sandbox, and {why}; "
            "install bubblewrap, or serve the policy from its own machine or container and "
            "evaluate it as a policy server (--policy openpi:HOST:PORT)"
        )
    if not _warned:
        _warned = True
        warnings.warn(
            f"the policy process runs without a sandbox: {why}; it can read what rsb can "
            "read (a sealed run refuses this)",
            RuntimeWarning,
            stacklevel=2,
        )
    return False


def _system_binds() -> list[str]:
    """Read-only binds of the system folders (links kept as links)."""
    args: list[str] = []
    for name in ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args


def _under(path: str, folders: list[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def command(settings: Sandbox, argv: list[str], *, reads: list[str]) -> list[str]:
    """``argv`` wrapped in ``bwrap`` with ``settings``; ``reads`` the folders (or files)
    of the policy's code, bound read-only besides the Python installation."""
    folders: list[str] = []
    for raw in [sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent),
                os.getcwd(), *reads, *settings.binds]:  # fmt: skip
        path = os.path.realpath(raw or ".")
        if os.path.exists(path) and not _under(path, ["/usr", "/etc"]) and path not in folders:
            folders.append(path)
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if settings.network:
        args.append("--share-net")
    args += _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/tmp/home"]
    for path in sorted(folders, key=len):  # after /tmp: a folder in rsb's /tmp stays seen
        args += ["--ro-bind", path, path]
    if settings.gpu:
        for dev in [*sorted(Path("/dev").glob("nvidia*")), Path("/dev/dri")]:
            if dev.exists():
                args += ["--dev-bind", str(dev), str(dev)]
        if Path("/sys").is_dir():
            args += ["--ro-bind", "/sys", "/sys"]
    mounted = ["/usr", "/etc", *folders]
    for raw in settings.hide:
        path = os.path.realpath(raw)
        if not _under(path, mounted):
            continue
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        elif os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    args += ["--setenv", "HOME", "/tmp/home", "--unsetenv", ENV_VAR, "--chdir", os.getcwd()]
    return [*args, "--", *argv]


__all__ = ["ENV_VAR", "Sandbox", "available", "check", "command", "current", "install"]
