"""CustomResourceDefinitions: validating and defaulting them, their status conditions, and
the resource types they make the server serve.

The apiextensions-apiserver's behaviour in small: a CRD is checked (names, group, scope,
versions, subresources, printer columns) with the real 422 messages, defaulted
(`conversion: None`, singular and listKind), created with an empty status and then
*established* in two status writes (NamesAccepted, then Established), as the real
controllers do a few milliseconds later; from then on each served version is a
`ResourceType`. Conversion between versions is strategy None: only apiVersion changes.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from kubenb.jsonpath import parse_jsonpath
from kubenb.meta import dict_field
from kubenb.server.errors import cause
from kubenb.server.resources import CR_VERBS, ResourceRegistry, ResourceType
from kubenb.server.validation import name_problems

__all__ = [
    "GROUP",
    "KIND",
    "establishing_statuses",
    "initial_status",
    "is_crd",
    "name_conflict",
    "renamed_status",
    "served_types",
    "set_defaults",
    "validate",
]

GROUP = "apiextensions.k8s.io"
_PLURAL = "customresourcedefinitions"
KIND = "CustomResourceDefinition"
_APPROVAL = "api-approved.kubernetes.io"
_APPROVAL_MORE = "see https://github.com/kubernetes/enhancements/pull/1111"
_COLUMN_TYPES = ("boolean", "date", "integer", "number", "string")
_SIMPLE_PATH = re.compile(r"(\.[A-Za-z0-9_\-/]+)+")

Obj = dict[str, Any]


def is_crd(rtype: ResourceType) -> bool:
    """Whether `rtype` is the customresourcedefinitions resource itself."""
    return rtype.group == GROUP and rtype.plural == _PLURAL


def _quote(value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _invalid(field: str, value: Any, message: str) -> dict[str, str]:
    return cause("FieldValueInvalid", field, f"Invalid value: {_quote(value)}: {message}")


def _required(field: str, message: str = "") -> dict[str, str]:
    return cause("FieldValueRequired", field,
                 "Required value" + (f": {message}" if message else ""))


def _protected(group: str) -> bool:
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io",
                                                                   ".kubernetes.io"))


def _dns1035(value: str) -> str:
    return "; ".join(name_problems(value, "dns1035")) if value else ""


# -- defaults ------------------------------------------------------------------------------


def set_defaults(crd: Obj) -> None:
    """apiextensions/v1 defaulting, in place: singular, listKind, conversion, version flags."""
    spec = crd.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        kind = names.get("kind")
        if isinstance(kind, str) and kind:
            names.setdefault("singular", kind.lower())
            names.setdefault("listKind", kind + "List")
    if "conversion" not in spec:
        spec["conversion"] = {"strategy": "None"}


def initial_status(crd: Obj) -> Obj:
    """The status a new CRD is stored with, before the controllers accept its names."""
    return {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
            "storedVersions": [_storage_version(crd)]}


def _storage_version(crd: Obj) -> str:
    """The name of the version marked `storage: true` ("" if there is none)."""
    for version in _versions(crd):
        if version.get("storage") is True:
            return str(version.get("name", ""))
    return ""


def _versions(crd: Obj) -> list[dict[str, Any]]:
    versions = (crd.get("spec") or {}).get("versions")
    return [v for v in versions if isinstance(v, dict)] if isinstance(versions, list) else []


# -- validation ---------------------------------------------------------------------------


def validate(crd: Obj, old: Obj | None = None) -> list[dict[str, str]]:
    """The 422 causes for a CRD (create, or update from `old`), in the apiserver's words."""
    causes: list[dict[str, str]] = []
    meta = crd.get("metadata") or {}
    spec = dict_field(crd, "spec")
    names = dict_field(spec, "names")
    group = spec.get("group") if isinstance(spec.get("group"), str) else ""
    plural = names.get("plural") if isinstance(names.get("plural"), str) else ""
    name = str(meta.get("name") or "")
    if name and name != f"{plural}.{group}":
        causes.append(_invalid("metadata.name", name,
                               'must be spec.names.plural+"."+spec.group'))
    if not group:
        causes.append(_required("spec.group"))
    elif name_problems(group, "subdomain"):
        causes.append(_invalid("spec.group", group,
                               "; ".join(name_problems(group, "subdomain"))))
    elif "." not in group:
        causes.append(_invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope")
    if not scope:
        causes.append(_required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        causes.append(cause("FieldValueNotSupported", "spec.scope",
                            f'Unsupported value: {_quote(scope)}: supported values: '
                            '"Cluster", "Namespaced"'))
    causes += _validate_names(names, "spec.names")
    causes += _validate_versions(spec)
    if group and _protected(group):
        approval = (meta.get("annotations") or {}).get(_APPROVAL)
        field = f"metadata.annotations[{_APPROVAL}]"
        if approval is None:
            causes.append(_required(field, "protected groups must have approval annotation "
                                    f'"{_APPROVAL}", {_APPROVAL_MORE}'))
        elif not (str(approval).startswith(("http://", "https://", "unapproved"))):
            causes.append(_invalid(field, approval,
                                   f'protected groups must have approval annotation "{_APPROVAL}"'
                                   ' with either a URL or a reason starting with "unapproved", '
                                   + _APPROVAL_MORE))
    if old is not None:
        old_spec = old.get("spec") or {}
        for key in ("group", "scope"):
            if old_spec.get(key) != spec.get(key):
                causes.append(_invalid(f"spec.{key}", spec.get(key), "field is immutable"))
    return causes


def _validate_names(names: dict[str, Any], path: str) -> list[dict[str, str]]:
    causes = []
    for key in ("plural", "singular", "kind", "listKind"):
        value = names.get(key)
        if not isinstance(value, str) or not value:
            causes.append(_required(f"{path}.{key}"))
            continue
        checked = value.lower() if key in ("kind", "listKind") else value
        problems = _dns1035(checked)
        if problems:
            prefix = ("may have mixed case, but should otherwise match: "
                      if key in ("kind", "listKind") else "")
            causes.append(_invalid(f"{path}.{key}", value, prefix + problems))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        causes.append(_invalid(f"{path}.listKind", names["listKind"],
                               "kind and listKind may not be the same"))
    for key in ("shortNames", "categories"):
        for index, value in enumerate(names.get(key) or []):
            problems = _dns1035(str(value))
            if problems:
                causes.append(_invalid(f"{path}.{key}[{index}]", value, problems))
    return causes


def _validate_versions(spec: dict[str, Any]) -> list[dict[str, str]]:
    causes: list[dict[str, str]] = []
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        return [_invalid("spec.versions", "null",
                         "must have exactly one version marked as storage version")]
    seen: set[str] = set()
    storage = 0
    served = 0
    for index, version in enumerate(versions):
        path = f"spec.versions[{index}]"
        if not isinstance(version, dict):
            causes.append(_invalid(path, version, "must be an object"))
            continue
        name = version.get("name")
        if not isinstance(name, str) or not name:
            causes.append(_required(f"{path}.name"))
        elif _dns1035(name):
            causes.append(_invalid(f"{path}.name", name, _dns1035(name)))
        elif name in seen:
            causes.append(_invalid("spec.versions", name, "must contain unique version names"))
        else:
            seen.add(name)
        storage += version.get("storage") is True
        served += version.get("served") is True
        if not isinstance((version.get("schema") or {}).get("openAPIV3Schema"), dict):
            causes.append(_required(f"{path}.schema.openAPIV3Schema", "schemas are required"))
        causes += _validate_subresources(version.get("subresources"), f"{path}.subresources")
        causes += _validate_columns(version.get("additionalPrinterColumns"),
                                    f"{path}.additionalPrinterColumns")
    if storage != 1:
        causes.append(_invalid("spec.versions", "[...]",
                               "must have exactly one version marked as storage version"))
    if served == 0:
        causes.append(_invalid("spec.versions", "[...]",
                               "must have at least one version marked as served"))
    return causes


def _validate_subresources(subresources: Any, path: str) -> list[dict[str, str]]:
    if not isinstance(subresources, dict):
        return []
    scale = subresources.get("scale")
    if scale is None:
        return []
    if not isinstance(scale, dict):
        return [_invalid(f"{path}.scale", scale, "must be an object")]
    causes = []
    for key, under in (("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")):
        value = scale.get(key)
        if not value:
            causes.append(_required(f"{path}.scale.{key}"))
        elif not _SIMPLE_PATH.fullmatch(str(value)) or not str(value).startswith(under):
            causes.append(_invalid(f"{path}.scale.{key}", value,
                                   f"should be a json path under {under.rstrip('.')}"))
    selector = scale.get("labelSelectorPath")
    if selector and (not _SIMPLE_PATH.fullmatch(str(selector)) or not str(selector).startswith(
            (".spec.", ".status."))):
        causes.append(_invalid(f"{path}.scale.labelSelectorPath", selector,
                               "should be a json path under either .spec or .status"))
    return causes


def _validate_columns(columns: Any, path: str) -> list[dict[str, str]]:
    if columns is None:
        return []
    if not isinstance(columns, list):
        return [_invalid(path, columns, "must be a list")]
    causes = []
    for index, column in enumerate(columns):
        where = f"{path}[{index}]"
        if not isinstance(column, dict):
            causes.append(_invalid(where, column, "must be an object"))
            continue
        if not column.get("name"):
            causes.append(_required(f"{where}.name"))
        kind = column.get("type")
        if not kind:
            causes.append(_required(f"{where}.type"))
        elif kind not in _COLUMN_TYPES:
            causes.append(cause("FieldValueNotSupported", f"{where}.type",
                                f"Unsupported value: {_quote(kind)}: supported values: "
                                + ", ".join(_quote(t) for t in _COLUMN_TYPES)))
        json_path = column.get("jsonPath")
        if not json_path:
            causes.append(_required(f"{where}.jsonPath"))
        else:
            try:
                parse_jsonpath(str(json_path))
            except ValueError:
                causes.append(_invalid(f"{where}.jsonPath", json_path,
                                       "must be a simple json path starting with ."))
    return causes


# -- names and establishing -------------------------------------------------------------------


def name_conflict(crd: Obj, types: ResourceRegistry) -> str:
    """Why the CRD's names cannot be accepted ("" if they can): another type of the same
    group already uses its plural, kind or a short name."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    crd_name = (crd.get("metadata") or {}).get("name", "")
    for other in types.types():
        if other.group != spec.get("group") or other.crd_name == crd_name:
            continue
        if other.plural == names.get("plural"):
            return f'"{other.plural}" is already in use'
        if other.kind == names.get("kind"):
            return f'"{other.kind}" is already in use'
        for short in names.get("shortNames") or []:
            if short in other.short_names:
                return f'"{short}" is already in use'
    return ""


def _condition(kind: str, status: str, reason: str, message: str, now: str) -> Obj:
    return {"type": kind, "status": status, "lastTransitionTime": now, "reason": reason,
            "message": message}


def _accepted_names(crd: Obj) -> Obj:
    names = (crd.get("spec") or {}).get("names") or {}
    return {k: copy.deepcopy(names[k]) for k in ("plural", "singular", "shortNames", "kind",
                                                 "listKind", "categories") if k in names}


def establishing_statuses(crd: Obj, conflict: str, now: str) -> list[Obj]:
    """The status writes the apiextensions controllers make after a create: names
    accepted (Established False "Installing"), then Established (plus the API approval
    condition for protected groups). One write with NamesAccepted False on a conflict."""
    status = copy.deepcopy(crd.get("status") or {})
    if conflict:
        status["conditions"] = [
            _condition("NamesAccepted", "False", "NotAccepted", conflict, now),
            _condition("Established", "False", "NotAccepted", "not all names are accepted",
                       now)]
        return [status]
    status["acceptedNames"] = _accepted_names(crd)
    accepted = _condition("NamesAccepted", "True", "NoConflicts", "no conflicts found", now)
    first = dict(status, conditions=[accepted, _condition(
        "Established", "False", "Installing", "the initial names have been accepted", now)])
    conditions = [accepted, _condition("Established", "True", "InitialNamesAccepted",
                                       "the initial names have been accepted", now)]
    steps = [first, dict(status, conditions=list(conditions))]
    group = (crd.get("spec") or {}).get("group", "")
    if _protected(str(group)):
        approval = str(((crd.get("metadata") or {}).get("annotations") or {}).get(_APPROVAL, ""))
        if approval.startswith("unapproved"):
            extra = _condition("KubernetesAPIApprovalPolicyConformant", "False",
                               "UnapprovedAnnotation", f"not approved: {_quote(approval)}", now)
        else:
            extra = _condition("KubernetesAPIApprovalPolicyConformant", "True",
                               "ApprovedAnnotation", f"approved in {approval}", now)
        steps.append(dict(status, conditions=[*conditions, extra]))
    return steps


def renamed_status(crd: Obj) -> Obj | None:
    """The status after a spec update changed the names (None when nothing to write)."""
    status = copy.deepcopy(crd.get("status") or {})
    accepted = _accepted_names(crd)
    if not _is_established(crd) or status.get("acceptedNames") == accepted:
        return None
    status["acceptedNames"] = accepted
    return status


def _is_established(crd: Obj) -> bool:
    """Whether the CRD's Established condition is True."""
    conditions = (crd.get("status") or {}).get("conditions") or []
    return any(isinstance(c, dict) and c.get("type") == "Established" and c.get(
        "status") == "True" for c in conditions)


def served_types(crd: Obj) -> list[ResourceType]:
    """One ResourceType per served version of an established CRD."""
    if not _is_established(crd):
        return []
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    crd_name = str((crd.get("metadata") or {}).get("name", ""))
    stored = _storage_version(crd)
    out = []
    for version in _versions(crd):
        if version.get("served") is not True:
            continue
        subs = dict_field(version, "subresources")
        subresources = tuple(s for s in ("status", "scale") if isinstance(subs.get(s), dict))
        scale = dict_field(subs, "scale")
        out.append(ResourceType(
            group=str(spec.get("group")), version=str(version.get("name")),
            plural=str(names.get("plural")), singular=str(names.get("singular", "")),
            kind=str(names.get("kind")), namespaced=spec.get("scope") == "Namespaced",
            short_names=tuple(str(s) for s in names.get("shortNames") or ()),
            categories=tuple(str(c) for c in names.get("categories") or ()),
            verbs=CR_VERBS, subresources=subresources, has_generation=True, custom=True,
            crd_name=crd_name, storage_version=stored,
            printer_columns=tuple(copy.deepcopy(c) for c in version.get(
                "additionalPrinterColumns") or () if isinstance(c, dict)),
            scale_paths=(str(scale.get("specReplicasPath", "")),
                         str(scale.get("statusReplicasPath", "")),
                         str(scale.get("labelSelectorPath", "")))))
    return out
