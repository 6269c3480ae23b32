"""RealClock and FakeClock: time only moves when told to, and waiters wake on time."""

import threading

import pytest

from kubenb.clock import Clock, FakeClock, RealClock
from tests.helpers import wait_until


def test_real_clock_is_monotonic_and_waits():
    clock = RealClock()
    t0 = clock.now()
    clock.sleep(0.001)
    assert clock.since(t0) > 0
    cond = threading.Condition()
    with cond:
        clock.wait(cond, 0.001)  # returns after the timeout
        clock.wait(cond, 0)  # non-positive: returns at once
    event = threading.Event()
    assert clock.wait_event(event, 0.001) is False
    event.set()
    assert clock.wait_event(event, 10) is True
    assert isinstance(clock, Clock)


def test_fake_clock_moves_only_on_step():
    clock = FakeClock(100.0)
    assert clock.now() == 100.0
    clock.step(1.5)
    assert clock.now() == 101.5
    assert clock.since(100.0) == 1.5
    clock.set_time(200)
    assert clock.now() == 200
    with pytest.raises(ValueError, match="back in time"):
        clock.step(-1)
    with pytest.raises(ValueError, match="before now"):
        clock.set_time(10)
    assert isinstance(clock, Clock)


def test_fake_clock_sleep_wakes_exactly_when_time_is_reached():
    clock = FakeClock()
    woke = threading.Event()
    thread = threading.Thread(target=lambda: (clock.sleep(10), woke.set()))
    thread.start()
    wait_until(clock.has_waiters, what="sleeper to park")
    clock.step(9.999)
    assert not woke.wait(0.05)
    clock.step(0.001)
    assert woke.wait(5)
    thread.join(5)
    assert not clock.has_waiters()


def test_fake_clock_wait_on_condition_times_out_on_clock_time():
    clock = FakeClock()
    cond = threading.Condition()
    done = threading.Event()

    def waiter():
        with cond:
            clock.wait(cond, 5)
        done.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    wait_until(clock.has_waiters)
    assert clock.waiters() == 1
    clock.step(4)
    assert not done.wait(0.05)
    clock.step(1)
    assert done.wait(5)
    thread.join(5)


def test_fake_clock_wait_returns_when_notified_and_unregisters():
    clock = FakeClock()
    cond = threading.Condition()
    done = threading.Event()

    def waiter():
        with cond:
            clock.wait(cond, 1000)
        done.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    wait_until(clock.has_waiters)
    with cond:
        cond.notify_all()
    assert done.wait(5)
    thread.join(5)
    assert not clock.has_waiters()


def test_two_waiters_on_one_condition_stay_independent():
    clock = FakeClock()
    cond = threading.Condition()
    woke = []

    def waiter(name, timeout):
        with cond:
            clock.wait(cond, timeout)
        woke.append(name)

    threads = [threading.Thread(target=waiter, args=(n, t)) for n, t in (("a", 1), ("b", 2))]
    for thread in threads:
        thread.start()
    wait_until(lambda: clock.waiters() == 2)
    clock.step(1)
    wait_until(lambda: "a" in woke)
    # Notifying the shared condition may wake b early (as any Condition wait may);
    # either way each waiter removes only its own registration.
    clock.step(1)
    for thread in threads:
        thread.join(5)
    assert sorted(woke) == ["a", "b"]
    assert not clock.has_waiters()


def test_fake_clock_wait_event():
    clock = FakeClock()
    event = threading.Event()
    result = []
    thread = threading.Thread(target=lambda: result.append(clock.wait_event(event, 30)))
    thread.start()
    wait_until(clock.has_waiters)
    clock.step(30)
    thread.join(5)
    assert result == [False]

    thread = threading.Thread(target=lambda: result.append(clock.wait_event(event, 30)))
    thread.start()
    wait_until(clock.has_waiters)
    event.set()
    thread.join(5)
    assert result == [False, True]
    assert clock.wait_event(event, 0) is True


def test_fake_clock_past_deadline_does_not_block():
    clock = FakeClock()
    cond = threading.Condition()
    with cond:
        clock.wait(cond, 0)
        clock.wait(cond, -1)
    clock.sleep(0)
    assert not clock.has_waiters()


def test_wait_until_uses_the_absolute_deadline():
    clock = FakeClock()
    cond = threading.Condition()
    deadline = clock.now() + 5
    clock.step(5)  # the deadline passed before the wait began: no blocking
    with cond:
        clock.wait_until(cond, deadline)
    done = threading.Event()

    def waiter():
        with cond:
            clock.wait_until(cond, 8)
        done.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    wait_until(clock.has_waiters)
    clock.step(3)
    assert done.wait(5)
    thread.join(5)
    with cond:
        RealClock().wait_until(cond, RealClock().now() - 1)  # past: returns at once
