"""Who a request is: bearer tokens, ServiceAccount tokens, and impersonation.

The embedded server knows these users:

- the administrator, `kubenb-admin` in `system:masters`: a request carrying the
  server's own token (`EmbeddedServer(token=...)`), or, on a server started without a
  token, any request that carries no ServiceAccount token (the kubeconfig it writes names
  no credentials, and the server listens on loopback);
- ServiceAccounts, by the tokens `serviceaccounts/token` issues (kubenb.server.tokens):
  `system:serviceaccount:NS:NAME` in `system:serviceaccounts`,
  `system:serviceaccounts:NS` and `system:authenticated`, while the ServiceAccount (and
  the Pod or Secret the token is bound to) still exists with the uid the token names;
- `system:anonymous` on the paths open to everyone (`/healthz`, `/version`, ...) when the
  server requires a token and none was sent (a wrong one is a 401 there too).

Anything else is the real server's 401. Impersonation (`kubectl --as`, `--as-group`)
is asked of the authorizer as the real filter asks it: verb `impersonate` on `users`,
`groups`, `serviceaccounts`, `uids` or `userextras/KEY`.
"""

from __future__ import annotations

import hmac
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from kubenb.server import errors
from kubenb.server.request_head import RequestHeaders
from kubenb.server.storage import Storage
from kubenb.server.tokens import InvalidToken, TokenClaims, TokenIssuer, looks_like_jwt
from kubenb.timeutil import parse_time

__all__ = [
    "ADMIN",
    "ANONYMOUS",
    "MASTERS",
    "Authenticator",
    "ImpersonationError",
    "ImpersonationRequest",
    "UserInfo",
    "impersonation_requests",
    "service_account_user",
]

MASTERS = "system:masters"
AUTHENTICATED = "system:authenticated"
_SA_PREFIX = "system:serviceaccount:"
_CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
_DELETED_GRACE = 60.0  # a token of a terminating pod stays good this long (the real value)
_CACHE_SIZE = 4096


@dataclass(frozen=True)
class UserInfo:
    """An authenticated user, as the apiserver's user.Info (extra: key -> values)."""

    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    @property
    def privileged(self) -> bool:
        """In `system:masters`: every request allowed without asking RBAC."""
        return MASTERS in self.groups

    def to_dict(self) -> dict[str, Any]:
        """The UserInfo of reviews (`status.user`, `status.userInfo`)."""
        out: dict[str, Any] = {"username": self.username}
        if self.uid:
            out["uid"] = self.uid
        out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {k: list(v) for k, v in sorted(self.extra.items())}
        return out


ADMIN = UserInfo("kubenb-admin", groups=(MASTERS, AUTHENTICATED))
"""The administrator: the server's token, or no credentials on a server without one."""
ANONYMOUS = UserInfo("system:anonymous", groups=("system:unauthenticated",))


def service_account_groups(namespace: str) -> tuple[str, ...]:
    return ("system:serviceaccounts", f"system:serviceaccounts:{namespace}")


def service_account_user(claims: TokenClaims, sa_uid: str,
                         bound: Mapping[str, Mapping[str, str]]) -> UserInfo:
    """The user a verified token stands for (its extra names the credential and pod)."""
    name = (claims.ref("serviceaccount") or {}).get("name", "")
    extra: dict[str, tuple[str, ...]] = {}
    for kind in ("node", "pod"):
        ref = bound.get(kind)
        if ref:
            extra[f"authentication.kubernetes.io/{kind}-name"] = (ref.get("name", ""),)
            if ref.get("uid"):
                extra[f"authentication.kubernetes.io/{kind}-uid"] = (ref["uid"],)
    if claims.jti:
        extra[_CREDENTIAL_ID] = (f"JTI={claims.jti}",)
    return UserInfo(f"{_SA_PREFIX}{claims.namespace}:{name}", sa_uid,
                    (*service_account_groups(claims.namespace), AUTHENTICATED), extra)


def _all(headers: RequestHeaders | Message | Mapping[str, str], name: str) -> list[str]:
    get_all = getattr(headers, "get_all", None)  # a Message or the server's RequestHeaders
    if get_all is not None:
        return [str(v) for v in get_all(name) or []]
    value = next((v for k, v in headers.items() if k.lower() == name.lower()), None)
    return [] if value is None else [value]


