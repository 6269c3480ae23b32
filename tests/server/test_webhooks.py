"""Admission webhooks over real HTTPS (tests/server/webhook_server.py), compared with what a
real v1.32 server answered to the same webhooks (tests/fixtures/realapi_auth/webhook-*)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.server import EmbeddedServer
from tests.server.conftest import Api
from tests.server.realapi_auth import real, real_body
from tests.server.webhook_server import configuration, hook, json_patch, webhook_server

NS = "kubenb-hooks"
CMS = f"/api/v1/namespaces/{NS}/configmaps"
ADMISSION = "/apis/admissionregistration.k8s.io/v1"
ONLY_HERE = {"namespaceSelector": {"matchLabels": {"kubenb-webhooks": "on"}}}


@pytest.fixture
def admin() -> Iterator[Api]:
    with EmbeddedServer() as server:
        api = Api(server.url)
        try:
            api.post("/api/v1/namespaces", {"metadata": {
                "name": NS, "labels": {"kubenb-webhooks": "on"}}})
            api.post("/api/v1/namespaces", {"metadata": {"name": "elsewhere"}})
            yield api
        finally:
            api.close()


def _install(api: Api, kind: str, name: str, hooks: list[dict[str, Any]]) -> None:
    resp = api.post(f"{ADMISSION}/{kind.lower()}s", configuration(kind, name, hooks))
    assert resp.status_code == 201, resp.text


def _deny(review: dict[str, Any]) -> dict[str, Any]:
    name = review["request"]["name"]
    if name == "bad":
        return {"allowed": False, "status": {"code": 403, "reason": "Forbidden",
                                             "message": "no configmaps named bad"}}
    if name == "silent":
        return {"allowed": False}
    return {"allowed": True}


def test_a_validating_webhook_denies_and_allows_as_on_a_real_server(admin: Api) -> None:
    with webhook_server(_deny) as hooks:
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-deny", [hook(
            "deny.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            **ONLY_HERE)])
        for name in ("webhook-denied-403", "webhook-denied-silent-400"):
            request = real(name)["request"]
            resp = admin.post(request["path"], request["body"])
            assert resp.status_code == real(name)["response"]["status"]
            assert resp.json() == real_body(name)
        assert admin.get(f"{CMS}/bad").status_code == 404  # nothing stored
        good = admin.post(CMS, {"metadata": {"name": "good", "labels": {"a": "b"}}})
        assert good.status_code == 201
        review = hooks.reviews[-1]
        expected = real("webhook-admissionreview-create")
        assert list(review) == list(expected)
        assert list(review["request"]) == list(expected["request"])
        request = review["request"]
        assert (request["operation"], request["name"], request["namespace"]) == (
            "CREATE", "good", NS)
        assert request["userInfo"]["groups"] == ["system:masters", "system:authenticated"]
        assert request["options"] == expected["request"]["options"]
        assert hooks.paths[-1] == "/validate?timeout=10s"
        other = admin.post("/api/v1/namespaces/elsewhere/configmaps",
                           {"metadata": {"name": "bad"}})
        assert other.status_code == 201  # namespaceSelector: not sent to the webhook
        updated = admin.patch(f"{CMS}/good", {"data": {"x": "1"}})
        assert updated.status_code == 200
        assert hooks.reviews[-1]["request"]["operation"] == "UPDATE"
        assert hooks.reviews[-1]["request"]["oldObject"]["metadata"]["name"] == "good"


def test_a_mutating_webhook_patches_before_validation(admin: Api) -> None:
    def label(review: dict[str, Any]) -> dict[str, Any]:
        return json_patch({"op": "add", "path": "/metadata/labels",
                           "value": {"mutated-by": "kubenb-test"}})

    def require_label(review: dict[str, Any]) -> dict[str, Any]:
        labels = review["request"]["object"]["metadata"].get("labels") or {}
        return {"allowed": "mutated-by" in labels}

    with webhook_server(label) as mutating, webhook_server(require_label) as validating:
        _install(admin, "MutatingWebhookConfiguration", "kubenb-label", [hook(
            "label.kubenb.example", {"url": mutating.url("/mutate"),
                                     "caBundle": mutating.ca_bundle}, **ONLY_HERE)])
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-check", [hook(
            "check.kubenb.example", {"url": validating.url(),
                                     "caBundle": validating.ca_bundle}, **ONLY_HERE)])
        exchange = real("webhook-mutated-201")
        resp = admin.post(exchange["request"]["path"], exchange["request"]["body"])
        assert resp.status_code == 201, resp.text
        assert resp.json()["metadata"]["labels"] == {"mutated-by": "kubenb-test"}
        assert admin.get(f"{CMS}/mutated").json()["metadata"]["labels"] == {
            "mutated-by": "kubenb-test"}
        seen = mutating.reviews[-1]["request"]["object"]
        real_seen = real("webhook-admissionreview-mutating")["request"]["object"]
        assert seen["metadata"]["creationTimestamp"] is None and "uid" not in seen["metadata"]
        assert seen["data"] == real_seen["data"]
        assert "uid" in validating.reviews[-1]["request"]["object"]["metadata"]


@pytest.mark.parametrize("name", ["webhook-refused-500", "webhook-ignored-201"])
def test_an_unreachable_webhook_fails_or_is_ignored_by_policy(admin: Api, name: str) -> None:
    policy = {"failurePolicy": "Ignore"} if "ignored" in name else {}
    with webhook_server() as hooks:  # only for its CA
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-refused", [hook(
            "refused.kubenb.example" if not policy else "ignored.kubenb.example",
            {"url": "https://127.0.0.1:9/validate", "caBundle": hooks.ca_bundle},
            **policy, **ONLY_HERE)])
        request = real(name)["request"]
        resp = admin.post(request["path"], request["body"])
    assert resp.status_code == real(name)["response"]["status"]
    if resp.status_code == 500:
        assert resp.json() == real_body(name)


def test_a_webhook_that_answers_too_late_is_a_timeout(admin: Api) -> None:
    with webhook_server() as hooks:
        hooks.hold()
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-timeout", [hook(
            "slow.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            timeoutSeconds=1, **ONLY_HERE)])
        resp = admin.post(CMS, {"metadata": {"name": "late"}})
        expected = real_body("webhook-timeout-500")
        url = hooks.url() + "?timeout=1s"
        for text in (expected["message"], expected["details"]["causes"][0]["message"]):
            assert text.split('Post "')[1].split('"')[0].endswith("/validate?timeout=1s")
        body = resp.json()
        assert resp.status_code == 500 and body["reason"] == "InternalError"
        assert body["message"] == ('Internal error occurred: failed calling webhook '
                                   f'"slow.kubenb.example": failed to call webhook: Post '
                                   f'"{url}": context deadline exceeded')
        assert list(body) == list(expected)


def test_a_service_webhook_is_reached_through_its_endpoints(admin: Api) -> None:
    with webhook_server(_deny, names=("hooks.kubenb-hooks.svc",)) as hooks:
        admin.post(f"/api/v1/namespaces/{NS}/services", {
            "metadata": {"name": "hooks"},
            "spec": {"ports": [{"port": 443, "targetPort": hooks.port}]}})
        admin.post(f"/api/v1/namespaces/{NS}/endpoints", {
            "metadata": {"name": "hooks"},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": hooks.port}]}]})
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-svc", [hook(
            "svc.kubenb.example", {"service": {"namespace": NS, "name": "hooks",
                                               "path": "/check"},
                                   "caBundle": hooks.ca_bundle}, **ONLY_HERE)])
        resp = admin.post(CMS, {"metadata": {"name": "bad"}})
        assert resp.status_code == 403 and "no configmaps named bad" in resp.json()["message"]
        assert hooks.paths[-1] == "/check?timeout=10s"
        wrong_ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nAAAA\n"
                                    b"-----END CERTIFICATE-----\n").decode()
        admin.patch(f"{ADMISSION}/validatingwebhookconfigurations/kubenb-svc",
                    [{"op": "replace", "path": "/webhooks/0/clientConfig/caBundle",
                      "value": wrong_ca}], content_type="application/json-patch+json")
        broken = admin.post(CMS, {"metadata": {"name": "x"}})
        assert broken.status_code == 500 and "invalid caBundle" in broken.json()["message"]


def test_webhooks_see_deletes_and_dry_runs(admin: Api) -> None:
    with webhook_server() as hooks:
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-all", [dict(hook(
            "all.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            **ONLY_HERE), rules=[{"apiGroups": [""], "apiVersions": ["v1"],
                                  "operations": ["*"], "resources": ["configmaps"]}])])
        admin.post(CMS, {"metadata": {"name": "c"}}, params={"dryRun": "All"})
        assert hooks.reviews[-1]["request"]["dryRun"] is True
        assert admin.get(f"{CMS}/c").status_code == 404
        admin.post(CMS, {"metadata": {"name": "c"}})
        assert admin.delete(f"{CMS}/c").status_code == 200
        request = hooks.reviews[-1]["request"]
        assert (request["operation"], request["object"]) == ("DELETE", None)
        assert request["oldObject"]["metadata"]["name"] == "c"
        assert request["options"]["kind"] == "DeleteOptions"


@pytest.mark.parametrize(("resource", "sent"), [
    ("pods/*", {"": True, "status": True}),
    ("pods", {"": True, "status": False}),
    ("*", {"": True, "status": False}),
    ("*/status", {"": False, "status": True}),
    ("*/*", {"": True, "status": True}),
])
def test_a_rule_resource_matches_as_kube_apiservers_matcher(
        admin: Api, resource: str, sent: dict[str, bool]) -> None:
    # kube-apiserver splits `res/sub` and matches each half with "*" as a wildcard, so
    # "pods/*" is sent the pod itself as well as its subresources (kopf registers
    # subresource="*" handlers this way); a real v1.32 server sends these five the same
    pods = f"/api/v1/namespaces/{NS}/pods"
    with webhook_server() as hooks:
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-rules", [hook(
            "rules.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            [resource], **ONLY_HERE)])
        created = admin.post(pods, {"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "image": "busybox"}]}})
        assert created.status_code == 201, created.text
        seen = [r["request"].get("subResource", "") for r in hooks.reviews]
        assert ("" in seen) is sent[""]
        status = admin.patch(f"{pods}/p/status", {"status": {"message": "hi"}})
        assert status.status_code == 200, status.text
        seen = [r["request"].get("subResource", "") for r in hooks.reviews]
        assert ("status" in seen) is sent["status"]


def _warn_or_patch(review: dict[str, Any]) -> dict[str, Any]:
    name = review["request"]["name"]
    if name.startswith("warned"):
        return {"allowed": True, "warnings": ["first warning", 'a "quoted" \\ one']}
    if name.startswith("denied"):
        return {"allowed": False, "warnings": ["careful"],
                "status": {"code": 403, "message": "no way"}}
    return json_patch({"op": "add", "path": "/data/x", "value": "y"})


def test_webhook_warnings_reach_the_client_also_with_a_denial(admin: Api) -> None:
    """kube-apiserver v1.32 sends each warning as `Warning: 299 - "text"` (quotes and
    backslashes escaped), on a created object and on a denial alike."""
    with webhook_server(_warn_or_patch) as hooks:
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-warn", [hook(
            "warn.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            **ONLY_HERE)])
        created = admin.post(CMS, {"metadata": {"name": "warned"}})
        assert created.status_code == 201
        assert created.headers["Warning"] == ('299 - "first warning", '
                                              '299 - "a \\"quoted\\" \\\\ one"')
        denied = admin.post(CMS, {"metadata": {"name": "denied"}})
        assert denied.status_code == 403 and denied.headers["Warning"] == '299 - "careful"'


@pytest.mark.parametrize("policy", ["Fail", "Ignore"])
def test_a_validating_webhook_that_returns_a_patch_answered_badly(admin: Api,
                                                                  policy: str) -> None:
    """A patch from a validating webhook is an invalid answer: the real server's 500 under
    Fail (its message, seen against kube-apiserver v1.32), the write goes on under Ignore."""
    with webhook_server(_warn_or_patch) as hooks:
        _install(admin, "ValidatingWebhookConfiguration", "kubenb-patching", [hook(
            "patching.kubenb.example", {"url": hooks.url(), "caBundle": hooks.ca_bundle},
            failurePolicy=policy, **ONLY_HERE)])
        resp = admin.post(CMS, {"metadata": {"name": "patched"}, "data": {"a": "b"}})
    if policy == "Ignore":
        assert resp.status_code == 201 and resp.json()["data"] == {"a": "b"}
        return
    message = ('failed calling webhook "patching.kubenb.example": received invalid webhook '
               "response: validating webhook may not return response.patch")
    assert resp.status_code == 500
    assert resp.json()["message"] == f"Internal error occurred: {message}"
    assert resp.json()["details"] == {"causes": [{"message": message}]}
    assert admin.get(f"{CMS}/patched").status_code == 404


@pytest.mark.parametrize("policy", ["IfNeeded", "Never"])
def test_a_mutating_webhook_is_called_again_if_needed(admin: Api, policy: str) -> None:
    """`first` copies label b into label a, `second` sets b: with IfNeeded, `first` sees
    what `second` did, once; with Never, it does not."""
    def first(review: dict[str, Any]) -> dict[str, Any]:
        labels = review["request"]["object"]["metadata"].get("labels") or {}
        value = labels.get("b", "none")
        if labels.get("a") == value:
            return {"allowed": True}
        return json_patch({"op": "add", "path": "/metadata/labels",
                           "value": {**labels, "a": value}})

    def second(review: dict[str, Any]) -> dict[str, Any]:
        labels = review["request"]["object"]["metadata"].get("labels") or {}
        return json_patch({"op": "add", "path": "/metadata/labels", "value": {**labels, "b": "1"}})

    with webhook_server(first) as one, webhook_server(second) as two:
        _install(admin, "MutatingWebhookConfiguration", "kubenb-a-first", [hook(
            "first.kubenb.example", {"url": one.url("/mutate"), "caBundle": one.ca_bundle},
            reinvocationPolicy=policy, **ONLY_HERE)])
        _install(admin, "MutatingWebhookConfiguration", "kubenb-b-second", [hook(
            "second.kubenb.example", {"url": two.url("/mutate"), "caBundle": two.ca_bundle},
            **ONLY_HERE)])
        resp = admin.post(CMS, {"metadata": {"name": "labelled"}})
        assert resp.status_code == 201, resp.text
        labels = resp.json()["metadata"]["labels"]
        calls = len(one.reviews)
    assert labels == ({"a": "1", "b": "1"} if policy == "IfNeeded" else {"a": "none", "b": "1"})
    assert calls == (2 if policy == "IfNeeded" else 1)
