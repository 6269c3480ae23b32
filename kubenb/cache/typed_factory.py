"""Typed informer accessors and listers: client-go's `informers` and `listers` packages.

`factory.core().v1().pods().informer()` / `.lister()` is Go's
`factory.Core().V1().Pods().Informer()` / `.Lister()`; the lister's
`pods(namespace).get(name)` is `Pods(namespace).Get(name)` and raises the same
`NotFound` the server would. The accessors are generated from the built-in resource
table (every resource that serves list and watch), each with a docstring naming its
Go twin, and `SharedInformerFactory` inherits them from `TypedInformerGroups`, so
`dir(factory)` shows `core`, `apps`, ... without a request. Everything shares the
factory's informers: asking for the same resource view twice gives the same informer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from kubenb.cache.lister import Lister, NamespaceLister, SelectorLike, list_all
from kubenb.cache.store import Indexer
from kubenb.client.discovery import ResourceInfo
from kubenb.client.typed.builtin import builtin_group_versions
from kubenb.client.typed.names import (
    go_plural,
    go_type,
    group_package,
    resource_accessor,
)

__all__ = [
    "GroupInformers",
    "NamespaceTypedLister",
    "TypedInformer",
    "TypedInformerGroups",
    "TypedLister",
    "VersionInformers",
    "informer_class",
    "lister_class",
]


def _documented(func: Callable[..., Any], name: str, owner: str, doc: str) -> Callable[..., Any]:
    func.__name__ = name
    func.__qualname__ = f"{owner}.{name}"
    func.__doc__ = doc
    return func


def _go_package(info: ResourceInfo, kind: str) -> str:
    """`corev1listers`, `appsv1informers`: how Go code imports these packages."""
    return f"{group_package(info.group)}{info.version}{kind}"


# -- listers ---------------------------------------------------------------------------------


class NamespaceTypedLister:
    """Base of the generated namespace listers (`PodNamespaceLister`, ...)."""

    info: ClassVar[ResourceInfo]
    __slots__ = ("_lister",)

    def __init__(self, indexer: Indexer, namespace: str) -> None:
        self._lister = NamespaceLister(indexer, namespace, self.info.resource, self.info.group)

    @property
    def namespace(self) -> str:
        return self._lister.namespace

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.info.group_resource} in {self.namespace!r}>"


class TypedLister:
    """Base of the generated listers (`PodLister`, `NodeLister`, ...)."""

    info: ClassVar[ResourceInfo]
    __slots__ = ("indexer",)

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.info.group_resource}>"


def _list_doc(info: ResourceInfo, where: str, go: str) -> str:
    return (f"The cached {info.kind} objects {where}whose labels match `selector` (a "
            "selector string, a label dict or a parsed selector; None: all).\n\n"
            f"Go: {go}.List(selector labels.Selector) ([]{go_type(info)}, error)")


def _get_doc(info: ResourceInfo, go: str) -> str:
    return (f"The cached {info.kind} `name`; raises `NotFound` (404, as the server would) "
            f"when absent.\n\nGo: {go}.Get(name string) ({go_type(info)}, error)")


_LOCK = threading.RLock()  # informer_class makes its lister class under it
_LISTERS: dict[tuple[Any, ...], type[TypedLister]] = {}
_INFORMERS: dict[tuple[Any, ...], type[TypedInformer]] = {}


def _key(info: ResourceInfo) -> tuple[Any, ...]:
    return (info.group, info.version, info.resource, info.kind, info.namespaced)


def lister_class(info: ResourceInfo) -> type[TypedLister]:
    """The generated lister class of one resource (made once, then shared)."""
    with _LOCK:
        cls = _LISTERS.get(_key(info))
        if cls is None:
            cls = _LISTERS[_key(info)] = _make_lister(info)
        return cls


def _make_lister(info: ResourceInfo) -> type[TypedLister]:
    name = f"{info.kind}Lister"
    go = f"{_go_package(info, 'listers')}.{name}"
    members: dict[str, Any] = {"__slots__": (), "__module__": __name__, "info": info}

    def list_(self: TypedLister, selector: SelectorLike = None) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        list_all(self.indexer, selector, out.append)
        return out

    members["list"] = _documented(list_, "list", name, _list_doc(info, "", go))
    if info.namespaced:
        ns_cls = _make_namespace_lister(info)
        accessor = resource_accessor(info)

        def by_namespace(self: TypedLister, namespace: str) -> NamespaceTypedLister:
            return ns_cls(self.indexer, namespace)

        members[accessor] = _documented(
            by_namespace, accessor, name,
            f"The cached {info.group_resource} of one namespace.\n\n"
            f"Go: {go}.{go_plural(info)}(namespace string) {ns_cls.__name__}")
        methods = f"list, {accessor}"
    else:
        def get(self: TypedLister, name: str) -> dict[str, Any]:
            return Lister(self.indexer, info.resource, info.group).get(name)

        members["get"] = _documented(get, "get", name, _get_doc(info, go))
        methods = "list, get"
    members["__doc__"] = (f"Reads {info.group_resource} from an informer's cache, never from "
                          f"the server: client-go's `{go}`.\n\nMethods: {methods}")
    return type(name, (TypedLister,), members)


def _make_namespace_lister(info: ResourceInfo) -> type[NamespaceTypedLister]:
    name = f"{info.kind}NamespaceLister"
    go = f"{_go_package(info, 'listers')}.{name}"

    def list_(self: NamespaceTypedLister, selector: SelectorLike = None
              ) -> list[dict[str, Any]]:
        return self._lister.list(selector)

    def get(self: NamespaceTypedLister, name: str) -> dict[str, Any]:
        return self._lister.get(name)

    owner = name
    return type(name, (NamespaceTypedLister,), {
        "__slots__": (), "__module__": __name__, "info": info,
        "__doc__": (f"Reads the {info.group_resource} of one namespace from the cache: "
                    f"client-go's `{go}`.\n\nMethods: list, get"),
        "list": _documented(list_, "list", owner, _list_doc(info, "of this namespace ", go)),
        "get": _documented(get, "get", owner, _get_doc(info, go)),
    })


# -- informers -------------------------------------------------------------------------------


class TypedInformer:
    """Base of the generated informer accessors (`PodInformer`, ...): the shared informer
    of one resource (in one namespace, or all) and a typed lister over its cache."""

    info: ClassVar[ResourceInfo]
    # made per resource by _make_informer: the shared informer, and a lister over it
    informer: Callable[[], Any]
    lister: Callable[[], TypedLister]
    __slots__ = ("factory", "namespace")

    def __init__(self, factory: Any, namespace: str | None = None) -> None:
        self.factory = factory
        self.namespace = namespace if self.info.namespaced else None

    def __repr__(self) -> str:
        where = f" in {self.namespace!r}" if self.namespace else ""
        return f"<{type(self).__name__} {self.info.group_resource}{where}>"


def informer_class(info: ResourceInfo) -> type[TypedInformer]:
    """The generated informer accessor class of one resource (made once, then shared)."""
    with _LOCK:
        cls = _INFORMERS.get(_key(info))
        if cls is None:
            cls = _INFORMERS[_key(info)] = _make_informer(info)
        return cls


def _make_informer(info: ResourceInfo) -> type[TypedInformer]:
    name = f"{info.kind}Informer"
    go = f"{_go_package(info, 'informers')}.{name}"
    lister_cls = lister_class(info)

    def informer(self: TypedInformer) -> Any:
        return self.factory.for_resource(info.api_version, info.resource,
                                         self.namespace).informer()

    def lister(self: TypedInformer) -> TypedLister:
        return lister_cls(informer(self).get_indexer())

    return type(name, (TypedInformer,), {
        "__slots__": (), "__module__": __name__, "info": info,
        "__doc__": (f"The shared informer of {info.group_resource} and its lister: "
                    f"client-go's `{go}`.\n\nMethods: informer, lister"),
        "informer": _documented(
            informer, "informer", name,
            "The factory's shared informer of this resource (made and registered on first "
            "use; `factory.start()` runs it).\n\n"
            f"Go: {go}.Informer() cache.SharedIndexInformer"),
        "lister": _documented(
            lister, "lister", name,
            f"A {lister_cls.__name__} over the shared informer's cache (registers the "
            f"informer like `informer()`).\n\nGo: {go}.Lister() "
            f"{_go_package(info, 'listers')}.{lister_cls.__name__}"),
    })


# -- group and version accessors ---------------------------------------------------------------


class VersionInformers:
    """Base of the generated version accessors (`CoreV1Informers`: Go's
    `informers/core/v1.Interface`)."""

    group: ClassVar[str]
    version: ClassVar[str]
    __slots__ = ("factory",)

    def __init__(self, factory: Any) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        gv = f"{self.group}/{self.version}" if self.group else self.version
        return f"<{type(self).__name__} {gv}>"


class GroupInformers:
    """Base of the generated group accessors (`CoreInformers`: Go's
    `informers/core.Interface`)."""

    group: ClassVar[str]
    __slots__ = ("factory",)

    def __init__(self, factory: Any) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.group or 'core'}>"


def _resource_informer(info: ResourceInfo, owner: str, go_owner: str) -> Callable[..., Any]:
    cls = informer_class(info)
    name = resource_accessor(info)
    go = f"{go_owner}.{go_plural(info)}() {_go_package(info, 'informers')}.{cls.__name__}"
    if info.namespaced:
        def accessor(self: VersionInformers, namespace: str | None = None) -> TypedInformer:
            return cls(self.factory, namespace)

        doc = (f"The {info.group_resource} informer (`namespace=None`: all namespaces; Go "
               "sets one namespace per factory with WithNamespace).\n\nGo: " + go)
    else:
        def accessor(self: VersionInformers) -> TypedInformer:  # type: ignore[misc]
            return cls(self.factory)

        doc = f"The {info.group_resource} informer.\n\nGo: {go}"
    return _documented(accessor, name, owner, doc)


def _version_class(group: str, version: str, infos: list[ResourceInfo]
                   ) -> type[VersionInformers]:
    package = group_package(group)
    name = f"{package.capitalize()}{version.capitalize()}Informers"
    go_owner = f"factory.{package.capitalize()}().{version.capitalize()}()"
    members: dict[str, Any] = {
        "__slots__": (), "__module__": __name__, "group": group, "version": version,
        "__doc__": (f"Informers of {group + '/' if group else ''}{version}: client-go's "
                    f"`informers/{package}/{version}.Interface`.\n\nGo: {go_owner}")}
    for info in infos:
        members[resource_accessor(info)] = _resource_informer(info, name, go_owner)
    return type(name, (VersionInformers,), members)


def _group_class(group: str, versions: dict[str, type[VersionInformers]]
                 ) -> type[GroupInformers]:
    package = group_package(group)
    name = f"{package.capitalize()}Informers"
    members: dict[str, Any] = {
        "__slots__": (), "__module__": __name__, "group": group,
        "__doc__": (f"Informers of the {group or 'core'} group: client-go's "
                    f"`informers/{package}.Interface`.\n\nGo: factory.{package.capitalize()}()")}
    for version, cls in versions.items():
        members[version] = _documented(
            _version_accessor(cls), version, name,
            f"Informers of {group + '/' if group else ''}{version}.\n\n"
            f"Go: factory.{package.capitalize()}().{version.capitalize()}()")
    return type(name, (GroupInformers,), members)


def _version_accessor(cls: type[VersionInformers]) -> Callable[[GroupInformers], Any]:
    def accessor(self: GroupInformers) -> VersionInformers:
        return cls(self.factory)

    return accessor


def _group_accessor(cls: type[GroupInformers]) -> Callable[[Any], Any]:
    def accessor(self: Any) -> GroupInformers:
        return cls(self)

    return accessor


class TypedInformerGroups:
    """Mixin giving `SharedInformerFactory` client-go's group accessors: `core()`,
    `apps()`, `coordination()`, `apiextensions()`, ... (generated below)."""

    __slots__ = ()

    if TYPE_CHECKING:  # the accessors are generated from the built-in API table at import
        def __getattr__(self, name: str) -> Callable[[], Any]: ...


def _install_groups() -> dict[str, type[GroupInformers]]:
    by_group: dict[str, dict[str, list[ResourceInfo]]] = {}
    for (group, version), infos in builtin_group_versions().items():
        watchable = [i for i in infos if "list" in i.verbs and "watch" in i.verbs]
        if watchable:
            by_group.setdefault(group, {})[version] = watchable
    installed: dict[str, type[GroupInformers]] = {}
    for group, versions in by_group.items():
        cls = _group_class(group, {v: _version_class(group, v, infos)
                                   for v, infos in versions.items()})
        package = group_package(group)
        setattr(TypedInformerGroups, package, _documented(
            _group_accessor(cls), package, "SharedInformerFactory",
            f"Informers of the {group or 'core'} group ({', '.join(versions)}).\n\n"
            f"Go: factory.{package.capitalize()}()"))
        installed[package] = cls
    return installed


GROUP_INFORMERS: dict[str, type[GroupInformers]] = _install_groups()
"""Group accessor name -> its generated class (what `factory.<name>()` returns)."""
