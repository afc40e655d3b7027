"""Benchmark: how fast ``rsb lint`` is, warm and end to end, in files per second.

Usage::

    python tools/bench_lint.py [--repeat N] [--baseline DIR] [PATH ...]

Defaults to the full LIBERO and VLA-Arena suites (``tests/data/bddl_suites``, 300 files).
Reported, best of ``--repeat`` runs each:

* **start-up**: CPU time of ``python -c pass``, of ``import rsb_mj`` and of the whole
  ``rsb lint`` command on one file (interpreter, imports, argument parsing);
* **grammar**: building the LALR tables from ``grammar/rsb.lark`` versus loading them from
  Lark's cache in the user cache folder (:mod:`rsb_mj.lang.grammar`), Lark's import included;
* **warm**: parse + lint of every file in this process (texts in memory), and the share of
  it that is parsing (Lark's lexer, LALR parser and the AST builder);
* **end to end**: ``python -m rsb_mj lint PATH...`` as a user runs it, process start included,
  wall clock and CPU time of the child: *cold* (every file parsed and linted; rsb lint keeps
  no result cache) and, to show what a ``--jobs 2`` would buy, the cold run split over two
  spawned worker processes; a ``--baseline`` checkout from before the result cache was deleted
  is also measured *cached*. The children use a private cache folder.

``--baseline DIR`` measures the end-to-end figures of the rsb_mj checkout at ``DIR`` too (for
instance ``git worktree add /tmp/rsb-before <commit>``), interleaved with this checkout's, so
that before and after come from one run on the same machine load.

Child processes keep compiled bytecode in a private folder (as an installed package does),
also where ``PYTHONDONTWRITEBYTECODE`` is set. Wall clock on a shared machine is noisy; CPU
time is steadier. Target: a cold run of the 300 files under about 1.5 s.

Run it with the interpreter of a plain virtual environment: one whose ``site-packages`` runs
``.pth`` start-up hooks (some sandboxes import ``certifi`` there) adds their cost to every
process start, which the "python" start-up figure shows.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = (ROOT / "tests" / "data" / "bddl_suites",)
#: Longest cold end-to-end run of the 300 suite files that is fine [s].
TARGET_S = 1.5


#: This checkout's rsb_mj is measured, in this process and in the children, whatever copy the
#: interpreter has installed.
sys.path.insert(0, str(ROOT))


def _scratch(prefix: str) -> str:
    """A fresh temporary folder, removed when this process exits."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return folder


@functools.cache
def _base_env() -> dict[str, str]:
    """The children's environment: their compiled bytecode in a private folder (as an
    installed package keeps it), even where PYTHONDONTWRITEBYTECODE is set, without writing
    into the source tree; this checkout first on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = _scratch("bench-lint-pyc-")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


def _env_for(checkout: Path) -> dict[str, str]:
    """The children's environment with ``checkout``'s rsb_mj first on the path."""
    path = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH")]))
    return {**_base_env(), "PYTHONPATH": path}


def _imports_own_package(checkout: Path) -> bool:
    """Whether a child run in ``checkout`` imports that checkout's rsb_mj."""
    if not (checkout / "rsb_mj" / "__init__.py").is_file():
        return False
    probe = subprocess.run(
        [sys.executable, "-c", "import rsb_mj; print(rsb_mj.__file__)"],
        capture_output=True,
        text=True,
        env=_env_for(checkout),
        cwd=checkout,
        check=False,
    )
    return Path(probe.stdout.strip()).resolve() == (checkout / "rsb_mj" / "__init__.py").resolve()


