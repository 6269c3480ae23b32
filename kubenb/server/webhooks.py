"""Admission webhooks: MutatingWebhookConfigurations, then ValidatingWebhookConfigurations,
called over HTTPS with an AdmissionReview v1, as kube-apiserver calls them.

A write (create, update, patch, delete) is sent to every webhook whose `rules` match its
operation, group, version, resource (`pods`, `pods/status`, `*/status`, `*`, `*/*`; `pods/*`
matches pods themselves too, as kube-apiserver's matcher does) and scope, whose
`namespaceSelector` matches the labels of the object's namespace (a Namespace's own labels;
cluster-scoped objects always match) and whose `objectSelector` matches the new or the old
object. Mutating webhooks run first, one after another (configurations by name, webhooks in
order), each seeing the object as the one before left it, and their JSONPatch is applied; a
webhook with `reinvocationPolicy: IfNeeded` that a later one changed the object after is
called once more; then the validating ones. A webhook is reached at `clientConfig.url`, or
at `clientConfig.service` (HTTPS to the service's endpoint addresses, the certificate
checked for `NAME.NAMESPACE.svc`: kubenb has no cluster network, so the Service's Endpoints
name where its server listens), trusting `caBundle`. `timeoutSeconds` (default 10) bounds a
call; `failurePolicy` Fail (the default) turns a failed call into the real 500, Ignore goes
on without it. A denial is the real Status: `admission webhook "NAME" denied the request:
...` with the webhook's code (at least 400).

The objects a webhook sees are the server's own answer to the write made as a dry run
(defaulted; a new object without uid and creationTimestamp for the mutating webhooks, as on
a real server). Not done: `matchConditions` (CEL), `matchPolicy: Equivalent` (other versions
of a resource), webhooks on server-side apply and on subresources other than those written
through the generic handlers, and ValidatingAdmissionPolicy (CEL).
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from kubenb.labels import label_selector_from_dict
from kubenb.server import errors
from kubenb.server.authentication import UserInfo
from kubenb.server.patch import json_patch
from kubenb.server.registry import Registry
from kubenb.server.resources import ResourceType
from kubenb.server.storage import Storage

__all__ = ["MUTATING", "VALIDATING", "AdmissionAttributes", "Webhooks", "admitted_write"]

_GROUP = "admissionregistration.k8s.io"
MUTATING = f"mutatingwebhookconfigurations.{_GROUP}"
VALIDATING = f"validatingwebhookconfigurations.{_GROUP}"
_DEFAULT_TIMEOUT = 10
_MAX_RESPONSE = 3 * 1024 * 1024
Obj = dict[str, Any]


@dataclass(frozen=True)
class AdmissionAttributes:
    """One write, as admission sees it."""

    operation: str  # CREATE, UPDATE, DELETE
    rtype: ResourceType
    namespace: str
    name: str
    user: UserInfo
    subresource: str = ""
    dry_run: bool = False
    options: Obj = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # every webhook's, for the client


class _CallFailed(Exception):
    """A webhook could not be called or answered nonsense (the message says how)."""


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _labels(obj: Any) -> dict[str, str]:
    return dict(_dict(_dict(obj).get("metadata")).get("labels") or {})


def _rule_matches(rule: Obj, attrs: AdmissionAttributes) -> bool:
    rtype = attrs.rtype
    operations = rule.get("operations") or []
    if "*" not in operations and attrs.operation not in operations:
        return False
    groups, versions = rule.get("apiGroups") or [], rule.get("apiVersions") or []
    if "*" not in groups and rtype.group not in groups:
        return False
    if "*" not in versions and rtype.version not in versions:
        return False
    scope = rule.get("scope") or "*"
    if scope != "*" and (scope == "Namespaced") != rtype.namespaced:
        return False
    for resource in rule.get("resources") or []:
        # kube-apiserver's rules.Matcher: "res/sub" split once, "*" a wildcard on each
        # half, so "pods/*" matches pods themselves too and "*" only main resources
        head, _, sub = str(resource).partition("/")
        if head in ("*", rtype.plural) and sub in ("*", attrs.subresource):
            return True
    return False


class Webhooks:
    """The webhook configurations stored in a Storage, called for writes."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def active(self) -> bool:
        """Whether any webhook is configured (else admission costs two counts)."""
        return bool(self.storage.count(MUTATING) or self.storage.count(VALIDATING))

    def _matching(self, resource: str, attrs: AdmissionAttributes, obj: Obj | None,
                  old: Obj | None) -> Iterator[Obj]:
        if attrs.rtype.group == _GROUP:
            return  # as the real server: webhook configurations are never sent to webhooks
        configs, _ = self.storage.list(resource, None)
        for config in configs:
            for hook in config.get("webhooks") or []:
                if isinstance(hook, dict) and self._applies(hook, attrs, obj, old):
                    yield hook

    def _applies(self, hook: Obj, attrs: AdmissionAttributes, obj: Obj | None,
                 old: Obj | None) -> bool:
        if not any(_rule_matches(_dict(rule), attrs) for rule in hook.get("rules") or []):
            return False
        selector = hook.get("namespaceSelector")
        if isinstance(selector, dict) and selector:
            if attrs.rtype.plural == "namespaces" and not attrs.rtype.group:
                labels = _labels(obj or old)
            elif attrs.rtype.namespaced:
                labels = _labels(self.storage.get("namespaces", "", attrs.namespace))
            else:
                labels = None
            if labels is not None and not label_selector_from_dict(selector).matches(labels):
                return False
        selector = hook.get("objectSelector")
        if isinstance(selector, dict) and selector:
            match = label_selector_from_dict(selector)
            if not any(o is not None and match.matches(_labels(o)) for o in (obj, old)):
                return False
        return True

    # -- the two phases -------------------------------------------------------------

    def mutate(self, attrs: AdmissionAttributes, obj: Obj | None, old: Obj | None
               ) -> Obj | None:
        """`obj` as the mutating webhooks leave it (each sees the last one's result)."""
        hooks = list(self._matching(MUTATING, attrs, obj, old))
        last_change = -1  # the index of the last webhook that changed the object
        for index, hook in enumerate(hooks):
            changed = self._mutate_once(hook, attrs, obj, old)
            if changed is not None:
                obj, last_change = changed, index
        # reinvocationPolicy IfNeeded: a webhook that ran before a later one changed the
        # object is called once more, in order (a change made then reinvokes no webhook).
        for index, hook in enumerate(hooks):
            if hook.get("reinvocationPolicy") == "IfNeeded" and index < last_change:
                obj = self._mutate_once(hook, attrs, obj, old) or obj
        return obj

    def _mutate_once(self, hook: Obj, attrs: AdmissionAttributes, obj: Obj | None,
                     old: Obj | None) -> Obj | None:
        """The object as one call of a mutating webhook changed it (None: unchanged)."""
        response = self._review(hook, attrs, obj, old, validating=False)
        if response is None or not response.get("patch") or obj is None:
            return None
        patched = self._patched(hook, obj, response["patch"], response.get("patchType"))
        return patched if patched != obj else None

    def validate(self, attrs: AdmissionAttributes, obj: Obj | None, old: Obj | None) -> None:
        """Raise the first denial (or failed call under failurePolicy Fail)."""
        for hook in list(self._matching(VALIDATING, attrs, obj, old)):
            self._review(hook, attrs, obj, old, validating=True)

    @staticmethod
    def _patched(hook: Obj, obj: Obj, patch: Any, patch_type: Any) -> Obj:
        name = hook.get("name", "")
        if patch_type != "JSONPatch":
            raise errors.internal_error(f'received invalid webhook response: webhook "{name}" '
                                        f'returned a patch of type "{patch_type}"')
        try:
            operations = json.loads(base64.b64decode(str(patch)))
            patched = json_patch(json.loads(json.dumps(obj)), operations)
        except (ValueError, errors.StatusError) as exc:
            raise errors.internal_error(f'JSON Patch from webhook "{name}" could not be '
                                        f"applied: {exc}") from None
        if not isinstance(patched, dict):
            raise errors.internal_error(f'JSON Patch from webhook "{name}" made no object')
        return patched

    def _review(self, hook: Obj, attrs: AdmissionAttributes, obj: Obj | None,
                old: Obj | None, validating: bool) -> Obj | None:
        """The webhook's response if it allowed the request; raises its denial; None when
        the call failed and failurePolicy is Ignore. Its warnings go to `attrs.warnings`
        (the client gets them as Warning headers, also with a denial)."""
        name = str(hook.get("name") or "")
        uid = str(uuid.uuid4())
        review = {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
                  "request": _request(uid, attrs, obj, old)}
        try:
            answer = self._call(hook, review)
            response = _dict(answer.get("response"))
            if answer.get("apiVersion") != "admission.k8s.io/v1" or \
                    answer.get("kind") != "AdmissionReview":
                raise _CallFailed('expected webhook response of admission.k8s.io/v1, Kind='
                                  f'AdmissionReview, got {answer.get("apiVersion")}, '
                                  f'Kind={answer.get("kind")}')
            if response.get("uid") != uid:
                raise _CallFailed(f"expected response.uid={uid}, got "
                                  f"{response.get('uid', '')}")
            if validating and response.get("patch"):
                raise _CallFailed("received invalid webhook response: validating webhook "
                                  "may not return response.patch")
        except _CallFailed as exc:
            if hook.get("failurePolicy") == "Ignore":
                return None
            raise errors.internal_error(
                f'failed calling webhook "{name}": {exc}') from None
        attrs.warnings.extend(str(w) for w in response.get("warnings") or () if w)
        if response.get("allowed") is True:
            return response
        raise _denied(name, _dict(response.get("status")))

    # -- HTTPS ----------------------------------------------------------------------

    def _target(self, client: Obj) -> tuple[str, int, str, str, str]:
        """(host to connect to, port, TLS server name, path, URL as shown in errors)."""
        url = client.get("url")
        if url:
            parts = urlsplit(str(url))
            host = parts.hostname or ""
            port = parts.port or 443
            path = parts.path or "/"
            if parts.query:
                path = f"{path}?{parts.query}"
            return host, port, host, path, str(url)
        service = _dict(client.get("service"))
        namespace, name = str(service.get("namespace") or ""), str(service.get("name") or "")
        port = int(service.get("port") or 443)
        path = str(service.get("path") or "/")
        server_name = f"{name}.{namespace}.svc"
        shown = f"https://{server_name}:{port}{path}"
        svc = self.storage.get("services", namespace, name)
        if svc is None:
            raise _CallFailed(f'failed to call webhook: service "{name}" not found')
        target_port: Any = port
        for entry in _dict(svc.get("spec")).get("ports") or []:
            if _dict(entry).get("port") == port:
                target_port = _dict(entry).get("targetPort", port)
        endpoints = self.storage.get("endpoints", namespace, name) or {}
        for subset in endpoints.get("subsets") or []:
            addresses = _dict(subset).get("addresses") or []
            ports = _dict(subset).get("ports") or []
            if addresses:
                chosen = next((p.get("port") for p in ports if isinstance(target_port, str)
                               and p.get("name") == target_port), None)
                number = chosen or (target_port if isinstance(target_port, int) else
                                    (ports[0].get("port") if ports else port))
                return str(addresses[0].get("ip")), int(number), server_name, path, shown
        raise _CallFailed(f'failed to call webhook: service "{namespace}/{name}" has no '
                          "endpoints (kubenb reaches a webhook service through its Endpoints)")

    def _call(self, hook: Obj, review: Obj) -> Obj:
        client = _dict(hook.get("clientConfig"))
        timeout = hook.get("timeoutSeconds") or _DEFAULT_TIMEOUT
        host, port, server_name, path, shown = self._target(client)
        separator = "&" if "?" in path else "?"
        path = f"{path}{separator}timeout={timeout}s"
        shown = f"{shown}{'&' if '?' in shown else '?'}timeout={timeout}s"
        context = ssl.create_default_context()
        bundle = client.get("caBundle")
        if bundle:
            try:
                context = ssl.create_default_context(
                    cadata=base64.b64decode(str(bundle)).decode("ascii"))
            except (ValueError, ssl.SSLError) as exc:
                raise _CallFailed(f"failed to call webhook: invalid caBundle: {exc}") from None
        body = json.dumps(review).encode()
        try:
            with socket.create_connection((host, port), timeout=timeout) as raw, \
                    context.wrap_socket(raw, server_hostname=server_name) as conn:
                conn.settimeout(timeout)
                http_conn = http.client.HTTPConnection(server_name, port, timeout=timeout)
                http_conn.sock = conn
                http_conn.request("POST", path, body, {
                    "Content-Type": "application/json", "Accept": "application/json",
                    "User-Agent": "kube-apiserver-admission"})
                reply = http_conn.getresponse()
                data = reply.read(_MAX_RESPONSE + 1)
                status = reply.status
        except TimeoutError:
            raise _CallFailed(f'failed to call webhook: Post "{shown}": context deadline '
                              "exceeded") from None
        except ConnectionRefusedError:
            raise _CallFailed(f'failed to call webhook: Post "{shown}": dial tcp {host}:{port}: '
                              "connect: connection refused") from None
        except ssl.SSLCertVerificationError as exc:
            raise _CallFailed(f'failed to call webhook: Post "{shown}": tls: failed to verify '
                              f"certificate: {exc.verify_message}") from None
        except (OSError, http.client.HTTPException) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise _CallFailed(f'failed to call webhook: Post "{shown}": {reason}') from None
        if status != 200:
            raise _CallFailed(f"received invalid webhook response: the server responded with "
                              f"status {status}")
        try:
            answer = json.loads(data)
        except ValueError as exc:
            raise _CallFailed(f"received invalid webhook response: {exc}") from None
        return _dict(answer)


