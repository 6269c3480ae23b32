"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from kubenb.server import EmbeddedServer

# Hypothesis's per-example deadline and its too-slow health check are wall-clock
# assertions: on a loaded machine they fail tests whose property holds. The suite times
# nothing, so neither applies to any test (a test's own @settings keeps its example count).
settings.register_profile("kubenb", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kubenb")


@pytest.fixture
def server() -> Iterator[EmbeddedServer]:
    """A fresh embedded API server per test, over real HTTP on loopback; fast bookmarks
    and a short wait for too-large resourceVersions keep watch tests quick."""
    srv = EmbeddedServer(bookmark_interval=0.2, too_large_rv_wait=0.2, history_window=1000)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
