"""The generated projects of the three scenario controllers match the committed ones
(examples/foo-controller is the Foo sample's, kept in step here), and gofmt has nothing
to change in them. Regenerate with `python -m tests.port.regenerate` after a deliberate
change to the port."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.port.scenarios import SCENARIOS, read_project

pytestmark = pytest.mark.xdist_group("port")


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_generated_project_matches_the_committed_one(
        name: str, projects: dict[str, dict[str, str]]) -> None:
    committed = read_project(SCENARIOS[name][2])
    generated = projects[name]
    assert sorted(generated) == sorted(committed)
    for path, text in generated.items():
        assert text == committed[path], (
            f"{name}/{path} differs from {SCENARIOS[name][2] / path}; run "
            "`python -m tests.port.regenerate` if the change is meant")


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_gofmt_has_nothing_to_change(name: str, projects: dict[str, dict[str, str]],
                                     tmp_path: Path) -> None:
    for path, text in projects[name].items():
        if path.endswith(".go"):
            (tmp_path / path).write_text(text, encoding="utf-8")
    result = subprocess.run(["gofmt", "-l", "."], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert result.stdout == "", f"gofmt would change: {result.stdout}"


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_gofmt_has_nothing_to_change_in_the_cluster_controllers_ports(
        cluster_projects: dict[str, dict[str, str]], tmp_path: Path) -> None:
    for name, project in cluster_projects.items():
        for path, text in project.items():
            if path.endswith(".go"):
                (tmp_path / f"{name}_{path}").write_text(text, encoding="utf-8")
    result = subprocess.run(["gofmt", "-l", "."], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert result.stdout == "", f"gofmt would change: {result.stdout}"
