"""A namespace per test: named after the test, populated as a real one, then deleted.

Tests that share a cluster stay apart by working in namespaces of their own. A name
derived from the test (`test_scale[3]` -> `test-scale-3-k2x9qf`) says in `kubectl get
ns` and in an operator's logs which test made what; the random tail keeps it unique
when a test runs twice (reruns, xdist workers on one server, a suite run twice against
a cluster left up).
"""

from __future__ import annotations

import contextlib
import re
import secrets
import string
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kubenb.testing.waiting import wait_for, wait_for_deletion

if TYPE_CHECKING:  # types only: the cluster is made by whoever passes it
    from kubenb.cluster import Cluster

__all__ = ["create_namespace", "delete_namespace", "namespace_name", "temporary_namespace"]

#: A DNS label (RFC 1123), what a namespace name must be, is at most this long.
MAX_LENGTH = 63
_SUFFIX = 6
_ALPHABET = string.ascii_lowercase + string.digits
#: What the namespace controllers put in every namespace: (resource, name, controller).
_POPULATED = (("serviceaccounts", "default", "serviceaccount"),
              ("configmaps", "kube-root-ca.crt", "root-ca-cert-publisher"))


def namespace_name(hint: str) -> str:
    """A fresh valid namespace name from `hint` (a test's name): lower case, runs of
    other characters made one dash, cut to fit, and a random suffix."""
    base = re.sub(r"[^a-z0-9]+", "-", hint.lower()).strip("-") or "test"
    base = base[:MAX_LENGTH - _SUFFIX - 1].rstrip("-")
    return f"{base}-{''.join(secrets.choice(_ALPHABET) for _ in range(_SUFFIX))}"


def create_namespace(cluster: Cluster, hint: str, *, timeout: float = 30.0) -> str:
    """Create a namespace named after `hint`; returns its name once the cluster's
    controllers (when it runs them) have given it its `default` ServiceAccount and
    `kube-root-ca.crt` ConfigMap, as they do in a real cluster a moment after."""
    name = namespace_name(hint)
    cluster.resource("namespaces").create({"apiVersion": "v1", "kind": "Namespace",
                                           "metadata": {"name": name}})
    running = set(cluster.controllers.names) if cluster.controllers is not None else set()
    for resource, obj, controller in _POPULATED:
        if controller in running:
            wait_for(cluster.resource(resource, name), obj, timeout=timeout)
    return name


def delete_namespace(cluster: Cluster, name: str, *, timeout: float = 30.0) -> None:
    """Delete namespace `name` with everything in it; returns once it is gone (its
    finalizers, if a test gave it some, must be removed within `timeout`)."""
    from kubenb.errors import NotFound  # lazy: kubenb.testing imports nothing heavy

    namespaces = cluster.resource("namespaces")
    try:
        namespaces.delete(name)
    except NotFound:
        return
    wait_for_deletion(namespaces, name, timeout=timeout)


@contextlib.contextmanager
def temporary_namespace(cluster: Cluster, hint: str = "test") -> Iterator[str]:
    """A namespace named after `hint` for the `with` block, deleted after it."""
    name = create_namespace(cluster, hint)
    try:
        yield name
    finally:
        delete_namespace(cluster, name)
