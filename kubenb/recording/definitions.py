"""The CustomResourceDefinitions a recording keeps, so its custom resources replay in one
step.

A server serves a custom resource only once its CustomResourceDefinition exists. When
a recorded resource belongs to an API group, the recorder asks the server for the CRD
named `plural.group`; a built-in resource has none (404) and is skipped. The CRD is
kept as a user would write it (its spec, name, labels and annotations, without status
or the server's bookkeeping), and a replay creates it before loading the objects.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from kubenb.client.dynamic import DynamicClient
from kubenb.errors import ApiError, NotFound
from kubenb.recording.format import ResourceSpec
from kubenb.recording.redactor import LAST_APPLIED

__all__ = ["CRD_API_VERSION", "fetch_definitions", "portable_definition"]

log = logging.getLogger(__name__)

CRD_API_VERSION = "apiextensions.k8s.io/v1"
_CRDS = "customresourcedefinitions"


def portable_definition(crd: dict[str, Any]) -> dict[str, Any]:
    """`crd` as it can be created on another server: apiVersion, kind, name, labels,
    annotations (not kubectl's last-applied copy) and spec; no status, uid,
    resourceVersion, timestamps or managedFields."""
    meta = crd.get("metadata") or {}
    kept: dict[str, Any] = {"name": meta.get("name", "")}
    for key in ("labels", "annotations"):
        values = {k: v for k, v in (meta.get(key) or {}).items() if k != LAST_APPLIED}
        if values:
            kept[key] = values
    return {"apiVersion": CRD_API_VERSION, "kind": "CustomResourceDefinition",
            "metadata": kept, "spec": crd.get("spec") or {}}


def fetch_definitions(client: DynamicClient,
                      resources: Iterable[ResourceSpec]) -> list[dict[str, Any]]:
    """The CRDs of the custom resources among `resources`, read from the server.

    A resource whose CRD cannot be read (built-in: 404; or no permission to read CRDs:
    403) is recorded without one; the 403 is logged, since its replay will then need the
    CRD created by hand."""
    crds = client.resource(CRD_API_VERSION, _CRDS)
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for spec in resources:
        if not spec.group or spec.key in seen:
            continue
        seen.add(spec.key)
        try:
            found.append(portable_definition(crds.get(spec.key)))
        except NotFound:
            continue  # a built-in resource (deployments.apps ...)
        except ApiError as exc:
            log.warning("recording %s without its CustomResourceDefinition (reading it "
                        "failed: %s); a replay will need it created first", spec.key, exc)
    return found
