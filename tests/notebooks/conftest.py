"""Fixtures for the notebook tests: an embedded server the notebooks reach by kubeconfig."""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubenb.server import EmbeddedServer
from tests.helpers import assert_no_new_threads

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

RUNNING_PODS = 12
PENDING_PODS = 3


def skip_without(*modules: str) -> None:
    """Skip the calling test module unless every one of `modules` is installed (the
    notebook extra), without importing them."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}, in the notebook extra: "
                    "pip install -e '.[notebook]'", allow_module_level=True)


class LazyModule:
    """A module imported on its first attribute read. nbformat's import (jsonschema's)
    takes seconds, which collecting these tests in every xdist worker would pay."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # pytest's collection probes for markers: not an import
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)


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
