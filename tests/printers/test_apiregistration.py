"""kubenb.printers.apiregistration: where an APIService is served and whether it is up."""

from __future__ import annotations

from tests.printers.support import cells


def test_apiservices() -> None:
    local = {"status": {"conditions": [{"type": "Available", "status": "True"}]}}
    assert cells("APIService", "apiregistration.k8s.io", local) == ["x", "Local", "True",
                                                                    "10s"]
    remote = {"spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
              "status": {"conditions": [{"type": "Available", "status": "False",
                                         "reason": "MissingEndpoints"}]}}
    assert cells("APIService", "apiregistration.k8s.io", remote)[1:3] == [
        "kube-system/metrics-server", "False (MissingEndpoints)"]
    assert cells("APIService", "apiregistration.k8s.io", {})[2] == "Unknown"
