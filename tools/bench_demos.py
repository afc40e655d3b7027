"""Benchmark: how fast ``rsb demos`` writes rendered expert demonstrations, and whether the
files stay the same.

Usage::

    python tools/bench_demos.py [-n N] [--repeat R] [--baseline DIR] [--suite S]
        [--split train] [--cameras head,left_wrist,right_wrist] [--width 320] [--height 240]
        [--json PATH]

Runs ``python -m rsb_mj demos SUITE --split SPLIT -n N -j 1`` as a user runs it (one worker,
a fresh output folder each time, process start included) and reports, best of ``--repeat``
runs:

* **wall**: episodes per minute of wall clock;
* **CPU**: episodes per minute per core, from the CPU time (user + system, every thread:
  Mesa's rasterizer threads and the JPEG encoder included) of the child. The machine is
  shared, so this is the steadier figure; the target is :data:`TARGET_PER_CORE`;
* **per episode**: with ``-n`` of 2 or more, one ``-n 1`` run too, and the CPU time of one
  more episode, ``(cpu(N) - cpu(1)) / (N - 1)`` (start-up, imports and the environment's
  construction left out).

``--baseline DIR`` measures the rsb_mj checkout at ``DIR`` as well (for instance ``git
archive main | tar -x -C /tmp/rsb-before``), interleaved with this checkout's runs so that
before and after see the same machine load, and compares the episode files the two wrote:
the speed-ups must keep every file byte for byte (exit 1 otherwise). The machine's load
average is printed before and after.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Episodes per minute per core (CPU time) that ``rsb demos`` with three cameras should reach.
TARGET_PER_CORE = 30.0
CAMERAS = "head,left_wrist,right_wrist"


def _scratch(prefix: str) -> Path:
    """A fresh temporary folder, removed when this process exits."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return Path(folder)


@functools.cache
def _pyc_folder() -> str:
    return str(_scratch("bench-demos-pyc-"))


def _env_for(checkout: Path) -> dict[str, str]:
    """The children's environment: ``checkout``'s rsb_mj first on the path, compiled bytecode
    in a private folder (not in the source tree), software EGL unless the caller chose."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))
    env["PYTHONPYCACHEPREFIX"] = _pyc_folder()
    env.setdefault("MUJOCO_GL", "egl")
    return env


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


def _compile(checkout: Path) -> None:
    """Compile ``checkout``'s modules into the private bytecode folder, so the first timed run
    does not pay for it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "rsb_mj"],
        capture_output=True,
        env=_env_for(checkout),
        cwd=checkout,
        check=False,
    )


