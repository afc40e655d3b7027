"""The sandbox a policy process runs in: bubblewrap (``bwrap``) with Linux namespaces.

A file or module policy (:mod:`rsb_mj.policies.child`) runs as ``bwrap --args FD -- python
...`` (bwrap's options read from a memory file, so ``/proc/1/cmdline`` inside names no bound
or hidden path), with:

* **file system**: a fresh root holding, read-only, the system's ``/usr`` and ``/etc`` (and
  the ``/bin``, ``/lib*``, ``/sbin`` links or folders), the Python installation
  (``sys.prefix``, ``sys.base_prefix``), the ``rsb_mj`` package folder alone (in a source
  checkout with its public ``grammar``, ``tasks`` and ``assets`` folders), the policy's own
  code (a policy file's folder, a module's top-level package folder or file, a ``lerobot:``
  checkpoint), the folders of :attr:`Sandbox.binds` (``rsb eval --sandbox-bind DIR``) and
  the folders of rsb's ``sys.path`` (:func:`code_folders`). In a **sealed** run, not the
  working folder, nor a ``sys.path`` entry that is the working folder, holds it, or holds a
  checkout of ``rsb_mj``: other run folders and tables there are out of sight (the working
  folder exists, empty but for the bound code under it; a module policy's neighbours outside
  its package need ``--sandbox-bind``). An ordinary run also binds the working folder and
  every ``sys.path`` entry. A private ``/tmp`` (mode 1777; ``HOME`` is ``/tmp/home``); a
  minimal ``/dev``; a ``/proc`` of the sandbox's own processes. Paths of
  :attr:`Sandbox.hide` that lie inside a bound folder (the private tables, the run folder,
  the secret) are covered by an empty folder or ``/dev/null``. The symbolic links on the
  way to the policy's code are recreated (:func:`_links`), so it finds its code under the
  name it was given (``submission/`` a link, lerobot-train's ``checkpoints/last``) as well
  as under its real one;
* **user**: ``nobody`` (uid and gid 65534). When rsb runs as an ordinary user, inside a user
  namespace (the kernel still counts it as that user on the host); when rsb runs as root
  and the run is sealed, for real: no user namespace, and the policy process switches to uid
  and gid 65534 with no supplementary group before any policy code runs (so root's files,
  ``/etc/shadow`` included, are not its). Its code's folders and ``--sandbox-bind`` folders
  must be readable by others, which :func:`probe` checks before the first episode, naming
  the first path it cannot read; a *file* of its code only root may read (lerobot-train
  writes ``model.safetensors`` with mode 0600) is bound as a readable copy, made in a
  folder of root's alone and removed with the run (:func:`staged_files`, :func:`staging`),
  the operator's file unchanged. The folders above a bound one are the sandbox's own
  (mode 0755), so a checkpoint in a private (0700) folder is read with nothing else of
  that folder in sight. An ordinary run as root keeps the user namespace (uid 65534
  inside, root's files on the host, without any capability);
* **environment** (sealed runs): only :data:`BASE_ENV`, the GPU variables of
  :data:`GPU_ENV` with :attr:`Sandbox.gpu`, and the names of :attr:`Sandbox.env`
  (``--sandbox-env NAME``); bwrap itself starts with that environment, so
  ``/proc/1/environ`` shows no more. An ordinary run passes rsb's environment (but
  :data:`ENV_VAR`; ``HOME`` the private one);
* **processes**: new PID, IPC, UTS, cgroup and mount namespaces: the policy sees no process
  of rsb's (``/proc/<rsb pid>/cmdline``, ``/proc/<pid>/mem``), and ``--die-with-parent``
  plus the PID namespace end *every* process it started when the sandbox ends (a ``setsid``
  double fork included); ``--new-session`` (no terminal injection);
* **privileges**: no capability (``--cap-drop ALL``; when it turns into nobody, only the
  ``CAP_SETUID``/``CAP_SETGID`` that switch is made with, lost with it), no new privileges;
* **network**: none by default (only a loopback of its own); :attr:`Sandbox.network` shares
  the host's (``rsb eval --sandbox-network``);
* **limits** (``setrlimit`` in the policy process before any policy code runs, so the code
  cannot raise them again): address space :attr:`Sandbox.memory_bytes` (default
  :func:`default_memory_bytes`: 3/4 of the machine's memory, at most 32 GiB; ``rsb eval
  --sandbox-memory GIB``), file size :attr:`Sandbox.file_bytes`, processes
  :attr:`Sandbox.processes` (default :func:`default_processes`; ``--sandbox-processes N``;
  counted per real user id by the kernel, so not applied when the policy is root on the
  host: an ordinary run as root);
* **GPU**: not by default. :attr:`Sandbox.gpu` (``rsb eval --sandbox-gpu``) binds the
  ``/dev/nvidia*`` and ``/dev/dri`` devices and ``/sys`` read-only, and lifts the address
  space limit (CUDA reserves far more address space than it uses). The GPU is then shared
  with rsb's renderer: a policy can read the GPU memory of nothing but its own context
  (the driver isolates contexts), but it can slow rsb down; a leaderboard that cares runs
  models behind a policy server instead.

The policy process's stdout and stderr are a pipe rsb reads, never rsb's own descriptors
(:func:`rsb_mj.policies.child.relay_output`).

Where ``bwrap`` is missing or user namespaces are refused, :func:`available` says why; an
ordinary run then warns once and runs the policy process unsandboxed, a sealed run refuses
file and module policies and names the alternative (a policy server, ``openpi:``), and
checks before its first episode that the sandbox starts with its real settings
(:func:`probe`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rsb_mj.errors import PolicyError

#: Environment variable through which the evaluator hands its sandbox settings to its
#: workers (JSON of :class:`Sandbox`); never passed into the sandbox.
ENV_VAR = "RSB_SANDBOX"
#: Largest default address-space limit of a policy process [bytes].
MAX_DEFAULT_MEMORY_BYTES = 32 << 30
#: Default largest file a policy process may write [bytes] (its ``/tmp`` is memory).
DEFAULT_FILE_BYTES = 1 << 30
#: Largest default process limit of a policy process's user.
MAX_DEFAULT_PROCESSES = 4096
#: The user and group a sandboxed policy runs as (``nobody``).
NOBODY = 65534
#: The whole environment of a sandboxed policy process (with :data:`GPU_ENV` and the names
#: of :attr:`Sandbox.env` from rsb's environment, when set there).
BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp/home",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONDONTWRITEBYTECODE": "1",
}
#: Variables passed from rsb's environment with :attr:`Sandbox.gpu` (when set there).
GPU_ENV = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
           "LD_LIBRARY_PATH")  # fmt: skip
#: Seconds the check that bwrap works may take.
_PROBE_TIMEOUT_S = 30.0


def default_memory_bytes() -> int:
    """The default address-space limit [bytes]: 3/4 of this machine's memory, at most
    :data:`MAX_DEFAULT_MEMORY_BYTES`, in whole MiB."""
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return MAX_DEFAULT_MEMORY_BYTES
    return min(MAX_DEFAULT_MEMORY_BYTES, (machine * 3 // 4) >> 20 << 20)


def _read_int(path: str) -> int | None:
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None  # absent, or "max"


def default_processes() -> int:
    """The default process limit: :data:`MAX_DEFAULT_PROCESSES`, at most 1/8 of the
    kernel's ``threads-max`` and half of this cgroup's ``pids.max`` (threads count)."""
    out = MAX_DEFAULT_PROCESSES
    for path, share in (("/proc/sys/kernel/threads-max", 8), ("/sys/fs/cgroup/pids.max", 2)):
        value = _read_int(path)
        if value:
            out = min(out, max(64, value // share))
    return out


@dataclass(frozen=True)
class Sandbox:
    """How policy processes are sandboxed.

    Attributes:
        enabled: run policy processes in ``bwrap`` (False: unsandboxed, ``--no-sandbox``).
        sealed: a sealed run: refuse to run a policy process without the sandbox; as root,
            the policy process is user nobody on the host.
        hide: absolute paths the policy must not read (tables, run folder, secret).
        binds: extra folders the policy may read (``--sandbox-bind``).
        network: share the host's network (default: none).
        gpu: bind the GPU devices (see the module docstring).
        memory_bytes: address-space limit [bytes] (0: none; none with ``gpu``).
        file_bytes: largest file the policy may write [bytes] (0: none).
        processes: process limit of the policy's user (0: none; not applied when the policy
            is root on the host).
        env: names of rsb's environment variables passed to the policy (``--sandbox-env``).
        stage: the folder holding the copies of :func:`staged_files` (made and removed by
            :func:`staging`; empty: a folder of this process's own, removed at its exit).
    """

    enabled: bool = True
    sealed: bool = False
    hide: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()
    network: bool = False
    gpu: bool = False
    memory_bytes: int = field(default_factory=default_memory_bytes)
    file_bytes: int = DEFAULT_FILE_BYTES
    processes: int = field(default_factory=default_processes)
    env: tuple[str, ...] = ()
    stage: str = ""

    def to_json(self) -> str:
        """The settings as JSON (for :data:`ENV_VAR`)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Sandbox:
        """Settings written by :meth:`to_json`."""
        data = json.loads(text)
        for key in ("hide", "binds", "env"):
            data[key] = tuple(data.get(key) or ())
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    @property
    def as_nobody(self) -> bool:
        """The policy process turns into user nobody on the host (rsb runs as root and the
        run is sealed): no user namespace (see the module docstring)."""
        return self.sealed and os.geteuid() == 0

    @property
    def host_root(self) -> bool:
        """The policy is root on the host's files (an ordinary run as root: uid 65534 in a
        user namespace mapped to root, without capabilities)."""
        return os.geteuid() == 0 and not self.as_nobody

    def limits(self) -> dict[str, int]:
        """The ``setrlimit`` limits of the policy process: resource name -> bytes or count."""
        out: dict[str, int] = {}
        if self.memory_bytes and not self.gpu:
            out["RLIMIT_AS"] = int(self.memory_bytes)
        if self.file_bytes:
            out["RLIMIT_FSIZE"] = int(self.file_bytes)
        if self.processes and not self.host_root:
            out["RLIMIT_NPROC"] = int(self.processes)
        return out

    def environment(self) -> dict[str, str]:
        """The whole environment of the policy process (and of bwrap): in a sealed run
        :data:`BASE_ENV` with the GPU variables and :attr:`env`; in an ordinary run rsb's own
        but :data:`ENV_VAR`, with ``HOME`` the private one."""
        if not self.sealed:
            return {**{k: v for k, v in os.environ.items() if k != ENV_VAR}, "HOME": "/tmp/home"}
        out = dict(BASE_ENV)
        for name in [*(GPU_ENV if self.gpu else ()), *self.env]:
            if name in os.environ and name != ENV_VAR:
                out[name] = os.environ[name]
        return out

    def isolation(self) -> dict[str, Any]:
        """What a run folder records of the isolation its policies ran with (``run.json``,
        ``sealed.isolation``)."""
        if self.as_nobody:
            user = f"nobody ({NOBODY}) on the host"
        elif os.geteuid() == 0:
            user = f"nobody ({NOBODY}) in a user namespace, root's files on the host"
        else:
            user = f"nobody ({NOBODY}) in a user namespace, uid {os.geteuid()} on the host"
        limits = self.limits()
        return {
            "sandbox": _bwrap_version() if self.enabled else "none",
            "user": user,
            "network": "host" if self.network else "none",
            "gpu": self.gpu,
            "memory_bytes": limits.get("RLIMIT_AS", 0),
            "file_bytes": limits.get("RLIMIT_FSIZE", 0),
            "processes": limits.get("RLIMIT_NPROC", 0),
            "binds": list(self.binds),
            "env": sorted(self.environment()),
        }


@functools.cache
def _bwrap_version() -> str:
    try:
        done = subprocess.run(["bwrap", "--version"], capture_output=True, text=True,
                              timeout=_PROBE_TIMEOUT_S, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return "bwrap"
    return done.stdout.strip() or "bwrap"


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
    probe_argv = [exe, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
                  *_system_binds(), "--proc", "/proc", "--dev", "/dev", "true"]  # fmt: skip
    try:
        done = subprocess.run(probe_argv, capture_output=True, timeout=_PROBE_TIMEOUT_S,
                              check=False)  # fmt: skip
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


def _python_folders() -> list[str]:
    return [os.path.realpath(p) for p in
            (sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent))]  # fmt: skip


def rsb_folder() -> str:
    """The folder of the ``rsb_mj`` package rsb runs."""
    return str(Path(__file__).resolve().parents[1])


def module_folder(module: str) -> str | None:
    """The code of module ``module`` (``a.b``): its top-level package's folder, or the
    top-level module's file; None when it is not found (found as the policy process finds
    it: on the Python path, else in the working folder). Nothing of it runs."""
    top = module.partition(".")[0]
    for extra in ([], [os.getcwd()]):
        sys.path[:0] = extra
        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            found = None
        finally:
            del sys.path[: len(extra)]
        if found is None:
            continue
        if found.submodule_search_locations:
            return os.path.realpath(next(iter(found.submodule_search_locations)))
        if found.origin and os.path.isabs(found.origin):
            return os.path.realpath(found.origin)
    return None


def code_folders(path: list[str], reads: list[str], *, strict: bool = True) -> list[str]:
    """The folders (or files) bound read-only for a policy process (see the module
    docstring): the Python installation, the ``rsb_mj`` package (and in a source checkout
    the ``grammar``, ``tasks`` and ``assets`` folders beside it, rsb's public data), the
    entries of the Python
    path ``path`` but the working folder, its parents and the folder holding ``rsb_mj``
    (a source checkout: only the package is bound), and ``reads`` (the policy's own code).
    Not ``strict`` (an ordinary run): every entry of ``path`` and the working folder too."""
    cwd, rsb = os.path.realpath(os.getcwd()), rsb_folder()
    python = _python_folders()
    checkout = os.path.dirname(rsb)
    out: list[str] = []
    shipped = [str(Path(checkout) / name) for name in ("grammar", "tasks", "assets")]
    code_first = [*python, rsb, *shipped]
    code_last = [*reads, *([] if strict else [cwd])]
    entries = [*((p, True) for p in code_first), *((p, not strict) for p in path)]
    for raw, code in [*entries, *((p, True) for p in code_last)]:
        real = os.path.realpath(raw or cwd)
        if real in out or not os.path.exists(real) or _under(real, ["/usr", "/etc"]):
            continue
        if (
            not code
            and not _under(real, python)
            and (
                _under(cwd, [real])
                or real == checkout
                or os.path.isdir(os.path.join(real, "rsb_mj"))
            )
        ):
            continue  # the working folder (or a parent), a checkout of rsb: not whole
        out.append(real)
    return out


def unreadable(folders: list[str]) -> list[str]:
    """Those of ``folders`` (or files) that user nobody cannot read (not theirs, no read
    permission for others, or a folder they cannot enter)."""
    out = []
    for path in folders:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if not _others_read(st):
            out.append(path)
    return out


#: Most entries of the policy's code :func:`staged_files` and :func:`first_unreadable` look
#: at (a policy's code is a file, a package or a checkpoint folder: far fewer).
MAX_WALK = 20000
#: Prefix of the folders of :func:`staging` (in the system's temporary folder).
STAGE_PREFIX = "rsb-policy-files-"
_own_stage: list[str] = []


def _walk(paths: list[str]) -> Iterator[tuple[str, os.stat_result | None]]:
    """The entries of ``paths`` and, for folders, everything below them (links not
    followed), with their ``lstat`` (None for one that cannot be looked up); at most
    :data:`MAX_WALK` entries."""
    seen = 0
    stack = list(reversed(paths))
    while stack and seen < MAX_WALK:
        path = stack.pop()
        seen += 1
        try:
            st = os.lstat(path)
        except OSError:
            yield path, None
            continue
        yield path, st
        if stat.S_ISDIR(st.st_mode):
            with contextlib.suppress(OSError):
                stack += [os.path.join(path, n) for n in sorted(os.listdir(path), reverse=True)]


def _others_read(st: os.stat_result) -> bool:
    """User nobody may read this file (or enter and list this folder)."""
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0)
    return st.st_uid == NOBODY or st.st_mode & need == need


