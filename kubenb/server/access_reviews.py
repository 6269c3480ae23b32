"""The questions about identity and access, answered by the server's authenticator and
RBAC authorizer: "who am I?" (SelfSubjectReview, `kubectl auth whoami`), "is this token
good?" (TokenReview), "may I / may they?" (SelfSubjectAccessReview, SubjectAccessReview,
LocalSubjectAccessReview: `kubectl auth can-i`), "what may I do here?"
(SelfSubjectRulesReview: `kubectl auth can-i --list`), and the TokenRequest subresource
`serviceaccounts/token` (`kubectl create token`). Answers and errors are shaped as a real
v1.32 server's (tests/fixtures/realapi_auth).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from kubenb.server import errors
from kubenb.server.apply import Manager, track_update
from kubenb.server.authentication import Authenticator, UserInfo
from kubenb.server.encoding import now_rfc3339
from kubenb.server.rbac import RBACAuthorizer
from kubenb.server.request_info import Attributes
from kubenb.server.storage import Storage
from kubenb.timeutil import format_time

__all__ = ["KINDS", "Access", "serve", "token_request"]

Obj = dict[str, Any]

KINDS = ("SelfSubjectReview", "TokenReview", "SubjectAccessReview",
         "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview")
"""The review kinds answered here."""

_MIN_EXPIRATION = 600
_MAX_EXPIRATION = 1 << 32
_BINDABLE = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}


@dataclass(frozen=True)
class Access:
    """Who asks, and the server's authenticator and authorizer to answer with."""

    user: UserInfo
    authenticator: Authenticator
    authorizer: RBACAuthorizer


