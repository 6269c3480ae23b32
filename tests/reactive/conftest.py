"""Fixtures shared by the reactive tests: no test may leave a thread behind."""

import threading

import pytest

from tests.helpers import assert_no_new_threads


@pytest.fixture(autouse=True)
def no_thread_left_behind():
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)
