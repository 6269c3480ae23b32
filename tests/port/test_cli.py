"""`kubenb port FILE.py:NAME --out DIR` (and a notebook with --name) writes the project
from a prototype that connects to a cluster with KUBECONFIG, as a user's would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import kubenb
from kubenb.cluster import Cluster

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("port")]

PROTOTYPE = '''\
import kubenb
from kubenb.cache import split_meta_namespace_key
from kubenb.controller import Controller
from kubenb.errors import NotFound

cluster = kubenb.connect()
secrets = cluster.factory.core().v1().secrets()
secrets_lister = secrets.lister()


def reconcile(key):
    namespace, name = split_meta_namespace_key(key)
    try:
        secret = secrets_lister.secrets(namespace).get(name)
    except NotFound:
        return None
    if not secret["metadata"].get("labels"):
        return None
'''
CONTROLLER = 'controller = Controller("secret-watcher", reconcile).watch(secrets.informer())\n'


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with kubenb.embedded(controllers=False) as c:
        yield c


def _kubenb(args: list[str], kubeconfig: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kubeconfig)}
    return subprocess.run([sys.executable, "-m", "kubenb", "port", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _kubeconfig(cluster: Cluster, tmp_path: Path) -> Path:
    path = tmp_path / "kubeconfig"
    assert cluster.server is not None
    cluster.server.write_kubeconfig(str(path))
    return path


def test_port_a_prototype_file(cluster: Cluster, tmp_path: Path) -> None:
    (tmp_path / "prototype.py").write_text(PROTOTYPE + CONTROLLER)
    result = _kubenb(["prototype.py:controller", "--out", "out", "--module",
                      "example.com/secrets"], _kubeconfig(cluster, tmp_path), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "statements translated" in result.stdout
    out = tmp_path / "out"
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == [
        "PORTING.md", "controller.go", "deploy/Dockerfile", "deploy/deployment.yaml",
        "deploy/rbac.yaml", "go.mod", "main.go"]
    assert (out / "go.mod").read_text().startswith("module example.com/secrets\n")
    assert "c.secretsLister.Secrets(namespace).Get(name)" in (out / "controller.go").read_text()
    [role] = [d for d in yaml.safe_load_all((out / "deploy/rbac.yaml").read_text())
              if d["kind"] == "ClusterRole"]
    assert role["rules"] == [{"apiGroups": [""], "resources": ["secrets"],
                              "verbs": ["list", "watch"]}]


def test_port_a_notebook(cluster: Cluster, tmp_path: Path) -> None:
    cells = [PROTOTYPE, "%matplotlib inline\n" + CONTROLLER.replace("controller =", "ctrl =")]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                           "execution_count": None, "source": c} for c in cells]}
    (tmp_path / "proto.ipynb").write_text(json.dumps(notebook))
    result = _kubenb(["proto.ipynb", "--name", "ctrl", "--out", "out"],
                     _kubeconfig(cluster, tmp_path), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "func (c *Controller) syncHandler" in (tmp_path / "out/controller.go").read_text()


def test_a_name_the_prototype_lacks_is_an_error_that_says_so(cluster: Cluster,
                                                              tmp_path: Path) -> None:
    (tmp_path / "prototype.py").write_text(PROTOTYPE)
    result = _kubenb(["prototype.py:controller", "--out", "out"],
                     _kubeconfig(cluster, tmp_path), tmp_path)
    assert result.returncode == 1
    assert "prototype.py defines no 'controller'" in result.stderr
    assert not (tmp_path / "out").exists()
