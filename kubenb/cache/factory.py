"""SharedInformerFactory: one shared informer per resource, namespace and selectors.

client-go's dynamic informer factory. Asking twice for the same
(api_version, resource, namespace, label selector, field selector) returns the same
informer, so every handler and lister in a notebook or controller shares one watch
and one cache. `start` runs the informers not yet running, `wait_for_cache_sync`
waits for their first lists, and `shutdown` stops them all and joins every thread.
`transform=` gives every informer it makes that transform (client-go's `WithTransform`
factory option), e.g. `transform_strip_managed_fields()` to slim the caches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from kubenb.cache.affinity import CpuAffinity
from kubenb.cache.keys import NAMESPACE_INDEX, meta_namespace_index_func
from kubenb.cache.lister import Lister
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.on_stop import StopEvent
from kubenb.cache.shared_informer import InformerStateError, SharedIndexInformer
from kubenb.cache.typed_factory import TypedInformerGroups
from kubenb.cache.wait import wait_for_cache_sync
from kubenb.clock import Clock
from kubenb.labels import selector_string

__all__ = [
    "GenericInformer",
    "InformerKey",
    "SharedInformerFactory",
]


class InformerKey(NamedTuple):
    api_version: str
    resource: str
    namespace: str  # "" = all namespaces
    label_selector: str
    field_selector: str


@dataclass
class GenericInformer:
    """client-go's GenericInformer: the shared informer of a resource and its lister."""

    shared: SharedIndexInformer
    resource: str
    group: str

    def informer(self) -> SharedIndexInformer:
        return self.shared

    def lister(self) -> Lister:
        return Lister(self.shared.get_indexer(), resource=self.resource, group=self.group)


class SharedInformerFactory(TypedInformerGroups):
    """Makes and shares informers over a `DynamicClient`; `core()`, `apps()`, ... (from
    `TypedInformerGroups`) give client-go's typed accessors over the same informers.

    `transform` is every informer's transform (client-go's `WithTransform`) unless
    `for_resource` names another for the informer it makes."""

    def __init__(self, dynamic: Any, default_resync: float = 0.0, *, clock: Clock | None = None,
                 queue: str = "DeltaFIFO", transform: Callable[[Any], Any] | None = None,
                 **reflector_options: Any) -> None:
        self.dynamic = dynamic
        self.default_resync = default_resync
        self.clock = clock
        self.queue = queue
        self.transform = transform
        self.reflector_options = reflector_options
        self._lock = threading.Lock()
        self._informers: dict[InformerKey, SharedIndexInformer] = {}
        self._stops: dict[InformerKey, threading.Event] = {}
        self._threads: dict[InformerKey, threading.Thread] = {}
        self._shutting_down = False

    def __repr__(self) -> str:
        return f"SharedInformerFactory(informers={len(self._informers)})"

    def for_resource(self, api_version: str, resource: str, namespace: str | None = None,
                     label_selector: Any = None, field_selector: Any = None,
                     resync: float | None = None, transform: Any = None,
                     queue: str | None = None,
                     cpu_affinity: CpuAffinity = None) -> GenericInformer:
        """The shared informer for this resource view (made on first request).

        `resync`, `transform`, `queue` and `cpu_affinity` apply only when the informer
        is made; without them it gets the factory's (`transform=None` here means the
        factory's transform; `cpu_affinity=False` turns off a factory's).
        """
        key = InformerKey(api_version, resource, namespace or "", selector_string(label_selector),
                          selector_string(field_selector))
        group = api_version.split("/", 1)[0] if "/" in api_version else ""
        with self._lock:
            if self._shutting_down:
                raise InformerStateError(
                    f"no informer for {resource} ({api_version}): the informer factory has "
                    "been shut down")
            informer = self._informers.get(key)
            if informer is None:
                options = dict(self.reflector_options)
                if cpu_affinity is not None:
                    options["cpu_affinity"] = cpu_affinity
                client = self.dynamic.resource(api_version, resource)
                list_watch = ListWatch.from_client(client, namespace=key.namespace,
                                                   label_selector=key.label_selector,
                                                   field_selector=key.field_selector)
                informer = SharedIndexInformer(
                    list_watch, None,
                    self.default_resync if resync is None else resync,
                    {NAMESPACE_INDEX: meta_namespace_index_func},
                    queue=queue or self.queue,
                    transform=self.transform if transform is None else transform,
                    clock=self.clock,
                    **options)
                self._informers[key] = informer
        return GenericInformer(informer, resource, group)

    def informers(self) -> dict[InformerKey, SharedIndexInformer]:
        with self._lock:
            return dict(self._informers)

    def start(self) -> None:
        """Run every informer not yet started, each on its own thread."""
        with self._lock:
            if self._shutting_down:
                return
            for key, informer in self._informers.items():
                if key in self._threads:
                    continue
                stop = StopEvent()
                thread = threading.Thread(target=informer.run, args=(stop,), daemon=True,
                                          name=f"kubenb-informer-{informer.name}")
                self._stops[key] = stop
                self._threads[key] = thread
                thread.start()

    def wait_for_cache_sync(self, stop: threading.Event | None = None,
                            timeout: float | None = None) -> dict[InformerKey, bool]:
        """Wait for every started informer's first list; key -> synced."""
        with self._lock:
            started = {k: self._informers[k] for k in self._threads}
        return {key: wait_for_cache_sync(stop, informer.has_synced, timeout=timeout)
                for key, informer in started.items()}

    def remove(self, informer: SharedIndexInformer, timeout: float = 10.0) -> bool:
        """Stop `informer` and forget it, so the next `for_resource` of its view makes a
        fresh one; returns whether this factory had it.

        kubenb only (client-go's factory never forgets an informer): a notebook that asked
        for a view the server refuses (a 400 on its first list) must not leave it behind,
        retrying, until the whole factory shuts down."""
        with self._lock:
            key = next((k for k, i in self._informers.items() if i is informer), None)
            if key is None:
                return False
            del self._informers[key]
            stop = self._stops.pop(key, None)
            thread = self._threads.pop(key, None)
        if stop is not None:
            stop.set()
        if thread is not None:
            thread.join(timeout)
        return True

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop every informer and join its threads; the factory cannot start again."""
        with self._lock:
            self._shutting_down = True
            stops = list(self._stops.values())
            threads = list(self._threads.values())
        for stop in stops:
            stop.set()
        for thread in threads:
            thread.join(timeout)
