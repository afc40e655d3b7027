"""The ``rsb lsp`` language server (pygls, stdio) for task files and template files.

Diagnostics are published on open and, debounced, on change: a change waits
:data:`DEBOUNCE_S` for the next one before the text is linted, so a burst of keystrokes is
linted once. Lint work runs on one worker thread, in order (the linter is not shared between
threads), and a result is published only if the document has not changed since; hover,
completion and definition read the latest analysis (their declared names come from the last
version that parsed, so they keep working while a form is half typed). A request about a
document the editor never opened reads the file it names; where there is none (or it is no
regular file) the answer is null and stderr gets one line, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.files import is_template_file
from rsb_mj.lang.nodes import Span
from rsb_mj.lsp import completion, context, definition, fixes, formatting, grammar, hover, reference
from rsb_mj.lsp.analysis import Analysis, analyze
from rsb_mj.lsp.diagnostics import publishable
from rsb_mj.lsp.framing import MAX_FRAME_BYTES, FrameReader
from rsb_mj.lsp.positions import Positions
from rsb_mj.resources import tasks_dir
from rsb_mj.version import rsb_mj_version

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds a change waits for the next one before the document is linted.
DEBOUNCE_S = 0.03
_KINDS = {
    "keyword": types.CompletionItemKind.Keyword,
    "predicate": types.CompletionItemKind.Function,
    "category": types.CompletionItemKind.Class,
    "object": types.CompletionItemKind.Variable,
    "region": types.CompletionItemKind.Field,
    "source": types.CompletionItemKind.Module,
    "parameter": types.CompletionItemKind.Property,
    "value": types.CompletionItemKind.EnumMember,
    "variable": types.CompletionItemKind.Variable,
}
#: A shipped task and the edits that break it for the warm-up: linting them at start-up loads
#: the parser's slow road (Lark, taken by files with errors) and the rules' error paths.
_WARM_UP_TASK = "rsb_math_4.bddl"
_WARM_UP_EDITS = (("(:goal", "(:goall"), ("(On block_b", "(Onn block_b"), ("(:init", "(:init ("))


class RsbLanguageServer(LanguageServer):
    """The server: documents' analyses, the lint worker, and the debounce timers.

    Attributes:
        debounce: seconds a change waits for the next one (:data:`DEBOUNCE_S`).
        analyses: URI -> the latest analysis of the document.
        parsed: URI -> the latest problem that parsed (declared names for completion).
    """

    def __init__(self, debounce: float = DEBOUNCE_S) -> None:
        super().__init__(
            "rsb", rsb_mj_version(), text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.debounce = debounce
        self.analyses: dict[str, Analysis] = {}
        self.parsed: dict[str, Problem] = {}
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="rsb-lint")
        self._timers: dict[str, asyncio.Task[None]] = {}

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve LSP on stdin/stdout until the client exits or closes its end.

        Frames are read by :class:`~rsb_mj.lsp.framing.FrameReader` (pygls' own reader
        wedges on a malformed ``Content-Length`` and allocates whatever size one declares): a
        malformed frame is skipped with a line on stderr and the next one is served.
        """
        logging.getLogger("pygls.protocol.json_rpc").addFilter(_QuietRefusals())
        self._stop_event = threading.Event()
        frames = FrameReader(stdin or sys.stdin.buffer, _stderr)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve(frames))
        except BrokenPipeError:
            log.error("the client closed its end; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _serve(self, frames: FrameReader) -> None:
        loop = asyncio.get_running_loop()
        stop = self._stop_event
        while stop is not None and not stop.is_set():
            body = await loop.run_in_executor(self.thread_pool, frames.next)
            if body is None:
                return
            try:
                message = json.loads(body, object_hook=self.protocol.structure_message)
            except JsonRpcException as exc:  # JSON, but not what its method takes
                self._refuse(body, exc)
                continue
            except ValueError as exc:
                _stderr(f"rsb lsp: skipped a message that is not JSON ({exc})")
                self.protocol._send_data(_error_response(None, -32700, f"Parse error: {exc}"))
                continue
            try:
                self.protocol.handle_message(message)
            except Exception as exc:  # pygls' own loop reports these the same way
                log.exception("Unable to handle message")
                self._report_server_error(exc, JsonRpcException)

    def _refuse(self, body: bytes, exc: JsonRpcException) -> None:
        """Answer a request whose params do not fit its method's types (a negative or
        out-of-range position, a string for a number) with JSON-RPC's error, naming the
        field; a notification's is only logged (it has no answer)."""
        why = f"{exc.message}: {_leaf(exc)}"
        plain = json.loads(body)
        if isinstance(plain, dict) and "id" in plain and "method" in plain:
            _stderr(f"rsb lsp: refused request {plain['id']!r} ({plain['method']}): {why}")
            self.protocol._send_data(_error_response(plain["id"], exc.code, why))
        else:
            _stderr(f"rsb lsp: skipped a message: {why}")

    @property
    def encoding(self) -> str:
        """The negotiated position encoding."""
        return str(self.workspace.position_encoding or types.PositionEncodingKind.Utf16)

    def path_of(self, uri: str) -> Path:
        """The file a document URI names (``untitled.bddl`` in the working folder for a
        document that is not a file)."""
        fs = to_fs_path(uri)
        return Path(fs) if fs else Path.cwd() / "untitled.bddl"

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the lint worker."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, fn, *args)

    def document(self, uri: str) -> TextDocument | None:
        """The open document ``uri``; for one never opened, the file it names read from
        disk; None (with one line on stderr) where that is not a regular file of at most
        :data:`~rsb_mj.lsp.framing.MAX_FRAME_BYTES` that can be read as UTF-8 (a FIFO would
        block the server)."""
        doc = self.workspace.get_text_document(uri)
        opened = any(d is doc for d in self.workspace.text_documents.values())
        if opened or doc.path is None:
            return doc
        try:
            info = os.stat(doc.path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FRAME_BYTES:
                raise OSError(f"not a regular file of at most {MAX_FRAME_BYTES} bytes")
            doc.source  # noqa: B018 - read now: a file that cannot be read has no answer
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            _stderr(f"rsb lsp: {uri} is not open and its file cannot be read ({why}); null")
            return None
        return doc

    async def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document's current text (linting it now if it is stale);
        None for a document that is neither open nor a readable file."""
        doc = self.document(uri)
        if doc is None:
            return None
        known = self.analyses.get(uri)
        if known is not None and known.version == doc.version and known.text == doc.source:
            return known
        found = await self.run(analyze, doc.source, self.path_of(uri), doc.version)
        self._store(uri, found)
        return found

    def _store(self, uri: str, found: Analysis) -> None:
        self.analyses[uri] = found
        if found.problem is not None:
            self.parsed[uri] = found.problem

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document ``delay`` seconds from now, unless it changes again first."""
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self._timers[uri] = asyncio.get_running_loop().create_task(self._lint_later(uri, delay))

    async def _lint_later(self, uri: str, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        doc = self.document(uri)
        if doc is None:
            return
        text, version = doc.source, doc.version
        found = await self.run(analyze, text, self.path_of(uri), version)
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return  # changed (a newer lint is scheduled) or closed meanwhile
        self._store(uri, found)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri, publishable(found, self.encoding), version)
        )

    def problem(self, uri: str) -> Problem | None:
        """The latest problem of the document that parsed, or None."""
        return self.parsed.get(uri)

    def cursor(self, uri: str, position: types.Position) -> tuple[context.Cursor, Positions] | None:
        """The cursor at an LSP position of the document's current text; None for a document
        that is neither open nor a readable file (:meth:`document`)."""
        doc = self.document(uri)
        if doc is None:
            return None
        positions = Positions(doc.source, self.encoding)
        if position.line >= positions.line_count:
            raise JsonRpcInvalidParams(
                f"Invalid params: line {position.line} is past the end of {uri} (lines 0 to "
                f"{positions.line_count - 1})"
            )
        return context.cursor_at(doc.source, positions.offset_of(position)), positions


class _QuietRefusals(logging.Filter):
    """Drop pygls' tracebacks for requests the server refuses with a JSON-RPC error (their
    params do not fit, or name a line past the end): the client gets the error, and stderr
    one line (:meth:`RsbLanguageServer._refuse`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Unable to deserialize message"):
            return False
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, JsonRpcInvalidParams)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _error_response(msg_id: object, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC error response (``id`` null when the request's id is unknown)."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _leaf(exc: BaseException) -> str:
    """The innermost cause of ``exc`` (cattrs nests the failing field's error in groups)."""
    seen = exc
    while True:
        inner = getattr(seen, "exceptions", None)
        if inner:
            seen = inner[0]
        elif seen.__cause__ is not None:
            seen = seen.__cause__
        else:
            return str(seen)


def _diagnostic_of(data: object) -> Diagnostic | None:
    """The finding an LSP diagnostic's ``data`` holds (``rsb lint --format json`` form)."""
    if not isinstance(data, dict):
        return None
    try:
        span = Span(data["line"], data["column"], data["end_line"], data["end_column"])
        return Diagnostic(
            data["code"],
            data["name"],
            data["severity"],
            data["message"],
            data["path"],
            span,
            data["fix"],
        )
    except (KeyError, TypeError):
        return None


def _warm_up() -> None:
    """Load what the first requests need: the parser (on the lint worker), then the grammar
    index and the registries hover reads (a background thread)."""
    path = tasks_dir() / _WARM_UP_TASK
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:  # a trimmed install: the first real lint pays instead
        text = ""
    for old, new in _WARM_UP_EDITS:
        analyze(text.replace(old, new, 1), path)

    def rest() -> None:

        grammar.index()
        for call in (
            lambda: reference.predicate("In"),
            lambda: reference.category("can"),
            lambda: reference.source("arithmetic"),
        ):
            try:
                call()
            except Exception:  # a registry that fails to load is reported when asked for
                log.exception("warm-up")

    threading.Thread(target=rest, name="rsb-warm-up", daemon=True).start()


def create_server(debounce: float = DEBOUNCE_S) -> RsbLanguageServer:
    """A server with every feature registered."""
    server = RsbLanguageServer(debounce)

    @server.feature(types.INITIALIZED)
    def initialized(ls: RsbLanguageServer, params: types.InitializedParams) -> None:
        ls.worker.submit(_warm_up)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RsbLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RsbLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RsbLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0.0)  # question banks may have changed on disk

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RsbLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        timer = ls._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        ls.analyses.pop(uri, None)
        ls.parsed.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: RsbLanguageServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        at = ls.cursor(uri, params.position)
        if at is None:
            return None
        cursor, positions = at
        found = ls.analyses.get(uri)
        here = []
        if found is not None and found.text == positions.text:
            line = params.position.line + 1
            for d in found.diagnostics:
                start, end = positions.span_offsets(d.span)
                on_start = d.span.line == line or d.span.end_line == d.span.line
                if d.path == str(found.path) and on_start and start <= cursor.offset <= end:
                    here.append(d)
        text = await asyncio.to_thread(hover.hover_text, cursor, ls.problem(uri), here)
        if text is None:
            return None
        tok = cursor.token
        where = positions.range(tok.start, tok.end) if tok is not None else None
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), where)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(
            trigger_characters=["(", ":", "?", "-", "{"], resolve_provider=False
        ),
    )
    async def on_completion(
        ls: RsbLanguageServer, params: types.CompletionParams
    ) -> types.CompletionList | None:
        uri = params.text_document.uri
        at = ls.cursor(uri, params.position)
        if at is None:
            return None
        cursor, positions = at
        problem = ls.problem(uri)
        path = ls.path_of(uri)
        if is_template_file(path):
            line = positions.text[: cursor.offset].rsplit("\n", 1)[-1]
            typed, items = completion.complete_template(line, path.name)
            start = cursor.offset - typed
        else:
            items = await asyncio.to_thread(completion.complete, cursor, problem, positions.text)
            start = cursor.offset - len(cursor.prefix)
        replace = positions.range(start, cursor.offset)
        out = []
        for i, item in enumerate(items):
            doc = item.doc(problem)
            out.append(
                types.CompletionItem(
                    label=item.label,
                    kind=_KINDS.get(item.kind),
                    detail=item.detail or None,
                    documentation=types.MarkupContent(types.MarkupKind.Markdown, doc)
                    if doc
                    else None,
                    text_edit=types.TextEdit(replace, item.label),
                    sort_text=f"{i:04d}",
                )
            )
        return types.CompletionList(is_incomplete=False, items=out)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(
        ls: RsbLanguageServer, params: types.DefinitionParams
    ) -> types.Location | None:
        uri = params.text_document.uri
        at = ls.cursor(uri, params.position)
        if at is None:
            return None
        cursor, positions = at
        path = ls.path_of(uri)
        found = definition.definition(cursor, ls.problem(uri), path, positions)
        if found is None:
            return None
        if found.start is None or found.end is None:
            zero = types.Position(0, 0)
            return types.Location(found.path.as_uri(), types.Range(zero, zero))
        return types.Location(uri, positions.range(found.start, found.end))

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    async def on_formatting(
        ls: RsbLanguageServer, params: types.DocumentFormattingParams
    ) -> list[types.TextEdit] | None:
        uri = params.text_document.uri
        doc = ls.document(uri)
        if doc is None:
            return None
        text = doc.source
        out = await ls.run(formatting.formatted, text, ls.path_of(uri))
        if out is None:
            return None
        positions = Positions(text, ls.encoding)
        return [types.TextEdit(positions.range(0, len(text)), out)]

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    async def on_code_action(
        ls: RsbLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        found = await ls.analysis(uri)
        if found is None:
            return None
        positions = Positions(found.text, ls.encoding)
        actions = []
        for shown in params.context.diagnostics:
            d = _diagnostic_of(shown.data)
            if d is None or d not in found.diagnostics or not d.fix:
                continue
            edit = await ls.run(
                fixes.quick_fix, found.text, found.path, d, list(found.diagnostics), positions
            )
            if edit is None:
                continue
            change = types.TextEdit(positions.range(edit.start, edit.end), edit.new)
            actions.append(
                types.CodeAction(
                    title=f"{d.code} {d.name}: {edit.title}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=types.WorkspaceEdit(changes={uri: [change]}),
                    is_preferred=True,
                )
            )
        return actions

    return server
