"""The recorder's progress line: rewritten in place on a terminal, a plain line now and
then in a log (timed by a FakeClock here; tests/recording/test_cli.py runs the real
command with stderr on a file and on a terminal)."""

from __future__ import annotations

import io

from kubenb.clock import FakeClock
from kubenb.recording.commands import ProgressLine


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_line_every_ten_seconds_not_every_update() -> None:
    clock = FakeClock()
    log = io.StringIO()
    progress = ProgressLine(log, every=10.0, clock=clock)
    for n in range(100):  # 50 s of updates twice a second
        progress.show(f"recording: {n} events")
        clock.step(0.5)
    progress.finish("stopped (stopped): 100 events")
    assert "\r" not in log.getvalue()
    assert log.getvalue().splitlines() == [
        "recording: 20 events", "recording: 40 events", "recording: 60 events",
        "recording: 80 events", "stopped (stopped): 100 events"]


def test_a_terminal_gets_the_line_rewritten_in_place() -> None:
    terminal = Terminal()
    progress = ProgressLine(terminal, clock=FakeClock())
    progress.show("recording: 10 events")
    progress.show("recording: 9")
    progress.finish("stopped")
    assert terminal.getvalue() == ("\rrecording: 10 events\rrecording: 9        "
                                   "\rstopped     \n")
