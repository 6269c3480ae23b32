"""An embedded API server in its own process, so benchmarks time only the client side.

In one process the server's objects (millions of dicts for 10k pods) would share the
garbage collector and the GIL with the client under test, and every full collection
the client triggers would also walk the server's heap. A real cluster is another
process too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kubenb.controllermanager.process import stop_child


@dataclass
class ServerProcess:
    url: str
    kubeconfig: str


@contextmanager
def server_process(seed_pods: int = 0, *extra: str, controllers: str = "",
                   tls: bool = False) -> Iterator[ServerProcess]:
    """`python -m kubenb serve` with `seed_pods` realistic pods in namespace default.

    `controllers` as `--controllers` takes them; none by default: a benchmark of a
    client against the server must not share the server's CPU with a kubelet taking
    over thousands of seeded pods (a real API server runs no controllers in-process)."""
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-") as tmp:
        kubeconfig = str(Path(tmp) / "kubeconfig")
        # Plain HTTP unless asked, so client figures compare clients, not TLS stacks; a
        # comparison with a real server (TLS only) asks for TLS.
        cmd = [sys.executable, "-m", "kubenb", "serve", "--port", "0",
               *(() if tls else ("--plain-http",)),
               "--kubeconfig-out", kubeconfig, "--seed-objects", str(seed_pods),
               "--controllers", controllers, *extra]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            url = ""
            assert proc.stdout is not None
            for line in proc.stdout:
                if "listening on" in line:
                    url = line.rsplit(" ", 1)[-1].strip()
                if line.startswith("seeded") or (url and not seed_pods):
                    break
            if not url:
                raise RuntimeError(f"the server did not start: {' '.join(cmd)}")
            yield ServerProcess(url, kubeconfig)
        finally:
            stop_child(proc)
