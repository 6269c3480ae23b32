"""A password in a kubeconfig's server URL lives in one place: the basic-auth credential.

The config, the Cluster and everything reachable from it (clients, informers, watches,
their threads) hold the URL without its user:password part, from the moment the
kubeconfig is read; the server never keeps what a client sent in its Authorization header.
"""

from __future__ import annotations

import collections
import threading
import types
from pathlib import Path
from typing import Any

import yaml

import kubenb
from kubenb.client.auth import BasicAuth
from kubenb.client.config import config_from_dict
from kubenb.server import EmbeddedServer
from tests.client.conftest import kubeconfig_doc

SECRET = "pw-9f3b1c7e"

#: Where the walk stops: code, types and modules lead to the whole interpreter.
_OPAQUE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType,
           types.CodeType, types.FrameType)


def _holders_of(secret: str, *roots: Any, allowed: tuple[type, ...] = ()) -> list[str]:
    """Paths from `roots` to every string that contains `secret`.

    A breadth-first walk over instance attributes, slots, containers, bound methods and
    thread targets, not into modules, classes or functions' globals. Instances of
    `allowed` are the credential itself and are not entered."""
    seen: set[int] = set()
    found: list[str] = []
    queue: collections.deque[tuple[Any, str]] = collections.deque(
        (root, type(root).__name__) for root in roots)
    while queue:
        obj, path = queue.popleft()
        if id(obj) in seen or isinstance(obj, (*_OPAQUE, *allowed)):
            continue
        seen.add(id(obj))
        if isinstance(obj, str):
            if secret in obj:
                found.append(path)
            continue
        if isinstance(obj, bytes | bytearray):
            if secret.encode() in obj:
                found.append(path)
            continue
        if isinstance(obj, dict):
            for key, value in list(obj.items()):
                queue.append((key, f"{path}[key]"))
                queue.append((value, f"{path}[{key!r}]"[:200]))
            continue
        if isinstance(obj, list | tuple | set | frozenset | collections.deque):
            for index, value in enumerate(list(obj)):
                queue.append((value, f"{path}[{index}]"))
            continue
        if isinstance(obj, types.MethodType):
            queue.append((obj.__self__, f"{path}.__self__"))
            continue
        if isinstance(obj, threading.Thread):
            for name in ("_target", "_args", "_kwargs", "_name"):
                queue.append((getattr(obj, name, None), f"{path}.{name}"))
        attributes = getattr(obj, "__dict__", None)
        if isinstance(attributes, dict):
            for name, value in list(attributes.items()):
                queue.append((value, f"{path}.{name}"))
        for cls in type(obj).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if isinstance(name, str) and hasattr(obj, name):
                    queue.append((getattr(obj, name), f"{path}.{name}"))
    return found


def _kubeconfig_with_password(server: EmbeddedServer, tmp_path: Path) -> Path:
    doc = yaml.safe_load(Path(server.kubeconfig_path).read_text())
    doc["clusters"][0]["cluster"]["server"] = server.url.replace(
        "http://", f"http://admin:{SECRET}@")
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_a_config_read_from_a_kubeconfig_keeps_the_url_without_its_password() -> None:
    config = config_from_dict(kubeconfig_doc(f"https://admin:{SECRET}@example.test:6443/"))
    assert config.server == "https://example.test:6443"
    assert SECRET not in repr(config) and SECRET not in str(config.server)
    assert isinstance(config.auth, BasicAuth) and config.auth.username == "admin"
    assert config.auth_kind == "basic"


def test_a_url_password_does_not_replace_credentials_the_kubeconfig_names() -> None:
    doc = kubeconfig_doc(f"https://admin:{SECRET}@example.test:6443")
    doc["users"][0]["user"] = {"token": "a-token"}
    config = config_from_dict(doc)
    assert config.server == "https://example.test:6443"
    assert config.auth_kind == "token"
    assert _holders_of(SECRET, config) == []


def test_nothing_reachable_from_a_cluster_holds_the_password_but_its_credential(
        tmp_path: Path) -> None:
    with EmbeddedServer() as server:
        path = _kubeconfig_with_password(server, tmp_path)
        with kubenb.connect(str(path)) as cluster:
            cluster.resource("cm").create({"metadata": {"name": "one"}})
            informer = cluster.informer("configmaps")
            frame = cluster.frame("configmaps", progress=False)
            watch = cluster.resource("cm").watch(timeout_seconds=5)
            try:
                assert len(frame.df) == 1  # it works
                found = _holders_of(SECRET, cluster, informer, frame, watch, server,
                                    allowed=(BasicAuth,))
                assert found == [], found
                holders = _holders_of(SECRET, cluster)
                assert holders and all(".auth._password" in h for h in holders), holders
            finally:
                watch.stop()
