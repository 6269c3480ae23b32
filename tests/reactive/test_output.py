"""Callback output capture (per thread) and the kernel versions live views work on."""

from __future__ import annotations

import sys
import threading
import warnings

import ipywidgets
import pytest

from kubenb.reactive import output as output_module
from kubenb.reactive.output import (
    MAX_OUTPUTS,
    capture_output,
    check_kernel,
    in_kernel,
    kernel_problem,
    make_output,
)
from kubenb.reactive.publisher import PublisherError


class Sink:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.err: list[str] = []

    def append_stdout(self, text: str) -> None:
        self.out.append(text)

    def append_stderr(self, text: str) -> None:
        self.err.append(text)


def test_only_the_capturing_thread_is_captured(capsys: pytest.CaptureFixture[str]) -> None:
    sink = Sink()
    inside = threading.Event()
    release = threading.Event()

    def callback_thread() -> None:
        with capture_output(sink):
            print("one")
            print("two", file=sys.stderr)
            inside.set()
            assert release.wait(5)
            print("three")

    worker = threading.Thread(target=callback_thread)
    worker.start()
    assert inside.wait(5)
    print("the cell's own output")  # while the other thread is capturing
    release.set()
    worker.join()
    assert sink.out == ["one\nthree\n"] and sink.err == ["two\n"]  # one message each
    assert capsys.readouterr().out == "the cell's own output\n"


def test_nothing_captured_means_no_message_and_none_means_no_capture(
        capsys: pytest.CaptureFixture[str]) -> None:
    sink = Sink()
    with capture_output(sink):
        pass
    with capture_output(None):
        print("plain")
    assert sink.out == [] and capsys.readouterr().out == "plain\n"


def test_an_output_widget_keeps_a_bounded_list() -> None:
    widget = ipywidgets.Output()
    for i in range(MAX_OUTPUTS + 50):
        with capture_output(widget):
            print(i)
    assert len(widget.outputs) == MAX_OUTPUTS
    assert widget.outputs[-1]["text"] == f"{MAX_OUTPUTS + 49}\n"


@pytest.mark.parametrize(("version", "bad"), [
    ("6.29.5", False), ("7.0.0", True), ("7.0.1", True), ("7.1.0", False), ("7.10.2", False),
    ("", False)])
def test_ipykernel_7_0_is_refused(version: str, bad: bool) -> None:
    problem = kernel_problem(version)
    assert (problem is not None) == bad
    if bad:
        assert version in problem and ">= 7.1" in problem


def test_check_kernel_warns_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output_module, "_warned", set())
    with pytest.warns(RuntimeWarning, match="ipykernel 7.0.1"):
        check_kernel("7.0.1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_kernel("7.0.1") is not None  # known: no second warning
        assert check_kernel("6.29.0") is None


def test_outside_a_kernel_prints_stay_where_they_are() -> None:
    assert not in_kernel()
    assert make_output() is None
    widget = ipywidgets.Output()
    assert make_output(widget) is widget
    with pytest.raises(PublisherError, match="append_stdout"):
        make_output(object())