def _dict(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _record_manager(meta: Obj, kind: str, group_version: str, spec: Obj,
                    manager: Manager) -> None:
    """The managedFields the real server's create handler records for what was sent."""
    managed = track_update(None, {"kind": kind, "apiVersion": group_version, "metadata": {},
                                  "spec": spec}, manager, group_version, now_rfc3339())
    if managed:
        meta["managedFields"] = managed


def serve(access: Access, kind: str, group_version: str, namespace: str, body: Any,
          manager: Manager) -> tuple[int, Obj]:
    """(201, the review answered) for a POSTed review of `kind`."""
    obj = _dict(body)
    meta = dict(_dict(obj.get("metadata")))
    meta.setdefault("creationTimestamp", None)
    spec = _dict(obj.get("spec"))
    out: Obj = {"kind": kind, "apiVersion": group_version, "metadata": meta}
    if kind == "SelfSubjectReview":
        meta["creationTimestamp"] = now_rfc3339()
        out["status"] = {"userInfo": access.user.to_dict()}
        return 201, out
    if kind == "TokenReview":
        _record_manager(meta, kind, group_version, spec, manager)
        out["spec"] = spec
        audiences = [str(a) for a in spec.get("audiences") or []]
        out["status"] = access.authenticator.review(str(spec.get("token") or ""), audiences)
        return 201, out
    if kind == "SelfSubjectRulesReview":
        out["spec"] = {}
        resource, non_resource = access.authorizer.rules_for(
            access.user, str(spec.get("namespace") or ""))
        out["status"] = {"resourceRules": resource, "nonResourceRules": non_resource,
                         "incomplete": False}
        return 201, out
    _check_access_review(kind, namespace, obj, spec)
    _record_manager(meta, kind, group_version, spec, manager)
    out["spec"] = spec
    user = access.user if kind == "SelfSubjectAccessReview" else UserInfo(
        str(spec.get("user") or ""), str(spec.get("uid") or ""),
        tuple(str(g) for g in spec.get("groups") or []),
        {str(k): tuple(str(x) for x in v) for k, v in _dict(spec.get("extra")).items()
         if isinstance(v, list)})
    decision = access.authorizer.authorize(user, _review_attributes(spec))
    out["status"] = {"allowed": decision.allowed}
    if decision.reason:
        out["status"]["reason"] = decision.reason
    return 201, out


def _review_attributes(spec: Obj) -> Attributes:
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return Attributes(str(resource.get("verb") or ""), True,
                          str(resource.get("group") or ""), str(resource.get("version") or ""),
                          str(resource.get("resource") or ""),
                          str(resource.get("subresource") or ""),
                          str(resource.get("namespace") or ""), str(resource.get("name") or ""))
    path = _dict(spec.get("nonResourceAttributes"))
    return Attributes(str(path.get("verb") or ""), False, path=str(path.get("path") or ""))


def _check_access_review(kind: str, namespace: str, obj: Obj, spec: Obj) -> None:
    name = str((obj.get("metadata") or {}).get("name") or "")
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    causes = []
    if (resource is None) == (non_resource is None):
        shown = "null" if resource is None else "{...}"
        causes.append(errors.cause(
            "FieldValueInvalid", "spec.resourceAttributes",
            f'Invalid value: "{shown}": exactly one of nonResourceAttributes or '
            "resourceAttributes must be specified"))
    if kind in ("SubjectAccessReview", "LocalSubjectAccessReview") and not (
            spec.get("user") or spec.get("groups") or spec.get("uid")):
        causes.append(errors.cause("FieldValueRequired", "spec.user",
                                   "Required value: at least one of user or group must be "
                                   "specified"))
    if (kind == "LocalSubjectAccessReview" and isinstance(resource, dict)
            and resource.get("namespace") != namespace):
        causes.append(errors.cause(
            "FieldValueInvalid", "spec.resourceAttributes.namespace",
            f'Invalid value: "{resource.get("namespace", "")}": must match '
            f'metadata.namespace "{namespace}"'))
    if causes:
        raise errors.invalid(kind, name, causes, "authorization.k8s.io")


def token_request(access: Access, storage: Storage, namespace: str, name: str, body: Any,
                  manager: Manager) -> tuple[int, Obj]:
    """POST serviceaccounts/NAME/token: a TokenRequest answered with a signed token."""
    service_account = storage.get("serviceaccounts", namespace, name)
    if service_account is None:
        raise errors.not_found("serviceaccounts", name)
    request = _dict(body)
    sent = request.get("kind")
    if sent and sent != "TokenRequest":
        raise errors.bad_request(f'{sent} in version "{request.get("apiVersion", "")}" cannot '
                                 "be handled as a TokenRequest")
    spec = copy.deepcopy(_dict(request.get("spec")))
    tokens = access.authenticator.tokens
    audiences = [str(a) for a in spec.get("audiences") or []] or list(tokens.audiences)
    seconds = spec.get("expirationSeconds")
    if seconds is None:
        seconds = 3600
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < _MIN_EXPIRATION \
            or seconds > _MAX_EXPIRATION:
        why = ("may not specify a duration larger than 2^32 seconds"
               if isinstance(seconds, int) and seconds > _MAX_EXPIRATION
               else "may not specify a duration less than 10 minutes")
        message = f"Invalid value: {seconds}: {why}"
        raise errors.invalid("TokenRequest", "", [errors.cause(
            "FieldValueInvalid", "spec.expirationSeconds", message)], "authentication.k8s.io")
    ref = spec.get("boundObjectRef")
    bound = _bind(storage, namespace, name, ref) if isinstance(ref, dict) else None
    token, expires = tokens.issue(namespace, service_account, audiences, seconds, bound)
    meta: Obj = {"name": name, "namespace": namespace,
                 "creationTimestamp": format_time(tokens.now())}
    # What was sent, with expirationSeconds defaulted, is what the real server records.
    _record_manager(meta, "TokenRequest", "authentication.k8s.io/v1",
                    dict(spec, expirationSeconds=seconds), manager)
    spec = {"audiences": audiences, "expirationSeconds": seconds,
            "boundObjectRef": ref if isinstance(ref, dict) else None}
    answer = {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
              "metadata": meta, "spec": spec,
              "status": {"token": token, "expirationTimestamp": format_time(expires)}}
    return 201, answer


def _bind(storage: Storage, namespace: str, service_account: str, ref: Obj
          ) -> dict[str, dict[str, str]]:
    """The claims naming the object a token is bound to (404, 409 and 400 as the real
    server: missing, another uid, a kind that cannot hold a token)."""
    kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
    resource = _BINDABLE.get(kind)
    if resource is None or ref.get("apiVersion", "v1") != "v1":
        api_version = str(ref.get("apiVersion") or "")
        gv = api_version if "/" in api_version else f"/{api_version}"  # Go's GVK.String()
        raise errors.bad_request(f"cannot bind token to object of type {gv}, Kind={kind}")
    obj = storage.get(resource, "" if kind == "Node" else namespace, name)
    if obj is None:
        raise errors.not_found(resource, name)
    meta = _dict(obj.get("metadata"))
    if ref.get("uid") and ref.get("uid") != meta.get("uid"):
        raise errors.conflict(kind, name, why=(
            f"the UID in the bound object reference ({ref.get('uid')}) does not match the "
            "UID in record. The object might have been deleted and then recreated"))
    claim = {"name": name, "uid": str(meta.get("uid") or "")}
    if kind != "Pod":
        return {kind.lower(): claim}
    spec = _dict(obj.get("spec"))
    if (spec.get("serviceAccountName") or "default") != service_account:
        raise errors.bad_request(f'cannot bind token for serviceaccount "{service_account}" '
                                 "to pod running with different serviceaccount name.")
    out = {"pod": claim}
    node_name = spec.get("nodeName")
    if node_name:
        node = storage.get("nodes", "", str(node_name))
        out["node"] = {"name": str(node_name)}
        if node is not None:
            out["node"]["uid"] = str(_dict(node.get("metadata")).get("uid") or "")
    return out
