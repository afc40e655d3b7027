"""The Ray back end of the pool: ``rsb eval --ray [ADDRESS]`` and ``rsb demos --ray [ADDRESS]``.

:class:`RayCluster` connects to an existing cluster (``ADDRESS``, e.g. ``10.0.0.5:6379``,
``ray://head:10001`` or ``auto``) or starts a local one for the run (``ADDRESS`` empty)
and runs jobs as Ray tasks, one CPU each, at most one task in flight per cluster CPU;
:class:`RayTasks` is the pool's back end on it. The caller keeps writing results in this
process, one per finished task, so records, resume and error rules are those of the other
back ends (see :mod:`rsb_mj.evaluation.pool`): a record is the same bytes apart from its
timing fields whichever back end ran it.

A worker process that dies (killed, out of memory, a native crash) is retried by Ray, up
to :data:`TASK_RETRIES` times; a task that still fails is handed back as the exception
(:class:`RayTasks` hands it on as died: ``rsb eval`` records an ``infra`` error, ``rsb
demos`` writes no file; both retry it on resume).

A local cluster stays on the loopback interface: its node address is 127.0.0.1 (so every
Ray server listens on 127.0.0.1 only), usage statistics are off, no dashboard is started,
its session files live in a fresh temporary folder that is removed afterwards, and it is
shut down when the run ends. Before any job, a probe task checks that the workers import
the same rsb_mj and mujoco versions as this process.

Ray is an optional dependency (``pip install "rsb_mj[ray]"``), imported only here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rsb_mj.errors import EvalError, InfraError
from rsb_mj.evaluation.pool.base import WORKER_DIED, Backend, J, R

#: Ray task retries after a worker process dies.
TASK_RETRIES = 3
#: The only address a local cluster uses.
LOOPBACK = "127.0.0.1"
#: Name prefix of a local cluster's session folder in the temporary folder.
TEMP_PREFIX = "rsb_ray_"
#: Tries to start a local cluster (Ray waits a fixed 30 s for its node to register).
LOCAL_START_ATTEMPTS = 3
#: Age [s] after which a session folder without a session is taken as abandoned.
STARTUP_GRACE_S = 600.0
#: Seconds the version probe may take (a cold worker imports mujoco and rsb_mj).
PROBE_TIMEOUT_S = 300.0
#: Environment of a local cluster (read by Ray when it is imported and by the processes
#: it starts): node address from the loopback interface, no usage statistics, no tokens.
LOCAL_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # node IP = 127.0.0.1 (ray_constants)
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "disabled",
    # the raylet waits this long for its agents to start (30 s by default, too short on a
    # loaded machine: the raylet then exits and the cluster never comes up)
    "RAY_agent_register_timeout_ms": "180000",
}


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise EvalError(
            '--ray needs Ray, an optional dependency: pip install "rsb_mj[ray]"'
        ) from None
    return ray


def _probe() -> dict[str, str]:
    """Run in a Ray worker: the versions it imports."""
    from rsb_mj.version import versions

    return versions()


def _is_loopback(address: str) -> bool:
    host = address.removeprefix("ray://").rpartition(":")[0] or address
    return host in (LOOPBACK, "localhost")


class RayCluster:
    """A Ray connection for one run (a context manager).

    Args:
        address: ``""`` to start a local cluster on 127.0.0.1 for the run, else the
            address of a running cluster (as ``ray.init(address=...)`` takes it).
        workers: CPUs of a local cluster (tasks in flight); ignored for an existing one.
        retries: Ray task retries after a worker process dies.

    Raises (on entry):
        EvalError: Ray is not installed, or ``address`` names a task file.
        InfraError: the cluster cannot be started or reached, a local cluster would not
            stay on 127.0.0.1, or its workers run other rsb_mj or mujoco versions.
    """

    def __init__(self, address: str, workers: int = 1, *, retries: int = TASK_RETRIES) -> None:
        if address.endswith(".bddl"):
            raise EvalError(
                f"--ray {address}: an address, not a task file; write --ray=ADDRESS, or "
                "--ray alone after the task files"
            )
        self.address, self.workers, self.retries = address, max(1, workers), retries
        self._temp: str | None = None
        self._ray: Any = None

    # -- connection -------------------------------------------------------------------
    def __enter__(self) -> RayCluster:
        local = not self.address
        if local or _is_loopback(self.address):
            for name, value in LOCAL_ENV.items():
                os.environ.setdefault(name, value)
        if local:
            os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        ray = self._ray = _import_ray()
        if ray.is_initialized():
            raise InfraError("Ray is already initialized in this process; cannot start a run")
        try:
            if local:
                self._start_local(ray)
            else:
                ray.init(
                    address=self.address,
                    log_to_driver=False,
                    logging_level="warning",
                )
        except InfraError:
            self._close()
            raise
        except Exception as exc:  # Ray raises plain Exception, e.g. "node timed out"
            self._close()
            where = "a local Ray cluster" if local else f"the Ray cluster at {self.address}"
            raise InfraError(f"--ray: cannot start or reach {where}: {exc}") from None
        try:
            self._check(local)
        except BaseException:
            self._close()
            raise
        return self

    def _start_local(self, ray: Any) -> None:
        from ray._private import ray_constants, services

        if os.environ.get("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER") == "0":
            ray_constants.ENABLE_RAY_CLUSTER = False  # read at import: Ray came in earlier
        node_ip = services.get_node_ip_address()
        if node_ip != LOOPBACK:  # ray was imported before our environment was set
            raise InfraError(
                f"--ray: a local cluster would use the address {node_ip}, not {LOOPBACK}; "
                "set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported"
            )
        reap_stale_clusters()
        for attempt in range(1, LOCAL_START_ATTEMPTS + 1):
            self._temp = tempfile.mkdtemp(prefix=TEMP_PREFIX)
            try:
                ray.init(
                    _node_ip_address=LOOPBACK,
                    num_cpus=self.workers,
                    include_dashboard=False,
                    _temp_dir=self._temp,
                    log_to_driver=False,
                    logging_level="warning",
                )
                return
            except Exception:  # Ray gives its node 30 s to register: a loaded machine
                self._close()
                if attempt == LOCAL_START_ATTEMPTS:
                    raise

    def _check(self, local: bool) -> None:
        ray = self._ray
        if local:
            nodes = [n.get("NodeManagerAddress") for n in ray.nodes() if n.get("Alive")]
            if any(ip != LOOPBACK for ip in nodes):
                raise InfraError(f"--ray: the local cluster's nodes are at {nodes}, not loopback")
        from rsb_mj.version import versions

        probe = ray.remote(num_cpus=1, max_retries=self.retries)(_probe)
        try:
            theirs = ray.get(probe.remote(), timeout=PROBE_TIMEOUT_S)
        except Exception as exc:  # RayError, GetTimeoutError, a worker that cannot import us
            raise InfraError(f"--ray: the cluster's workers cannot run rsb_mj: {exc}") from None
        if theirs != versions():
            raise InfraError(
                f"--ray: the cluster's workers run {theirs}, this process {versions()}; "
                "install the same versions on every node"
            )

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        if self._ray is not None:
            self._ray.shutdown()  # also stops a local cluster's processes
        if self._temp is not None:
            for pid in _processes_of(self._temp):  # left by a start that failed half-way
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    @property
    def cpus(self) -> int:
        """CPUs of the cluster (the most tasks kept in flight)."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    # -- running ----------------------------------------------------------------------
    def map(
        self, fn: Callable[..., Any], work: Sequence[Any], *args: Any
    ) -> Iterator[tuple[Any, Any, BaseException | None]]:
        """Run ``fn(job, *args)`` for every job as a Ray task; yield ``(job, result, None)``
        or ``(job, None, exception)`` in completion order.

        ``fn`` must be importable on the workers (a module-level function). A task whose
        worker died is retried :attr:`retries` times before its exception is yielded. On
        any exception in the caller (e.g. ``KeyboardInterrupt``), tasks in flight are
        cancelled.
        """
        ray = self._ray
        task = ray.remote(num_cpus=1, max_retries=self.retries, retry_exceptions=False)(fn)
        queue = list(reversed(work))
        pending: dict[Any, Any] = {}
        cap = self.cpus
        try:
            while queue or pending:
                while queue and len(pending) < cap:
                    job = queue.pop()
                    pending[task.remote(job, *args)] = job
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    job = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        yield job, None, exc
                    else:
                        yield job, result, None
        finally:
            for ref in pending:
                with contextlib.suppress(Exception):  # a task that already ended
                    ray.cancel(ref, force=True)