class ImpersonationError(Exception):
    """Impersonate-Group (or -Uid, -Extra) without Impersonate-User: the real server
    answers it with a plain-text 500."""


@dataclass(frozen=True)
class ImpersonationRequest:
    """One thing an impersonating request asks to act as, and the attributes the
    authorizer is asked about (verb `impersonate`)."""

    resource: str
    name: str
    api_group: str = ""
    namespace: str = ""
    subresource: str = ""


def impersonation_requests(headers: RequestHeaders | Message | Mapping[str, str]
                           ) -> tuple[UserInfo, list[ImpersonationRequest]] | None:
    """The user `Impersonate-*` headers ask for, and what must be allowed for it; None
    when the request impersonates no one. A group, uid or extra without a user raises
    ImpersonationError."""
    if not any(key[:12].lower() == "impersonate-" for key in headers):
        return None  # the common case, in one pass over the header names
    users = _all(headers, "Impersonate-User")
    groups = _all(headers, "Impersonate-Group")
    uids = _all(headers, "Impersonate-Uid")
    keys = sorted({k for k in headers if k.lower().startswith("impersonate-extra-")})
    if not (users or groups or uids or keys):
        return None
    if not users:
        asked_for = [f"{{Group  {g}    }}" for g in groups] + [f"{{  {u}    }}" for u in uids]
        raise ImpersonationError(f"requested [{' '.join(asked_for)}] without impersonating "
                                 "a user")
    username = users[0]
    asked: list[ImpersonationRequest] = []
    if username.startswith(_SA_PREFIX) and username.count(":") == 3:
        namespace, name = username[len(_SA_PREFIX):].split(":")
        asked.append(ImpersonationRequest("serviceaccounts", name, namespace=namespace))
        if not groups:
            groups = list(service_account_groups(namespace))
    else:
        asked.append(ImpersonationRequest("users", username))
    asked += [ImpersonationRequest("groups", group) for group in groups]
    extra: dict[str, tuple[str, ...]] = {}
    for key in keys:
        name = key[len("impersonate-extra-"):].lower()
        values = tuple(_all(headers, key))
        extra[name] = values
        asked += [ImpersonationRequest("userextras", value, "authentication.k8s.io",
                                       subresource=name) for value in values]
    uid = uids[0] if uids else ""
    if uid:
        asked.append(ImpersonationRequest("uids", uid, "authentication.k8s.io"))
    if username != ANONYMOUS.username and AUTHENTICATED not in groups:
        groups.append(AUTHENTICATED)
    return UserInfo(username, uid, tuple(groups), extra), asked


@dataclass(frozen=True)
class _VerifiedToken:
    claims: TokenClaims
    user: UserInfo
    checks: tuple[tuple[str, str, Mapping[str, str], str], ...]  # what must still exist


