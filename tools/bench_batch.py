"""Batched evaluation against a server that answers like a GPU model, beside the simulator's
limit, in one run (issue 25).

The policy server runs in its own process (``bench_batch.py serve``): an openpi-protocol
websocket server that advertises ``max_batch_size`` and answers every request after a fixed
``--latency-ms`` (80) plus ``--per-item-ms`` (2) per observation in it, as a GPU model
serving a batch does (connections are served concurrently; each answer holds the received
state, so the robot holds still and every episode runs to the step limit). Episodes are
``RSB-Math-4`` with the three cameras rendered at the policy's ``--size`` (224 x 224), run by
``rsb eval``'s own runner (:func:`rsb_mj.evaluation.runner.run_eval`) with ``--workers`` (2)
and ``--batch B`` for each B of ``--batches`` (1, 4, 16), one observation per control step
(``openpi:HOST:PORT:1,convention=rsb``). The simulator-bound limit is the same run with an
instant in-process policy (physics + render per step, nothing to wait for) at B = 1.

Observations per second are the steady state: each configuration runs ``workers * B``
episodes at a time (every slot busy, refilled at once) for ``rounds + 2`` rounds; the first
round (start-up: spawning workers, building and first rendering B environments each) and
the last (workers ending unevenly) are left out, and the rate is ``workers * B`` slots
times the steps over the wall time of the episodes in between (each slot runs its episodes
back to back). Targets (the machine's
2 cores): B = 16 at least 3x B = 1 and at least 75% of the limit (``--check`` exits 1 when
either is missed).

Usage::

    python tools/bench_batch.py [--batches 1,4,16] [--workers 2] [--steps 40] [--obs 960]
                                [--json out.json] [--check]
    python tools/bench_batch.py serve --port-file F --stats-file S [--max-batch 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

SUITE = "RSB-Math-4"
CAMERAS = ("head", "left_wrist", "right_wrist")


class Instant:
    """The instant policy of the limit: reads the three cameras, holds the measured state."""

    cameras = CAMERAS

    def act(self, obs: dict[str, Any]) -> np.ndarray:
        return np.asarray(obs["state"], dtype=np.float64)


def instant() -> Instant:
    """``inprocess:tools/bench_batch.py:instant``."""
    return Instant()


# ---- the latency-emulating server (its own process) ----------------------------------------


async def _serve(args: argparse.Namespace) -> None:
    from websockets.asyncio.server import serve
    from websockets.exceptions import ConnectionClosed

    from rsb_mj.policies.openpi import BATCH_KEY
    from rsb_mj.policies.wire import packb, unpackb

    stats = {"requests": 0, "items": 0}
    stats_file = Path(args.stats_file)

    async def answer(ws: Any) -> None:
        await ws.send(packb({"policy": "latency-emulator", BATCH_KEY: args.max_batch}))
        try:
            async for message in ws:
                await one(ws, unpackb(message))
        except ConnectionClosed:  # a worker that ended without closing: nothing to answer
            return

    async def one(ws: Any, request: dict[str, Any]) -> None:
        batched = "batch" in request
        items = request["batch"] if batched else [request]
        await asyncio.sleep((args.latency_ms + args.per_item_ms * len(items)) / 1000.0)
        answers = [{"actions": np.asarray(o["state"], np.float32)[None]} for o in items]
        await ws.send(packb({"batch": answers} if batched else answers[0]))
        stats["requests"] += 1
        stats["items"] += len(items)
        tmp = stats_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(stats))
        os.replace(tmp, stats_file)

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with serve(
        answer, "127.0.0.1", 0, compression=None, max_size=None, ping_interval=None
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        Path(args.port_file).write_text(str(port))
        await stop.wait()


class Server:
    """``bench_batch.py serve`` in a subprocess; ``port`` once it listens."""

    def __init__(self, folder: Path, args: argparse.Namespace) -> None:
        self.port_file, self.stats_file = folder / "port", folder / "stats.json"
        cmd = [
            sys.executable, __file__, "serve", "--port-file", str(self.port_file),
            "--stats-file", str(self.stats_file), "--max-batch", str(max(args.batches)),
            "--latency-ms", str(args.latency_ms), "--per-item-ms", str(args.per_item_ms),
        ]  # fmt: skip
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not self.port_file.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("the latency-emulating server did not start")
            time.sleep(0.05)
        self.port = int(self.port_file.read_text())

    def stats(self) -> dict[str, int]:
        """Requests and items served so far."""
        try:
            return json.loads(self.stats_file.read_text())
        except (OSError, ValueError):
            return {"requests": 0, "items": 0}

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---- measuring ------------------------------------------------------------------------------


def measure(spec: str, batch: int, folder: Path, args: argparse.Namespace) -> dict[str, float]:
    """Observations per second of ``spec`` at ``--batch batch`` in the steady state (see
    the module docstring)."""
    from rsb_mj.evaluation.runner import EvalConfig, run_eval
    from rsb_mj.evaluation.worker import SettingsEnvFactory

    slots = args.workers * batch
    rounds = max(1, math.ceil(args.obs / (slots * args.steps)))
    tag = f"{'instant' if spec.startswith('inprocess') else 'server'}_b{batch}"
    config = EvalConfig(
        suites=(SUITE,), policies=(spec,), episodes=slots * (rounds + 2), out=folder / tag,
        workers=args.workers, max_steps=args.steps, progress=False, batch=batch,
        request_timeout_s=120.0,
    )  # fmt: skip
    start = time.perf_counter()
    records = run_eval(config, env_factory=SettingsEnvFactory(width=args.size, height=args.size))
    took = time.perf_counter() - start
    bad = [r for r in records if (r.termination, r.steps) != ("step_limit", args.steps)]
    if bad:
        raise RuntimeError(
            f"{spec} --batch {batch}: episode {bad[0].index} ended {bad[0].termination} after "
            f"{bad[0].steps} steps ({bad[0].error}); every episode must run {args.steps} steps"
        )
    steady = [r for r in records if slots <= r.index < slots * (rounds + 1)]
    observations = sum(r.steps for r in steady)
    seconds = sum(r.wall_s for r in steady)
    return {
        "obs_per_s": slots * observations / seconds,
        "observations": observations,
        "episode_s": seconds / len(steady),
        "run_s": took,
    }


def _machine() -> dict[str, Any]:
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "mujoco_gl": os.environ.get("MUJOCO_GL", ""),
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }


def bench(args: argparse.Namespace) -> dict[str, Any]:
    """Run every configuration; the figures and the targets."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    result: dict[str, Any] = {"machine": _machine(), "settings": {
        "suite": SUITE, "cameras": list(CAMERAS), "size": args.size, "workers": args.workers,
        "steps": args.steps, "latency_ms": args.latency_ms, "per_item_ms": args.per_item_ms,
    }}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="rsb-bench-batch-") as tmp:
        folder = Path(tmp)
        limit = measure(f"inprocess:{Path(__file__).resolve()}:instant", 1, folder, args)
        result["limit"] = limit
        print(f"simulator-bound limit (instant policy, B=1): {limit['obs_per_s']:.1f} obs/s")
        server = Server(folder, args)
        try:
            for batch in args.batches:
                before = server.stats()
                spec = f"openpi:127.0.0.1:{server.port}:1,convention=rsb"
                got = measure(spec, batch, folder, args)
                after = server.stats()
                requests = after["requests"] - before["requests"]
                got["items_per_request"] = (after["items"] - before["items"]) / max(1, requests)
                result[f"B={batch}"] = got
                print(
                    f"B={batch}: {got['obs_per_s']:.1f} obs/s, "
                    f"{got['items_per_request']:.2f} observations per request"
                )
        finally:
            server.close()
    result["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    top, one = max(args.batches), min(args.batches)
    rate = result[f"B={top}"]["obs_per_s"]
    result["ratio"] = rate / result[f"B={one}"]["obs_per_s"]
    result["of_limit"] = rate / limit["obs_per_s"]
    result["targets_met"] = bool(result["ratio"] >= 3.0 and result["of_limit"] >= 0.75)
    print(
        f"B={top}: {result['ratio']:.2f}x B={one} (target >= 3x), {100 * result['of_limit']:.0f}% "
        f"of the limit (target >= 75%); load average {result['machine']['load_before']} before, "
        f"{result['machine']['load_after']} after; {result['machine']['cpus']} CPUs "
        f"({result['machine']['cpu']})"
    )
    return result


def _batches(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("a comma-separated list of batch sizes >= 1")
    return values


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with ``serve``, the server); 0, or 1 with ``--check`` when a
    target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", choices=["bench", "serve"], default="bench")
    parser.add_argument("--batches", type=_batches, default=[1, 4, 16], help="default 1,4,16")
    parser.add_argument("--workers", type=int, default=2, help="rsb eval --workers (default 2)")
    parser.add_argument("--steps", type=int, default=40, help="control steps per episode")
    parser.add_argument(
        "--obs", type=int, default=960, help="observations measured per configuration at least"
    )
    parser.add_argument("--size", type=int, default=224, help="camera image side [px]")
    parser.add_argument("--latency-ms", type=float, default=80.0, help="per request (80)")
    parser.add_argument("--per-item-ms", type=float, default=2.0, help="per observation (2)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--port-file", help="serve: where the server writes its port")
    parser.add_argument("--stats-file", help="serve: where it keeps its request counts")
    parser.add_argument("--max-batch", type=int, default=16, help="serve: max_batch_size")
    args = parser.parse_args(argv)
    if min(args.workers, args.steps, args.obs, args.size, args.max_batch) < 1:
        parser.error("--workers, --steps, --obs, --size and --max-batch must be at least 1")
    if args.command == "serve":
        if not (args.port_file and args.stats_file):
            parser.error("serve needs --port-file and --stats-file")
        asyncio.run(_serve(args))
        return 0
    result = bench(args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 1 if args.check and not result["targets_met"] else 0


if __name__ == "__main__":
    sys.exit(main())
