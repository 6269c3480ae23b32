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
    with kubenb.embedded() as c:
        yield c
