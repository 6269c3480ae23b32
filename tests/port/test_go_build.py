"""The generated projects build, pass `go vet`, and (with controller_test.go) `go test`
against a real client-go 1.32.

Needs a Kubernetes source tree that vendors its dependencies (KUBENB_K8S_SRC names it)
and Go on PATH; skipped otherwise. Go cannot download modules here, so each project is
built as a command inside that tree (it is package main, importing only client-go,
apimachinery, api, klog, utils and x/time, which the tree provides), then removed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.port.conftest import CLUSTER_CONTROLLERS
from tests.port.scenarios import SCENARIOS

K8S_SRC = os.environ.get("KUBENB_K8S_SRC")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("port"),
    pytest.mark.skipif(not K8S_SRC or shutil.which("go") is None,
                       reason="needs KUBENB_K8S_SRC (a Kubernetes tree) and go"),
]


def _go(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": "-mod=vendor",
           "GOSUMDB": "off", "CGO_ENABLED": "0"}
    return subprocess.run(["go", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=1800)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_generated_project_builds_vets_and_tests(
        name: str, projects: dict[str, dict[str, str]]) -> None:
    _build(name, projects[name])


@pytest.mark.parametrize("name", CLUSTER_CONTROLLERS)
def test_the_cluster_controllers_ports_build_and_vet(
        name: str, cluster_projects: dict[str, dict[str, str]]) -> None:
    """Mostly TODOs, these: what the port leaves untranslated still compiles."""
    _build(name, cluster_projects[name])


def _build(name: str, project: dict[str, str]) -> None:
    assert K8S_SRC is not None
    projects = {name: project}
    tree = Path(K8S_SRC)
    package = f"cmd/kubenb-port-{name}-{uuid.uuid4().hex[:8]}"
    where = tree / package
    where.mkdir(parents=True)
    try:
        for path, text in projects[name].items():
            if path.endswith(".go"):
                (where / path).write_text(text, encoding="utf-8")
        for step in (["build", "-trimpath", "-o", os.devnull, f"./{package}"],
                     ["vet", f"./{package}"],
                     ["test", "-count=1", f"./{package}"]):
            if step[0] == "test" and "controller_test.go" not in projects[name]:
                continue
            result = _go(step, tree)
            assert result.returncode == 0, (
                f"go {' '.join(step)} failed for {name}:\n{result.stdout}\n{result.stderr}")
    finally:
        shutil.rmtree(where, ignore_errors=True)