@contextlib.contextmanager
def staging(settings: Sandbox) -> Iterator[Sandbox]:
    """``settings`` with a :attr:`Sandbox.stage` folder for a run whose policies turn into
    user nobody (:attr:`Sandbox.as_nobody`), shared by its workers and removed with what it
    holds when the run ends; ``settings`` unchanged otherwise."""
    if not (settings.enabled and settings.as_nobody) or settings.stage:
        yield settings
        return
    folder = tempfile.mkdtemp(prefix=STAGE_PREFIX)  # mode 0700: root's alone on the host
    try:
        yield replace(settings, stage=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stage_folder(settings: Sandbox) -> str:
    if settings.stage and os.path.isdir(settings.stage):
        return settings.stage
    if not _own_stage:
        _own_stage.append(tempfile.mkdtemp(prefix=STAGE_PREFIX))
        atexit.register(shutil.rmtree, _own_stage[0], True)
    return _own_stage[0]


def staged_files(settings: Sandbox, named: Sequence[str]) -> list[tuple[str, str]]:
    """For a policy that turns into user nobody (:attr:`Sandbox.as_nobody`): ``(copy,
    path)`` for every regular file of what the policy's spec names, ``named`` (a
    ``lerobot:`` checkpoint's folder, a policy file: :func:`rsb_mj.policies.child.
    spec_named`), that nobody may not read, where ``copy`` is a copy of it readable by all
    in the :attr:`Sandbox.stage` folder (made once per file version; the folder is root's
    alone, mode 0700) that the sandbox binds at ``path``. lerobot-train writes a
    checkpoint's ``.safetensors`` files with mode 0600, so a sealed run as root could not
    otherwise load any checkpoint; the operator's files are never changed, and nothing
    else of a bound folder is copied (a policy file's folder may hold root's private
    files: they stay out of the policy's reach). ``[]`` otherwise."""
    if not (settings.enabled and settings.as_nobody):
        return []
    out: list[tuple[str, str]] = []
    folder: str | None = None
    for path, st in _walk(list(dict.fromkeys(os.path.realpath(r) for r in named))):
        if st is None or not stat.S_ISREG(st.st_mode) or _others_read(st):
            continue
        folder = folder or _stage_folder(settings)
        key = f"{path}\0{st.st_dev}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}"
        copy = os.path.join(folder, hashlib.sha256(key.encode()).hexdigest()[:32])
        if not os.path.exists(copy):
            part = f"{copy}.{os.getpid()}.part"
            try:
                shutil.copyfile(path, part)
                os.chmod(part, 0o444)
                os.replace(part, copy)  # workers staging the same file at once: one wins
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(part)
                raise PolicyError(
                    f"the policy runs as user nobody (rsb runs as root) and cannot read {path} "
                    f"(mode {stat.S_IMODE(st.st_mode):04o}); its copy for the sandbox in "
                    f"{folder} failed ({exc.strerror or exc}): free space there or point TMPDIR "
                    "elsewhere, or make the file readable by others (chmod o+r)"
                ) from None
        out.append((copy, path))
    return out


def _links(paths: list[str]) -> list[tuple[str, str]]:
    """``(target, link)`` for the symbolic links on the way to each of ``paths`` (as
    written: a relative target stays relative), each link at its real folder, in the
    order they are met: recreated in the sandbox, so the policy finds its code under the
    name it was given (``checkpoints/last/pretrained_model``, ``last`` a link to
    ``000002``) as well as under its real one."""
    out: list[tuple[str, str]] = []
    for raw in paths:
        done = Path("/")
        for part in Path(os.path.abspath(raw)).parts[1:]:
            here = done / part
            if here.is_symlink():
                link = (os.readlink(here), str(here))
                if link not in out:
                    out.append(link)
                here = Path(os.path.realpath(here))
            done = here
    return out


def first_unreadable(reads: list[str], named: Sequence[str] = ()) -> str | None:
    """The first path this process cannot read of the policy's code: a name of ``reads``
    or ``named`` that leads nowhere, a folder of ``reads`` it cannot list (or a file it
    cannot open), or anything below a folder of ``named`` (links not followed; at most
    :data:`MAX_WALK` entries); None when it reads them all (:func:`probe` asks this inside
    the sandbox, as the policy's user)."""
    for path in [*reads, *named]:  # the names given (through the links recreated in the sandbox)
        if not os.path.exists(path):
            return path
    tops = [(p, st) for p in reads for st in [_lstat(os.path.realpath(p))]]
    for path, st in [*tops, *_walk(list(dict.fromkeys(os.path.realpath(p) for p in named)))]:
        try:
            if st is None:
                return path
            if stat.S_ISDIR(st.st_mode):
                os.listdir(path)
            elif stat.S_ISREG(st.st_mode):
                os.close(os.open(path, os.O_RDONLY))
        except OSError:
            return path
    return None


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def namespace_args(settings: Sandbox) -> list[str]:
    """bwrap's namespace, user and capability options for ``settings``."""
    if settings.as_nobody:  # root on the host: the process itself turns into nobody
        args = ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
        args += [] if settings.network else ["--unshare-net"]
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args = ["--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        args += ["--share-net"] if settings.network else []
        args += ["--cap-drop", "ALL"]
    return [*args, "--die-with-parent", "--new-session"]


def command(settings: Sandbox, argv: list[str], *, reads: list[str],
            path: list[str] | None = None, named: Sequence[str] = ()) -> list[str]:  # fmt: skip
    """The ``bwrap`` command line that runs ``argv`` with ``settings``;
    ``reads`` the folders (or files) of the policy's code, ``path`` rsb's Python path
    (default ``sys.path``; see :func:`code_folders`), ``named`` what the policy's spec
    names (see :func:`staged_files`)."""
    folders = code_folders(list(sys.path if path is None else path), reads, strict=settings.sealed)
    folders += [os.path.realpath(b) for b in settings.binds if os.path.realpath(b) not in folders]
    mounted = ["/usr", "/etc", *folders]
    links = [(t, link) for t, link in _links([*reads, *settings.binds])
             if not _under(link, mounted)]  # fmt: skip
    args = namespace_args(settings) + _system_binds()
    args += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp",
             "--perms", "0777", "--dir", "/tmp/home"]  # fmt: skip
    cwd = os.path.realpath(os.getcwd())
    # the folders above the bound ones (and the working folder, empty), enterable by all:
    # bwrap would make them 0700, which a policy turned into nobody could not pass
    above = {str(p) for f in [*folders, cwd, *(k for _, k in links)] for p in Path(f).parents}
    above |= set() if _under(cwd, ["/usr", "/etc", *folders]) else {cwd}
    for folder in sorted(above, key=lambda p: (len(Path(p).parts), p)):
        if folder != "/" and not _under(folder, ["/usr", "/etc", *folders]) and folder != "/tmp":
            args += ["--perms", "0755", "--dir", folder]
    for folder in sorted(folders, key=len):  # after /tmp: a folder in rsb's /tmp stays seen
        args += ["--ro-bind", folder, folder]
    for target, link in links:  # the code's name as given: checkpoints/last -> 000002
        args += ["--symlink", target, link]
    for copy, file in staged_files(settings, list(named)):  # readable copies over nobody-only files
        args += ["--ro-bind", copy, file]
    if settings.gpu:
        for dev in [*sorted(Path("/dev").glob("nvidia*")), Path("/dev/dri")]:
            if dev.exists():
                args += ["--dev-bind", str(dev), str(dev)]
        if Path("/sys").is_dir():
            args += ["--ro-bind", "/sys", "/sys"]
    for raw in settings.hide:
        hidden = os.path.realpath(raw)
        if not _under(hidden, mounted):
            continue
        if os.path.isdir(hidden):
            args += ["--tmpfs", hidden, "--remount-ro", hidden]
        elif os.path.exists(hidden):
            args += ["--ro-bind", "/dev/null", hidden]
    args += ["--clearenv"]
    for name, value in settings.environment().items():
        args += ["--setenv", name, value]
    args += ["--chdir", cwd]
    return ["bwrap", *args, "--", *argv]


@dataclass
class Launch:
    """How to start a sandboxed process: ``argv`` (``bwrap --args FD``), its whole
    environment ``env``, and ``args_fd``, the memory file holding bwrap's arguments (pass
    it to the process; :meth:`close` it after the start)."""

    argv: list[str]
    env: dict[str, str]
    args_fd: int

    def close(self) -> None:
        """Close this process's end of the arguments file."""
        with contextlib.suppress(OSError):
            os.close(self.args_fd)


def launch(settings: Sandbox, argv: list[str], *, reads: list[str],
           path: list[str] | None = None, named: Sequence[str] = ()) -> Launch:  # fmt: skip
    """``argv`` in ``bwrap`` with ``settings`` (see :func:`command`), its arguments handed
    over in a memory file, so that no process in the sandbox reads the paths it binds and
    hides from ``/proc/1/cmdline`` (which shows ``bwrap --args FD -- ARGV``)."""
    args = command(settings, argv, reads=reads, path=path, named=named)[1 : -len(argv) - 1]
    fd = os.memfd_create("rsb-bwrap-args", 0)
    os.write(fd, b"".join(a.encode() + b"\0" for a in args))
    os.lseek(fd, 0, os.SEEK_SET)
    exe = shutil.which("bwrap") or "bwrap"
    return Launch([exe, "--args", str(fd), "--", *argv], settings.environment(), fd)


#: What :func:`probe` runs in the sandbox: the policy process's own start, up to the policy,
#: then whether it reads its code (prints the first path it cannot read, or nothing).
_PROBE = (
    "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
    "from rsb_mj.policies.child_server import enter_sandbox; "
    "enter_sandbox(**json.loads(sys.argv[2])); "
    "from rsb_mj.policies.sandbox import first_unreadable; "
    "print(json.dumps(first_unreadable(*json.loads(sys.argv[3]))))"
)


def probe(settings: Sandbox, reads: list[str], named: Sequence[str] = ()) -> str | None:
    """None when a policy process with the code ``reads`` (folders or files) and what its
    spec names, ``named`` (see :func:`staged_files`), starts in the sandbox of ``settings``
    and reads that code (bwrap builds it, rsb's Python runs in it, the switch to nobody and
    the limits take, and :func:`first_unreadable` finds nothing, as the policy's user),
    else why not (one line, naming the path)."""
    why = available()
    if why is not None:
        return why
    fix = "make it and the folders above it readable by others, e.g. chmod o+rX"
    if settings.as_nobody:
        blind = unreadable([*settings.binds, *_python_folders(), rsb_folder()])
        if blind:
            return (
                f"the policy runs as user nobody (rsb runs as root) and cannot read {blind[0]} "
                f"({fix}, or run rsb as an ordinary user)"
            )
    path = [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
    entry = {"limits": settings.limits(), "user": NOBODY if settings.as_nobody else None}
    given = [[os.path.abspath(r) for r in reads], [os.path.abspath(n) for n in named]]
    argv = [sys.executable, "-c", _PROBE, json.dumps(path), json.dumps(entry), json.dumps(given)]
    try:
        started = launch(settings, argv, reads=reads, path=path, named=named)
    except PolicyError as exc:  # a file of the policy's could not be copied for it
        return str(exc)
    try:
        done = subprocess.run(started.argv, env=started.env, pass_fds=(started.args_fd,),
                              capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False,
                              stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run ({exc})"
    finally:
        started.close()
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"the sandbox does not start ({said[-1] if said else done.returncode})"
    try:
        blind = json.loads(done.stdout.decode(errors="replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"the sandbox's check printed {done.stdout[-200:]!r}, not its result"
    if blind is None:
        return None
    if settings.as_nobody:
        return (
            f"the policy runs as user nobody (rsb runs as root) and cannot read {blind} ({fix}, "
            "or run rsb as an ordinary user)"
        )
    return f"the policy cannot read {blind} in the sandbox ({fix})"


__all__ = [
    "BASE_ENV",
    "ENV_VAR",
    "GPU_ENV",
    "NOBODY",
    "Launch",
    "Sandbox",
    "available",
    "check",
    "code_folders",
    "command",
    "current",
    "default_memory_bytes",
    "default_processes",
    "first_unreadable",
    "install",
    "launch",
    "module_folder",
    "probe",
    "staged_files",
    "staging",
]
