"""Progress on stderr: plain lines in a log, per 5% of the items or per 10 s."""

from __future__ import annotations

import io

from rsb_mj.progress import LogProgress, progress


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_per_5_percent_or_per_10_s_and_one_at_the_end():
    out, clock = io.StringIO(), _Clock()
    bar = LogProgress(200, desc="rsb eval", unit="episodes", stream=out, clock=clock)
    for i in range(1, 13):
        clock.now += 1.0
        bar.set_postfix_str(f"p/S: {i}G {i}T of {i}")
        bar.update(1)  # every 10 items (5% of 200), or 10 s since the last line
    bar.close()
    bar.close()  # once
    assert out.getvalue().splitlines() == [
        "rsb eval: 10/200 episodes (5%), 10 s; p/S: 10G 10T of 10",
        "rsb eval: 12/200 episodes (6%), 12 s; p/S: 12G 12T of 12",
    ]
    out2, clock2 = io.StringIO(), _Clock()
    slow = LogProgress(200, initial=50, desc="x", unit="ep", stream=out2, clock=clock2)
    clock2.now += 11.0
    slow.update(1)  # 10 s passed: a line although 1 < 10 items
    assert out2.getvalue().splitlines() == [
        "x: resuming, 50 already done",
        "x: 51/200 ep (25%), 11 s",
    ]


def test_a_terminal_gets_a_bar_a_log_gets_lines_disabled_gets_nothing():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert type(progress(3, desc="d", unit="u", stream=Tty())).__name__ == "tqdm"
    assert isinstance(progress(3, desc="d", unit="u", stream=io.StringIO()), LogProgress)
    quiet = io.StringIO()
    silent = progress(3, desc="d", unit="u", stream=quiet, enabled=False)
    silent.update(3)
    silent.close()
    assert quiet.getvalue() == ""
