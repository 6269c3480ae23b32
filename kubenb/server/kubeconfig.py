"""A kubeconfig for the embedded server, so kubectl and the official client can use it."""

from __future__ import annotations

import os
from pathlib import Path

import yaml


def kubeconfig_dict(url: str, token: str | None, namespace: str = "default",
                    name: str = "kubenb") -> dict:
    """The kubeconfig as a dict: one cluster, user and context, all named `name`."""
    user: dict[str, str] = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": url}}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name,
                                                 "namespace": namespace}}],
        "current-context": name,
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike[str], url: str, token: str | None) -> Path:
    """Write the kubeconfig readable by its owner only (it may hold a token).

    Written to a temporary file and renamed into place, so a reader (kubectl, a
    test polling for the file) never sees it half-written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        yaml.safe_dump(kubeconfig_dict(url, token), handle, sort_keys=False)
    os.replace(partial, target)
    return target
