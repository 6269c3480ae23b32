"""Clientset: client-go's `kubernetes.Clientset`, one accessor per served group version.

`clientset.core_v1().pods("default").list()` is `clientset.CoreV1().Pods("default")
.List(ctx, opts)`. The built-in group versions of a 1.32 server are methods of the
class itself (generated from `BUILTIN_RESOURCES` at import), so tab completion and
`help()` work before any request. When the clientset has a `DiscoveryClient`, what
the server serves beyond that table (a newer group, a CRD's group) is added from
discovery on first use: `dir()` lists it and attribute access returns it.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any, ClassVar

from kubenb.client.discovery import DiscoveryClient, ResourceInfo
from kubenb.client.rest import RESTClient
from kubenb.client.typed.builtin import builtin_group_versions
from kubenb.client.typed.names import (
    full_group_accessor,
    go_group_accessor,
    go_plural,
    group_accessor,
    group_package,
    resource_accessor,
)
from kubenb.client.typed.resource import TypedClient, go_accessor, typed_client_class
from kubenb.errors import KubenbError

__all__ = ["Clientset", "GroupVersionClient", "group_client_class", "new_for_config"]

GroupKey = tuple[str, str]  # (group, version)


class GroupVersionClient:
    """Base of the generated group clients (`CoreV1Client`, `AppsV1Client`, ...)."""

    group: ClassVar[str]
    version: ClassVar[str]
    resources: ClassVar[tuple[ResourceInfo, ...]]
    __slots__ = ("_clientset", "rest")

    def __init__(self, rest: RESTClient, clientset: Clientset | None = None) -> None:
        self.rest = rest
        self._clientset = clientset

    def __repr__(self) -> str:
        gv = f"{self.group}/{self.version}" if self.group else self.version
        return f"<{type(self).__name__} {gv}>"

    def rest_client(self) -> RESTClient:
        """The RESTClient every typed client of this group uses (Go: `RESTClient()`)."""
        return self.rest

    def _discovered(self) -> dict[str, Callable[..., TypedClient]]:
        if self._clientset is None:
            return {}
        return self._clientset._discovered_resources((self.group, self.version))

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_"):
            accessor = self._discovered().get(name)
            if accessor is not None:
                return types.MethodType(accessor, self)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._discovered()})


def _resource_accessor(info: ResourceInfo, owner: str) -> Callable[..., TypedClient]:
    cls = typed_client_class(info)
    name = resource_accessor(info)
    if info.namespaced:
        def accessor(self: GroupVersionClient, namespace: str = "") -> TypedClient:
            return cls(self.rest, namespace)

        summary = (f"The {info.group_resource} of `namespace` (\"\": all namespaces, for "
                   "list, watch and delete_collection).")
    else:
        def accessor(self: GroupVersionClient) -> TypedClient:  # type: ignore[misc]
            return cls(self.rest)

        summary = f"The {info.group_resource} (cluster-scoped)."
    accessor.__name__ = name
    accessor.__qualname__ = f"{owner}.{name}"
    accessor.__doc__ = (f"{summary}\n\nGo: {go_accessor(info)} "
                        f"({group_package(info.group)}{info.version}.{info.kind}Interface)")
    return accessor


_LOCK = threading.Lock()
_GROUP_CLASSES: dict[tuple[Any, ...], type[GroupVersionClient]] = {}


def group_client_class(group: str, version: str,
                       resources: list[ResourceInfo] | tuple[ResourceInfo, ...]
                       ) -> type[GroupVersionClient]:
    """The generated client class of one group version (made once per resource set)."""
    key = (group, version, tuple((i.resource, i.kind, i.namespaced, i.verbs, i.subresources)
                                 for i in resources))
    with _LOCK:
        cls = _GROUP_CLASSES.get(key)
        if cls is None:
            cls = _GROUP_CLASSES[key] = _make_group_class(group, version, resources)
        return cls


def _make_group_class(group: str, version: str,
                      resources: list[ResourceInfo] | tuple[ResourceInfo, ...]
                      ) -> type[GroupVersionClient]:
    name = f"{go_group_accessor(group, version)}Client"
    gv = f"{group}/{version}" if group else version
    accessors = {resource_accessor(info): info for info in resources}
    doc = (f"The typed clients of {gv}: client-go's `{name}`.\n\n"
           f"Go: {go_group_accessor(group, version)}()\n"
           f"Resources: {', '.join(sorted(accessors)) or '(none)'}")
    namespace: dict[str, Any] = {"__slots__": (), "__doc__": doc, "__module__": __name__,
                                 "group": group, "version": version,
                                 "resources": tuple(resources)}
    for accessor, info in accessors.items():
        namespace[accessor] = _resource_accessor(info, name)
    return type(name, (GroupVersionClient,), namespace)


class Clientset:
    """client-go's typed `kubernetes.Clientset` over one RESTClient; dicts in and out.

    `Clientset(config_or_rest, discovery=None)`. Each `<group>_<version>()` method returns
    that group's client, whose `<resource>(namespace)` methods return typed clients
    with client-go's verbs in snake_case (see `docs/porting.md`). Custom resources are
    reached through discovery (their group appears here) or `DynamicClient`.
    """

    def __init__(self, config_or_rest: Any, discovery: DiscoveryClient | None = None) -> None:
        self.rest = (config_or_rest if isinstance(config_or_rest, RESTClient)
                     else RESTClient(config_or_rest))
        self._discovery = discovery
        self._lock = threading.Lock()
        self._groups: dict[GroupKey, GroupVersionClient] = {}
        self._extra_groups: dict[str, type[GroupVersionClient]] | None = None
        self._extra_resources: dict[GroupKey, dict[str, Callable[..., TypedClient]]] = {}

    def __repr__(self) -> str:
        return f"Clientset(server={self.rest.server!r})"

    def discovery(self) -> DiscoveryClient:
        """The discovery client (Go: `Discovery()`), made on first use if none was given."""
        with self._lock:
            if self._discovery is None:
                self._discovery = DiscoveryClient(self.rest)
            return self._discovery

    def refresh(self) -> None:
        """Forget what discovery added (and the discovery cache): a CRD may have come or gone."""
        with self._lock:
            self._extra_groups = None
            self._extra_resources = {}
            for key in [k for k, client in self._groups.items()
                        if not _is_builtin(type(client))]:
                del self._groups[key]
            discovery = self._discovery
        if discovery is not None:
            discovery.invalidate()

    def _group(self, cls: type[GroupVersionClient]) -> GroupVersionClient:
        key = (cls.group, cls.version)
        with self._lock:
            client = self._groups.get(key)
            if client is None or type(client) is not cls:
                client = self._groups[key] = cls(self.rest, self)
            return client

    # -- what discovery adds ------------------------------------------------------------

    def _load_discovered(self) -> None:
        """Read discovery once: group versions and resources the built-in table lacks."""
        with self._lock:
            if self._extra_groups is not None or self._discovery is None:
                return
            discovery = self._discovery
        try:
            served = discovery.server_resources()
        except (KubenbError, OSError):
            # Offline or forbidden: the built-in accessors still work, and tab completion
            # does not retry on every keystroke; `refresh()` asks again.
            served = []
        by_group: dict[GroupKey, list[ResourceInfo]] = {}
        for info in served:
            by_group.setdefault((info.group, info.version), []).append(info)
        taken = {group_accessor(g, v) for g, v in _BUILTIN_CLASSES}
        extra_groups: dict[str, type[GroupVersionClient]] = {}
        extra_resources: dict[GroupKey, dict[str, Callable[..., TypedClient]]] = {}
        for (group, version), infos in by_group.items():
            builtin = _BUILTIN_CLASSES.get((group, version))
            if builtin is None:
                name = group_accessor(group, version)
                if name in taken or name in extra_groups:
                    name = full_group_accessor(group, version)
                extra_groups[name] = group_client_class(group, version, infos)
                continue
            known = {info.resource for info in builtin.resources}
            owner = builtin.__name__
            extra = {resource_accessor(i): _resource_accessor(i, owner)
                     for i in infos if i.resource not in known}
            if extra:
                extra_resources[(group, version)] = extra
        with self._lock:
            self._extra_groups = extra_groups
            self._extra_resources = extra_resources

    def _discovered_groups(self) -> dict[str, type[GroupVersionClient]]:
        self._load_discovered()
        return self._extra_groups or {}

    def _discovered_resources(self, key: GroupKey) -> dict[str, Callable[..., TypedClient]]:
        self._load_discovered()
        return self._extra_resources.get(key, {})

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_"):
            cls = self._discovered_groups().get(name)
            if cls is not None:
                return types.MethodType(_group_accessor(cls), self)
        raise AttributeError(
            f"Clientset has no group accessor {name!r} (built-in ones are like core_v1, "
            "apps_v1; groups the server serves beyond them are listed by dir(clientset))")

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._discovered_groups()})


def _group_accessor(cls: type[GroupVersionClient]) -> Callable[[Clientset], Any]:
    def accessor(self: Clientset) -> Any:
        return self._group(cls)

    name = group_accessor(cls.group, cls.version)
    gv = f"{cls.group}/{cls.version}" if cls.group else cls.version
    accessor.__name__ = name
    accessor.__qualname__ = f"Clientset.{name}"
    accessor.__doc__ = (f"The typed clients of {gv} "
                        f"({', '.join(go_plural(i) for i in cls.resources)}).\n\n"
                        f"Go: clientset.{go_group_accessor(cls.group, cls.version)}() "
                        f"({cls.__name__})")
    return accessor


_BUILTIN_CLASSES: dict[GroupKey, type[GroupVersionClient]] = {
    key: group_client_class(*key, infos) for key, infos in builtin_group_versions().items()}
for _cls in _BUILTIN_CLASSES.values():
    setattr(Clientset, group_accessor(_cls.group, _cls.version), _group_accessor(_cls))
del _cls


def _is_builtin(cls: type[GroupVersionClient]) -> bool:
    return _BUILTIN_CLASSES.get((cls.group, cls.version)) is cls


def new_for_config(config: Any) -> Clientset:
    """A Clientset over a new RESTClient for `config` (Go: `kubernetes.NewForConfig`)."""
    return Clientset(config)
