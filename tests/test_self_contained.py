"""A clone of kubenb must run with nothing beside it: no tracked file may name a path of the
machine it was built on (its work folder, root's home, or the sibling folders there)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests import realapi

ROOT = Path(__file__).resolve().parent.parent
# Spelled in pieces so this file does not match itself.
MACHINE_PATHS = re.compile("|".join([
    r"(?<![\w.])/" + "work/",            # the build machine's checkout and its siblings
    r"(?<![\w.])/" + "root/",            # root's home (pyenv, caches)
    r"\.\./" + "shared/",                # the read-only folder beside the checkout
    r"(?<![\w.])/tmp/" + "bash_jobs",    # the build machine's job folders
]))


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: no list of tracked files")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_tracked_file_names_a_path_of_the_build_machine() -> None:
    offenders = []
    for path in tracked_files():
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATHS.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not offenders, "tracked files name a path of the build machine:\n" + "\n".join(
        offenders)


def test_the_guard_catches_what_it_is_for() -> None:
    assert MACHINE_PATHS.search("REALAPI = Path('/" + "work/shared/fixtures')")
    assert MACHINE_PATHS.search("see ../" + "shared/spec")
    assert not MACHINE_PATHS.search("e.g. /home/me/.kube/config or tests/fixtures/realapi")


def test_the_real_api_fixtures_are_in_the_repository() -> None:
    assert realapi.REALAPI.is_relative_to(ROOT)
    assert len(realapi.files("**/*.json")) > 100
    assert len(realapi.files("watch/*.jsonl")) >= 5


def test_an_empty_fixture_glob_fails_instead_of_collecting_nothing() -> None:
    with pytest.raises(FileNotFoundError, match="no-such-file"):
        realapi.files("no-such-file-*.json")
