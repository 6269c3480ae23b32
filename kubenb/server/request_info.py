"""What a request asks to do, in the authorizer's terms (the apiserver's RequestInfo).

A resource request names a verb (`get`, `list`, `watch`, `create`, `update`, `patch`,
`delete`, `deletecollection`), an API group, a resource and subresource, a namespace and
a name; anything else (`/version`, `/openapi/v3`, discovery `/api/v1`) is a path with the
lower-cased HTTP method as its verb. As in apiserver's RequestInfoFactory, a request on a
namespace object is in that namespace, and `?watch=true` (or `/watch/` paths) makes a
read a watch.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubenb.server.params import go_parse_bool

__all__ = ["Attributes", "request_attributes"]

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete",
          "GET": "get", "HEAD": "get"}
_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True)
class Attributes:
    """The authorizer's question, without the user (authorizer.Attributes)."""

    verb: str
    resource_request: bool = True
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @property
    def full_resource(self) -> str:
        """`pods` or `pods/log`, as rules and messages name it."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


def request_attributes(method: str, path: str, params: dict[str, str]) -> Attributes:
    """The Attributes of `method path?params`."""
    parts = [p for p in path.split("/") if p]
    verb = method.lower()
    if len(parts) < 3 or parts[0] not in ("api", "apis") or (parts[0] == "apis" and
                                                            len(parts) < 4):
        return Attributes(verb, resource_request=False, path=path)
    if parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    else:
        group, version, rest = parts[1], parts[2], parts[3:]
    watch_path = rest[0] == "watch"
    if watch_path:
        rest = rest[1:]
    namespace = ""
    if len(rest) >= 2 and rest[0] == "namespaces":
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in _NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    resource = rest[0] if rest else ""
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    kube_verb = _VERBS.get(method.upper(), verb)
    if kube_verb == "get" and not name:
        kube_verb = "list"
    if kube_verb == "delete" and not name:
        kube_verb = "deletecollection"
    if kube_verb in ("get", "list") and (watch_path or go_parse_bool(params.get("watch") or "")):
        kube_verb = "watch"
    if resource == "namespaces" and name and not namespace:
        namespace = name
    return Attributes(kube_verb, True, group, version, resource, subresource, namespace, name,
                      path)
