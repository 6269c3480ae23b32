"""kubenb.printers.admission: webhook configurations, policies and their bindings' params."""

from __future__ import annotations

from tests.printers.support import cells

GROUP = "admissionregistration.k8s.io"


def test_webhook_configurations_and_policies() -> None:
    hooks = {"webhooks": [{"name": "a"}, {"name": "b"}]}
    assert cells("ValidatingWebhookConfiguration", GROUP, hooks) == ["x", 2, "10s"]
    policy = {"spec": {"validations": [{"expression": "true"}],
                       "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}}}
    assert cells("ValidatingAdmissionPolicy", GROUP, policy) == [
        "x", 1, "v1/ConfigMap", "10s"]


def test_policy_bindings_print_their_param_ref_as_go_does() -> None:
    for ref, text in [(None, "<unset>"), ({"name": "p"}, "*/p"),
                      ({"name": "p", "namespace": "ns"}, "ns/p"),
                      ({"selector": {"matchLabels": {"b": "2", "a": "1"}, "matchExpressions": [
                          {"key": "k", "operator": "In", "values": ["v", "w"]}]}},
                       "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},"
                       "MatchExpressions:[]LabelSelectorRequirement{"
                       "LabelSelectorRequirement{Key:k,Operator:In,Values:[v w],},},}")]:
        spec = {"policyName": "pol", **({"paramRef": ref} if ref else {})}
        assert cells("ValidatingAdmissionPolicyBinding", GROUP, {"spec": spec})[1:3] == [
            "pol", text]
