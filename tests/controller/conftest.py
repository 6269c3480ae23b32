"""Fixtures for the controller tests: an embedded API server per test where one is
needed, a FakeClock for every timer, and no thread left behind."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import kubenb
from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from tests.helpers import assert_no_new_threads, wait_until
from tests.realapi import REALAPI


def realapi(name: str) -> dict[str, Any]:
    """One captured exchange from the real kube-apiserver fixtures."""
    return json.loads((REALAPI / name).read_text())


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """A bare API server: these tests drive their own controllers, and a garbage collector
    would delete their hand-made objects whose owners do not exist."""
    with kubenb.embedded(controllers=False) as c:
        yield c


def wait_parked(clock: FakeClock, *electors: Any, timeout: float = 5.0) -> None:
    """Wait until every leader elector is parked on `clock` for a time not yet reached:
    after this, none of them acts again until the clock is stepped."""

    def parked() -> bool:
        now = clock.now()
        return all(e._parked_until is not None and e._parked_until > now for e in electors)

    wait_until(parked, timeout, what="the leader electors to park on the clock")
