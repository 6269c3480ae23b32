"""`python -m kubenb serve --replay FILE`: a recorded cluster that kubectl can be pointed
at, judged by kubectl itself over the kubeconfig `serve` writes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers import Kubectl, needs_kubectl
from tests.recording.support import CONFIGMAPS, configmap, write_recording

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # each test runs `python -m kubenb serve`


def _recording(tmp_path: Path) -> Path:
    """ConfigMap a at rv 40 in the first list, then a MODIFIED and an ADDED."""
    records = [
        {"t": 0.0, "r": 0, "op": "list", "rv": "50",
         "items": [configmap("a", 40, "1", listed=True)]},
        {"t": 0.001, "r": 0, "op": "watch", "rv": "50"},
        {"t": 1.0, "r": 0, "op": "event", "type": "MODIFIED",
         "object": configmap("a", 51, "2")},
        {"t": 2.0, "r": 0, "op": "event", "type": "ADDED", "object": configmap("b", 52, "1")},
    ]
    return write_recording(tmp_path / "cm.jsonl.gz", [CONFIGMAPS], records)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@contextmanager
def serve(*flags: str) -> Iterator[subprocess.Popen[str]]:
    """`python -m kubenb serve FLAGS`, once it has announced its URL; SIGTERM at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "kubenb", "serve", "--port", "0", *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kubenb API server listening on "), (
            line, proc.stderr.read() if proc.stderr else "")
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _configmaps(kubectl: Kubectl) -> dict[str, tuple[str, str]]:
    items = json.loads(kubectl("get", "configmaps", "-n", "default", "-o", "json").stdout)
    return {i["metadata"]["name"]: (i["metadata"]["resourceVersion"], i["data"]["v"])
            for i in items["items"]}


@needs_kubectl
def test_kubectl_reads_the_recorded_cluster_then_its_replayed_history(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kc.yaml"
    with serve("--replay", str(_recording(tmp_path)), "--speed", "0",
               "--kubeconfig-out", str(kubeconfig)) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith("kubeconfig written to ")
        banner = proc.stdout.readline()
        if banner.startswith("CA certificate: "):  # HTTPS, the default
            banner = proc.stdout.readline()
        assert "replaying" in banner and "configmaps (namespace default)" in banner
        kubectl = Kubectl(kubeconfig, tmp_path / "kube-cache")
        # kubectl's list is the replay's only client: the recorded first list, then it plays
        assert _configmaps(kubectl) == {"a": ("40", "1")}
        done = proc.stderr.readline()  # stderr is a pipe: one plain line at the end
        assert done.startswith("replay done: 2/2 actions, 00:02.000 of 00:02.000"), done
        assert _configmaps(kubectl) == {"a": ("51", "2"), "b": ("52", "1")}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        assert "kubenb API server stopped" in proc.stdout.read()


def test_serve_replay_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    path = str(_recording(tmp_path))
    for flags, message in (
            (["--speed", "2"], "--speed needs --replay FILE"),
            (["--replay", str(tmp_path / "nothing.gz")], "no recording at"),
            (["--replay", path, "--churn", "5"], "--replay cannot run with --churn"),
            (["--replay", path, "--replay-resources", "pods"], "no resource 'pods'")):
        done = subprocess.run([sys.executable, "-m", "kubenb", "serve", "--port", "0",
                               *flags], capture_output=True, text=True, timeout=60,
                              env=_env())
        assert done.returncode == 2, (flags, done.stderr)
        assert done.stderr.startswith("kubenb serve: ") and message in done.stderr
