"""Validation the real apiserver does before storing: names, labels, list options.

Messages follow apimachinery's validation package so a 422 here reads like a 422
from a real cluster (compare errors/invalid-name-422 in the fixtures).
"""

from __future__ import annotations

import re
from typing import Any

from kubenb.server.errors import cause

_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1035_RE = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QNAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE_RE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
QNAME_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label value must be an empty string or consist of alphanumeric characters, '-', "
    "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

# Which name rule each resource uses (apiserver's ValidateObjectMeta name funcs).
_NAME_RULES: dict[str, str] = {"namespaces": "label", "services": "dns1035"}


def _quote(value: Any) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def name_problems(name: str, rule: str = "subdomain") -> list[str]:
    """Problems with an object name under a DNS rule ("subdomain", "label", "dns1035")."""
    problems = []
    limit = 253 if rule == "subdomain" else 63
    if len(name) > limit:
        problems.append(f"must be no more than {limit} characters")
    pattern, msg = {"subdomain": (_SUBDOMAIN_RE, SUBDOMAIN_MSG), "label": (_LABEL_RE, LABEL_MSG),
                    "dns1035": (_DNS1035_RE, DNS1035_MSG)}[rule]
    if not pattern.fullmatch(name):
        problems.append(msg)
    return problems


def _qualified_name_problems(key: str) -> list[str]:
    prefix, _, name = key.rpartition("/")
    problems = []
    if "/" in prefix:
        return ["a qualified name " + QNAME_MSG.replace("name part ", "")]
    if key.endswith("/") or (not name):
        problems.append("name part must be non-empty")
    elif len(name) > 63:
        problems.append("name part must be no more than 63 characters")
    if name and not _QNAME_RE.fullmatch(name):
        problems.append(QNAME_MSG)
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
                vproblems.append(LABEL_VALUE_MSG)
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
