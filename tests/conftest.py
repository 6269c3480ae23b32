"""Fixtures shared by every test package."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kubenb.server import EmbeddedServer


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