def _processes_of(folder: str) -> list[int]:
    """Ids of the processes (other than this one) whose command line names ``folder``:
    those of a local cluster, which all get its session folder as an argument."""
    pids = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as f:
            if folder.encode() in f.read():
                pids.append(int(entry))
    return pids


def reap_stale_clusters(root: str | None = None) -> list[str]:
    """Stop what is left of local clusters whose driver was killed, and remove their folders.

    A driver killed with SIGKILL cannot shut its cluster down: Ray's core processes follow
    it, but its agent processes stay. Their session folder (``root/rsb_ray_*/session_*_PID``)
    names the driver's process id; when that process is gone, every process whose command
    line names the folder is killed and the folder removed. Folders of running drivers, and
    folders younger than :data:`STARTUP_GRACE_S` with no session yet, are left alone.

    Returns:
        The folders removed.
    """
    root = root or tempfile.gettempdir()
    removed = []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        if not name.startswith(TEMP_PREFIX) or not os.path.isdir(folder):
            continue
        drivers = [s.rpartition("_")[2] for s in os.listdir(folder) if s.startswith("session_2")]
        if any(pid.isdigit() and _alive(int(pid)) for pid in drivers):
            continue
        if not drivers and time.time() - os.path.getmtime(folder) < STARTUP_GRACE_S:
            continue  # another driver may be starting its cluster there
        for pid in _processes_of(folder):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def failure_message(exc: BaseException) -> str:
    """The first line of a Ray task failure, ``"Type: message"``."""
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def is_worker_death(exc: BaseException) -> bool:
    """Whether a Ray task failed because its worker process died (after the retries)."""
    ray = _import_ray()
    return (
        isinstance(exc, (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError))
        or "worker died" in str(exc).lower()
    )


class RayTasks(Backend):
    """Runs the jobs as Ray tasks on a :class:`RayCluster` opened for the run.

    Args:
        address: ``""`` for a local cluster on 127.0.0.1, else a running cluster's address.
        workers: CPUs of a local cluster (ignored for an existing one).
    """

    def __init__(self, address: str, workers: int = 1) -> None:
        self.address, self.workers = address, workers

    def run(
        self,
        fn: Callable[..., R],
        todo: Sequence[J],
        finish: Callable[[J, R], None],
        died: Callable[[J, str], R],
        args: tuple[Any, ...],
    ) -> None:
        """See :meth:`Backend.run`; a task whose worker died more often than Ray retries it
        (or that failed otherwise) is handed on as ``died(job, cause)``."""
        if not todo:
            return
        with RayCluster(self.address, self.workers) as cluster:
            for job, result, exc in cluster.map(fn, todo, *args):
                if exc is not None:
                    cause = WORKER_DIED if is_worker_death(exc) else failure_message(exc)
                    result = died(job, cause)
                finish(job, result)
