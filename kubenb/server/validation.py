"""Validation the real apiserver does before storing: names, labels, list options.

Messages follow apimachinery's validation package so a 422 here reads like a 422
from a real cluster (compare errors/invalid-name-422 in the fixtures).

One concept, past the usual length of a module: metadata and list options first, then
the objects of the kinds checked (pods, workloads, services, config data), all built
from the same field error helpers so every message has the apiserver's wording.
"""

from __future__ import annotations

import json
import re
from typing import Any

from kubenb.server.errors import cause

__all__ = ["list_options_problems", "name_problems", "validate_metadata", "validate_object"]

_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1035_RE = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QNAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_QNAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_LABEL_VALUE_MSG = (
    "a valid label value must be an empty string or consist of alphanumeric characters, '-', "
    "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

# Which name rule each resource uses (apiserver's ValidateObjectMeta name funcs).
_NAME_RULES: dict[str, str] = {"namespaces": "label", "services": "dns1035",
                               "roles": "path", "clusterroles": "path",
                               "rolebindings": "path", "clusterrolebindings": "path"}


def _quote(value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def name_problems(name: str, rule: str = "subdomain") -> list[str]:
    """Problems with an object name under a DNS rule ("subdomain", "label", "dns1035"), or
    as a path segment ("path": RBAC objects, whose names may hold ':')."""
    if rule == "path":
        return _path_segment_problems(name)
    problems = []
    limit = 253 if rule == "subdomain" else 63
    if len(name) > limit:
        problems.append(f"must be no more than {limit} characters")
    pattern, msg = {"subdomain": (_SUBDOMAIN_RE, _SUBDOMAIN_MSG), "label": (_LABEL_RE, _LABEL_MSG),
                    "dns1035": (_DNS1035_RE, _DNS1035_MSG)}[rule]
    if not pattern.fullmatch(name):
        problems.append(msg)
    return problems


def _path_segment_problems(name: str) -> list[str]:
    """apimachinery's path.IsValidPathSegmentName."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def _qualified_name_problems(key: str) -> list[str]:
    prefix, _, name = key.rpartition("/")
    problems = []
    if "/" in prefix:
        return ["a qualified name " + _QNAME_MSG.replace("name part ", "")]
    if key.endswith("/") or (not name):
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if name and not _QNAME_RE.fullmatch(name):
        problems.append(_QNAME_MSG)
    if key.count("/") == 1:
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            problems += ["prefix part " + p for p in name_problems(prefix, "subdomain")]
    return problems


def validate_metadata(resource: str, meta: dict[str, Any]) -> list[dict[str, str]]:
    """The 422 causes for an object's metadata (name, generateName, labels, annotations)."""
    causes = []
    name = meta.get("name")
    if not name and not meta.get("generateName"):
        causes.append(cause("FieldValueRequired", "metadata.name",
                            "Required value: name or generateName is required"))
    elif name:
        if not isinstance(name, str):
            causes.append(cause("FieldValueInvalid", "metadata.name",
                                f"Invalid value: {_quote(name)}: must be a string"))
        else:
            problems = name_problems(name, _NAME_RULES.get(resource, "subdomain"))
            if problems:
                causes.append(cause("FieldValueInvalid", "metadata.name",
                                    f"Invalid value: {_quote(name)}: " + "; ".join(problems)))
    labels = meta.get("labels")
    if labels is not None and not isinstance(labels, dict):
        causes.append(cause("FieldValueInvalid", "metadata.labels",
                            "Invalid value: must be a map of strings"))
    elif labels:
        for key, value in labels.items():
            problems = _qualified_name_problems(str(key))
            if problems:
                causes.append(cause("FieldValueInvalid", "metadata.labels",
                                    f"Invalid value: {_quote(key)}: " + "; ".join(problems)))
            if not isinstance(value, str):
                causes.append(cause("FieldValueInvalid", "metadata.labels",
                                    f"Invalid value: {_quote(value)}: must be a string"))
                continue
            vproblems = []
            if len(value) > 63:
                vproblems.append("must be no more than 63 characters")
            if not _LABEL_VALUE_RE.fullmatch(value):
                vproblems.append(_LABEL_VALUE_MSG)
            if vproblems:
                causes.append(cause("FieldValueInvalid", "metadata.labels",
                                    f"Invalid value: {_quote(value)}: " + "; ".join(vproblems)))
    annotations = meta.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        causes.append(cause("FieldValueInvalid", "metadata.annotations",
                            "Invalid value: must be a map of strings"))
    elif annotations:
        for key, value in annotations.items():
            problems = _qualified_name_problems(str(key).lower())
            if problems:
                causes.append(cause("FieldValueInvalid", "metadata.annotations",
                                    f"Invalid value: {_quote(key)}: " + "; ".join(problems)))
            if not isinstance(value, str):
                causes.append(cause("FieldValueInvalid", "metadata.annotations",
                                    f"Invalid value: {_quote(value)}: must be a string"))
    return causes


def _forbidden(field: str, message: str) -> dict[str, str]:
    return cause("FieldValueForbidden", field, f"Forbidden: {message}")


def _not_supported(field: str, value: str, allowed: list[str]) -> dict[str, str]:
    listed = ", ".join(_quote(a) for a in allowed)
    return cause("FieldValueNotSupported", field,
                 f"Unsupported value: {_quote(value)}: supported values: {listed}")


def list_options_problems(params: dict[str, str], watch: bool) -> list[dict[str, str]]:
    """apiserver's ValidateListOptions: resourceVersionMatch / sendInitialEvents rules."""
    causes = []
    match = params.get("resourceVersionMatch", "")
    rv = params.get("resourceVersion", "")
    cont = params.get("continue", "")
    send_initial = params.get("sendInitialEvents")
    if watch:
        if send_initial is not None and match != "NotOlderThan":
            causes.append(_forbidden("resourceVersionMatch",
                                     "sendInitialEvents requires setting resourceVersionMatch "
                                     "to NotOlderThan"))
        if match:
            if send_initial is None:
                causes.append(_forbidden("resourceVersionMatch",
                                         "resourceVersionMatch is forbidden for watch unless "
                                         "sendInitialEvents is provided"))
            if match != "NotOlderThan":
                causes.append(_not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
            if cont:
                causes.append(_forbidden("resourceVersionMatch",
                                         "resourceVersionMatch is forbidden when continue is "
                                         "provided"))
        return causes
    if match:
        if not rv:
            causes.append(_forbidden("resourceVersionMatch",
                                     "resourceVersionMatch is forbidden unless resourceVersion "
                                     "is provided"))
        if cont:
            causes.append(_forbidden("resourceVersionMatch",
                                     "resourceVersionMatch is forbidden when continue is "
                                     "provided"))
        if match not in ("Exact", "NotOlderThan"):
            causes.append(_not_supported("resourceVersionMatch", match,
                                         ["Exact", "NotOlderThan", ""]))
        if match == "Exact" and rv == "0":
            causes.append(_forbidden("resourceVersionMatch",
                                     'resourceVersionMatch "exact" is forbidden for '
                                     'resourceVersion "0"'))
    if send_initial is not None:
        causes.append(_forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    return causes


# -- the objects themselves (a subset of kube-apiserver's ValidatePod, ValidateService, ...) ----

_CONFIG_KEY_RE = re.compile(r"[-._a-zA-Z0-9]+")
_CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)
_PORT_NAME_MSG_CHARS = "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
_MAX_CONFIG_BYTES = 1024 * 1024
_PROTOCOLS = ["SCTP", "TCP", "UDP"]


def _supported(field: str, value: Any, allowed: list[str]) -> dict[str, str]:
    return _not_supported(field, str(value), allowed)


def _required(field: str, detail: str = "") -> dict[str, str]:
    return cause("FieldValueRequired", field, "Required value" + (f": {detail}" if detail
                                                                   else ""))


def _invalid_value(field: str, value: Any, detail: str) -> dict[str, str]:
    shown = _quote(value) if isinstance(value, str) else json.dumps(value)
    return cause("FieldValueInvalid", field, f"Invalid value: {shown}: {detail}")


def _duplicate(field: str, value: Any) -> dict[str, str]:
    shown = _quote(value) if isinstance(value, str) else json.dumps(value)
    return cause("FieldValueDuplicate", field, f"Duplicate value: {shown}")


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[dict[str, Any]]:
    return [_as_dict(v) for v in value] if isinstance(value, list) else []


def _port_number(field: str, value: Any, required: bool = True) -> list[dict[str, str]]:
    if value in (None, 0):
        return [_required(field)] if required else []
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        return [_invalid_value(field, value, "must be between 1 and 65535, inclusive")]
    return []


def _port_name_problems(name: str) -> list[str]:
    problems = []
    if len(name) > 15:
        problems.append("must be no more than 15 characters")
    if not re.fullmatch(r"[-a-z0-9]+", name):
        problems.append(_PORT_NAME_MSG_CHARS)
    elif not re.search(r"[a-z]", name):
        problems.append("must contain at least one letter (a-z)")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not begin or end with a hyphen")
    return problems


def _container(c: dict[str, Any], path: str, volumes: set[str], seen: set[str],
               image_required: bool = True) -> list[dict[str, str]]:
    causes = []
    name = c.get("name")
    if not name:
        causes.append(_required(f"{path}.name"))
    elif not isinstance(name, str) or name_problems(name, "label"):
        causes.append(_invalid_value(f"{path}.name", name, "; ".join(
            name_problems(str(name), "label"))))
    elif name in seen:
        causes.append(_duplicate(f"{path}.name", name))
    if isinstance(name, str) and name:
        seen.add(name)
    if image_required and not c.get("image"):
        causes.append(_required(f"{path}.image"))
    port_names: set[str] = set()
    for i, port in enumerate(_items(c.get("ports"))):
        ppath = f"{path}.ports[{i}]"
        pname = port.get("name")
        if pname:
            problems = _port_name_problems(str(pname))
            if problems:
                causes.append(_invalid_value(f"{ppath}.name", pname, "; ".join(problems)))
            elif pname in port_names:
                causes.append(_duplicate(f"{ppath}.name", pname))
            port_names.add(str(pname))
        causes += _port_number(f"{ppath}.containerPort", port.get("containerPort"))
        causes += _port_number(f"{ppath}.hostPort", port.get("hostPort"), required=False)
        if port.get("protocol") not in (None, *_PROTOCOLS):
            causes.append(_supported(f"{ppath}.protocol", port["protocol"], _PROTOCOLS))
    env_names = [e.get("name") for e in _items(c.get("env"))]
    for i, env_name in enumerate(env_names):
        if not env_name:
            causes.append(_required(f"{path}.env[{i}].name"))
    for i, mount in enumerate(_items(c.get("volumeMounts"))):
        mpath = f"{path}.volumeMounts[{i}]"
        if not mount.get("name"):
            causes.append(_required(f"{mpath}.name"))
        elif mount["name"] not in volumes:
            causes.append(cause("FieldValueNotFound", f"{mpath}.name",
                                f"Not found: {_quote(mount['name'])}"))
        if not mount.get("mountPath"):
            causes.append(_required(f"{mpath}.mountPath"))
    policy = c.get("imagePullPolicy")
    if policy not in (None, "Always", "IfNotPresent", "Never"):
        causes.append(_supported(f"{path}.imagePullPolicy", policy,
                                 ["Always", "IfNotPresent", "Never"]))
    message_policy = c.get("terminationMessagePolicy")
    if message_policy not in (None, "File", "FallbackToLogsOnError"):
        causes.append(_supported(f"{path}.terminationMessagePolicy", message_policy,
                                 ["FallbackToLogsOnError", "File"]))
    resources = _as_dict(c.get("resources"))
    for section in ("limits", "requests"):
        for rname, value in (resources.get(section) or {}).items():
            if not _is_quantity(value):
                causes.append(_invalid_value(f"{path}.resources.{section}[{rname}]", value,
                                             "must be a valid quantity"))
    return causes


_QUANTITY_RE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+|[kMGTPE]i?|[mun]|)")


def _is_quantity(value: Any) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    return isinstance(value, str) and bool(_QUANTITY_RE.fullmatch(value))


def _validate_pod_spec(spec: Any, path: str, restart_policies: tuple[str, ...] = (
        "Always", "OnFailure", "Never")) -> list[dict[str, str]]:
    """ValidatePodSpec's common checks: volumes, containers, restart and DNS policy."""
    if not isinstance(spec, dict):
        return [_required(path)]
    causes = []
    volumes: set[str] = set()
    for i, volume in enumerate(_items(spec.get("volumes"))):
        vname = volume.get("name")
        if not vname:
            causes.append(_required(f"{path}.volumes[{i}].name"))
        elif not isinstance(vname, str) or name_problems(vname, "label"):
            causes.append(_invalid_value(f"{path}.volumes[{i}].name", vname, "; ".join(
                name_problems(str(vname), "label"))))
        elif vname in volumes:
            causes.append(_duplicate(f"{path}.volumes[{i}].name", vname))
        if isinstance(vname, str):
            volumes.add(vname)
    containers = _items(spec.get("containers"))
    if not containers:
        causes.append(_required(f"{path}.containers"))
    seen: set[str] = set()
    for i, container in enumerate(containers):
        causes += _container(container, f"{path}.containers[{i}]", volumes, seen)
    for i, container in enumerate(_items(spec.get("initContainers"))):
        causes += _container(container, f"{path}.initContainers[{i}]", volumes, seen)
    policy = spec.get("restartPolicy")
    if policy is not None and policy not in restart_policies:
        causes.append(_supported(f"{path}.restartPolicy", policy, list(restart_policies)))
    dns = spec.get("dnsPolicy")
    if dns not in (None, "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"):
        causes.append(_supported(f"{path}.dnsPolicy", dns, [
            "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]))
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        causes.append(_invalid_value(f"{path}.terminationGracePeriodSeconds", grace,
                                     "must be greater than or equal to 0"))
    return causes


def _go_map(labels: dict[str, Any]) -> str:
    """A label map as Go's %#v prints it (what selector messages quote)."""
    inner = ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted(labels.items()))
    return f"map[string]string{{{inner}}}"


def _go_label_selector(selector: Any) -> str:
    """A metav1.LabelSelector as Go's %#v prints it (the immutable-field message)."""
    selector = _as_dict(selector)
    labels = selector.get("matchLabels")
    shown_labels = _go_map(labels) if isinstance(labels, dict) else "map[string]string(nil)"
    exprs = selector.get("matchExpressions")
    if isinstance(exprs, list) and exprs:
        parts = []
        for expr in _items(exprs):
            values = expr.get("values")
            shown = ("[]string{" + ", ".join(json.dumps(v) for v in values) + "}"
                     if isinstance(values, list) else "[]string(nil)")
            parts.append(f'v1.LabelSelectorRequirement{{Key:{json.dumps(expr.get("key", ""))}, '
                         f'Operator:{json.dumps(expr.get("operator", ""))}, Values:{shown}}}')
        shown_exprs = "[]v1.LabelSelectorRequirement{" + ", ".join(parts) + "}"
    else:
        shown_exprs = "[]v1.LabelSelectorRequirement(nil)"
    return f"v1.LabelSelector{{MatchLabels:{shown_labels}, MatchExpressions:{shown_exprs}}}"


def _selector_matches(selector: Any, labels: dict[str, Any]) -> bool:
    """Whether a LabelSelector (matchLabels and matchExpressions) selects `labels`."""
    if not isinstance(selector, dict):
        return False
    for key, value in _as_dict(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expr in _items(selector.get("matchExpressions")):
        key, op, values = str(expr.get("key")), expr.get("operator"), expr.get("values") or []
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def _non_negative(field: str, value: Any) -> list[dict[str, str]]:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [_invalid_value(field, value, "must be greater than or equal to 0")]
    return []


def _workload(obj: dict[str, Any], kind: str, old: dict[str, Any] | None
              ) -> list[dict[str, str]]:
    spec = _as_dict(obj.get("spec"))
    causes = _non_negative("spec.replicas", spec.get("replicas"))
    selector = spec.get("selector")
    template = spec.get("template") if isinstance(spec.get("template"), dict) else None
    if kind == "ReplicationController":
        selector = {"matchLabels": selector} if isinstance(selector, dict) else None
    if not selector:
        causes.append(_required("spec.selector"))
    elif template is not None:
        labels = (template.get("metadata") or {}).get("labels") or {}
        if not _selector_matches(selector, labels):
            causes.append(cause(
                "FieldValueInvalid", "spec.template.metadata.labels",
                f"Invalid value: {_go_map(labels)}: `selector` does not match template "
                "`labels`"))
    if template is None:
        causes.append(_required("spec.template"))
    else:
        policies = ("Always",)
        causes += _validate_pod_spec(template.get("spec"), "spec.template.spec", policies)
    strategy = spec.get("strategy")
    if kind == "Deployment" and isinstance(strategy, dict) and strategy.get(
            "type") == "Recreate" and strategy.get("rollingUpdate"):
        causes.append(_forbidden("spec.strategy.rollingUpdate",
                                 "may not be specified when strategy `type` is 'Recreate'"))
    if old is not None and kind != "ReplicationController":
        old_selector = (old.get("spec") or {}).get("selector")
        if old_selector is not None and selector != old_selector:
            causes.append(cause("FieldValueInvalid", "spec.selector",
                                f"Invalid value: {_go_label_selector(selector)}: field is "
                                "immutable"))
    return causes


def _job_spec(spec: Any, path: str) -> list[dict[str, str]]:
    spec = _as_dict(spec)
    causes = []
    for field in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        causes += _non_negative(f"{path}.{field}", spec.get(field))
    template = spec.get("template") if isinstance(spec.get("template"), dict) else None
    if template is None:
        return [*causes, _required(f"{path}.template")]
    tspec = _as_dict(template.get("spec"))
    policy = tspec.get("restartPolicy")
    if policy not in ("OnFailure", "Never"):
        causes.append(_supported(f"{path}.template.spec.restartPolicy", policy,
                                 ["OnFailure", "Never"]))
    causes += _validate_pod_spec(tspec, f"{path}.template.spec", ("OnFailure", "Never", "Always"))
    return causes


def _service(obj: dict[str, Any], old: dict[str, Any] | None) -> list[dict[str, str]]:
    spec = _as_dict(obj.get("spec"))
    causes = []
    kind = spec.get("type", "ClusterIP")
    if kind not in ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort"):
        causes.append(_supported("spec.type", kind,
                                 ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]))
    ports = _items(spec.get("ports"))
    headless = spec.get("clusterIP") == "None"
    if kind == "ExternalName":
        if not spec.get("externalName"):
            causes.append(_required("spec.externalName"))
    elif not ports and not headless:
        causes.append(_required("spec.ports"))
    names: set[str] = set()
    for i, port in enumerate(ports):
        path = f"spec.ports[{i}]"
        pname = port.get("name")
        if len(ports) > 1 and not pname:
            causes.append(_required(f"{path}.name"))
        elif pname:
            problems = name_problems(str(pname), "label")
            if problems:
                causes.append(_invalid_value(f"{path}.name", pname, "; ".join(problems)))
            elif pname in names:
                causes.append(_duplicate(f"{path}.name", pname))
            names.add(str(pname))
        causes += _port_number(f"{path}.port", port.get("port"))
        if port.get("protocol") not in (None, *_PROTOCOLS):
            causes.append(_supported(f"{path}.protocol", port["protocol"], _PROTOCOLS))
        target = port.get("targetPort")
        if isinstance(target, int) and not isinstance(target, bool):
            causes += _port_number(f"{path}.targetPort", target, required=False)
        if port.get("nodePort") not in (None, 0) and kind in ("ClusterIP", "ExternalName"):
            causes.append(_forbidden(f"{path}.nodePort",
                                     f"may not be used when `type` is '{kind}'"))
    affinity = spec.get("sessionAffinity")
    if affinity not in (None, "ClientIP", "None"):
        causes.append(_supported("spec.sessionAffinity", affinity, ["ClientIP", "None"]))
    selector = spec.get("selector")
    if isinstance(selector, dict):
        causes += [dict(c, field="spec.selector") for c in validate_metadata(
            "services", {"name": "x", "labels": selector})]
    return causes


def _config_data(obj: dict[str, Any], old: dict[str, Any] | None, secret: bool
                 ) -> list[dict[str, str]]:
    causes = []
    total = 0
    seen: set[str] = set()
    for section in ("data", "binaryData", "stringData"):
        values = obj.get(section)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if not _CONFIG_KEY_RE.fullmatch(str(key)) or len(str(key)) > 253:
                causes.append(_invalid_value(f"{section}[{key}]", str(key), _CONFIG_KEY_MSG))
            if not secret and section == "binaryData" and key in seen:
                causes.append(_duplicate(f"{section}[{key}]", str(key)))
            seen.add(str(key))
            total += len(str(key)) + len(str(value) if value is not None else "")
    if total > _MAX_CONFIG_BYTES:
        field = "data" if secret else "[]"
        message = ("Too long: must have at most 1048576 bytes" if secret
                   else "Too long: may not be more than 1048576 bytes")
        causes.append(cause("FieldValueTooLong", field, message))
    if old is not None and old.get("immutable") is True:
        for section in ("data", "binaryData"):
            if (obj.get(section) or {}) != (old.get(section) or {}):
                causes.append(_forbidden(section, "field is immutable when `immutable` is set"))
        if obj.get("immutable") is not True:
            causes.append(_forbidden("immutable", "field is immutable when `immutable` is set"))
    return causes


def validate_object(group: str, kind: str, obj: dict[str, Any],
                    old: dict[str, Any] | None = None) -> list[dict[str, str]]:
    """The 422 causes for a defaulted built-in object (old: the stored one, on update)."""
    spec = obj.get("spec")
    if (group, kind) == ("", "Pod"):
        causes = _validate_pod_spec(spec, "spec")
        if old is not None:
            causes += _pod_update(obj, old)
        return causes
    if (group, kind) == ("", "PodTemplate"):
        template = _as_dict(obj.get("template"))
        return _validate_pod_spec(template.get("spec"), "template.spec")
    if (group, kind) in (("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"),
                         ("apps", "DaemonSet"), ("", "ReplicationController")):
        return _workload(obj, kind, old)
    if (group, kind) == ("batch", "Job"):
        return _job_spec(spec, "spec")
    if (group, kind) == ("batch", "CronJob"):
        spec = _as_dict(spec)
        causes = [] if spec.get("schedule") else [_required("spec.schedule")]
        template = _as_dict(spec.get("jobTemplate"))
        return causes + _job_spec(template.get("spec"), "spec.jobTemplate.spec")
    if (group, kind) == ("", "Service"):
        return _service(obj, old)
    if (group, kind) == ("", "ConfigMap"):
        return _config_data(obj, old, secret=False)
    if (group, kind) == ("", "Secret"):
        return _config_data(obj, old, secret=True)
    return []


def _pod_update(obj: dict[str, Any], old: dict[str, Any]) -> list[dict[str, str]]:
    """Pod spec is immutable but for images, activeDeadlineSeconds and added tolerations."""
    spec = _as_dict(obj.get("spec"))
    old_spec = _as_dict(old.get("spec"))

    def mutable_view(value: dict[str, Any]) -> dict[str, Any]:
        view = {k: v for k, v in value.items() if k not in (
            "activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds",
            "schedulingGates", "ephemeralContainers")}  # the last: its own subresource
        view["containers"] = [{k: v for k, v in c.items() if k != "image"}
                              for c in _items(value.get("containers"))]
        view["initContainers"] = [{k: v for k, v in c.items() if k != "image"}
                                  for c in _items(value.get("initContainers"))]
        if not view.get("nodeName"):
            view.pop("nodeName", None)
        return view

    old_view, new_view = mutable_view(old_spec), mutable_view(spec)
    if not old_spec.get("nodeName"):
        new_view.pop("nodeName", None)  # binding sets it once
    if old_view != new_view:
        return [_forbidden("spec", "pod updates may not change fields other than "
                           "`spec.containers[*].image`,`spec.initContainers[*].image`,"
                           "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
                           "existing tolerations),`spec.terminationGracePeriodSeconds` (allow "
                           "it to be set to 1 if it was previously negative)")]
    return []
