"""`python -m kubenb.controller.samples.foo` stays a command: run as a script, the sample
composes its cluster itself (the library function takes the composer as a parameter)."""

from __future__ import annotations

import subprocess
import sys


def test_the_sample_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "kubenb.controller.samples.foo", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--kubeconfig-out" in done.stdout
