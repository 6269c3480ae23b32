"""DiscoveryClient and RESTMapper: which resources a server serves, and what a name means.

Discovery first asks for the aggregated document (`/api` and `/apis` as one
APIGroupDiscoveryList each, kubectl 1.26+), and falls back to the legacy walk
(`/api/v1`, `/apis`, then one request per group version) when the server answers
with the plain documents. Results are cached until `invalidate()`.

The RESTMapper turns what a person types ("po", "Pod", "deploy", "deployments.apps",
"deployment.v1.apps", a CRD's plural) into a `ResourceInfo`; an unknown name refreshes
discovery once (a CRD may have just been created), then fails with close matches.
"""

from __future__ import annotations

import difflib
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from kubenb.errors import InvalidResponseError, NoResourceMatchError
from kubenb.redact import describe_body, redact_url

__all__ = [
    "AGGREGATED_V2",
    "AGGREGATED_V2BETA1",
    "DiscoveryClient",
    "RESTMapper",
    "ResourceInfo",
]

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
_AGGREGATED_ACCEPT = f"{AGGREGATED_V2},{AGGREGATED_V2BETA1},application/json"
_VERSION_RE = re.compile(r"^v\d+(?:(?:alpha|beta)\d+)?$")


@dataclass(frozen=True)
class ResourceInfo:
    """One served resource: where it lives and what it is called."""

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    singular: str = ""
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = field(default=(), compare=False)

    @property
    def api_version(self) -> str:
        """"v1" for the core group, else "group/version"."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """"pods" or "deployments.apps": how kubectl and error messages name it."""
        return f"{self.resource}.{self.group}" if self.group else self.resource


class DiscoveryClient:
    """What the server serves, from aggregated discovery or the legacy documents."""

    def __init__(self, rest: Any) -> None:
        self.rest = rest
        self._lock = threading.Lock()
        self._resources: list[ResourceInfo] | None = None
        self._preferred: dict[str, str] = {}
        self.aggregated: bool | None = None  # which path the last refresh took

    def __repr__(self) -> str:
        count = "?" if self._resources is None else len(self._resources)
        return (f"DiscoveryClient(server={redact_url(str(self.rest.server))!r}, "
                f"resources={count})")

    def server_version(self) -> dict[str, Any]:
        return self.rest.get("/version")

    def invalidate(self) -> None:
        """Forget the cache; the next question asks the server again."""
        with self._lock:
            self._resources = None
            self._preferred = {}

    def server_resources(self) -> list[ResourceInfo]:
        """Every resource of every served group version (cached)."""
        with self._lock:
            if self._resources is None:
                self._refresh()
            return list(self._resources or [])

    def preferred_versions(self) -> dict[str, str]:
        """group -> its preferred version ("" is the core group)."""
        self.server_resources()
        with self._lock:
            return dict(self._preferred)

    def server_preferred_resources(self) -> list[ResourceInfo]:
        """One entry per resource, at its group's preferred version."""
        preferred = self.preferred_versions()
        return [r for r in self.server_resources() if preferred.get(r.group) == r.version]

    def server_groups(self) -> list[str]:
        """The names of served groups, core ("") first, in the server's order."""
        seen: dict[str, None] = {}
        for info in self.server_resources():
            seen.setdefault(info.group, None)
        return list(seen)

    # -- refresh -------------------------------------------------------------------

    def _refresh(self) -> None:
        resources: list[ResourceInfo] = []
        preferred: dict[str, str] = {}
        aggregated = True
        for path in ("/api", "/apis"):
            resp = self.rest.request("GET", path, accept=_AGGREGATED_ACCEPT)
            body = _document(resp, path)
            if "APIGroupDiscoveryList" in resp.headers.get("Content-Type", "") or (
                    body.get("kind") == "APIGroupDiscoveryList"):
                _read_aggregated(body, resources, preferred)
            else:
                aggregated = False
                self._read_legacy(path, body, resources, preferred)
        self._resources = resources
        self._preferred = preferred
        self.aggregated = aggregated

    def _read_legacy(self, path: str, body: dict[str, Any], out: list[ResourceInfo],
                     preferred: dict[str, str]) -> None:
        if path == "/api":
            versions = body.get("versions") or []
            if versions:
                preferred[""] = versions[0]
            for version in versions:
                doc = self.rest.get(f"/api/{version}")
                _read_resource_list("", version, doc, out)
            return
        for group in body.get("groups") or []:
            name = group["name"]
            preferred[name] = ((group.get("preferredVersion") or {}).get("version")
                               or group["versions"][0]["version"])
            for entry in group.get("versions") or []:
                version = entry["version"]
                doc = self.rest.get(f"/apis/{name}/{version}")
                _read_resource_list(name, version, doc, out)


def _document(resp: Any, path: str) -> dict[str, Any]:
    """The discovery document at `path`; a proxy's HTML page or any answer that is not
    a JSON object raises `InvalidResponseError` saying what came instead."""
    from kubenb.client.rest import decode_response

    content_type = resp.headers.get("Content-Type", "")
    body = decode_response(resp, "GET", path)
    if not isinstance(body, dict):
        raise InvalidResponseError(
            f"GET {path}: the server answered with {describe_body(body, content_type)}, "
            f"not a discovery document (is the server URL that of an API server?)")
    return body


