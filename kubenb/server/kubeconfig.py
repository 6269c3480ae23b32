"""A kubeconfig for the embedded server, so kubectl and the official client can use it."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import yaml

__all__ = ["write_kubeconfig"]


def _kubeconfig_dict(url: str, token: str | None, namespace: str = "default",
                    name: str = "kubenb", ca_pem: bytes | None = None) -> dict:
    """The kubeconfig as a dict: one cluster, user and context, all named `name`.

    With `ca_pem` (a TLS server's CA) the cluster carries `certificate-authority-data`,
    so clients verify the server instead of skipping verification."""
    user: dict[str, str] = {"token": token} if token else {}
    if not token and url.startswith("https://"):
        # Over https, kubectl prompts for a username when a user has no credentials at
        # all. A server without a token ignores the basic-auth header this sends.
        user = {"username": name}
    cluster: dict[str, str] = {"server": url}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode("ascii")
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name,
                                                 "namespace": namespace}}],
        "current-context": name,
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike[str], url: str, token: str | None,
                     ca_pem: bytes | None = None) -> Path:
    """Write the kubeconfig readable by its owner only (it may hold a token).

    Written to a temporary file and renamed into place, so a reader (kubectl, a
    test polling for the file) never sees it half-written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        yaml.safe_dump(_kubeconfig_dict(url, token, ca_pem=ca_pem), handle, sort_keys=False)
    os.replace(partial, target)
    return target
