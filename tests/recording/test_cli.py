"""`python -m kubenb record`: against a real (embedded) server, as a separate process."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kubenb.recording import Recording
from kubenb.server import EmbeddedServer
from tests.helpers import wait_until

pytestmark = pytest.mark.slow  # each test runs `python -m kubenb record`


def _record(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "kubenb", "record", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1",
                                 "PYTHONFAULTHANDLER": "1"})  # SIGABRT prints every stack


def test_record_until_max_events(tmp_path: Path, server: EmbeddedServer) -> None:
    path = tmp_path / "cli.jsonl.gz"
    proc = _record("configmaps", "-o", str(path), "--kubeconfig", server.kubeconfig_path,
                   "-n", "default", "--max-events", "2")
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert "recording configmaps (namespace default)" in first and "Ctrl-C" in first
        wait_until(lambda: server.storage.watch_count == 1, 30, what="the recorder's watch")
        for name in ("a", "b", "c"):
            server.seed_objects(1, kind="configmaps", namespace="default", seed=ord(name))
        assert proc.wait(30) == 0
        rest = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert "stopped (max-events): 2 events" in rest
    rec = Recording.read(path)
    assert rec.stop_reason == "max-events"
    assert [e.type for e in rec.entries if e.op == "event"] == ["ADDED", "ADDED"]


def test_a_first_list_refused_with_403_stops_the_recording_at_once(
        tmp_path: Path, server: EmbeddedServer) -> None:
    """A user allowed only some namespaces records every namespace: the CLI stops at once
    with the server's message and a non-zero exit, not after its whole duration."""
    server.faults.fail(verb="list", code=403, resource="configmaps", user="jane")
    path = tmp_path / "refused.jsonl.gz"
    proc = _record("configmaps", "-A", "-o", str(path), "--kubeconfig",
                   server.kubeconfig_path, "--duration", "600")
    try:
        assert proc.wait(60) == 1
        err = proc.stderr.read() if proc.stderr is not None else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert "stopped (refused)" in err
    assert ('kubenb record: the server refused the first list of configmaps (all '
            'namespaces): 403 Forbidden: configmaps is forbidden: User "jane" cannot list '
            'resource "configmaps" in API group "" at the cluster scope') in err
    rec = Recording.read(path)
    assert rec.complete and rec.stop_reason == "refused"


def test_ctrl_c_closes_the_file_cleanly(tmp_path: Path, server: EmbeddedServer) -> None:
    path = tmp_path / "int.jsonl.gz"
    proc = _record("pods", "secrets", "-o", str(path), "--kubeconfig",
                   server.kubeconfig_path, "-A", "--redact", "metadata.labels")
    try:
        assert proc.stderr is not None
        assert "recording pods (all namespaces), secrets (all namespaces)" in \
            proc.stderr.readline()
        wait_until(lambda: server.storage.watch_count == 2, 30, what="two watches")
        server.seed_objects(2, kind="pods", namespace="default")
        wait_until(lambda: len(Recording.read(path).entries) >= 6, 30, what="two events")
        proc.send_signal(signal.SIGINT)
        try:
            assert proc.wait(30) == 0
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            proc.wait(10)
            raise AssertionError("Ctrl-C left the recorder running; its threads:\n"
                                 + proc.stderr.read()[-8000:]) from None
        assert "stopped (stopped)" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    rec = Recording.read(path)
    assert rec.complete and rec.stop_reason == "stopped"
    assert [r.resource for r in rec.resources] == ["pods", "secrets"]
    assert rec.header["redaction"]["fields"] == ["metadata.labels"]
    assert len(rec.final_state("pods")) == 2


def test_bad_input_says_what_is_wrong(tmp_path: Path, server: EmbeddedServer) -> None:
    done = subprocess.run([sys.executable, "-m", "kubenb", "record", "nosuchthings", "-o",
                           str(tmp_path / "x.gz"), "--kubeconfig", server.kubeconfig_path],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "kubenb record:" in done.stderr
    assert "nosuchthings" in done.stderr
    done = subprocess.run([sys.executable, "-m", "kubenb", "record", "pods", "-o",
                           str(tmp_path / "x.gz"), "--max-bytes", "lots"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "not a size" in done.stderr


def test_a_killed_recorder_leaves_a_readable_file(tmp_path: Path,
                                                  server: EmbeddedServer) -> None:
    """SIGKILL: no trailer, no gzip footer, yet every line flushed before is there."""
    path = tmp_path / "killed.jsonl.gz"
    proc = _record("configmaps", "-o", str(path), "--kubeconfig", server.kubeconfig_path,
                   "-n", "default")
    try:
        assert proc.stderr is not None
        proc.stderr.readline()
        wait_until(lambda: server.storage.watch_count == 1, 30, what="the recorder's watch")
        server.seed_objects(3, kind="configmaps", namespace="default")
        wait_until(lambda: path.exists() and sum(
            1 for e in Recording.read(path).entries if e.op == "event") == 3, 30,
            what="three events on disk")
        proc.kill()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    rec = Recording.read(path)
    assert not rec.complete and rec.stop_reason == "truncated"
    assert len(rec.final_state()) == 3


def test_progress_is_plain_lines_on_a_file_and_rewritten_on_a_terminal(
        tmp_path: Path, server: EmbeddedServer) -> None:
    """A log file gets the first and the last line (a line every 10 s between), not a
    `\\r` rewrite every half second; a terminal gets the line rewritten in place."""
    log = tmp_path / "record.log"
    with log.open("w") as stderr:
        done = subprocess.run([sys.executable, "-m", "kubenb", "record", "configmaps", "-o",
                               str(tmp_path / "f.jsonl.gz"), "--kubeconfig",
                               server.kubeconfig_path, "--duration", "1.5"],
                              stderr=stderr, stdout=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 0
    raw = log.read_bytes()  # as bytes: reading text would turn each \r into a newline
    assert b"\r" not in raw
    lines = raw.decode().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("recording configmaps") and lines[1].startswith(
        "stopped (duration): ")
    main, child = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "kubenb", "record", "configmaps",
                                 "-o", str(tmp_path / "t.jsonl.gz"), "--kubeconfig",
                                 server.kubeconfig_path, "--duration", "1.5"],
                                stderr=child, stdout=subprocess.DEVNULL)
        os.close(child)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal's other end closed: the recorder exited
                break
            if not chunk:
                break
            seen += chunk
        assert proc.wait(30) == 0
    finally:
        os.close(main)
    assert b"\rrecording: " in seen and b"\rstopped (duration)" in seen
