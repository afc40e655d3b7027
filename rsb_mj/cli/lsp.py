"""``rsb lsp``: the language server for task files and template files, over stdio.

An editor starts it and talks LSP on its standard input and output (``docs/editors.md``
shows VS Code, Neovim and Helix set-ups). It needs the ``lsp`` extra
(``pip install 'rsb_mj[lsp]'``: pygls). Exit status: 0 when the client shuts it down, 2 when
pygls is missing. A malformed message (a bad ``Content-Length``, one over 64 MiB, a body that
is not JSON) is skipped with one line on stderr and the server reads on from the next one
(:mod:`rsb_mj.lsp.framing`); a request it cannot serve gets a JSON-RPC error.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``lsp`` subcommand."""
    parser = subparsers.add_parser(
        "lsp",
        help="language server for task files (stdio)",
        description="Language server (LSP over stdio) for task files (*.bddl) and template "
        "files: lint diagnostics with quick fixes, hover, completion, formatting, definitions.",
    )
    parser.add_argument(
        "--stdio", action="store_true", help="talk over stdin/stdout (the default and only way)"
    )
    parser.add_argument(
        "--debounce-ms",
        type=float,
        default=None,
        metavar="MS",
        help="milliseconds a change waits for the next before the file is linted (default 30)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client exits; returns the exit status."""
    try:
        # heavy: pygls (the lsp extra)
        from rsb_mj.lsp.server import DEBOUNCE_S, create_server
    except ImportError as exc:
        print(
            f"rsb lsp: error: {exc.name or exc} is not installed; install the lsp extra: "
            "pip install 'rsb_mj[lsp]'",
            file=sys.stderr,
        )
        return 2
    if args.debounce_ms is not None and args.debounce_ms < 0:
        print(
            f"rsb lsp: error: --debounce-ms must be >= 0, got {args.debounce_ms}", file=sys.stderr
        )
        return 2
    debounce = DEBOUNCE_S if args.debounce_ms is None else args.debounce_ms / 1000
    create_server(debounce).start_io()
    return 0
