"""`ControllerManagerProcess`: the cluster's controllers in a process of their own.

A real cluster runs kube-controller-manager and each kubelet beside kube-apiserver, not
inside it. `kubenb serve` does the same: its process then serves requests alone, with
the GIL to itself, while the controllers' informers decode their watch events on
another core (creates and deletes up to about 15% faster; docs/performance.md,
"cluster").
`kubenb.embedded()` keeps its controllers in the notebook's process, where a user
registers Python images with the kubelet and reads the controllers' state.

The child is `python -m kubenb controller-manager`: it reaches the server over HTTP
with a kubeconfig, as kubectl does, and stops on SIGTERM, on an interrupt, and when the
pipe from its parent closes, so it never outlives a parent that was killed.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from typing import IO, Any

from kubenb.client.config import Config, load_config
from kubenb.controllermanager.manager import ControllerManager, controller_names
from kubenb.errors import KubenbError

__all__ = ["READY_LINE", "ControllerManagerProcess", "controller_manager_command",
           "run_controller_manager", "stop_child"]

#: What the child prints on standard output once its controllers have started.
READY_LINE = "kubenb controller-manager: started"
_STOP_WAIT = 10.0  # seconds the child has to stop after SIGTERM before it is killed


class ControllerManagerProcess:
    """`python -m kubenb controller-manager` for the server at `kubeconfig`, started by
    `start()` (which returns once its controllers run) and ended by `stop()`."""

    def __init__(self, kubeconfig: str | os.PathLike[str],
                 controllers: bool | str | Iterable[str] = True,
                 context: str | None = None) -> None:
        self.kubeconfig = os.fspath(kubeconfig)
        self.names = controller_names(controllers)
        self.context = context
        self.proc: subprocess.Popen[str] | None = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        pid = f", pid={self.proc.pid}" if self.proc is not None else ""
        return f"ControllerManagerProcess({state}{pid}, controllers={list(self.names)})"

    def __enter__(self) -> ControllerManagerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def command(self) -> list[str]:
        """The child's command line."""
        cmd = [sys.executable, "-m", "kubenb", "controller-manager",
               "--kubeconfig", self.kubeconfig, "--controllers", ",".join(self.names),
               "--exit-with-stdin"]
        if self.context:
            cmd += ["--context", self.context]
        return cmd

    def start(self, timeout: float = 60.0) -> ControllerManagerProcess:
        """Start the child and wait until it says its controllers run. Raises
        `KubenbError` (naming the exit code) if it ends first, or after `timeout`."""
        if self.proc is not None:
            raise KubenbError("ControllerManagerProcess: already started")
        # Its stderr is this process's: what goes wrong there is seen where it runs.
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.proc.stdout is not None
        try:
            line = _read_line(self.proc.stdout, timeout)
        except BaseException:
            self.stop()
            raise
        if line.strip() == READY_LINE:
            return self
        self.stop()
        code = self.proc.returncode
        why = f"ended with exit code {code}" if line == "" and code is not None else \
            f"did not start within {timeout:g} s"
        raise KubenbError(f"kubenb controller-manager (for {self.kubeconfig}) {why}; "
                          "its error, if any, is on stderr above")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended within 10 s; waits for it."""
        proc = self.proc
        if proc is None:
            return
        stop_child(proc)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


def stop_child(proc: subprocess.Popen[Any], wait: float = _STOP_WAIT) -> None:
    """SIGTERM a child process, then SIGKILL if it has not ended within `wait` seconds;
    waits for it (nothing to do if it has ended)."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _read_line(stream: IO[str], timeout: float) -> str:
    """The next line of a pipe, "" at its end; "" too when none came within `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return ""
        ready, _, _ = select.select([stream], [], [], left)
        if ready:
            return stream.readline()


def run_controller_manager(config: Config, controllers: Any, stop: threading.Event, *,
                           exit_with_stdin: bool = False) -> None:
    """The child's body (`kubenb controller-manager`): start the controllers, say so on
    standard output, run until `stop` is set (or, with `exit_with_stdin`, standard input
    ends), then stop them."""
    manager = ControllerManager(config, controllers).start()
    try:
        print(READY_LINE, flush=True)
        if exit_with_stdin:
            def watch_stdin() -> None:
                while sys.stdin.readline():
                    pass
                stop.set()
            threading.Thread(target=watch_stdin, name="kubenb-parent-pipe",
                             daemon=True).start()
        stop.wait()
    finally:
        manager.stop()


def controller_manager_command(args: argparse.Namespace) -> int:
    """`kubenb controller-manager`: run until SIGTERM or Ctrl-C; 2 and a line on stderr
    when the kubeconfig or a controller name is wrong."""
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        names = controller_names(args.controllers)
        config = load_config(args.kubeconfig, args.context)
        run_controller_manager(config, names, stop, exit_with_stdin=args.exit_with_stdin)
    except KubenbError as exc:
        print(f"kubenb controller-manager: {exc}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
