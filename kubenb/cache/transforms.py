"""Transforms that slim objects before an informer caches them (client-go `TransformFunc`s).

`transform_strip_managed_fields()` is controller-runtime's
`cache.TransformStripManagedFields()`, the transform Go controllers give client-go's
`SetTransform` or `informers.WithTransform`. `metadata.managedFields` is the server's
record of which manager set which field. Nothing reads it from a cache (server-side
apply computes it on the server), and on a pod from a real kube-apiserver it is more than
half of the decoded object (docs/informers.md, "Memory"). Pass it as an informer's `transform`, to
`set_transform` before start, or to `SharedInformerFactory(..., transform=...)` for every
informer the factory makes.

Why leaving managedFields out is safe even for code that writes back what it read: an
update (PUT) whose object has no `managedFields` keeps the server's (only an explicit
`[]` resets them), and apply and patch requests do not send them. The
`kubectl.kubernetes.io/last-applied-configuration` annotation is different, which is why
dropping it is a separate opt-in: it is a copy of the last `kubectl apply`'d manifest,
as big as the object's spec, that only `kubectl apply` itself reads (from the server, not
from a cache). But an update (PUT) built from a cached object without it removes it on the
server, and the next `kubectl apply` then cannot compute what to delete. Drop it only when
the code that reads the cache never writes a whole object back (patches and applies are
fine).

The object is never changed in place: a stripped object is a new top-level dict with a
new `metadata` (and, for the annotation, a new `annotations`) that share every other
value with the original. In kubenb the object is the freshly decoded one, which nothing
else holds (as client-go guarantees since 1.27, when it started allowing in-place
transforms), but a `ListWatch` of the caller's own may hand over objects the caller
keeps, and those stay as they were. The copies cost two small dicts per object, and
retain nothing more once the original is dropped.
"""

from __future__ import annotations

import copy
from typing import Any, overload

__all__ = [
    "LAST_APPLIED_CONFIGURATION",
    "StripManagedFields",
    "transform_strip_managed_fields",
]

#: The annotation `kubectl apply` (client-side) keeps its last applied manifest in.
LAST_APPLIED_CONFIGURATION = "kubectl.kubernetes.io/last-applied-configuration"

_NO_OBJECT: Any = object()


def _copy(obj: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy that keeps a dict subclass's type."""
    return dict(obj) if obj.__class__ is dict else copy.copy(obj)


class StripManagedFields:
    """The transform `transform_strip_managed_fields()` returns: called with one object,
    returns it without `metadata.managedFields` (and, with
    `strip_last_applied_configuration`, without that annotation).

    Anything else is returned as it is: objects that have neither, objects without a
    `metadata` dict, `DeletedFinalStateUnknown` tombstones (informer queues never pass
    them to a transform: their object was transformed on its way in) and non-dicts."""

    __slots__ = ("strip_last_applied_configuration",)

    def __init__(self, strip_last_applied_configuration: bool = False) -> None:
        self.strip_last_applied_configuration = strip_last_applied_configuration

    def __repr__(self) -> str:
        option = ("strip_last_applied_configuration=True"
                  if self.strip_last_applied_configuration else "")
        return f"transform_strip_managed_fields({option})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, StripManagedFields) and other.strip_last_applied_configuration
                == self.strip_last_applied_configuration)

    def __hash__(self) -> int:
        return hash((StripManagedFields, self.strip_last_applied_configuration))

    def __call__(self, obj: Any) -> Any:
        if not isinstance(obj, dict):  # a DeletedFinalStateUnknown too
            return obj
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            return obj
        annotations = meta.get("annotations")
        drop_annotation = (self.strip_last_applied_configuration
                           and isinstance(annotations, dict)
                           and LAST_APPLIED_CONFIGURATION in annotations)
        if "managedFields" not in meta and not drop_annotation:
            return obj
        slim_meta = _copy(meta)
        slim_meta.pop("managedFields", None)
        if drop_annotation:
            assert isinstance(annotations, dict)
            slim_annotations = _copy(annotations)
            del slim_annotations[LAST_APPLIED_CONFIGURATION]
            if slim_annotations:
                slim_meta["annotations"] = slim_annotations
            else:  # as the server sends an object without annotations: no key at all
                del slim_meta["annotations"]
        slim = _copy(obj)
        slim["metadata"] = slim_meta
        return slim


@overload
def transform_strip_managed_fields(
        *, strip_last_applied_configuration: bool = False) -> StripManagedFields: ...


@overload
def transform_strip_managed_fields(obj: Any, /) -> Any: ...


def transform_strip_managed_fields(obj: Any = _NO_OBJECT, /, *,
                                   strip_last_applied_configuration: bool = False) -> Any:
    """The transform that leaves `metadata.managedFields` out of cached objects
    (client-go's `TransformStripManagedFields()`); with
    `strip_last_applied_configuration=True` also the
    `kubectl.kubernetes.io/last-applied-configuration` annotation (read the module's
    docstring first: not for code that updates whole objects from the cache).

    Called without an object it makes the transform, as in Go:
    `SharedIndexInformer(lw, transform=transform_strip_managed_fields())`. The function
    itself is that default transform too, so `transform=transform_strip_managed_fields`
    works the same."""
    if obj is _NO_OBJECT:
        return StripManagedFields(strip_last_applied_configuration)
    if strip_last_applied_configuration:
        return StripManagedFields(True)(obj)
    return _DEFAULT(obj)


_DEFAULT = StripManagedFields()
