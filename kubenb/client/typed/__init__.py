"""Typed clients in client-go's shapes: `Clientset`, `CoreV1Client`, `PodInterface`, ...

Generated from a table of the built-in resources (and from discovery for the rest), so
every accessor maps one-to-one onto client-go: `clientset.core_v1().pods(ns).get(name)`
is `clientset.CoreV1().Pods(ns).Get(ctx, name, opts)`.
"""

from kubenb.client.typed.builtin import BUILTIN_RESOURCES, builtin_group_versions
from kubenb.client.typed.clientset import (
    Clientset,
    GroupVersionClient,
    group_client_class,
    new_for_config,
)
from kubenb.client.typed.resource import (
    NamespaceRequiredError,
    TypedClient,
    method_names,
    typed_client_class,
)

__all__ = [
    "BUILTIN_RESOURCES",
    "Clientset",
    "GroupVersionClient",
    "NamespaceRequiredError",
    "TypedClient",
    "builtin_group_versions",
    "group_client_class",
    "method_names",
    "new_for_config",
    "typed_client_class",
]