def _demos(checkout: Path, out: Path, n: int, args: argparse.Namespace) -> tuple[float, float]:
    """Wall time and CPU time [s] of ``rsb demos`` (``checkout``'s) writing ``n`` episodes to
    the fresh folder ``out``.

    Raises:
        SystemExit: (2) when the command fails.
    """
    command = [
        sys.executable, "-m", "rsb_mj", "demos", args.suite, "--split", args.split,
        "-n", str(n), "-j", "1", "-o", str(out), "--cameras", args.cameras,
        "--width", str(args.width), "--height", str(args.height), "--no-progress",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env=_env_for(checkout), cwd=checkout, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: some expert failures, files still written
        sys.stderr.write(f"{checkout}: rsb demos failed ({done.returncode}):\n{done.stderr}")
        raise SystemExit(2)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _digests(folder: Path) -> dict[str, str]:
    """SHA-256 of every episode file in ``folder``, by name."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.glob("episode_*.hdf5"))
    }


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when done (1: the files differ from the baseline's, 2: usage)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="episodes per run (default 10)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per checkout (best kept)")
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR", help="also measure the rsb_mj checkout at DIR"
    )
    parser.add_argument("--suite", default="RSB-Math-4")
    parser.add_argument("--split", default="train", choices=("train", "eval"))
    parser.add_argument("--cameras", default=CAMERAS, help=f"(default {CAMERAS})")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=240)
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        print("-n and --repeat must be >= 1", file=sys.stderr)
        return 2
    checkouts = [("this checkout", ROOT)]
    if args.baseline is not None:
        baseline = args.baseline.resolve()
        if not _imports_own_package(baseline):
            print(f"--baseline {args.baseline}: not an rsb_mj checkout", file=sys.stderr)
            return 2
        checkouts.append(("baseline", baseline))
    load_before = _load()
    cameras = args.cameras or "''"
    print(
        f"rsb demos {args.suite} --split {args.split} -n {args.n} -j 1 --cameras {cameras} "
        f"at {args.width}x{args.height}, best of {args.repeat}; load average {load_before}"
    )
    for _, checkout in checkouts:
        _compile(checkout)
    scratch = _scratch("bench-demos-")
    best: dict[str, dict[str, float]] = {label: {} for label, _ in checkouts}
    files: dict[str, Path] = {}
    sizes = [args.n, 1] if args.n > 1 else [args.n]
    for run in range(args.repeat):  # interleaved: both checkouts see the same machine load
        for label, checkout in checkouts:
            for n in sizes:
                out = scratch / f"{label.replace(' ', '_')}-{n}-{run}"
                wall, cpu = _demos(checkout, out, n, args)
                fig = best[label]
                fig[f"wall_{n}"] = min(fig.get(f"wall_{n}", float("inf")), wall)
                fig[f"cpu_{n}"] = min(fig.get(f"cpu_{n}", float("inf")), cpu)
                if n == args.n:
                    files.setdefault(label, out)
    report: dict[str, dict[str, float]] = {}
    for label, fig in best.items():
        wall, cpu = fig[f"wall_{args.n}"], fig[f"cpu_{args.n}"]
        row = {
            "wall_s": wall,
            "cpu_s": cpu,
            "episodes_per_min_wall": 60 * args.n / wall,
            "episodes_per_min_per_core": 60 * args.n / cpu,
        }
        line = (
            f"{label}: {args.n} episodes in {wall:.1f} s wall ({row['episodes_per_min_wall']:.1f}"
            f"/min), {cpu:.1f} s CPU ({row['episodes_per_min_per_core']:.1f}/min/core)"
        )
        if args.n > 1:
            row["cpu_per_episode_s"] = (cpu - fig["cpu_1"]) / (args.n - 1)
            row["startup_cpu_s"] = fig["cpu_1"] - row["cpu_per_episode_s"]
            line += (
                f"; one more episode {row['cpu_per_episode_s']:.2f} s CPU "
                f"({60 / row['cpu_per_episode_s']:.1f}/min/core), start-up "
                f"{row['startup_cpu_s']:.1f} s CPU"
            )
        report[label] = row
        print(line)
    mine = report["this checkout"]["episodes_per_min_per_core"]
    verdict = "meets" if mine >= TARGET_PER_CORE else "is below"
    print(f"target: {TARGET_PER_CORE:g} episodes/min/core; this checkout {verdict} it")
    code = 0
    if args.baseline is not None:
        old = report["baseline"]
        print(
            f"speed-up: {old['cpu_s'] / report['this checkout']['cpu_s']:.2f}x CPU, "
            f"{old['wall_s'] / report['this checkout']['wall_s']:.2f}x wall"
        )
        a, b = _digests(files["this checkout"]), _digests(files["baseline"])
        same = sorted(k for k in a if b.get(k) == a[k])
        print(f"files: {len(same)} of {len(b)} byte-identical to the baseline's")
        if len(same) != len(a) or set(a) != set(b):
            print("differing: " + ", ".join(sorted(set(a) ^ set(b) | (set(a) - set(same)))))
            code = 1
    load_after = _load()
    print(f"load average after: {load_after}")
    if args.json is not None:
        meta = {"load_before": load_before, "load_after": load_after, "n": args.n}
        args.json.write_text(json.dumps({"meta": meta, "figures": report}, indent=2) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
