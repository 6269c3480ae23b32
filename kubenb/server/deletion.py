"""What a DELETE does to an object before it is removed: the apiserver's `rest.BeforeDelete`.

A DELETE does not always remove: a propagation policy puts the garbage collector's
finalizer on the object, and a pod that runs on a node is deleted gracefully (a
deletionTimestamp in the future, the kubelet removes it). The rules are apimachinery's
and the pod strategy's, apart from the storage they act on, so `Registry.delete` asks
here what to store and keeps the locking and the writing.
"""

from __future__ import annotations

import json
import time
from typing import Any

from kubenb.server import errors
from kubenb.server.resources import ResourceType
from kubenb.server.storage import Obj
from kubenb.timeutil import format_time, parse_time

__all__ = ["marked_for_deletion"]

_GC_FINALIZERS = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}


def marked_for_deletion(rtype: ResourceType, old: Obj, options: dict[str, Any]) -> Obj | None:
    """What a DELETE stores instead of removing the object (the apiserver's BeforeDelete and
    deletionFinalizersForGarbageCollection), `old` when nothing changes, None to remove it.

    propagationPolicy Orphan / Foreground (or orphanDependents) put the `orphan` /
    `foregroundDeletion` finalizer on the object for the garbage collector. A pod that is
    bound to a node and not finished is deleted gracefully: deletionTimestamp is now plus
    its grace period (gracePeriodSeconds, else spec.terminationGracePeriodSeconds, 30) and
    the kubelet removes it; a later DELETE may only shorten that period. The metadata of a
    changed object is left for the caller to put in the apiserver's key order.
    """
    meta = old["metadata"]
    policy = options.get("propagationPolicy")
    orphan = options.get("orphanDependents")
    if policy is not None and policy not in ("Orphan", "Background", "Foreground"):
        raise errors.invalid("DeleteOptions", "", [errors.cause(
            "FieldValueNotSupported", "propagationPolicy",
            f'Unsupported value: "{policy}": supported values: "Foreground", "Background", '
            '"Orphan", "nil"')], "meta.k8s.io")
    if policy is not None and orphan is not None:
        raise errors.invalid("DeleteOptions", "", [errors.cause(
            "FieldValueInvalid", "orphanDependents",
            f"Invalid value: {json.dumps(orphan)}: orphanDependents and deletionPropagation "
            "cannot be both set")], "meta.k8s.io")
    grace = _grace_period(rtype, old, options)
    pending = meta.get("deletionGracePeriodSeconds")
    now = time.time()
    if meta.get("deletionTimestamp") and pending:  # a graceful deletion is under way
        if grace is None or grace >= pending:
            return old
        if grace == 0 and not meta.get("finalizers"):
            return None
        due = parse_time(meta["deletionTimestamp"])
        if due is None:  # not a time the server wrote: the period counts from now
            due = now + pending
        return dict(old, metadata=dict(meta, deletionTimestamp=format_time(
            due - (pending - grace)), deletionGracePeriodSeconds=grace))
    finalizers = list(meta.get("finalizers") or [])
    if rtype.key != "namespaces" and (policy is not None or orphan is not None):
        wanted = _GC_FINALIZERS.get(policy or ("Orphan" if orphan else "Background"))
        finalizers = [f for f in finalizers if f not in _GC_FINALIZERS.values()]
        finalizers += [wanted] if wanted else []
    if meta.get("deletionTimestamp"):
        grace = None  # being deleted already: only the finalizers may change
    if not grace and not finalizers:
        return None
    changed = dict(meta, finalizers=finalizers) if finalizers else {
        k: v for k, v in meta.items() if k != "finalizers"}
    if grace:
        changed.update(deletionTimestamp=format_time(now + grace),
                       deletionGracePeriodSeconds=grace)
    elif not meta.get("deletionTimestamp"):
        changed.update(deletionTimestamp=format_time(now), deletionGracePeriodSeconds=0)
    return old if changed == meta else dict(old, metadata=changed)


def _grace_period(rtype: ResourceType, pod: Obj, options: dict[str, Any]) -> int | None:
    """A pod's grace period for this DELETE (podStrategy.CheckGracefulDelete); None for
    every other type: they are never deleted gracefully."""
    if rtype.key != "pods":
        return None
    spec = pod.get("spec") or {}
    raw = options.get("gracePeriodSeconds")
    if raw is None:
        raw = spec.get("terminationGracePeriodSeconds", 30)
    try:
        period = int(raw)
    except (TypeError, ValueError):
        raise errors.bad_request(f'invalid value "{raw}" for gracePeriodSeconds: expected an '
                                 "integer") from None
    if not spec.get("nodeName") or (pod.get("status") or {}).get("phase") in (
            "Succeeded", "Failed"):
        return 0  # never scheduled, or already finished: nothing to stop
    return 1 if period < 0 else period
