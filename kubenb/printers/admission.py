"""admissionregistration.k8s.io's printers: webhook configurations, ValidatingAdmissionPolicies
and their bindings."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field
from kubenb.printers.table import (
    AGE_COLUMN,
    Column,
    Obj,
    TablePrinter,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
)

__all__ = [
    "MUTATINGWEBHOOK_PRINTER",
    "VALIDATINGADMISSIONPOLICYBINDING_PRINTER",
    "VALIDATINGADMISSIONPOLICY_PRINTER",
    "VALIDATINGWEBHOOK_PRINTER",
]


def _webhook_configuration_cells(config: Obj, now: float) -> list[Any]:
    return [object_name(config), len(dicts(config.get("webhooks"))), object_age(config, now)]


MUTATINGWEBHOOK_PRINTER = TablePrinter((
    name_column(),
    Column("Webhooks", "integer", description=(
        "Webhooks indicates the number of webhooks registered in this configuration")),
    AGE_COLUMN,
), _webhook_configuration_cells)

#: kube-apiserver prints both kinds of webhook configuration alike.
VALIDATINGWEBHOOK_PRINTER = MUTATINGWEBHOOK_PRINTER


def _admission_policy_cells(policy: Obj, now: float) -> list[Any]:
    spec = dict_field(policy, "spec")
    kind = spec.get("paramKind")
    param_kind = (f"{as_str(kind.get('apiVersion'))}/{as_str(kind.get('kind'))}"
                  if isinstance(kind, dict) else "<unset>")
    return [object_name(policy), len(dicts(spec.get("validations"))), param_kind,
            object_age(policy, now)]


VALIDATINGADMISSIONPOLICY_PRINTER = TablePrinter((
    name_column(),
    Column("Validations", "integer", description=(
        "Validations indicates the number of validation rules defined in this configuration")),
    Column("ParamKind", description=(
        "ParamKind specifies the kind of resources used to parameterize this policy")),
    AGE_COLUMN,
), _admission_policy_cells)


def _go_label_selector_string(selector: dict[str, Any]) -> str:
    """A LabelSelector as Go's generated `String()` prints it (what the apiserver shows
    for a policy binding's paramRef selector)."""
    labels = dict_field(selector, "matchLabels")
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{as_str(e.get('key'))},"
        f"Operator:{as_str(e.get('operator'))},"
        f"Values:[{' '.join(str(v) for v in e.get('values') or [])}],}},"
        for e in dicts(selector.get("matchExpressions")))
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def _admission_binding_cells(binding: Obj, now: float) -> list[Any]:
    spec = dict_field(binding, "spec")
    ref = spec.get("paramRef")
    param = "<unset>"
    if isinstance(ref, dict):
        if ref.get("name"):
            param = f"{as_str(ref.get('namespace')) or '*'}/{as_str(ref.get('name'))}"
        elif isinstance(ref.get("selector"), dict):
            param = _go_label_selector_string(ref["selector"])
    return [object_name(binding), as_str(spec.get("policyName")), param, object_age(binding, now)]


VALIDATINGADMISSIONPOLICYBINDING_PRINTER = TablePrinter((
    name_column(),
    Column("PolicyName", description=(
        "PolicyName indicates the policy definition which the policy binding binded to")),
    Column("ParamRef", description=(
        "ParamRef indicates the param resource which sets the configration param")),
    AGE_COLUMN,
), _admission_binding_cells)
