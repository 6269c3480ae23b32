"""binder/ stays in step with pyproject.toml and opens a notebook that exists."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.notebooks.conftest import ROOT

tomllib = pytest.importorskip("tomllib", reason="Python >= 3.11 reads pyproject.toml")

BINDER = ROOT / "binder"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def test_binder_requirements_cover_the_runtime_and_notebook_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["notebook"]}
    lines = [line for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    listed = {_name(line) for line in lines}
    assert wanted == listed, (wanted - listed, listed - wanted)
    assert "ipykernel>=6,!=7.0.*" in lines  # 7.0.x drops output from background threads


def test_binder_post_build_installs_kubenb_and_opens_the_tour(tmp_path) -> None:
    post_build = BINDER / "postBuild"
    assert post_build.stat().st_mode & 0o111, "postBuild must be executable"
    script = post_build.read_text()
    assert "pip install --no-cache-dir --no-deps -e ." in script
    match = re.search(r'default_url = "/lab/tree/(.+?)"', script)
    assert match and (ROOT / match.group(1)).is_file()
    assert subprocess.run(["bash", "-n", str(post_build)]).returncode == 0  # parses
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.(1[0-9])", runtime)
