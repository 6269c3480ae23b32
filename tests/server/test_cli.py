"""`python -m kubenb serve` (HTTPS by default, --plain-http), --seed-objects, --churn and
--seed, as a subprocess."""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
import yaml

from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
PODS = "/api/v1/namespaces/default/pods"
CM = "/api/v1/namespaces/default/configmaps"

pytestmark = pytest.mark.slow  # each test runs `python -m kubenb serve`


@contextmanager
def serve(*flags: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run `python -m kubenb serve FLAGS`; yield it and its URL; SIGTERM it at the end."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "kubenb", "serve", "--port", "0", *flags],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kubenb API server listening on "), (
            line, proc.stderr.read() if proc.stderr else "")
        yield proc, line.rsplit(" ", 1)[1].strip()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _token(kubeconfig: Path) -> str:
    return str(yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]["token"])


def _ca_file(kubeconfig: Path, tmp_path: Path) -> str:
    cluster = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]
    ca = tmp_path / "ca.crt"
    ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    return str(ca)


@pytest.mark.parametrize("flags", [(), ("--tls",)], ids=["default", "tls-alias"])
def test_serve_speaks_https_by_default_with_seed_objects(tmp_path: Path,
                                                          flags: tuple[str, ...]) -> None:
    kubeconfig = tmp_path / "kc.yaml"
    with serve(*flags, "--seed-objects", "5", "--kubeconfig-out", str(kubeconfig)) as (
            proc, url):
        assert url.startswith("https://127.0.0.1:")
        assert kubeconfig.exists()  # written before the URL was announced
        config = yaml.safe_load(kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        ca = _ca_file(kubeconfig, tmp_path)
        auth = {"Authorization": f"Bearer {_token(kubeconfig)}"}  # made for this server
        assert requests.get(url + PODS, verify=ca, timeout=10).status_code == 401
        pods = requests.get(url + PODS, verify=ca, headers=auth, timeout=10).json()["items"]
        assert len(pods) == 5 and {p["status"]["phase"] for p in pods} == {"Running"}
        with pytest.raises(requests.exceptions.SSLError):
            requests.get(url + "/readyz", timeout=10)
        if shutil.which("kubectl"):
            out = subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), "get", "pods",
                                  "-o", "name"], capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            assert len(out.stdout.split()) == 5
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        assert proc.stdout is not None
        assert "kubenb API server stopped" in proc.stdout.read()


def test_serve_churn_with_seed_makes_objects_move(tmp_path: Path) -> None:
    with serve("--plain-http", "--churn", "200", "--seed", "3",
               "--churn-kinds", "configmaps,pods") as (
            proc, url):
        def count(path: str) -> int:
            return len(requests.get(url + path, timeout=10).json()["items"])

        wait_until(lambda: count("/api/v1/namespaces/default/configmaps") > 0
                   and count(PODS) > 0, timeout=20, what="churned objects")
        wait_until(lambda: any(p["status"]["phase"] == "Running" for p in requests.get(
            url + PODS, timeout=10).json()["items"]), timeout=20, what="a kubelet-run pod")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0


def test_serve_rejects_bad_instrument_flags() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base = [sys.executable, "-m", "kubenb", "serve", "--port", "0"]
    bad_kind = subprocess.run([*base, "--churn", "5", "--churn-kinds", "widgets"],
                              capture_output=True, text=True, env=env, timeout=60)
    assert bad_kind.returncode == 2
    assert "widgets" in bad_kind.stderr and "not supported" in bad_kind.stderr
    negative = subprocess.run([*base, "--seed-objects", "-1"], capture_output=True, text=True,
                              env=env, timeout=60)
    assert negative.returncode == 2 and "--seed-objects" in negative.stderr
    both = subprocess.run([*base, "--tls", "--plain-http"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_cli_serve_prints_url_writes_kubeconfig_and_stops(tmp_path: Path) -> None:
    out = tmp_path / "kc.yaml"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONFAULTHANDLER="1")  # SIGABRT prints every thread's stack
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubenb", "serve", "--port", "0", "--token", "t0k",
         "--plain-http", "--kubeconfig-out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("kubenb API server listening on http://127.0.0.1:"), line
        url = line.rsplit(" ", 1)[1].strip()
        deadline = time.monotonic() + 10
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        config = yaml.safe_load(out.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        assert requests.get(url + "/readyz", timeout=5).text == "ok"
        assert requests.get(url + CM, timeout=5).status_code == 401
        assert requests.get(url + CM, headers={"Authorization": "Bearer t0k"},
                            timeout=5).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            proc.wait(10)
    assert proc.returncode == 0, proc.stderr.read()[-8000:] if proc.stderr else ""

