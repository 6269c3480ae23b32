"""Fixtures for client tests: a fresh embedded server per test, reached over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.client.config import Config, load_config
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.clock import FakeClock
from kubenb.server import EmbeddedServer


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
