"""The `kubenb` command that `pip install` puts beside the interpreter, and `python -m
kubenb`: one program, the same help."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import kubenb.cli


def test_the_kubenb_script_is_the_cli_main() -> None:
    (script,) = entry_points(group="console_scripts", name="kubenb")
    assert script.value == "kubenb.cli:main"
    assert script.load() is kubenb.cli.main


def test_the_script_and_python_m_kubenb_print_the_same_help() -> None:
    command = Path(sys.executable).with_name("kubenb")
    assert command.exists(), f"`pip install -e .` puts the kubenb command at {command}"
    by_script = subprocess.run([str(command), "--help"], capture_output=True, text=True,
                               timeout=60)
    by_module = subprocess.run([sys.executable, "-m", "kubenb", "--help"],
                               capture_output=True, text=True, timeout=60)
    assert by_script.returncode == by_module.returncode == 0
    assert by_script.stdout == by_module.stdout
    assert by_script.stdout.startswith("usage: kubenb ")
    for command_name in ("serve", "record", "tour", "notebooks"):
        assert command_name in by_script.stdout
