"""`kubenb.connect()` and `Cluster`: one object holding everything a notebook needs.

A `Cluster` bundles the config, the REST client, discovery and the RESTMapper, the
dynamic client and a shared informer factory, so a notebook cell can say
`cluster.resource("po").list()` or `cluster.informer("deploy")` with any name kubectl
accepts. `close()` (or leaving the `with` block) stops every informer and thread it
started, and the embedded server and controllers `kubenb.embedded()` gave it.

The views a Cluster makes (`frame()`, `table()`, `pipeline()`, `record()`) import
pandas and ipywidgets, about 0.6 s each: they are imported in those methods, so that
`import kubenb` stays fast for scripts, the server and the controllers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from kubenb.cache.affinity import CpuAffinity
from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.lister import Lister
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.reflector import default_watch_error_handler
from kubenb.cache.shared_informer import InformerStateError, SharedIndexInformer
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.client.config import Config, load_config
from kubenb.client.discovery import DiscoveryClient, ResourceInfo, RESTMapper
from kubenb.client.dynamic import DynamicClient, ResourceClient
from kubenb.client.rest import RESTClient
from kubenb.client.typed import Clientset
from kubenb.errors import (
    ApiError,
    BadRequest,
    CacheSyncTimeout,
    Forbidden,
    NoResourceMatchError,
)
from kubenb.fields import parse_field_selector
from kubenb.labels import parse_label_selector, selector_string
from kubenb.redact import redact_url

if TYPE_CHECKING:  # types only: the server and controllers sit beside and above this module
    from kubenb.controllermanager import ControllerManager
    from kubenb.controllermanager.kubelet import Kubelet
    from kubenb.recording import Recorder
    from kubenb.server import EmbeddedServer

__all__ = ["CacheSyncTimeout", "Cluster", "connect"]


def _check_selectors(label_selector: Any, field_selector: Any) -> None:
    """Parse both selectors here, as the server would, so a typo raises `SelectorError`
    at once, pointing at the mistake, instead of a sync timeout after permanent 400s."""
    labels, fields = selector_string(label_selector), selector_string(field_selector)
    if labels:
        parse_label_selector(labels)
    if fields:
        parse_field_selector(fields)


def _permanent(err: BaseException) -> ApiError | None:
    """The 400 or 403 behind a failed first list (the Reflector wraps it in a
    ListError): a request the server refuses as malformed, or that the user may not
    make, is refused the same way on every retry a notebook would wait for."""
    seen: BaseException | None = err
    for _ in range(8):  # a ListError wraps one level; a bound keeps a cycle harmless
        if seen is None or isinstance(seen, BadRequest | Forbidden):
            return seen
        seen = getattr(seen, "err", None) or seen.__cause__
    return None


def _one_namespace_hint(info: Any, namespace: str | None) -> str:
    """How to ask for less when a watch of every namespace is refused."""
    if not info.namespaced or namespace is not None:
        return ""
    return (f"the informer watches {info.resource} in all namespaces; to watch one, pass "
            f"namespace=..., e.g. cluster.frame({info.resource!r}, namespace='default')")


class _FirstListWatcher:
    """The watch error handler `Cluster.informer` installs: it remembers the first
    permanent error (a 400) while the informer has not synced and wakes the waiter;
    every error is still passed on (to the previous handler, or logged as before)."""

    def __init__(self, informer: SharedIndexInformer, previous: Any) -> None:
        self.informer = informer
        self.previous = previous
        self.failed = threading.Event()
        self.error: ApiError | None = None

    def __call__(self, reflector: Any, err: BaseException) -> None:
        if self.error is None and not self.informer.has_synced():
            permanent = _permanent(err)
            if permanent is not None:
                self.error = permanent
                self.failed.set()
        (self.previous or default_watch_error_handler)(reflector, err)

    def raise_if_failed(self, hint: str = "") -> None:
        err = self.error
        if err is None:
            return
        message = f"{err.message}; {hint}" if hint and isinstance(err, Forbidden) else err.message
        fresh = type(err)(err.status, err.reason, message, err.body)
        fresh.request_info = err.request_info
        raise fresh from err


class Cluster:
    """A connection to one API server, for notebooks (see the module docstring)."""

    def __init__(self, config: Config, server: EmbeddedServer | None = None,
                 **rest_options: Any) -> None:
        self.config = config
        self.server = server
        self.rest = RESTClient(config, **rest_options)
        self.discovery = DiscoveryClient(self.rest)
        self.mapper = RESTMapper(self.discovery)
        self.dynamic = DynamicClient(self.rest)
        self.factory = SharedInformerFactory(self.dynamic)
        self._closed = False
        self._views: list[Any] = []
        self._first_lists: dict[int, _FirstListWatcher] = {}  # id(informer) -> its watcher
        self.replay: Any = None  # the Replay of kubenb.embedded(replay=...) / snapshot=
        self.controllers: ControllerManager | None = None  # kubenb.embedded()'s ControllerManager

    @property
    def kubelet(self) -> Kubelet | None:
        """The simulated kubelet of `kubenb.embedded()`'s controllers (None when it does
        not run): declare what images do with `cluster.kubelet.image(...)`."""
        return self.controllers.kubelet if self.controllers is not None else None

    def __repr__(self) -> str:
        where = "embedded" if self.server is not None else "kubeconfig"
        return (f"Cluster({redact_url(self.config.server)!r}, {where}, "
                f"namespace={self.config.namespace!r})")

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @cached_property
    def clientset(self) -> Clientset:
        """client-go's typed Clientset over this connection: `clientset.core_v1().pods(ns)`."""
        return Clientset(self.rest, discovery=self.discovery)

    def resource_info(self, name: str) -> ResourceInfo:
        """What `name` ("po", "deploy", "foos.example.com", ...) means on this server."""
        return self.mapper.resource_for(name)

    def resource(self, name: str, namespace: str | None = None,
                 all_namespaces: bool = False) -> ResourceClient:
        """A client for any resource the RESTMapper resolves; namespaced resources default
        to the config's namespace unless `namespace` or `all_namespaces` says otherwise."""
        info = self.mapper.resource_for(name)
        client = self.dynamic.resource(info.api_version, info.resource)
        if not info.namespaced or all_namespaces:
            return client
        return client.namespace(namespace or self.config.namespace)

    def informer(self, resource: str, namespace: str | None = None,
                 label_selector: Any = None, field_selector: Any = None, resync: float = 0.0,
                 transform: Any = None, queue: str = "DeltaFIFO",
                 timeout: float | None = 60.0,
                 cpu_affinity: CpuAffinity = None) -> SharedIndexInformer:
        """A started, synced shared informer (`namespace=None`: all namespaces).
        `cpu_affinity=True` keeps its threads on one CPU (docs/informers.md).

        A selector that does not parse raises `SelectorError` before anything starts; a
        first list the server refuses with 400 (a field it cannot select on) or 403 (the
        user may not list there; the error says how to ask for one namespace) raises that
        `BadRequest` or `Forbidden` at once. Otherwise raises `CacheSyncTimeout` (with the
        Reflector's last error) when the first list does not complete within `timeout`
        seconds.
        """
        _check_selectors(label_selector, field_selector)
        info = self.mapper.resource_for(resource)
        generic = self.factory.for_resource(
            info.api_version, info.resource, namespace if info.namespaced else None,
            label_selector, field_selector, resync=resync, transform=transform, queue=queue,
            cpu_affinity=cpu_affinity)
        informer = generic.informer()
        watcher = self._watch_first_list(informer)
        self.factory.start()
        if not informer.has_synced():
            stop = watcher.failed if watcher is not None else None
            synced = wait_for_cache_sync(stop, informer.has_synced, timeout=timeout)
            if watcher is not None and watcher.error is not None and not synced:
                # The server refuses this view for good: stop the informer and forget it,
                # so it does not retry until the cluster closes (asking again starts anew).
                self._first_lists.pop(id(informer), None)
                self.factory.remove(informer)
                watcher.raise_if_failed(_one_namespace_hint(info, namespace))
            if not synced:
                error = informer.stats()["reflector"].get("last_error") or "no error reported"
                raise CacheSyncTimeout(
                    f"informer for {info.group_resource} did not sync within {timeout}s "
                    f"(last error: {error})")
        return informer

    def _watch_first_list(self, informer: SharedIndexInformer) -> _FirstListWatcher | None:
        """The first-list watcher of `informer`, installed if it has not started yet."""
        watcher = self._first_lists.get(id(informer))
        if watcher is not None and watcher.informer is informer:
            return watcher
        if informer.is_started():
            return None  # started elsewhere (cluster.factory.start()): wait as before
        # Chain to a handler set through the informer's own setter before this call.
        watcher = _FirstListWatcher(informer, informer.watch_error_handler)
        try:
            informer.set_watch_error_handler(watcher)
        except InformerStateError:
            return None  # it started just now, from another thread
        self._first_lists[id(informer)] = watcher
        return watcher

    def lister(self, resource: str, namespace: str | None = None, **informer_options: Any
               ) -> Lister:
        """A Lister over the (started, synced) shared informer of `resource`."""
        info = self.mapper.resource_for(resource)
        informer = self.informer(resource, namespace, **informer_options)
        return Lister(informer.get_indexer(), resource=info.resource, group=info.group)

    def frame(self, resource: str, columns: Any = None, *, namespace: str | None = None,
              label_selector: Any = None, field_selector: Any = None, wide: bool = False,
              extra_columns: Any = None, history: Any = None, rate: float = 10.0,
              progress: bool = True, timeout: float | None = 60.0) -> Any:
        """A LiveFrame over the shared informer of `resource` (`namespace=None`: all
        namespaces, with a NAMESPACE column), kubectl's columns for its kind (a CRD's
        additionalPrinterColumns for custom resources) unless `columns` says otherwise;
        a progress bar shows the first list. `close()` of the Cluster closes it."""
        from kubenb.reactive import ListProgress, LiveFrame

        _check_selectors(label_selector, field_selector)
        info = self.mapper.resource_for(resource)
        namespace = namespace if info.namespaced else None
        informer = self.factory.for_resource(info.api_version, info.resource, namespace,
                                             label_selector, field_selector).informer()
        bar = None
        if progress and not informer.is_started():
            bar = ListProgress(info.resource).attach(informer).display()
        try:
            informer = self.informer(resource, namespace, label_selector, field_selector,
                                     timeout=timeout)
        except BaseException as exc:
            if bar is not None:
                bar.finish(error=f"{type(exc).__name__}: {exc}")
            raise
        if bar is not None:
            bar.finish()
        printer_columns = self._printer_columns(info) if columns is None else None
        view = LiveFrame(informer, columns, kind=info.kind, group=info.group,
                         printer_columns=printer_columns,
                         with_namespace=info.namespaced and namespace is None, wide=wide,
                         extra_columns=extra_columns, history=history, rate=rate,
                         name=f"frame-{info.group_resource}")
        self._views.append(view)
        view.flush()  # the synced cache, whole, before the caller reads it
        return view

    def _printer_columns(self, info: ResourceInfo) -> list[dict[str, Any]] | None:
        """A custom resource's additionalPrinterColumns ([] if it declares none); None for
        built-in types, whose kubectl columns come from kubenb.printers."""
        from kubenb.reactive import crd_printer_columns

        if not info.group:
            return None
        try:
            crd = self.resource("customresourcedefinitions").get(
                f"{info.resource}.{info.group}")
        except (ApiError, NoResourceMatchError):  # not a CRD (404), or not allowed to read it
            return None
        return crd_printer_columns(crd, info.version)

    def table(self, resource: str, columns: Any = None, *, namespace: str | None = None,
              max_rows: int = 200, **frame_options: Any) -> Any:
        """A live, sortable, filterable `ResourceTable` over `cluster.frame(resource, ...)`;
        `close()` of the Cluster closes both."""
        from kubenb.widgets import ResourceTable

        frame = self.frame(resource, columns, namespace=namespace, **frame_options)
        table = ResourceTable(frame, max_rows=max_rows)
        self._views.insert(0, table)  # closed before its frame
        return table

    def pipeline(self, informer: Any, workqueue: Any = None, **options: Any) -> Any:
        """The live client-go diagram (`PipelineView`) of `informer`, and of the workqueue
        or controller its handlers feed; `close()` of the Cluster closes it."""
        from kubenb.widgets import PipelineView

        view = PipelineView(informer, workqueue, **options)
        self._views.insert(0, view)
        return view

    def record(self, resources: str | Sequence[str], path: str | os.PathLike[str], *,
               namespace: str | None = None, label_selector: Any = None,
               field_selector: Any = None, **recorder_options: Any) -> Recorder:
        """Record what the informers of `resources` receive into `path` (a gzip JSON-lines
        file, docs/recording.md) until `stop()`, `duration`, `max_events` or `max_bytes`;
        returns the started `Recorder`. It rides on this Cluster's shared informers (a
        `frame()` or `informer()` made later shares them); an informer already running
        gets a twin for the recording alone, whose first list the file then starts with.
        The CustomResourceDefinitions of recorded custom resources go in the file too."""
        from kubenb.recording import Recorder, ResourceSpec
        from kubenb.recording.definitions import fetch_definitions

        names = [resources] if isinstance(resources, str) else list(resources)
        infos = [self.mapper.resource_for(name) for name in names]
        specs = [ResourceSpec(i.api_version, i.resource, i.kind, i.namespaced,
                              (namespace or "") if i.namespaced else "",
                              _selector_text(label_selector), _selector_text(field_selector))
                 for i in infos]
        try:
            version = self.discovery.server_version()
        except ApiError:
            version = {}
        recorder_options.setdefault("definitions", fetch_definitions(self.dynamic, specs))
        recorder = Recorder(path, specs, server_version=version, **recorder_options).start()
        try:
            for index, spec in enumerate(specs):
                informer = self.factory.for_resource(
                    spec.api_version, spec.resource, spec.namespace or None,
                    spec.label_selector, spec.field_selector).informer()
                if not informer.is_started():
                    informer.list_watcher = recorder.list_watcher(index, informer.list_watcher)
                    continue
                own = SharedIndexInformer(recorder.list_watcher(index, ListWatch.from_client(
                    self.dynamic.resource(spec.api_version, spec.resource),
                    namespace=spec.namespace, label_selector=spec.label_selector,
                    field_selector=spec.field_selector)), name=f"record-{spec.key}")
                recorder.add_owned(own.start())
            self.factory.start()
        except BaseException:
            recorder.stop()
            raise
        self._views.insert(0, recorder)
        return recorder

    def close(self) -> None:
        """Stop every informer and thread this Cluster started, then its embedded server."""
        if self._closed:
            return
        self._closed = True
        for view in self._views:
            view.close()
        self.factory.shutdown()
        self.rest.close()
        if self.controllers is not None:
            self.controllers.stop()
        if self.server is not None:
            self.server.stop()


def connect(kubeconfig: Any = None, context: str | None = None, **rest_options: Any) -> Cluster:
    """Connect like kubectl: `KUBECONFIG`, `~/.kube/config` or the in-cluster config."""
    return Cluster(load_config(kubeconfig, context), **rest_options)


def _selector_text(selector: Any) -> str:
    return selector_string(selector)