class Authenticator:
    """Turns a request's Authorization header into a UserInfo, or a 401."""

    def __init__(self, storage: Storage, tokens: TokenIssuer, server_token: str | None,
                 public_paths: tuple[str, ...]) -> None:
        self.storage = storage
        self.tokens = tokens
        self._server_token = server_token.encode() if server_token else None
        self._public_paths = public_paths
        self._verified: OrderedDict[str, _VerifiedToken] = OrderedDict()
        self._lock = threading.Lock()

    def authenticate(self, authorization: str, path: str) -> UserInfo:
        """The user behind `authorization` (the header as sent) for a request to `path`."""
        parts = authorization.strip().split(" ", 2)
        given = parts[1] if len(parts) >= 2 and parts[0].lower() == "bearer" else ""
        if given and self._server_token is not None and hmac.compare_digest(
                given.encode(), self._server_token):
            return ADMIN
        if given and looks_like_jwt(given):
            try:
                return self.token_user(given)[0]
            except InvalidToken:
                raise errors.unauthorized() from None
        if self._server_token is None:
            return ADMIN
        if not given and path.rstrip("/") in self._public_paths:
            return ANONYMOUS  # a wrong token is a 401 even here, as on a real server
        raise errors.unauthorized()

    def _verified_token(self, token: str) -> _VerifiedToken:
        """Claims, user and the objects to check, worked out once per token (a client
        sends the same token again and again); its expiry is checked every time."""
        with self._lock:
            known = self._verified.get(token)
            if known is not None:
                self._verified.move_to_end(token)
        if known is None:
            claims = self.tokens.verify(token)
            namespace = claims.namespace
            checks: list[tuple[str, str, Mapping[str, str], str]] = [
                ("serviceaccounts", namespace, claims.ref("serviceaccount") or {},
                 "service account")]
            bound: dict[str, Mapping[str, str]] = {}
            for kind, resource, scoped in (("pod", "pods", True), ("secret", "secrets", True),
                                           ("node", "nodes", False)):
                ref = claims.ref(kind)
                if ref is None:
                    continue
                bound[kind] = ref
                if kind != "node" or "pod" not in bound:  # a pod's node is told, not bound
                    checks.append((resource, namespace if scoped else "", ref, kind))
            uid = str((claims.ref("serviceaccount") or {}).get("uid") or "")
            known = _VerifiedToken(claims, service_account_user(claims, uid, bound),
                                   tuple(checks))
            with self._lock:
                self._verified[token] = known
                while len(self._verified) > _CACHE_SIZE:
                    self._verified.popitem(last=False)
        elif self.tokens.now() > known.claims.expires:
            raise InvalidToken("service account token has expired")
        return known

    def token_user(self, token: str) -> tuple[UserInfo, tuple[str, ...]]:
        """(user, audiences) of a ServiceAccount token, checked against what is stored
        now: the ServiceAccount and the bound object must exist with the uids named."""
        known = self._verified_token(token)
        for resource, namespace, ref, what in known.checks:
            self._live(resource, namespace, ref, what)
        return known.user, known.claims.audiences

    def _live(self, resource: str, namespace: str, ref: Mapping[str, str], what: str
              ) -> dict[str, Any]:
        """The object a claim names, if it still exists as the token saw it (the real
        authenticator's errors: a gone ServiceAccount is "not found", a gone pod or
        secret "invalidated")."""
        name = str(ref.get("name") or "")
        obj = self.storage.get(resource, namespace, name)
        service_account = resource == "serviceaccounts"
        if obj is None:
            if service_account:
                raise InvalidToken(f'{resource} "{name}" not found')
            raise InvalidToken("service account token has been invalidated")
        meta = obj.get("metadata") or {}
        if ref.get("uid") and meta.get("uid") != ref.get("uid"):
            label = "service account" if service_account else what
            raise InvalidToken(f"{label} UID ({meta.get('uid')}) does not match claim "
                               f"({ref.get('uid')})")
        deleted = meta.get("deletionTimestamp")
        if deleted and self._deleted_long_ago(str(deleted)):
            label = "service account" if service_account else what
            raise InvalidToken(f"{label} {namespace}/{name} has been deleted")
        return obj

    def _deleted_long_ago(self, stamp: Any) -> bool:
        when = parse_time(stamp)
        return when is None or when < self.tokens.now() - _DELETED_GRACE

    def review(self, token: str, audiences: list[str]) -> dict[str, Any]:
        """The status of a TokenReview of `token` for `audiences` (default: the API's)."""
        if self._server_token is not None and hmac.compare_digest(
                token.encode(), self._server_token):
            return {"authenticated": True, "user": ADMIN.to_dict(),
                    "audiences": list(audiences or self.tokens.audiences)}
        try:
            if not looks_like_jwt(token):
                raise InvalidToken("invalid bearer token")
            user, token_audiences = self.token_user(token)
        except InvalidToken as exc:
            return {"user": {}, "error": f"[invalid bearer token, {exc}]"
                    if not str(exc).startswith("invalid bearer token") else str(exc)}
        wanted = list(audiences or self.tokens.audiences)
        matched = [a for a in wanted if a in token_audiences]
        if not matched:
            return {"user": {}, "error": f"[invalid bearer token, token audiences "
                                         f"{_go_list(token_audiences)} is invalid for the "
                                         f"target audiences {_go_list(wanted)}]"}
        return {"authenticated": True, "user": user.to_dict(), "audiences": matched}


def _go_list(values: Any) -> str:
    return '["' + '" "'.join(values) + '"]' if values else "[]"

