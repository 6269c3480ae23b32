"""The kubelet's container runtime on its own, on a FakeClock: restarts and their
back-off (Go's flowcontrol.Backoff), SIGTERM and SIGKILL, and the logs it keeps."""

from __future__ import annotations

from typing import Any

import pytest

from kubenb.clock import FakeClock
from kubenb.controllermanager.container_logs import ContainerLog, LogOptions, LogOptionsError
from kubenb.controllermanager.container_runtime import ContainerRuntime, LogNotFound


def pod(command: str, restart: str = "Always") -> dict[str, Any]:
    return {"metadata": {"name": "p", "namespace": "default", "uid": "u-1"}, "spec": {
        "restartPolicy": restart,
        "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", command]}]}}


def state(runtime: ContainerRuntime, obj: dict[str, Any]) -> tuple[str, int]:
    statuses = runtime.container_statuses(obj)
    assert statuses is not None
    (status,) = statuses
    return next(iter(status["state"])), status["restartCount"]


def test_restarts_back_off_from_10_s_doubling_to_5_min() -> None:
    clock = FakeClock()
    runtime = ContainerRuntime(clock, lambda key: None)
    crashing = pod("sleep 5; exit 1")
    assert runtime.sync(crashing) == 5
    clock.step(5)
    runtime.sync(crashing)  # the first crash: restarted at once
    assert state(runtime, crashing) == ("running", 1)
    waits = []
    for _ in range(7):
        clock.step(5)
        waits.append(runtime.sync(crashing))  # crashed: waits out the back-off
        assert state(runtime, crashing)[0] == "waiting"
        clock.step(waits[-1])
        runtime.sync(crashing)
        assert state(runtime, crashing)[0] == "running"
    assert waits == [10, 20, 40, 80, 160, 300, 300]
    assert state(runtime, crashing)[1] == 8


def test_a_container_that_ran_10_minutes_restarts_at_once_again() -> None:
    clock = FakeClock()
    runtime = ContainerRuntime(clock, lambda key: None)
    long_runner = pod("sleep 700; exit 1")
    runtime.sync(long_runner)
    for restarts in (1, 2, 3):
        clock.step(700)
        runtime.sync(long_runner)
        assert state(runtime, long_runner) == ("running", restarts)


def test_on_failure_does_not_restart_a_success_and_never_does_not_restart() -> None:
    clock = FakeClock()
    runtime = ContainerRuntime(clock, lambda key: None)
    ok, failing = pod("exit 0", "OnFailure"), dict(pod("exit 3", "Never"))
    failing["metadata"] = {**failing["metadata"], "name": "q", "uid": "u-2"}
    runtime.sync(ok)
    runtime.sync(failing)
    clock.step(1)  # run_seconds
    runtime.sync(ok)
    runtime.sync(failing)
    assert state(runtime, ok) == ("terminated", 0)
    assert state(runtime, failing) == ("terminated", 0)


def test_sigterm_stops_at_once_and_an_image_that_ignores_it_is_killed() -> None:
    clock = FakeClock()
    runtime = ContainerRuntime(clock, lambda key: None)
    runtime.image("busybox", ignores_sigterm=True)
    server = pod("sleep 3600")
    runtime.sync(server)
    assert runtime.kill(server, 30) == 30
    clock.step(30)
    assert runtime.kill(server, 30) is None
    statuses = runtime.container_statuses(server)
    assert statuses is not None
    assert statuses[0]["state"]["terminated"]["exitCode"] == 137
    runtime.image("busybox")  # declared again: now it stops on SIGTERM
    other = pod("sleep 3600")
    other["metadata"] = {**other["metadata"], "uid": "u-3"}
    runtime.sync(other)
    assert runtime.kill(other, 30) is None
    statuses = runtime.container_statuses(other)
    assert statuses is not None and statuses[0]["state"]["terminated"]["exitCode"] == 0


def test_logs_are_kept_per_attempt_and_read_with_options() -> None:
    clock = FakeClock()
    runtime = ContainerRuntime(clock, lambda key: None)
    with pytest.raises(LogNotFound, match='pod "default/p" not found'):
        runtime.log("default", "p", "c")
    runtime.sync(pod("sleep 1; exit 1"))
    runtime.log("default", "p", "c").write("one\ntwo")
    with pytest.raises(LogNotFound, match='previous terminated container "c"'):
        runtime.log("default", "p", "c", previous=True)
    with pytest.raises(LogNotFound, match='container "x" in pod "p" is not available'):
        runtime.log("default", "p", "x")
    clock.step(1)
    runtime.sync(pod("sleep 1; exit 1"))  # restarted: the log before is `previous`
    assert runtime.log("default", "p", "c", previous=True).text() == "one\ntwo\n"
    assert runtime.log("default", "p", "c").text() == ""


def test_log_options() -> None:
    log = ContainerLog(max_bytes=12)
    for n in range(5):
        log.write(f"line {n}")  # 7 bytes each: 12 bytes keep one line
    assert log.text() == "line 4\n"
    log = ContainerLog()
    log.write("a\nb\nc")
    log.close()

    def read(**params: str) -> bytes:
        return b"".join(LogOptions.from_query(params).read(log))

    assert read() == b"a\nb\nc\n"
    assert read(tailLines="2") == b"b\nc\n"
    assert read(limitBytes="3") == b"a\nb"
    assert read(follow="true") == b"a\nb\nc\n"  # closed: following ends
    with pytest.raises(LogOptionsError, match="limitBytes: invalid value 0: must be greater"):
        LogOptions.from_query({"limitBytes": "0"})
    with pytest.raises(LogOptionsError, match="follow: invalid value 'yes'"):
        LogOptions.from_query({"follow": "yes"})
    with pytest.raises(LogOptionsError, match="sinceTime: invalid value 'noon'"):
        LogOptions.from_query({"sinceTime": "noon"})
