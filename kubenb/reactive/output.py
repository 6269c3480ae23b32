"""Where user callbacks' output goes, and which Jupyter kernels can show it.

Callbacks of live views run on the publisher thread, not in a cell. What they print
would land in whichever cell happens to be running (ipykernel routes background
output by the last parent message), so a view captures it and hands it to an
`ipywidgets.Output` with `append_stdout` / `append_stderr`: that is a widget state
update, which ipykernel sends correctly from any thread on 6.x and >= 7.1. ipykernel
7.0.x broke output from background threads; `check_kernel()` warns about it.

Capturing works through a thin router installed on `sys.stdout` / `sys.stderr`: a
thread inside `capture_output(target)` writes to its own buffer, every other thread
writes through to the stream that was there before, unchanged.
"""

from __future__ import annotations

import io
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "MAX_OUTPUTS",
    "capture_output",
    "check_kernel",
    "in_kernel",
    "kernel_problem",
    "make_output",
]

#: Output entries kept on an Output widget: every append re-sends the whole list, so
#: an unbounded list would make each message bigger than the last.
MAX_OUTPUTS = 200

_local = threading.local()
_install_lock = threading.Lock()
_warned: set[str] = set()


class _RoutedStream(io.TextIOBase):
    """Writes of capturing threads go to their buffer; all others to `base`."""

    def __init__(self, base: Any, which: int) -> None:
        self._base = base
        self._which = which  # 0 = stdout, 1 = stderr

    def write(self, text: str) -> int:
        buffers = getattr(_local, "buffers", None)
        if buffers is not None:
            return buffers[self._which].write(text)
        return self._base.write(text)

    def flush(self) -> None:
        if getattr(_local, "buffers", None) is None:
            self._base.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return bool(getattr(self._base, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self._base.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._base, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


def _install() -> None:
    """Put the routers on sys.stdout/sys.stderr (again, if someone replaced them)."""
    with _install_lock:
        if not isinstance(sys.stdout, _RoutedStream):
            sys.stdout = _RoutedStream(sys.stdout, 0)
        if not isinstance(sys.stderr, _RoutedStream):
            sys.stderr = _RoutedStream(sys.stderr, 1)


@contextmanager
def capture_output(target: Any) -> Iterator[None]:
    """Run the body with this thread's prints captured, then hand them to `target`
    (anything with `append_stdout(text)` / `append_stderr(text)`, e.g. an
    `ipywidgets.Output`) in one message. With `target=None` nothing is captured."""
    if target is None:
        yield
        return
    _install()
    outer = getattr(_local, "buffers", None)
    buffers = (io.StringIO(), io.StringIO())
    _local.buffers = buffers
    try:
        yield
    finally:
        _local.buffers = outer
        _deliver(target, buffers[0].getvalue(), buffers[1].getvalue())


def _deliver(target: Any, out: str, err: str) -> None:
    if not out and not err:
        return
    hold = getattr(target, "hold_sync", None)
    if callable(hold):
        with hold():
            _append(target, out, err)
    else:
        _append(target, out, err)


def _append(target: Any, out: str, err: str) -> None:
    if out:
        target.append_stdout(out)
    if err:
        target.append_stderr(err)
    outputs = getattr(target, "outputs", None)
    if isinstance(outputs, tuple) and len(outputs) > MAX_OUTPUTS:
        target.outputs = outputs[-MAX_OUTPUTS:]


def in_kernel() -> bool:
    """True inside a Jupyter kernel (where widgets can be shown)."""
    if "ipykernel" not in sys.modules:
        return False
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    shell = ipython_module.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def kernel_problem(version: str | None = None) -> str | None:
    """Why this ipykernel cannot show output from background threads, or None.
    `version` defaults to the loaded ipykernel's."""
    if version is None:
        module = sys.modules.get("ipykernel")
        version = getattr(module, "__version__", None) if module is not None else None
    if not version:
        return None
    parts = version.split(".")
    if len(parts) >= 2 and parts[0] == "7" and parts[1] == "0":
        return (f"ipykernel {version} drops output sent from background threads, so live "
                "views will not update; use ipykernel 6.x or >= 7.1 "
                "(pip install 'ipykernel>=6,!=7.0.*')")
    return None


def check_kernel(version: str | None = None) -> str | None:
    """Warn once (RuntimeWarning) when the kernel is one live views cannot work on."""
    problem = kernel_problem(version)
    if problem is not None and problem not in _warned:
        _warned.add(problem)
        warnings.warn(problem, RuntimeWarning, stacklevel=3)
    return problem


def make_output(output: Any = None) -> Any:
    """The target for a view's callback output: `output` when given; else, inside a
    kernel, a new `ipywidgets.Output` (display it to see what callbacks print);
    else None (prints go to the terminal as usual)."""
    if in_kernel():
        check_kernel()
    if output is not None:
        for method in ("append_stdout", "append_stderr"):
            if not callable(getattr(output, method, None)):
                from kubenb.reactive.publisher import PublisherError

                raise PublisherError(f"output= must have {method}() (an ipywidgets.Output), "
                                     f"got {type(output).__name__}")
        return output
    if not in_kernel():
        return None
    import ipywidgets

    return ipywidgets.Output()
