"""ObservableObject: one object of an informer's cache, followed by key, as traitlets.

    pod = ObservableObject(informer, "default/web-0")
    pod.observe(lambda change: print(change.new), names=["phase"])

`.object` is the object dict (the cache's own: treat it as read-only),
`.resource_version`, `.exists` and `.deleted` follow it, and each kind gets a few
convenience traits (`phase`, `ready`, `restarts`, `node` for pods; replica counts
for deployments; ...; see `KIND_TRAITS`). All traits change together, once per
applied batch, on the publisher thread: `observe(cb, names=["object"])` fires on
every real change and never for a resync that changed nothing (same
resourceVersion, or an equal object).

After a delete, `.object` keeps the final state, `.exists` is False and `.deleted`
True; a re-created object clears `.deleted` again.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from traitlets import Bool, Dict, Int, TraitType, Unicode

from kubenb import printers
from kubenb.cache.keys import deletion_handling_meta_namespace_key_func
from kubenb.clock import Clock
from kubenb.meta import nested_field
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.reactive.view import Deleted, ReactiveView, unchanged

if TYPE_CHECKING:
    from kubenb.cache import SharedInformer

__all__ = ["KIND_TRAITS", "ObservableObject"]

Extract = Callable[[dict[str, Any]], Any]


def _str(*path: str) -> Extract:
    return lambda obj: str(nested_field(obj, *path) or "")


def _int(*path: str) -> Extract:
    def get(obj: dict[str, Any]) -> int:
        value = nested_field(obj, *path)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value,
                                                                                bool) else 0
    return get


def _condition(kind: str) -> Extract:
    def get(obj: dict[str, Any]) -> bool:
        for cond in nested_field(obj, "status", "conditions") or []:
            if isinstance(cond, dict) and cond.get("type") == kind:
                return cond.get("status") == "True"
        return False
    return get


def _pod_cell(index: int) -> Extract:
    return lambda obj: printers.POD_PRINTER.cells(obj, time.time())[index]


_LEADING_INT = re.compile(r"\s*(\d+)")


def _pod_restarts(obj: dict[str, Any]) -> int:
    cell = printers.POD_PRINTER.cells(obj, time.time())[3]  # "3" or "3 (5m ago)"
    match = _LEADING_INT.match(str(cell))
    return int(match.group(1)) if match else 0


def _bool(*path: str) -> Extract:
    return lambda obj: bool(nested_field(obj, *path))


#: kind -> {trait name: (trait type, how to read it from the object)}.
KIND_TRAITS: dict[str, dict[str, tuple[type[TraitType], Extract]]] = {
    "Pod": {"phase": (Unicode, _str("status", "phase")),
            "ready": (Unicode, _pod_cell(1)),        # "1/2", as kubectl's READY
            "status": (Unicode, _pod_cell(2)),       # kubectl's STATUS, e.g. CrashLoopBackOff
            "restarts": (Int, _pod_restarts),
            "node": (Unicode, _str("spec", "nodeName")),
            "pod_ip": (Unicode, _str("status", "podIP"))},
    "Deployment": {"replicas": (Int, _int("spec", "replicas")),
                   "ready_replicas": (Int, _int("status", "readyReplicas")),
                   "updated_replicas": (Int, _int("status", "updatedReplicas")),
                   "available_replicas": (Int, _int("status", "availableReplicas")),
                   "available": (Bool, _condition("Available"))},
    "ReplicaSet": {"replicas": (Int, _int("spec", "replicas")),
                   "ready_replicas": (Int, _int("status", "readyReplicas"))},
    "StatefulSet": {"replicas": (Int, _int("spec", "replicas")),
                    "ready_replicas": (Int, _int("status", "readyReplicas"))},
    "DaemonSet": {"desired": (Int, _int("status", "desiredNumberScheduled")),
                  "ready_replicas": (Int, _int("status", "numberReady"))},
    "Job": {"active": (Int, _int("status", "active")),
            "succeeded": (Int, _int("status", "succeeded")),
            "failed": (Int, _int("status", "failed")),
            "complete": (Bool, _condition("Complete"))},
    "Node": {"ready": (Bool, _condition("Ready")),
             "unschedulable": (Bool, _bool("spec", "unschedulable"))},
    "Namespace": {"phase": (Unicode, _str("status", "phase"))},
    "PersistentVolumeClaim": {"phase": (Unicode, _str("status", "phase"))},
    "PersistentVolume": {"phase": (Unicode, _str("status", "phase"))},
    "Service": {"type": (Unicode, _str("spec", "type")),
                "cluster_ip": (Unicode, _str("spec", "clusterIP"))},
}


def _key_of(key: Any) -> str:
    if isinstance(key, str):
        return key
    return deletion_handling_meta_namespace_key_func(key)


class ObservableObject(ReactiveView):
    """One object of an informer's cache, by key, as traits (see the module docstring).

    `key` is "namespace/name" ("name" for cluster-scoped objects) or an object dict;
    `kind` picks the convenience traits (default: the informer's expected type, or the
    cached object's `kind`).
    """

    key = Unicode(help="the followed key, namespace/name")
    object = Dict(help="the object (its final state after a delete); {} before it exists")
    resource_version = Unicode(help="metadata.resourceVersion of .object")
    exists = Bool(False, help="the object is in the cache")
    deleted = Bool(False, help="the object was deleted (and not re-created since)")

    def __init__(self, informer: SharedInformer, key: Any, *, kind: str | None = None,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, output: Any = None, name: str = "") -> None:
        key = _key_of(key)
        super().__init__(informer, key=key, publisher=publisher, rate=rate, clock=clock,
                         output=output, name=name or f"object-{key}")
        self.key = key
        current = informer.get_indexer().get_by_key(key) if informer is not None else None
        self.kind = kind or self._guess_kind(informer, current)
        self._extract: dict[str, Extract] = {}
        spec = KIND_TRAITS.get(self.kind or "", {})
        if spec:
            self.add_traits(**{name: trait() for name, (trait, _) in spec.items()})
            self._extract = {name: get for name, (_, get) in spec.items()}
        if current is not None:
            self._set(current, deleted=False)
        self._attach()

    @staticmethod
    def _guess_kind(informer: SharedInformer, current: Any) -> str | None:
        expected = getattr(informer, "expected_type", None)
        if isinstance(expected, tuple) and len(expected) == 2 and expected[1]:
            return str(expected[1])
        if isinstance(current, dict) and current.get("kind"):
            return str(current["kind"])
        return None

    def _set(self, obj: dict[str, Any], deleted: bool) -> None:
        values: dict[str, Any] = {}
        for name, get in self._extract.items():
            try:
                values[name] = get(obj)
            except Exception:
                values[name] = getattr(self, name)  # keep the last good value
        with self.hold_trait_notifications():
            self.object = obj
            meta = obj.get("metadata") if isinstance(obj, dict) else None
            self.resource_version = str((meta or {}).get("resourceVersion") or "")
            self.exists = not deleted
            self.deleted = deleted
            for name, value in values.items():
                setattr(self, name, value)

    def _apply(self, batch: dict[Any, Any], synced: bool) -> None:
        value = batch.get(self.key)
        with self.hold_trait_notifications():
            if isinstance(value, Deleted):
                if self.exists:
                    self._set(value.obj if isinstance(value.obj, dict) else self.object,
                              deleted=True)
            elif value is not None and (not self.exists or not unchanged(self.object, value)):
                self._set(value, deleted=False)
            if synced:
                self.synced = True
            self.batch += 1

    @property
    def convenience_traits(self) -> list[str]:
        """The kind's extra trait names (e.g. phase, ready, restarts, node for pods)."""
        return list(self._extract)

    def __repr__(self) -> str:
        state = "deleted" if self.deleted else "exists" if self.exists else "absent"
        extra = "".join(f", {n}={getattr(self, n)!r}" for n in self._extract)
        return (f"ObservableObject({self.kind or 'object'} {self.key!r}, {state}, "
                f"rv={self.resource_version!r}{extra})")
