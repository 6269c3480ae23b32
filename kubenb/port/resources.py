"""A resource as the Go project names it: typed client-go packages or the dynamic client.

A resource whose group version client-go's `kubernetes` clientset serves is *typed*
(`*appsv1.Deployment`, `appsv1listers.DeploymentLister`, `factory.Apps().V1()
.Deployments()`); anything else (a CRD, apiextensions, apiregistration) is reached
through the dynamic client as `*unstructured.Unstructured`. Names come from
kubenb.client.typed.names, the same rules kubenb's own accessors follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubenb.client.discovery import ResourceInfo
from kubenb.client.typed.builtin import BUILTIN_RESOURCES
from kubenb.client.typed.names import (
    go_group_accessor,
    go_plural,
    group_accessor,
    group_package,
    lower_camel,
    resource_accessor,
)

__all__ = [
    "TYPED_GROUP_VERSIONS",
    "GoResource",
    "builtin_info",
    "go_identifier",
    "guess_kind",
    "pascal_case",
]

#: The group versions the `k8s.io/client-go/kubernetes` clientset serves (1.32).
TYPED_GROUP_VERSIONS = frozenset({
    ("", "v1"), ("apps", "v1"), ("batch", "v1"), ("autoscaling", "v1"), ("autoscaling", "v2"),
    ("rbac.authorization.k8s.io", "v1"), ("networking.k8s.io", "v1"), ("policy", "v1"),
    ("storage.k8s.io", "v1"), ("coordination.k8s.io", "v1"), ("events.k8s.io", "v1"),
    ("certificates.k8s.io", "v1"), ("discovery.k8s.io", "v1"), ("node.k8s.io", "v1"),
    ("scheduling.k8s.io", "v1"), ("admissionregistration.k8s.io", "v1"),
    ("flowcontrol.apiserver.k8s.io", "v1"), ("authentication.k8s.io", "v1"),
    ("authorization.k8s.io", "v1"),
})

_GO_KEYWORDS = frozenset([
    "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
    "for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
    "return", "select", "struct", "switch", "type", "var",
])


def builtin_info(group: str, version: str, resource: str) -> ResourceInfo | None:
    """The built-in resource of that name, or None."""
    for info in BUILTIN_RESOURCES:
        if (info.group, info.version, info.resource) == (group, version, resource):
            return info
    return None


def guess_kind(resource: str) -> str:
    """A CRD's Kind from its plural when nothing better is known: `foos` -> `Foo`."""
    singular = resource
    if singular.endswith("ies"):
        singular = singular[:-3] + "y"
    elif singular.endswith(("sses", "shes", "ches", "xes")):
        singular = singular[:-2]
    elif singular.endswith("s") and not singular.endswith("ss"):
        singular = singular[:-1]
    return singular[:1].upper() + singular[1:]


def pascal_case(name: str) -> str:
    """`FIELD_MANAGER` / `field_manager` -> `FieldManager`."""
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_") if part)


def go_identifier(name: str) -> str:
    """A Python local's Go name: `deployment_name` -> `deploymentName` (keywords avoided)."""
    parts = [p for p in name.split("_") if p]
    if not parts:
        return "v"
    ident = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return ident + "Value" if ident in _GO_KEYWORDS else ident


@dataclass(frozen=True)
class GoResource:
    """One resource and every Go name the generated project uses for it."""

    info: ResourceInfo

    @property
    def typed(self) -> bool:
        return (self.info.group, self.info.version) in TYPED_GROUP_VERSIONS \
            and builtin_info(self.info.group, self.info.version, self.info.resource) is not None

    @property
    def key(self) -> str:
        """`deployments.apps`: how RBAC and messages name it."""
        return self.info.group_resource

    @property
    def kind(self) -> str:
        return self.info.kind

    @property
    def api_package(self) -> str:
        """`appsv1`: the alias of k8s.io/api/<group>/<version>."""
        return f"{group_package(self.info.group)}{self.info.version}"

    @property
    def api_import(self) -> str:
        return f"k8s.io/api/{group_package(self.info.group)}/{self.info.version}"

    @property
    def lister_package(self) -> str:
        return f"{self.api_package}listers"

    @property
    def lister_import(self) -> str:
        return f"k8s.io/client-go/listers/{group_package(self.info.group)}/{self.info.version}"

    @property
    def informer_package(self) -> str:
        return f"{self.api_package}informers"

    @property
    def informer_import(self) -> str:
        return f"k8s.io/client-go/informers/{group_package(self.info.group)}/{self.info.version}"

    @property
    def go_type(self) -> str:
        """`*appsv1.Deployment`, or `*unstructured.Unstructured` for the dynamic client."""
        return f"*{self.api_package}.{self.kind}" if self.typed else "*unstructured.Unstructured"

    @property
    def field(self) -> str:
        """`deployments`, `configMaps`, `foos`: the prefix of the Controller's fields."""
        return lower_camel(go_plural(self.info))

    @property
    def go_plural(self) -> str:
        return go_plural(self.info)

    @property
    def gvr_var(self) -> str:
        """`fooGVR`: the GroupVersionResource variable of a dynamic resource."""
        return f"{lower_camel(self.kind)}GVR"

    @property
    def python_accessor(self) -> str:
        """`deployments`, `config_maps`: the kubenb accessor (lister and client)."""
        return resource_accessor(self.info)

    @property
    def python_group_accessor(self) -> str:
        return group_accessor(self.info.group, self.info.version)

    def informer_expr(self, factory: str) -> str:
        """`factory.Apps().V1().Deployments()` or `factory.ForResource(fooGVR)`."""
        if self.typed:
            group = group_package(self.info.group).capitalize()
            return f"{factory}.{group}().{self.info.version.capitalize()}().{self.go_plural}()"
        return f"{factory}.ForResource({self.gvr_var})"

    def client_expr(self, namespace: str | None) -> str:
        """The Go client of this resource (`namespace` is a Go expression, or None)."""
        if self.typed:
            accessor = go_group_accessor(self.info.group, self.info.version)
            args = namespace if (self.info.namespaced and namespace is not None) else ""
            return f"c.kubeclientset.{accessor}().{self.go_plural}({args})"
        base = f"c.dynamicClient.Resource({self.gvr_var})"
        if self.info.namespaced and namespace is not None:
            return f"{base}.Namespace({namespace})"
        return base

    def lister_expr(self, namespace: str | None) -> str:
        """The Go lister, namespaced when `namespace` (a Go expression) is given."""
        base = f"c.{self.field}Lister"
        if namespace is None or not self.info.namespaced:
            return base
        if self.typed:
            return f"{base}.{self.go_plural}({namespace})"
        return f"{base}.ByNamespace({namespace})"

    def go_name(self) -> str:
        """`Deployment`: for helper names."""
        return re.sub(r"[^0-9A-Za-z]", "", self.kind)
