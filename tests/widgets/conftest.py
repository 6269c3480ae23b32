"""Fixtures shared by the widget tests: no test may leave a kubenb- thread behind."""

import threading

import pytest

import kubenb
from tests.helpers import assert_no_new_threads


@pytest.fixture(autouse=True)
def no_thread_left_behind():
    before = set(threading.enumerate())
    yield
    assert_no_new_threads(before)


@pytest.fixture
def cluster():
    """A bare API server: the widgets show what the tests make, and no kubelet starts
    their Pending pods meanwhile."""
    with kubenb.embedded(controllers=False) as c:
        yield c