def _child_run(
    args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT
) -> tuple[float, float]:
    """Wall time and CPU time [s] of one child process running ``args`` in ``cwd`` (``python
    -m`` puts its working folder first on the path: the checkout measured must be there)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        args,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env or _base_env(),
        cwd=cwd,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _best(
    args: list[str], repeat: int, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> tuple[float, float]:
    _child_run(args, env, cwd)  # warm-up: bytecode compiled, files in the page cache
    runs = [_child_run(args, env, cwd) for _ in range(repeat)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def _cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def _lint_chunk(paths: list[str]) -> list[str]:
    """In a spawned worker: the rendered findings of ``paths``."""
    from rsb_mj.lang.linter import lint_file

    out = []
    for path in paths:
        text, diagnostics = lint_file(path)
        out.extend(d.render(text) for d in diagnostics)
    return out


def _split_child(workers: int, paths: list[str]) -> int:
    """``rsb lint PATH...`` with the files split over ``workers`` spawned processes
    (what a ``--jobs`` on the evaluation pool's spawn back end would do); prints the findings."""
    from concurrent.futures import ProcessPoolExecutor

    from rsb_mj.lang.files import iter_files
    from rsb_mj.procs import spawn_context

    files = [str(p) for p in iter_files(paths)]
    chunks = [files[i :: workers * 4] for i in range(workers * 4)]
    with ProcessPoolExecutor(workers, mp_context=spawn_context()) as pool:
        for lines in pool.map(_lint_chunk, chunks):
            print("\n".join(lines))
    return 0


def _child_help(checkout: Path) -> str:
    """``rsb lint --help`` of ``checkout``'s rsb_mj."""
    command = [sys.executable, "-m", "rsb_mj", "lint", "--help"]
    return subprocess.run(
        command, capture_output=True, text=True, env=_env_for(checkout), cwd=checkout, timeout=60
    ).stdout


def _end_to_end(
    label: str, checkout: Path, paths: list[Path], repeat: int
) -> list[tuple[str, float, float]]:
    """(what, wall [s], CPU [s]) of the cold and split runs of ``checkout``'s rsb_mj (and the
    cached run of a baseline that has a result cache)."""
    py = sys.executable
    paths = [p.resolve() for p in paths]  # the children run in the checkout's folder
    command = [py, "-m", "rsb_mj", "lint", *map(str, paths)]
    cache = _scratch("bench-lint-cache-")
    env = {**_env_for(checkout), "RSB_MJ_CACHE": cache}
    if checkout == ROOT:
        split = [py, str(Path(__file__).resolve()), "--split-child", "2", *map(str, paths)]
        runs = [
            (f"{label}cold, one process", command),
            (f"{label}cold, two spawned workers", split),
        ]
    else:  # an older checkout may fork workers by default: measure both ways
        runs = [
            (f"{label}cold, one process", [*command, "--no-cache", "--jobs", "1"]),
            (f"{label}cold, its default", [*command, "--no-cache"]),
        ]
        if "result cache" in _child_help(checkout):
            runs.append((f"{label}cached", command))
    return [(what, *_best(args, repeat, env, checkout)) for what, args in runs]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures; return 0 (2: no task files)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=list(DEFAULT_PATHS))
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measure (best kept)")
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR", help="also measure the rsb_mj checkout at DIR"
    )
    parser.add_argument("--split-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.split_child:
        return _split_child(args.split_child, args.paths)

    from rsb_mj.lang.files import iter_files
    from rsb_mj.lang.grammar import grammar
    from rsb_mj.lang.linter import lint_problem, lint_text

    repeat = max(args.repeat, 1)
    files = [p for p in iter_files(args.paths) if p.suffix == ".bddl"]
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in files]
    if not texts:
        print("no *.bddl files found", file=sys.stderr)
        return 2
    if args.baseline is not None and not _imports_own_package(args.baseline.resolve()):
        print(f"--baseline {args.baseline}: not an rsb_mj checkout", file=sys.stderr)
        return 2
    n = len(texts)
    py = sys.executable
    print(f"{n} task files ({sum(len(t) for _, t in texts) / 1024:.0f} KiB), best of {repeat}")

    # ---- start-up ------------------------------------------------------------------------
    _, bare = _best([py, "-c", "pass"], repeat)
    _, imported = _best([py, "-c", "import rsb_mj"], repeat)
    _, one_file = _best([py, "-m", "rsb_mj", "lint", str(files[0])], repeat)
    print(
        f"start-up CPU: python {bare * 1000:.0f} ms, import rsb_mj +{(imported - bare) * 1000:.0f}"
        f" ms, rsb lint on one file {one_file * 1000:.0f} ms in all"
    )

    # ---- grammar -------------------------------------------------------------------------
    with tempfile.TemporaryDirectory() as cache:
        env = {**_base_env(), "RSB_MJ_CACHE": cache}
        load = [py, "-c", "from rsb_mj.lang.grammar import grammar; grammar()"]
        _, build_cpu = _child_run(load, env)  # first use builds and caches
        _, load_cpu = _best(load, repeat, env)
        _, import_cpu = _best([py, "-c", "import rsb_mj.lang.grammar"], repeat, env)
    print(
        f"grammar: build {max(build_cpu - import_cpu, 0) * 1000:.0f} ms, load from Lark's cache "
        f"{max(load_cpu - import_cpu, 0) * 1000:.0f} ms (Lark's import included)"
    )

    # ---- warm ----------------------------------------------------------------------------
    grammar()

    def parse_and_lint() -> None:
        for path, text in texts:
            lint_text(text, path)

    problems = [(grammar().parse(text), path) for path, text in texts]

    def lint_only() -> None:
        for problem, path in problems:
            lint_problem(problem, path)

    total = _cpu(parse_and_lint, repeat)
    rules = _cpu(lint_only, repeat)
    print(
        f"warm parse+lint: {n / total:.0f} files/s ({total * 1000:.0f} ms CPU, of which "
        f"parsing {max(total - rules, 0) * 1000:.0f} ms and the rules {rules * 1000:.0f} ms)"
    )

    # ---- end to end ----------------------------------------------------------------------
    checkouts = [("", ROOT)]
    if args.baseline is not None:
        checkouts.append(("baseline ", args.baseline.resolve()))
    figures = {}
    for _ in range(2):  # interleaved, so both see the same machine load
        for label, checkout in checkouts:
            for what, wall, cpu in _end_to_end(label, checkout, args.paths, max(repeat // 2, 1)):
                old = figures.get(what, (float("inf"), float("inf")))
                figures[what] = (min(old[0], wall), min(old[1], cpu))
    for what, (wall, cpu) in figures.items():
        verdict = ""
        if "cold, one" in what and n >= 300:
            verdict = f" ({'within' if wall <= TARGET_S else 'over'} the {TARGET_S} s target)"
        print(
            f"end to end ({what}): {wall * 1000:.0f} ms wall -> {n / wall:.0f} files/s; "
            f"CPU {cpu * 1000:.0f} ms{verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
