"""The command line's progress: rewritten in place on a terminal, a plain line now and
then in a log (timed by a FakeClock here; tests/recording/test_cli.py runs the real
command with stderr on a file and on a terminal), and what `serve --replay` says."""

from __future__ import annotations

import io
from pathlib import Path

import kubenb
from kubenb.clock import FakeClock
from kubenb.recording.commands import ProgressLine, ReplayStatus
from tests.helpers import wait_until
from tests.recording.support import two_resources


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


def test_serve_replay_status_names_the_flag_that_replays_only_the_watched_resources(
        tmp_path: Path) -> None:
    clock = FakeClock()
    log = io.StringIO()
    with kubenb.embedded(replay=two_resources(tmp_path), speed=None,
                         replay_options={"clock": clock}) as cluster:
        status = ReplayStatus(cluster.replay, ProgressLine(log, clock=clock))
        cluster.informer("configmaps", namespace="default")
        assert status.update() and log.getvalue() == ""
        wait_until(clock.has_waiters, what="the replay waiting on its clock")
        clock.step(5.0)
        wait_until(lambda: cluster.replay.warned, what="the replay's warning")
        assert status.update()
        assert log.getvalue() == (
            "replay waiting for clients of deployments.apps: 0/1 actions, 00:00.000 of "
            "00:01.000; list or watch deployments.apps too, or serve again with "
            "--replay-resources configmaps\n")
        cluster.informer("deployments", namespace="default")
        assert cluster.replay.wait(10)
        assert not status.update()
        assert log.getvalue().splitlines()[-1] == (
            "replay done: 1/1 actions, 00:01.000 of 00:01.000; the server keeps serving the "
            "recorded final state")
