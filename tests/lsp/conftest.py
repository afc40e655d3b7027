"""A real ``rsb lsp`` process driven over stdio by pytest-lsp's client (one per module)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tasks"
#: Seconds a test waits for the server's answer before failing.
TIMEOUT_S = 60.0


def _recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics in ``client.published``."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]

    def publish(c: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        c.diagnostics[params.uri] = params.diagnostics
        c.published.append(params)  # type: ignore[attr-defined]

    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    register_lsp_features(client, features)
    return client


def server_env() -> dict[str, str]:
    """The test's environment with this checkout first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "rsb_mj", "lsp", "--debounce-ms", "30"],
        client_factory=_recording_client,
        server_env=server_env(),
    ),
)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=ROOT.as_uri()
        )
    )
    yield
    await lsp_client.shutdown_session()


async def published(
    client: LanguageClient, uri: str, version: int | None = None
) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for ``uri`` (at ``version`` if given)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT_S
    while loop.time() < deadline:
        for params in reversed(client.published):  # type: ignore[attr-defined]
            if params.uri == uri and (version is None or params.version == version):
                return list(params.diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} version {version} in {TIMEOUT_S} s")


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    """Open ``path`` (with ``text``, default its contents) in the server; returns its URI."""
    uri = path.resolve().as_uri()
    body = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "bddl", version, body))
    )
    return uri


def change_doc(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """Replace the document's whole text (a full change)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


def position_of(text: str, needle: str, at: int = 0) -> types.Position:
    """The LSP position of the ``at``-th character of the first ``needle`` in ``text``."""
    offset = text.index(needle) + at
    line = text.count("\n", 0, offset)
    return types.Position(line, offset - (text.rfind("\n", 0, offset) + 1))
