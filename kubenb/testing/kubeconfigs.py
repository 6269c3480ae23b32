"""A kubeconfig file of a test's own, for clients that find a cluster by file.

kubectl, the official client, kopf and a Go binary all find their cluster through a
kubeconfig (`--kubeconfig`, or `KUBECONFIG`). Each test gets its own copy: `kubectl
config set-context` writes into the file it was given, and one test must not change the
next one's. Its context's namespace is the test's, so `kubectl get pods` in a test's
subprocess looks where the test works.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: the cluster is made by whoever passes it
    from kubenb.cluster import Cluster

__all__ = ["write_test_kubeconfig"]


def write_test_kubeconfig(cluster: Cluster, path: str | os.PathLike[str],
                          namespace: str | None = None) -> Path:
    """Write a kubeconfig for embedded `cluster` to `path` (readable by its owner
    only), its context's namespace `namespace` (None: "default"); returns the path."""
    import yaml  # lazy: kubenb.testing imports nothing heavy

    if cluster.server is None:
        raise ValueError(f"write_test_kubeconfig: {cluster!r} is not an embedded cluster; "
                         "its kubeconfig is the one it was connected with")
    target = Path(cluster.server.write_kubeconfig(path))
    if namespace:
        doc = yaml.safe_load(target.read_text(encoding="utf-8"))
        for context in doc.get("contexts") or []:
            context["context"]["namespace"] = namespace
        target.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return target