def _request(uid: str, attrs: AdmissionAttributes, obj: Obj | None, old: Obj | None) -> Obj:
    rtype = attrs.rtype
    kind = {"group": rtype.group, "version": rtype.version, "kind": rtype.kind}
    resource = {"group": rtype.group, "version": rtype.version, "resource": rtype.plural}
    request: Obj = {"uid": uid, "kind": kind, "resource": resource}
    if attrs.subresource:
        request["subResource"] = attrs.subresource
    request.update({"requestKind": kind, "requestResource": resource})
    if attrs.subresource:
        request["requestSubResource"] = attrs.subresource
    if attrs.name:
        request["name"] = attrs.name
    if attrs.namespace:
        request["namespace"] = attrs.namespace
    option_kind = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions",
                   "DELETE": "DeleteOptions"}[attrs.operation]
    request.update({"operation": attrs.operation, "userInfo": attrs.user.to_dict(),
                    "object": obj, "oldObject": old, "dryRun": attrs.dry_run,
                    "options": {"kind": option_kind, "apiVersion": "meta.k8s.io/v1",
                                **attrs.options}})
    return request


def _denied(name: str, status: Obj) -> errors.StatusError:
    """webhookerrors.ToStatusErr: the webhook's Status, as a failure of at least 400."""
    denied_by = f'admission webhook "{name}" denied the request'
    code = status.get("code")
    code = code if isinstance(code, int) and code >= 400 else 400
    message, reason = status.get("message"), status.get("reason")
    if message:
        text = f"{denied_by}: {message}"
    elif reason:
        text = f"{denied_by}: {reason}"
    else:
        text = f"{denied_by} without explanation"
    body: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                 "message": text}
    if reason:
        body["reason"] = reason
    if isinstance(status.get("details"), dict):
        body["details"] = status["details"]
    body["code"] = code
    return errors.StatusError(body)


_SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields",
                  "selfLink")


def _before_create(obj: Obj) -> Obj:
    """A new object as mutating webhooks see it: before the server gives it a uid, a
    resourceVersion and a creationTimestamp."""
    meta = dict(_dict(obj.get("metadata")))
    meta.pop("uid", None)
    meta.pop("resourceVersion", None)
    meta["creationTimestamp"] = None
    return dict(obj, metadata=meta)


def _as_sent(obj: Obj, old: Obj | None) -> Obj:
    """A mutated object as the body of the write that stores it: without the fields the
    server sets (an update keeps the stored resourceVersion: a race is still a 409)."""
    body = json.loads(json.dumps(obj))
    meta = _dict(body.get("metadata"))
    for key in _SERVER_FIELDS:
        meta.pop(key, None)
    if old is not None:
        meta["resourceVersion"] = _dict(old.get("metadata")).get("resourceVersion")
    return body


Write = Callable[[Registry, Any], Obj]
"""A write made on a registry (or its dry-run view): (registry, body or None) -> object."""


def admitted_write(webhooks: Webhooks, registry: Registry, writer: Registry,
                   attrs: AdmissionAttributes, write: Write, rewrite: Write | None) -> Obj:
    """Make `write` on `writer` once the webhooks admit it.

    The write is first made as a dry run, so webhooks see the object the server would
    store; if mutating webhooks change it, `rewrite(registry, body)` (a PUT or create of the
    mutated object) replaces the write, dry-run again for the validating webhooks."""
    if not webhooks.active():
        return write(writer, None)
    rtype = attrs.rtype
    ns = attrs.namespace if rtype.namespaced else ""
    old = (registry.storage.get(rtype.key, ns, attrs.name)
           if attrs.operation != "CREATE" else None)
    if old is not None:
        old = json.loads(json.dumps(old))
    dry = registry.for_dry_run()
    preview = None if attrs.operation == "DELETE" else write(dry, None)
    if preview is not None and not attrs.name:
        attrs = AdmissionAttributes(attrs.operation, rtype, attrs.namespace,
                                    str(_dict(preview.get("metadata")).get("name") or ""),
                                    attrs.user, attrs.subresource, attrs.dry_run, attrs.options)
    seen = _before_create(preview) if preview is not None and attrs.operation == "CREATE" \
        else preview
    mutated = webhooks.mutate(attrs, seen, old)
    final: Write = write
    if rewrite is not None and mutated is not None and mutated != seen:
        body = _as_sent(mutated, old)

        def final(target: Registry, _: Any) -> Obj:
            return rewrite(target, body)

        preview = final(dry, None)
    webhooks.validate(attrs, preview, old)
    return final(writer, None)
