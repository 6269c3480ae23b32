"""Small test helpers shared across test packages."""

from __future__ import annotations

import gc
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from kubenb.errors import FIFOClosedError


@contextmanager
def collector(enabled: bool) -> Iterator[None]:
    """The cyclic collector on or off for the block, then as it was."""
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
    """Poll `predicate` until true; fail after `timeout` real seconds.

    Used only to wait for a background thread to reach a state, never to let
    timers fire: timers are driven with FakeClock.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")
        time.sleep(0.001)


def kubenb_threads() -> list[threading.Thread]:
    """Live threads started by kubenb (they are all named kubenb-...)."""
    return [t for t in threading.enumerate() if t.name.startswith("kubenb")]


def pop_within(f: Any, seconds: float) -> Any:
    """Pop from a FIFO or DeltaFIFO in a thread; if nothing comes within `seconds`,
    close the queue and return None."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(f.pop(lambda item, initial: None))
        except FIFOClosedError:
            out.append(None)

    t = threading.Thread(target=run)
    t.start()
    t.join(seconds)
    if t.is_alive():
        f.close()
        t.join(2)
    assert not t.is_alive()
    return out[0]


def assert_no_new_threads(before: set[threading.Thread], grace: float = 2.0) -> None:
    """Fail unless every thread started since `before` ends within `grace` seconds."""
    deadline = time.monotonic() + grace
    extra: list[threading.Thread] = []
    while time.monotonic() < deadline:
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not extra:
            return
        time.sleep(0.01)
    frames = sys._current_frames()
    where = "".join(
        f"\n--- {t.name} ---\n" + "".join(traceback.format_stack(frames[t.ident]))
        for t in extra if t.ident in frames)
    raise AssertionError(f"threads left behind: {extra}{where}")


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl not found")


class Kubectl:
    """The real kubectl bound to one kubeconfig; `cache_dir` gives it its own discovery
    cache (servers on reused ports must not see each other's)."""

    def __init__(self, kubeconfig: Any, cache_dir: Any = None) -> None:
        self.base = ["kubectl", "--kubeconfig", str(kubeconfig)]
        if cache_dir is not None:
            self.base += ["--cache-dir", str(cache_dir)]

    def __call__(self, *args: str, stdin: str | None = None, ok: bool = True
                 ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True,
                              input=stdin, timeout=30)
        if ok:
            assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen([*self.base, *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
