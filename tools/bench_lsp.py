"""Benchmark: how long ``rsb lsp`` takes from a change to its diagnostics, over stdio.

Usage::

    python tools/bench_lsp.py [--task tasks/rsb_math_4.bddl] [--changes 40] [--pause 0.15]

Starts ``python -m rsb_mj lsp`` as an editor does, opens a shipped task file, then makes
``--changes`` one-character edits (typing an ``l`` after ``:goal`` and deleting it again, so
every other version has findings: RSB201 and RSB401) as incremental ``didChange``
notifications, each ``--pause`` seconds after the previous one's diagnostics arrived (one
change at a time: what a person typing sees, not a burst). For each change it measures the
wall time from sending the notification to receiving the ``publishDiagnostics`` of that
version: the server's debounce wait (``--debounce-ms``, default the server's 30 ms), the
lint, and the JSON-RPC round trip. The edits start ``--settle`` seconds after the first
diagnostics (a person opens a file, then types), once the server's background warm-up (the
grammar index and the registries hover reads, MuJoCo among them) is done. Reported: the time
to the first diagnostics after open (server start-up included) and the median, 90th
percentile and maximum after a change. Target: < 100 ms after a change. ``RSB_BENCH_TRACE=1``
prints every measured time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", type=Path, default=ROOT / "tasks" / "rsb_math_4.bddl")
    parser.add_argument("--changes", type=int, default=40, help="edits measured (40)")
    parser.add_argument("--pause", type=float, default=0.15, help="seconds between edits")
    parser.add_argument(
        "--settle", type=float, default=3.0, help="seconds after open before the first edit"
    )
    parser.add_argument("--debounce-ms", type=float, default=None, help="the server's wait")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for one")
    return parser.parse_args(argv)


class _Client(LanguageClient):
    """A client that records when each document version's diagnostics arrive."""

    def __init__(self) -> None:
        super().__init__("rsb-bench", "1")
        self.arrived: dict[int, tuple[float, int]] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(client: _Client, params: types.PublishDiagnosticsParams) -> None:
            client.arrived[params.version or 0] = (time.perf_counter(), len(params.diagnostics))

    async def wait_for(self, version: int, timeout: float) -> tuple[float, int]:
        deadline = time.perf_counter() + timeout
        while version not in self.arrived:
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no diagnostics for version {version} in {timeout} s")
            await asyncio.sleep(0.001)
        return self.arrived[version]


async def bench(args: argparse.Namespace) -> dict[str, float]:
    """Run the benchmark; returns the figures in milliseconds."""
    text = args.task.read_text(encoding="utf-8")
    anchor = text.index("(:goal") + len("(:goal")
    line = text.count("\n", 0, anchor)
    column = anchor - (text.rfind("\n", 0, anchor) + 1)
    cmd = [sys.executable, "-m", "rsb_mj", "lsp"]
    if args.debounce_ms is not None:
        cmd += ["--debounce-ms", str(args.debounce_ms)]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    client = _Client()
    await client.start_io(*cmd, env=env)
    try:
        await client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities())
        )
        client.initialized(types.InitializedParams())
        uri = args.task.resolve().as_uri()
        sent = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "bddl", 1, text))
        )
        first = (await client.wait_for(1, args.timeout))[0] - sent
        await asyncio.sleep(args.settle)  # the server's background warm-up (hover registries)
        times, findings = [], []
        here = types.Position(line, column)
        for i in range(args.changes):
            await asyncio.sleep(args.pause)
            version = i + 2
            if i % 2 == 0:  # type an "l": (:goall
                change = types.TextDocumentContentChangePartial(types.Range(here, here), "l")
            else:  # delete it again
                after = types.Position(line, column + 1)
                change = types.TextDocumentContentChangePartial(types.Range(here, after), "")
            sent = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version, uri), [change]
                )
            )
            got, count = await client.wait_for(version, args.timeout)
            times.append(got - sent)
            findings.append(count)
        if args.changes and (findings[0] == 0 or (len(findings) > 1 and findings[1] != 0)):
            raise RuntimeError(f"unexpected finding counts {findings[:4]}: the edit did not apply")
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    if os.environ.get("RSB_BENCH_TRACE"):
        print([round(t * 1000, 1) for t in times])
    times.sort()
    out = {"open_ms": first * 1000}
    if times:
        out["median_ms"] = statistics.median(times) * 1000
        out["p90_ms"] = times[min(len(times) - 1, int(0.9 * len(times)))] * 1000
        out["max_ms"] = times[-1] * 1000
    return out


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    figures = asyncio.run(bench(args))
    print(f"task: {args.task.name}; first diagnostics after open: {figures['open_ms']:.0f} ms")
    if args.changes:
        print(
            f"diagnostics after a change ({args.changes} edits): median "
            f"{figures['median_ms']:.1f} ms, p90 {figures['p90_ms']:.1f} ms, "
            f"max {figures['max_ms']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
