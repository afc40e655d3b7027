"""Headless Chromium over the Chrome DevTools protocol: open a page, run script, screenshot.

The report page is checked in a real browser (tests/reporting/test_html_browser.py) and
``tools/html_screenshot.py`` draws the docs' screenshot with it. Only the system's Chromium
is used (Debian's ``chromium`` package; nothing is downloaded): it starts with
:data:`FLAGS`, a fresh profile folder and ``--remote-debugging-port=0``, and this module talks
to it over one websocket (the ``websockets`` dependency) with flattened target sessions.

Example::

    with Chromium() as browser:
        page = browser.open(Path("runs/quick/report/report.html"))
        print(page.evaluate("document.title"), page.errors)
        page.screenshot(Path("page.png"))
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rsb_mj.errors import RsbError

__all__ = ["FLAGS", "BrowserError", "Chromium", "Page", "find_chromium"]

#: Flags Chromium runs with: headless, no sandbox (root in CI), no GPU, nothing contacted.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)
#: Executable names tried, in order.
NAMES = ("chromium", "chromium-browser", "google-chrome")


class BrowserError(RsbError):
    """Chromium could not be started, did not answer in time, or a command failed."""


def find_chromium() -> str | None:
    """Path of the first of :data:`NAMES` on ``PATH``, or None."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Page:
    """One tab: every console error, uncaught exception and requested URL is recorded.

    Attributes:
        errors: console errors, failed assertions, uncaught exceptions and error log entries,
            one line each (``"console.error: ..."``, ``"exception: ..."``, ``"log: ..."``).
        requests: URLs the page requested, in order (the page itself first).
    """

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser = browser
        self.session = session
        self.errors: list[str] = []
        self.requests: list[str] = []

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one protocol command to this tab; returns its result."""
        return self.browser.call(method, params, session=self.session)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message["method"], message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.errors.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            self.errors.append(f"exception: {text}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text', '')} {entry.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))

    def navigate(self, url: str, *, timeout_s: float = 30.0) -> None:
        """Load ``url`` and wait for its load event.

        Raises:
            BrowserError: when the page does not load within ``timeout_s``.
        """
        self.browser.pending.pop((self.session, "Page.loadEventFired"), None)
        result = self.call("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"{url}: {result['errorText']}")
        self.browser.wait_event(self.session, "Page.loadEventFired", timeout_s)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited), returned by value.

        Raises:
            BrowserError: when the expression throws, with the exception's text.
        """
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"script failed: {text}")
        return result.get("result", {}).get("value")

    def screenshot(self, path: Path, *, full_page: bool = False) -> bytes:
        """Save a PNG of the viewport (or the whole page) to ``path``; returns its bytes."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            params |= {
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1},
            }
        data = base64.b64decode(self.call("Page.captureScreenshot", params)["data"])
        from rsb_mj.atomic import atomic_write_bytes

        atomic_write_bytes(path, data)
        return data


class Chromium:
    """A headless Chromium process driven over its DevTools websocket (a context manager).

    Args:
        binary: the executable (default: :func:`find_chromium`).
        width, height: the window, in CSS pixels.
        timeout_s: how long to wait for the browser to start and for each answer [s].
        flags: extra command-line flags.

    Raises:
        BrowserError: when no Chromium is installed or it does not start in time.
    """

    def __init__(
        self,
        binary: str | None = None,
        *,
        width: int = 1400,
        height: int = 900,
        timeout_s: float = 60.0,
        flags: Sequence[str] = (),
    ) -> None:
        self.binary = binary or find_chromium()
        if self.binary is None:
            raise BrowserError(
                f"no Chromium found (tried {', '.join(NAMES)}): apt-get install chromium"
            )
        self.size = (width, height)
        self.timeout_s = timeout_s
        self.flags = tuple(flags)
        self.ids = itertools.count(1)
        self.pages: dict[str, Page] = {}
        self.pending: dict[tuple[str | None, str], dict[str, Any]] = {}
        self.proc: subprocess.Popen | None = None
        self.ws: Any = None
        self.stack = contextlib.ExitStack()
        self.profile: Path | None = None  # a fresh folder per browser, removed by close()

    def __enter__(self) -> Chromium:
        from websockets.sync.client import connect

        self.profile = profile = Path(tempfile.mkdtemp(prefix="rsb-chromium-"))
        log = open(profile / "chromium.log", "wb")
        self.proc = subprocess.Popen(
            [
                self.binary,
                *FLAGS,
                *self.flags,
                f"--user-data-dir={profile / 'profile'}",
                "--remote-debugging-port=0",
                f"--window-size={self.size[0]},{self.size[1]}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # its helper processes form one group, ended together
        )
        log.close()
        port_file = profile / "profile" / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout_s
        while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = (profile / "chromium.log").read_text(errors="replace")[-2000:]
                self.close()
                raise BrowserError(
                    f"{self.binary} did not start within {self.timeout_s:g} s:\n{tail}"
                )
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self.ws = self.stack.enter_context(
            connect(f"ws://127.0.0.1:{port}{path}", open_timeout=self.timeout_s, max_size=None)
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection, end the browser process and remove its profile."""
        self.stack.close()
        self.ws = None
        if self.proc is not None:
            group = self.proc.pid  # the session leader: its pid is the group's id
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)  # helpers that outlived the browser
            self.proc = None
        if self.profile is not None:
            for _ in range(50):  # a helper may still be writing as it dies
                try:
                    shutil.rmtree(self.profile)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)
            self.profile = None

    def _receive(self, timeout_s: float) -> dict[str, Any]:
        try:
            message = json.loads(self.ws.recv(timeout=timeout_s))
        except TimeoutError:
            raise BrowserError(f"Chromium did not answer within {timeout_s:g} s") from None
        if "method" in message:
            page = self.pages.get(message.get("sessionId", ""))
            if page is not None:
                page._event(message)
            self.pending[(message.get("sessionId"), message["method"])] = message
        return message

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        """Send one command (to a tab's ``session``, or to the browser) and return its result.

        Raises:
            BrowserError: for a protocol error or no answer within the timeout.
        """
        ident = next(self.ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._receive(max(0.01, deadline - time.monotonic()))
            if reply.get("id") == ident:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})

    def wait_event(self, session: str | None, method: str, timeout_s: float) -> dict[str, Any]:
        """Wait for the event ``method`` of ``session`` (one already received counts).

        Raises:
            BrowserError: when it does not come within ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        while (session, method) not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no {method} within {timeout_s:g} s")
            self._receive(left)
        return self.pending.pop((session, method))

    def open(self, target: Path | str) -> Page:
        """A new tab showing ``target`` (a file path, or a URL), loaded."""
        url = target.resolve().as_uri() if isinstance(target, Path) else target
        created = self.call("Target.createTarget", {"url": "about:blank"})
        attached = self.call(
            "Target.attachToTarget", {"targetId": created["targetId"], "flatten": True}
        )
        page = Page(self, attached["sessionId"])
        self.pages[page.session] = page
        width, height = self.size
        for method, params in (
            ("Page.enable", {}),
            ("Runtime.enable", {}),
            ("Log.enable", {}),
            ("Network.enable", {}),
            (
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            ),
        ):
            page.call(method, params)
        page.navigate(url)
        return page
