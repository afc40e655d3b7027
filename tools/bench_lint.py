"""Benchmark: parse + lint throughput of the task language, in files per second.

Usage::

    python tools/bench_lint.py [--repeat N] [PATH ...]

Defaults to ``tasks/`` and ``tests/data/bddl_corpus/`` (the 50 LIBERO / VLA-Arena files).
Each repeat reads every file from memory (no disk time), parses it with the LALR grammar,
builds the AST and runs every lint rule; the best repeat is reported, by wall clock and by
this process's CPU time (the second is steadier on a shared machine). Target: >= 500 files/s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rsb_mj.lang.linter import iter_files, lint_text
from rsb_mj.lang.parser import grammar

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = (ROOT / "tasks", ROOT / "tests" / "data" / "bddl_corpus")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print files/s; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=list(DEFAULT_PATHS))
    parser.add_argument("--repeat", type=int, default=5, help="timed passes (best is kept)")
    args = parser.parse_args(argv)
    files = [p for p in iter_files(args.paths) if p.suffix == ".bddl"]
    texts = [(str(p), p.read_text(encoding="utf-8")) for p in files]
    if not texts:
        print("no *.bddl files found", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    grammar()  # build the parser once; reported separately
    build_s = time.perf_counter() - t0
    best = best_cpu = float("inf")
    findings = 0
    for _ in range(max(args.repeat, 1)):
        start, start_cpu = time.perf_counter(), time.process_time()
        findings = 0
        for path, text in texts:
            findings += len(lint_text(text, path)[1])
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    rate = len(texts) / best
    kib = sum(len(t) for _, t in texts) / 1024
    print(f"grammar build: {build_s * 1000:.0f} ms (once per process)")
    print(
        f"parse+lint: {len(texts)} files ({kib:.0f} KiB), {findings} findings, "
        f"best of {args.repeat}: {best * 1000:.1f} ms wall -> {rate:.0f} files/s "
        f"({'meets' if rate >= 500 else 'BELOW'} the 500 files/s target); "
        f"CPU time {best_cpu * 1000:.1f} ms -> {len(texts) / best_cpu:.0f} files/s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
