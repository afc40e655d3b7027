"""Benchmark: how fast ``rsb lint`` is, warm and end to end, in files per second.

Usage::

    python tools/bench_lint.py [--repeat N] [PATH ...]

Defaults to the full LIBERO and VLA-Arena suites (``tests/data/bddl_suites``, 300 files).
Reported, best of ``--repeat`` runs each:

* **start-up**: CPU time of ``python -c pass``, of ``import rsb_mj`` and of the whole
  ``rsb lint`` command on one file (interpreter, imports, argument parsing);
* **grammar**: building the LALR tables from ``grammar/rsb.lark`` versus loading them from the
  user cache (only files with errors need them);
* **warm**: parse + lint of every file in this process (texts in memory), by the fast reader
  (what ``rsb lint`` uses on well-formed files) and by Lark alone, and their ratio;
* **end to end**: ``python -m rsb_mj lint PATH...`` as a user runs it, process start included,
  wall clock and CPU time of the child: *cold* (``--no-cache``: every file parsed and linted,
  as on a first run or after an upgrade) with one worker and with the default
  (``--jobs 0``), and *cached* (the files unchanged since the previous run: their results
  come from the lint cache, :mod:`rsb_mj.lang.cache`). The children use a private cache
  folder.

Child processes keep compiled bytecode in a private folder (as an installed package does),
also where ``PYTHONDONTWRITEBYTECODE`` is set. Wall clock on a shared machine is noisy; CPU
time is steadier and is what the ratios use. Target: >= 1,000 files/s end to end.

Run it with the interpreter of a plain virtual environment: one whose ``site-packages`` runs
``.pth`` start-up hooks (some sandboxes import ``certifi`` there) adds their cost to every
process start, which the "python" start-up figure shows.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = (ROOT / "tests" / "data" / "bddl_suites",)
TARGET = 1000.0


#: Child processes keep their compiled bytecode (as an installed package does) in a private
#: folder, even where PYTHONDONTWRITEBYTECODE is set, without writing into the source tree.
_PYCACHE = tempfile.mkdtemp(prefix="bench-lint-pyc-")
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_ENV["PYTHONPYCACHEPREFIX"] = _PYCACHE
#: This checkout's rsb_mj is measured, in this process and in the children, whatever copy the
#: interpreter has installed.
_ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
sys.path.insert(0, str(ROOT))


def _child_run(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall time and CPU time [s] of one child process running ``args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env or _ENV, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _best(args: list[str], repeat: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    _child_run(args, env)  # warm-up: bytecode compiled, files in the page cache
    runs = [_child_run(args, env) for _ in range(repeat)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def _cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures; return 0."""
    from rsb_mj.lang.fastparse import Fallback, fast_parse
    from rsb_mj.lang.linter import iter_files, lint_problem, lint_text
    from rsb_mj.lang.parser import grammar

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=list(DEFAULT_PATHS))
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measure (best kept)")
    args = parser.parse_args(argv)
    repeat = max(args.repeat, 1)
    files = [p for p in iter_files(args.paths) if p.suffix == ".bddl"]
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in files]
    if not texts:
        print("no *.bddl files found", file=sys.stderr)
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
        env = {**_ENV, "RSB_MJ_CACHE": cache}
        load = [py, "-c", "from rsb_mj.lang.parser import grammar; grammar()"]
        _, build_cpu = _child_run(load, env)  # first use builds and caches
        _, load_cpu = _best(load, repeat, env)
        _, import_cpu = _best([py, "-c", "import rsb_mj.lang.parser"], repeat, env)
    print(
        f"grammar: build {max(build_cpu - import_cpu, 0) * 1000:.0f} ms, load from cache "
        f"{max(load_cpu - import_cpu, 0) * 1000:.0f} ms, Lark's import included (Lark only "
        "runs on files with errors)"
    )

    # ---- warm ----------------------------------------------------------------------------
    grammar()

    def fast() -> None:
        for path, text in texts:
            lint_text(text, path)

    def lark_only() -> None:
        for path, text in texts:
            lint_problem(grammar().parse(text), path)

    fast_cpu = _cpu(fast, repeat)
    lark_cpu = _cpu(lark_only, repeat)
    fallbacks = 0
    for _, text in texts:
        try:
            fast_parse(text)
        except Fallback:
            fallbacks += 1
    print(
        f"warm parse+lint: {n / fast_cpu:.0f} files/s (fast reader; {fallbacks} files needed "
        f"Lark), Lark alone {n / lark_cpu:.0f} files/s: x{lark_cpu / fast_cpu:.1f}"
    )

    # ---- end to end ----------------------------------------------------------------------
    command = [py, "-m", "rsb_mj", "lint", *map(str, args.paths)]
    cache = tempfile.mkdtemp(prefix="bench-lint-cache-")
    env = {**_ENV, "RSB_MJ_CACHE": cache}
    for label, extra in (
        ("cold, 1 worker", ["--no-cache", "--jobs", "1"]),
        ("cold, default", ["--no-cache"]),
        ("cached", []),
    ):
        wall, cpu = _best([*command, *extra], repeat, env)
        print(
            f"end to end ({label}): {wall * 1000:.0f} ms wall -> {n / wall:.0f} files/s; "
            f"CPU {cpu * 1000:.0f} ms -> {n / cpu:.0f} files/s "
            f"({'meets' if n / wall >= TARGET else 'below'} the {TARGET:.0f} files/s target "
            "by wall clock)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