def _read_aggregated(body: dict[str, Any], out: list[ResourceInfo],
                     preferred: dict[str, str]) -> None:
    for group_doc in body.get("items") or []:
        group = (group_doc.get("metadata") or {}).get("name", "")
        versions = group_doc.get("versions") or []
        if versions:
            preferred.setdefault(group, versions[0]["version"])  # listed in preference order
        for version_doc in versions:
            version = version_doc["version"]
            for res in version_doc.get("resources") or []:
                kind = (res.get("responseKind") or {}).get("kind", "")
                out.append(ResourceInfo(
                    group=group, version=version, resource=res["resource"], kind=kind,
                    namespaced=res.get("scope") == "Namespaced",
                    singular=res.get("singularResource") or kind.lower(),
                    short_names=tuple(res.get("shortNames") or ()),
                    verbs=tuple(res.get("verbs") or ()),
                    categories=tuple(res.get("categories") or ()),
                    subresources=tuple(s["subresource"] for s in res.get("subresources") or ()),
                ))


def _read_resource_list(group: str, version: str, doc: dict[str, Any],
                        out: list[ResourceInfo]) -> None:
    entries = doc.get("resources") or []
    subs: dict[str, list[str]] = {}
    for entry in entries:
        if "/" in entry["name"]:
            parent, sub = entry["name"].split("/", 1)
            subs.setdefault(parent, []).append(sub)
    for entry in entries:
        if "/" in entry["name"]:
            continue
        kind = entry.get("kind", "")
        out.append(ResourceInfo(
            group=group, version=version, resource=entry["name"], kind=kind,
            namespaced=bool(entry.get("namespaced")),
            singular=entry.get("singularName") or kind.lower(),
            short_names=tuple(entry.get("shortNames") or ()),
            verbs=tuple(entry.get("verbs") or ()),
            categories=tuple(entry.get("categories") or ()),
            subresources=tuple(subs.get(entry["name"], ())),
        ))


class RESTMapper:
    """Resolves a resource name the way kubectl does, from discovery."""

    def __init__(self, discovery: DiscoveryClient) -> None:
        self.discovery = discovery

    def __repr__(self) -> str:
        return f"RESTMapper({self.discovery!r})"

    def resource_for(self, name: str) -> ResourceInfo:
        """"pods", "po", "Pod", "pod", "deployments.apps", "deploy", "deployment.v1.apps",
        or a CRD's names; raises `NoResourceMatchError` with close matches."""
        found = self._lookup(name)
        if found is None:
            self.discovery.invalidate()  # a CRD may have appeared since the last look
            found = self._lookup(name)
        if found is None:
            raise NoResourceMatchError(name, self._suggestions(name))
        return found

    def kind_for(self, name: str) -> str:
        return self.resource_for(name).kind

    def _lookup(self, name: str) -> ResourceInfo | None:
        text = name.strip()
        resources = self.discovery.server_resources()
        preferred = self.discovery.preferred_versions()
        for resource, version, group in _readings(text):
            matches = [r for r in resources
                       if (group is None or r.group == group)
                       and (version is None or r.version == version)
                       and _names_match(r, resource)]
            if matches:
                return min(matches, key=lambda r: _rank(r, resource, preferred, resources))
        return None

    def _suggestions(self, name: str) -> list[str]:
        names: set[str] = set()
        for info in self.discovery.server_resources():
            names.update({info.resource, info.singular, info.group_resource, *info.short_names})
        names.discard("")
        return difflib.get_close_matches(name.lower(), sorted(names), n=3, cutoff=0.6)


def _readings(text: str) -> list[tuple[str, str | None, str | None]]:
    """(resource, version, group) readings of a name, most specific first."""
    if "." not in text:
        return [(text, None, None)]
    first, rest = text.split(".", 1)
    readings: list[tuple[str, str | None, str | None]] = []
    head, _, tail = rest.partition(".")
    if _VERSION_RE.match(head):
        readings.append((first, head, tail))  # deployment.v1.apps, or pods.v1 (tail "")
    readings.append((first, None, rest))  # deployments.apps, foos.samplecontroller.k8s.io
    return readings


def _names_match(info: ResourceInfo, name: str) -> bool:
    lower = name.lower()
    return (info.resource == lower or info.singular == lower or lower in info.short_names
            or info.kind.lower() == lower)


def _rank(info: ResourceInfo, name: str, preferred: dict[str, str],
          resources: list[ResourceInfo]) -> tuple[int, int, int, int]:
    lower = name.lower()
    how = (0 if info.resource == lower else 1 if info.singular == lower
           else 2 if lower in info.short_names else 3)
    core = 0 if info.group == "" else 1
    not_preferred = 0 if preferred.get(info.group) == info.version else 1
    return how, core, not_preferred, resources.index(info)
