"""Progress of a long command on stderr: a bar on a terminal, plain lines in a log.

:func:`progress` returns a tqdm bar when the stream is a terminal, else a :class:`LogProgress`
that writes one line per ``every`` finished items (5% of the total by default) or per
``interval_s`` seconds, whichever comes first, and one at the end: ``rsb eval: 12/120
episodes (10%), 0 errors, 38 s; expert/RSB-Math-4: 5G 5T of 5`` (a sealed run's name no
outcome: ``expert/RSB-Math-4: 5 done``). A log (``2>run.log``, a batch job, CI) gets a few
lines with counts instead of carriage-return bar frames.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

#: Seconds between two log lines at most (one is written when an item finishes after it).
INTERVAL_S = 10.0


class LogProgress:
    """tqdm's ``update``/``set_postfix_str``/``close`` as log lines (see the module doc).

    Args:
        total: items in all (finished ones included).
        initial: items already finished (a resumed run).
        desc: the line's prefix (``rsb eval``).
        unit: what an item is (``episodes``).
        stream: where the lines go (default stderr).
        every: a line every this many finished items (default: 5% of the total, at least 1).
        interval_s: a line when this many seconds passed since the last one.
        clock: seconds (monotonic), for tests.
    """

    def __init__(
        self,
        total: int,
        *,
        initial: int = 0,
        desc: str = "",
        unit: str = "items",
        stream: TextIO | None = None,
        every: int | None = None,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.n, self.desc, self.unit = total, initial, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.every = every if every is not None else max(1, total // 20)
        self.interval_s, self.clock = interval_s, clock
        self.start = self.last = clock()
        self.postfix = ""
        self.since = 0
        self.closed = False
        if initial:
            self._write(f"resuming, {initial} already done")

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """The counts shown after the progress (``refresh`` is tqdm's; unused)."""
        self.postfix = text

    def update(self, n: int = 1) -> None:
        """``n`` more items finished: write a line when one is due."""
        self.n += n
        self.since += n
        now = self.clock()
        if self.n < self.total and (self.since >= self.every or now - self.last >= self.interval_s):
            self._line(now)

    def close(self) -> None:
        """Write the last line (once), if any item finished since the previous one."""
        if not self.closed and self.since:
            self._line(self.clock())
        self.closed = True

    def _line(self, now: float) -> None:
        share = f" ({100 * self.n // self.total}%)" if self.total else ""
        text = f"{self.n}/{self.total} {self.unit}{share}, {now - self.start:.0f} s"
        self._write(text + (f"; {self.postfix}" if self.postfix else ""))
        self.last, self.since = now, 0

    def _write(self, text: str) -> None:
        prefix = f"{self.desc}: " if self.desc else ""
        print(prefix + text, file=self.stream, flush=True)


class _Silent:
    """No progress at all (``--no-progress``)."""

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        """Ignored."""

    def update(self, n: int = 1) -> None:
        """Ignored."""

    def close(self) -> None:
        """Ignored."""


def progress(
    total: int,
    *,
    initial: int = 0,
    desc: str,
    unit: str,
    enabled: bool = True,
    stream: TextIO | None = None,
) -> Any:
    """A progress display on ``stream`` (default stderr): a tqdm bar on a terminal, a
    :class:`LogProgress` elsewhere, nothing when not ``enabled``."""
    stream = stream if stream is not None else sys.stderr
    if not enabled:
        return _Silent()
    if stream.isatty():
        # heavy: tqdm, only on a terminal
        from tqdm import tqdm

        return tqdm(
            total=total, initial=initial, desc=desc, unit=unit, file=stream, dynamic_ncols=True
        )
    return LogProgress(total, initial=initial, desc=desc, unit=unit, stream=stream)
