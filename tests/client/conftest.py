"""Fixtures for client tests: a fresh embedded server per test, reached over real HTTP."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.client.config import Config, load_config
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.clock import FakeClock
from kubenb.server import EmbeddedServer
from tests.helpers import assert_no_new_threads


class SleepRecordingClock(FakeClock):
    """A FakeClock whose `sleep` returns at once after stepping time: it records
    every retry delay without making the test wait for it."""

    def __init__(self) -> None:
        super().__init__()
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.step(seconds)


@pytest.fixture
def config(server: EmbeddedServer) -> Config:
    return load_config(str(server.kubeconfig_path))


@pytest.fixture
def rest(config: Config) -> Iterator[RESTClient]:
    client = RESTClient(config, clock=SleepRecordingClock())
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def dynamic(rest: RESTClient) -> DynamicClient:
    return DynamicClient(rest)


@pytest.fixture
def configmaps(dynamic: DynamicClient) -> ResourceClient:
    return dynamic.resource("v1", "configmaps").namespace("default")


def configmap(name: str, labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": labels or {}}, "data": data}


@pytest.fixture
def threads_checked() -> Iterator[None]:
    """Fail the test if it leaves a thread behind."""
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)


def kubeconfig_doc(server: str, user: dict[str, Any] | None = None,
                   cluster: dict[str, Any] | None = None) -> dict[str, Any]:
    """A kubeconfig of one context: cluster "dev", user "alice" (named in error messages)."""
    return {
        "current-context": "t",
        "clusters": [{"name": "dev", "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": "alice", "user": user or {}}],
        "contexts": [{"name": "t", "context": {"cluster": "dev", "user": "alice"}}],
    }


def rest_for(url: str) -> RESTClient:
    """A RESTClient for `url` whose retry delays are recorded, not waited for."""
    return RESTClient(Config(server=url), clock=SleepRecordingClock())
