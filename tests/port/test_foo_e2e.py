"""The ported Foo controller against a real cluster (tests/port/foo_e2e.py): it builds,
reconciles as the Python sample does, and needs every verb of its deploy/rbac.yaml.

Needs a Kubernetes tree that vendors client-go (KUBENB_K8S_SRC), Go and kubectl on PATH,
and an admin kubeconfig of a kube-apiserver with RBAC on (KUBENB_REALAPI_KUBECONFIG);
skipped otherwise. It writes to that cluster's namespace `default` (e2e- names, cleaned
up) and takes a few minutes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.port.foo_e2e import run

K8S_SRC = os.environ.get("KUBENB_K8S_SRC")
REALAPI = os.environ.get("KUBENB_REALAPI_KUBECONFIG")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("port"),
    pytest.mark.skipif(not (K8S_SRC and REALAPI) or shutil.which("go") is None
                       or shutil.which("kubectl") is None,
                       reason="needs KUBENB_K8S_SRC, KUBENB_REALAPI_KUBECONFIG, go, kubectl"),
]


@pytest.mark.timeout(1800)  # a build, three runs and ten controller restarts
def test_the_port_runs_as_the_python_and_its_rbac_is_exactly_enough(tmp_path: Path) -> None:
    assert K8S_SRC and REALAPI
    report = run(Path(REALAPI), k8s_src=Path(K8S_SRC), work=tmp_path)
    assert report.differences == []
    baseline, *ablated = report.outcomes
    assert (baseline.forbidden, baseline.broke()) == ([], "no 403: all reconciled")
    assert [o.removed for o in ablated if not o.forbidden] == []  # each verb is needed
