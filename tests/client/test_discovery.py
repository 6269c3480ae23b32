"""DiscoveryClient (aggregated and legacy) and RESTMapper name resolution."""

from __future__ import annotations

import json

import pytest

from kubenb.client.discovery import (
    DiscoveryClient,
    ResourceInfo,
    RESTMapper,
    _read_aggregated,
    _read_resource_list,
)
from kubenb.client.dynamic import DynamicClient
from kubenb.client.rest import RESTClient
from kubenb.errors import InvalidResponseError, NoResourceMatchError
from tests.client.conftest import rest_for
from tests.client.rawserver import answering_server
from tests.realapi import REALAPI

DISCOVERY = REALAPI / "discovery"


def body(name: str) -> dict:
    return json.loads((DISCOVERY / name).read_text())["response"]["body"]


def test_real_aggregated_document_parses() -> None:
    found: list[ResourceInfo] = []
    preferred: dict[str, str] = {}
    _read_aggregated(body("aggregated-api-v2.json"), found, preferred)
    _read_aggregated(body("aggregated-apis-v2.json"), found, preferred)
    pods = next(r for r in found if r.resource == "pods")
    assert (pods.group, pods.version, pods.kind, pods.namespaced) == ("", "v1", "Pod", True)
    assert "po" in pods.short_names and "status" in pods.subresources
    deploy = next(r for r in found if r.resource == "deployments")
    assert deploy.api_version == "apps/v1" and "scale" in deploy.subresources
    assert preferred[""] == "v1" and preferred["apps"] == "v1"
    ns = next(r for r in found if r.resource == "namespaces")
    assert not ns.namespaced


def test_real_legacy_resource_list_parses() -> None:
    found: list[ResourceInfo] = []
    _read_resource_list("", "v1", body("api-v1.json"), found)
    names = {r.resource for r in found}
    assert {"pods", "configmaps", "namespaces"} <= names
    assert not any("/" in n for n in names)  # subresources hang off their parent
    assert "log" in next(r for r in found if r.resource == "pods").subresources


def test_discovery_against_the_embedded_server(rest: RESTClient) -> None:
    discovery = DiscoveryClient(rest)
    resources = discovery.server_resources()
    by_name = {r.group_resource: r for r in resources}
    assert by_name["pods"].namespaced and not by_name["namespaces"].namespaced
    assert by_name["deployments.apps"].kind == "Deployment"
    assert by_name["customresourcedefinitions.apiextensions.k8s.io"].short_names
    assert discovery.preferred_versions()["apps"] == "v1"
    assert discovery.server_groups()[0] == ""
    assert discovery.server_version()["gitVersion"].startswith("v1.")


@pytest.mark.parametrize(("name", "expected"), [
    ("pods", ("", "v1", "pods", "Pod", True)),
    ("po", ("", "v1", "pods", "Pod", True)),
    ("Pod", ("", "v1", "pods", "Pod", True)),
    ("pod", ("", "v1", "pods", "Pod", True)),
    ("deployments.apps", ("apps", "v1", "deployments", "Deployment", True)),
    ("deploy", ("apps", "v1", "deployments", "Deployment", True)),
    ("deployment.v1.apps", ("apps", "v1", "deployments", "Deployment", True)),
    ("ns", ("", "v1", "namespaces", "Namespace", False)),
    ("crd", ("apiextensions.k8s.io", "v1", "customresourcedefinitions",
             "CustomResourceDefinition", False)),
    ("configmaps.v1", ("", "v1", "configmaps", "ConfigMap", True)),
])
def test_rest_mapper_resolves_what_kubectl_accepts(rest: RESTClient, name: str,
                                                   expected: tuple) -> None:
    info = RESTMapper(DiscoveryClient(rest)).resource_for(name)
    assert (info.group, info.version, info.resource, info.kind, info.namespaced) == expected


def test_unknown_names_fail_with_close_matches(rest: RESTClient) -> None:
    mapper = RESTMapper(DiscoveryClient(rest))
    with pytest.raises(NoResourceMatchError) as info:
        mapper.resource_for("podz")
    assert "podz" in str(info.value) and "pods" in info.value.suggestions
    with pytest.raises(NoResourceMatchError):
        mapper.resource_for("deployments.nosuchgroup")


def test_a_crd_created_later_resolves_after_one_refresh(rest: RESTClient) -> None:
    discovery = DiscoveryClient(rest)
    mapper = RESTMapper(discovery)
    mapper.resource_for("pods")  # discovery is now cached, without the CRD
    DynamicClient(rest).resource("apiextensions.k8s.io/v1", "customresourcedefinitions").create({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                           "shortNames": ["wd"]},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": {
                                   "type": "object",
                                   "x-kubernetes-preserve-unknown-fields": True}}}]}})
    for name in ("wd", "widgets", "Widget", "widgets.example.com", "widget.v1.example.com"):
        info = mapper.resource_for(name)
        assert (info.group, info.resource, info.kind) == ("example.com", "widgets", "Widget")


def test_discovery_of_a_server_that_is_not_an_api_server_says_what_came() -> None:
    page = (200, "text/html", b"<!doctype html><title>Sign in</title>")
    with answering_server(lambda path, query: page) as (url, _):
        rest = rest_for(url)
        try:
            with pytest.raises(InvalidResponseError) as info:
                RESTMapper(DiscoveryClient(rest)).resource_for("pods")
        finally:
            rest.close()
    assert str(info.value) == (
        "GET /api: the server answered with text/html text '<!doctype html><title>Sign "
        "in</title>', not a discovery document (is the server URL that of an API server?)")
