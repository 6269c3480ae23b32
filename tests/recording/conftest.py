"""Fixtures of the recording tests: no kubenb thread may outlive a test."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.helpers import assert_no_new_threads


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before, grace=5.0)
