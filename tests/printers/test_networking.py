"""kubenb.printers.networking: ingresses, classes, policies and endpoint slices."""

from __future__ import annotations

from tests.printers.support import cells


def test_network_kinds() -> None:
    rules = [{"host": f"h{i}.example.com"} for i in range(4)]
    ingress = {"spec": {"rules": rules, "tls": [{}]}, "status": {"loadBalancer": {
        "ingress": [{"ip": "10.0.0.2"}, {"hostname": "lb.example.com"}, {"ip": "10.0.0.2"}]}}}
    assert cells("Ingress", "networking.k8s.io", ingress) == [
        "x", "<none>", "h0.example.com,h1.example.com,h2.example.com + 1 more...",
        "10.0.0.2,lb.example.com", "80, 443", "10s"]
    assert cells("Ingress", "networking.k8s.io", {"spec": {"rules": [{}]}})[2:5] == [
        "*", "", "80"]
    params = {"spec": {"controller": "c", "parameters": {"kind": "P", "name": "n"}}}
    assert cells("IngressClass", "networking.k8s.io", params)[1:3] == ["c", "P/n"]
    assert cells("NetworkPolicy", "networking.k8s.io", {"spec": {"podSelector": {}}})[1] == (
        "<none>")


def test_endpoint_slices() -> None:
    eps = {"addressType": "IPv4", "ports": [{"port": 80}, {"name": "dns"}, {}],
           "endpoints": [{"addresses": ["10.0.0.1", "10.0.0.2"]}]}
    assert cells("EndpointSlice", "discovery.k8s.io", eps) == [
        "x", "IPv4", "80,dns,*", "10.0.0.1,10.0.0.2", "10s"]
    assert cells("EndpointSlice", "discovery.k8s.io", {})[2:4] == ["<unset>", "<unset>"]
