"""networking.k8s.io's printers (Ingresses, IngressClasses, NetworkPolicies) and
discovery.k8s.io's EndpointSlices, the other half of how a Service is reached.
"""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    dicts,
    format_label_selector,
    name_column,
    object_age,
    object_name,
)

__all__ = [
    "ENDPOINTSLICE_PRINTER",
    "INGRESSCLASS_PRINTER",
    "INGRESS_PRINTER",
    "NETWORKPOLICY_PRINTER",
]


def _ingress_hosts(rules: Any) -> str:
    """Go's formatHosts: up to three hosts, "*" when none names one."""
    rules = dicts(rules)
    hosts = [as_str(r.get("host")) for r in rules[:3] if r.get("host")]
    if not hosts:
        return "*"
    text = ",".join(hosts)
    return f"{text} + {len(rules) - 3} more..." if len(rules) > 3 else text


def _load_balancer_text(ingress: Any) -> str:
    """The sorted, de-duplicated IPs (else hostnames) of a load-balancer status; in full,
    as the apiserver prints wide."""
    return ",".join(sorted({as_str(i.get("ip")) or as_str(i.get("hostname"))
                            for i in dicts(ingress)} - {""}))


def _ingress_cells(ingress: Obj, now: float) -> list[Any]:
    spec = dict_field(ingress, "spec")
    class_name = spec.get("ingressClassName")
    return [object_name(ingress), NONE if class_name is None else as_str(class_name),
            _ingress_hosts(spec.get("rules")),
            _load_balancer_text(nested_field(ingress, "status", "loadBalancer", "ingress")),
            "80, 443" if dicts(spec.get("tls")) else "80", object_age(ingress, now)]


INGRESS_PRINTER = TablePrinter((
    name_column(),
    Column("Class", description=(
        "The name of the IngressClass resource that should be used for additional configuration")),
    Column("Hosts", description=(
        "Hosts that incoming requests are matched against before the ingress rule")),
    Column("Address", description=(
        "Address is a list containing ingress points for the load-balancer")),
    Column("Ports", description="Ports of TLS configurations that open"),
    AGE_COLUMN,
), _ingress_cells)


def _ingress_class_cells(ingress_class: Obj, now: float) -> list[Any]:
    spec = dict_field(ingress_class, "spec")
    params = spec.get("parameters")
    text = NONE
    if isinstance(params, dict):
        text = as_str(params.get("kind"))
        if params.get("apiGroup") is not None:
            text += "." + as_str(params.get("apiGroup"))
        text += "/" + as_str(params.get("name"))
    return [object_name(ingress_class), as_str(spec.get("controller")), text,
            object_age(ingress_class, now)]


INGRESSCLASS_PRINTER = TablePrinter((
    name_column(),
    Column("Controller", description="Controller that is responsible for handling this class"),
    Column("Parameters", description="A reference to a resource with additional parameters"),
    AGE_COLUMN,
), _ingress_class_cells)


def _network_policy_cells(policy: Obj, now: float) -> list[Any]:
    return [object_name(policy),
            format_label_selector(nested_field(policy, "spec", "podSelector") or {}),
            object_age(policy, now)]


NETWORKPOLICY_PRINTER = TablePrinter((
    name_column(),
    Column("Pod-Selector", description=(
        "Selects the pods to which this NetworkPolicy object applies.  The array of ingress "
        "rules is applied to any pods selected by this field. Multiple network policies can "
        "select the same set of pods.  In this case, the ingress rules for each are combined "
        "additively. This field is NOT optional and follows standard label selector semantics. "
        "An empty podSelector matches all pods in this namespace.")),
    AGE_COLUMN,
), _network_policy_cells)


def _list_with_more(items: list[str], limit: int = 3, empty: str = "<unset>") -> str:
    """The first `limit` items and "+ N more..." (Go's listWithMoreString)."""
    text = ",".join(items[:limit])
    if len(items) > limit:
        return f"{text} + {len(items) - limit} more..."
    return text or empty


def _endpoint_slice_cells(slice_: Obj, now: float) -> list[Any]:
    ports = []
    for port in dicts(slice_.get("ports")):
        if port.get("port") is not None:
            ports.append(str(as_int(port.get("port"))))
        elif port.get("name") is not None:
            ports.append(as_str(port.get("name")))
        else:
            ports.append("*")
    addresses = [str(a) for e in dicts(slice_.get("endpoints"))
                 for a in (e.get("addresses") or [])]
    return [object_name(slice_), as_str(slice_.get("addressType")), _list_with_more(ports),
            _list_with_more(addresses), object_age(slice_, now)]


ENDPOINTSLICE_PRINTER = TablePrinter((
    name_column(),
    Column("AddressType", description=(
        "addressType specifies the type of address carried by this EndpointSlice. All "
        "addresses in this slice must be the same type. This field is immutable after "
        "creation. The following address types are currently supported: * IPv4: Represents an "
        "IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully "
        "Qualified Domain Name.")),
    Column("Ports", description=(
        "ports specifies the list of network ports exposed by each endpoint in this slice. "
        "Each port must have a unique name. When ports is empty, it indicates that there are "
        "no defined ports. When a port is defined with a nil port value, it indicates \"all "
        "ports\". Each slice may include a maximum of 100 ports.")),
    Column("Endpoints", description=(
        "endpoints is a list of unique endpoints in this slice. Each slice may include a "
        "maximum of 1000 endpoints.")),
    AGE_COLUMN,
), _endpoint_slice_cells)
