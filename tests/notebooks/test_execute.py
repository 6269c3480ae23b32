"""Every notebook runs top to bottom in a fresh kernel (nbclient), with its assertions.

Notebooks that connect like kubectl (05) get `KUBECONFIG` pointing at an embedded TLS
server with a bearer token, so they take the same path as against a real cluster.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubenb.cli import execute_notebook, find_notebooks, notebook_env
from tests.notebooks.conftest import (
    NOTEBOOKS,
    PENDING_PODS,
    RUNNING_PODS,
    LazyModule,
    skip_without,
)

skip_without("nbclient", "ipykernel", "nbformat")
nbformat = LazyModule("nbformat")

ALL = find_notebooks(NOTEBOOKS)
EXPECTED = {"01_tour", "02_live_dataframes", "03_widgets", "04_prototype_controller",
            "05_real_cluster"}


def _outputs(nb: dict) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


def _text(nb: dict) -> str:
    parts = []
    for out in _outputs(nb):
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
    return "\n".join(parts)


def test_every_teaching_notebook_is_there() -> None:
    assert {p.stem for p in ALL} >= EXPECTED


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_notebook_is_committed_with_outputs_cleared(path: Path) -> None:
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{path.name} has no code cells"
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert dirty == [], f"{path.name}: clear the outputs of cells {dirty} before committing"
    assert "widgets" not in nb["metadata"], f"{path.name}: saved widget state; clear it"
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))


# The executed copies, by notebook name and kubeconfig: test_05 reads 05's instead of
# running it again (the "notebooks" group keeps both tests on one worker, in this order).
EXECUTED: dict[tuple[str, Path], Path] = {}


@pytest.mark.slow
@pytest.mark.xdist_group("notebooks")
@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_notebook_executes_top_to_bottom(path: Path, tmp_path: Path,
                                         cluster_kubeconfig: Path) -> None:
    run = execute_notebook(path, tmp_path, timeout=120, env=notebook_env(cluster_kubeconfig))
    assert run.ok, f"{path.name} failed:\n{run.error}"
    EXECUTED[path.name, cluster_kubeconfig] = run.executed
    executed = nbformat.read(run.executed, as_version=4)
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    assert all(c["execution_count"] for c in code), "a cell was not executed"
    errors = [o for o in _outputs(executed) if o["output_type"] == "error"]
    assert errors == []
    # Each notebook ends by checking that it stopped every kubenb thread.
    assert "all kubenb threads stopped" in _text(executed)


@pytest.mark.slow
@pytest.mark.xdist_group("notebooks")
@pytest.mark.timeout(120)
def test_05_reads_the_cluster_its_kubeconfig_names(tmp_path: Path,
                                                   cluster_kubeconfig: Path) -> None:
    executed = EXECUTED.get(("05_real_cluster.ipynb", cluster_kubeconfig))
    if executed is None:  # run on its own
        run = execute_notebook(NOTEBOOKS / "05_real_cluster.ipynb", tmp_path, timeout=60,
                               env=notebook_env(cluster_kubeconfig))
        assert run.ok, run.error
        executed = run.executed
    text = _text(nbformat.read(executed, as_version=4))
    assert f"connected with {cluster_kubeconfig}" in text
    assert f"{RUNNING_PODS + PENDING_PODS} pods cached" in text
    assert f"{PENDING_PODS} of {RUNNING_PODS + PENDING_PODS} pods are not Running" in text
    assert "https://127.0.0.1:" in text                      # TLS, as the kubeconfig says
    assert "notebook-test-token" not in executed.read_text()  # never shown


def _first_code_cell(path: Path) -> str:
    nb = json.loads(path.read_text())
    return "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])


@pytest.mark.parametrize("kubeconfig", ["missing", None])
def test_05_never_passes_made_up_pods_off_as_the_cluster_asked_for(
        tmp_path: Path, kubeconfig: str | None) -> None:
    """A `$KUBECONFIG` that names no file is an error; with nothing configured at all the
    embedded server stands in, and says so where it cannot be missed."""
    code = _first_code_cell(NOTEBOOKS / "05_real_cluster.ipynb") + "\ncluster.close()\n"
    env = {k: v for k, v in os.environ.items()
           if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST")}
    env["HOME"] = str(tmp_path)  # no ~/.kube/config
    if kubeconfig is not None:
        env["KUBECONFIG"] = str(tmp_path / "kubeconfig-with-a-typo")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    if kubeconfig is not None:
        assert run.returncode != 0
        assert "KubeConfigError" in run.stderr and "kubeconfig-with-a-typo" in run.stderr
        assert "NOT YOUR CLUSTER" not in run.stdout
    else:
        assert run.returncode == 0, run.stderr
        assert "NOT YOUR CLUSTER" in run.stdout
