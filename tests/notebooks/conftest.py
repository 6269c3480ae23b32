"""Fixtures for the notebook tests: an embedded server the notebooks reach by kubeconfig."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kubenb.server import EmbeddedServer
from tests.helpers import assert_no_new_threads

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

RUNNING_PODS = 12
PENDING_PODS = 3


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)


@pytest.fixture(scope="module")
def cluster_kubeconfig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A TLS + token embedded server with known pods, as a kubeconfig file: what a
    notebook that connects like kubectl sees instead of a real cluster."""
    server = EmbeddedServer(tls=True, token="notebook-test-token").start()
    try:
        server.seed_objects(RUNNING_PODS, seed=11)
        server.seed_objects(PENDING_PODS, seed=12, running=False)
        path = tmp_path_factory.mktemp("cluster") / "kubeconfig"
        server.write_kubeconfig(str(path))
        yield path
    finally:
        server.stop()
