"""Helpers for the recording tests: write recordings by hand, replay one through real
informers (themselves recorded) and compare what they received with what was recorded."""

from __future__ import annotations

import contextlib
import datetime as dt
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubenb.cache.backoff import ExponentialBackoff
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.recording import (
    Recorder,
    Recording,
    RecordingWriter,
    ResourceSpec,
    encode_line,
    make_header,
)
from kubenb.server import EmbeddedServer
from kubenb.server.replay import Replay
from tests.helpers import wait_until

CONFIGMAPS = ResourceSpec("v1", "configmaps", "ConfigMap", True, "default")
DEPLOYMENTS = ResourceSpec("apps/v1", "deployments", "Deployment", True, "default")
STARTED = dt.datetime(2026, 11, 22, 11, 43, 40, tzinfo=dt.timezone.utc).timestamp()


def write_recording(path: Path, resources: Sequence[ResourceSpec],
                    records: Sequence[dict[str, Any]], trailer: bool = True) -> Path:
    """A recording file from records given as dicts (each with its "t")."""
    writer = RecordingWriter(path, make_header(resources, started=STARTED), mtime=0)
    events = sum(1 for r in records if r.get("op") == "event")
    for record in records:
        writer.write(encode_line(record))
    last = records[-1]["t"] if records else 0.0
    writer.close({"t": last, "op": "stop", "reason": "stopped", "events": events}
                 if trailer else None)
    return path


def configmap(name: str, rv: int, value: str, namespace: str = "default",
              uid: str | None = None, listed: bool = False) -> dict[str, Any]:
    """A ConfigMap as a server sends it (list items come without kind and apiVersion)."""
    obj: dict[str, Any] = {} if listed else {"kind": "ConfigMap", "apiVersion": "v1"}
    obj["metadata"] = {"name": name, "namespace": namespace, "resourceVersion": str(rv),
                       "uid": uid or str(uuid.uuid5(uuid.NAMESPACE_DNS, name)),
                       "creationTimestamp": "2026-11-22T11:43:40Z"}
    obj["data"] = {"v": value}
    return obj


def two_resources(tmp_path: Path) -> Path:
    """ConfigMaps and Deployments: a list of each, then one ConfigMap event."""
    records = [
        {"t": 0.0, "r": 0, "op": "list", "rv": "50", "items": [configmap("a", 40, "1",
                                                                       listed=True)]},
        {"t": 0.0, "r": 1, "op": "list", "rv": "50", "items": []},
        {"t": 0.001, "r": 0, "op": "watch", "rv": "50"},
        {"t": 0.001, "r": 1, "op": "watch", "rv": "50"},
        {"t": 1.0, "r": 0, "op": "event", "type": "MODIFIED",
         "object": configmap("a", 51, "2")},
    ]
    return write_recording(tmp_path / "two.jsonl.gz", [CONFIGMAPS, DEPLOYMENTS], records)


def signatures(recording: Recording, r: int | None = None) -> list[tuple[Any, ...]]:
    return [e.signature() for e in recording.entries if r is None or e.r == r]


def assert_replayed(replayed: Recording, original: Recording, r: int | None = None) -> None:
    """The replayed informers received exactly what was recorded. After the recording's
    last entry they may have gone on (a watch re-opened after a recorded end)."""
    got, want = signatures(replayed, r), signatures(original, r)
    assert got[:len(want)] == want
    assert all(extra[0] == "watch" for extra in got[len(want):]), got[len(want):]


def expected_events(recording: Recording) -> int:
    """How many event lines (bookmarks and streamed initial events too) a faithful
    replay makes an informer's recorder write."""
    if recording.trailer is not None and "events" in recording.trailer:
        return int(recording.trailer["events"])
    count = 0
    for e in recording.entries:
        if e.op in ("event", "bookmark"):
            count += 1
        elif e.op == "list" and e.initial:
            count += len(e.items or []) + 1
    return count


def cache(informer: SharedIndexInformer) -> dict[str, Any]:
    indexer = informer.get_indexer()
    return {key: indexer.get_by_key(key) for key in indexer.list_keys()}


class ReplayRun:
    """What informers over a replay received (`recording`) and hold at the end (`caches`)."""

    def __init__(self, recording: Recording, caches: list[dict[str, Any]], replay: Replay,
                 reflector_stats: list[dict[str, Any]]) -> None:
        self.recording = recording
        self.caches = caches
        self.replay = replay
        self.reflector_stats = reflector_stats


def replay_through_informers(path: Path, out: Path, *, speed: float | None = None,
                             use_watch_list: bool = False, timeout: float = 30.0,
                             server_options: dict[str, Any] | None = None) -> ReplayRun:
    """Replay `path` into a fresh embedded server; one informer per recorded resource
    (same namespace and selectors), each recorded into `out`; return what they got."""
    original = Recording.read(path)
    options = {"bookmark_interval": 1e9, **(server_options or {})}
    server = EmbeddedServer(**options).start()
    dynamic = DynamicClient(load_config(server.kubeconfig_path))
    recorder = Recorder(out, original.resources)
    informers: list[SharedIndexInformer] = []
    try:
        replay = server.replay(original, speed=speed)
        recorder.start()
        for index, spec in enumerate(original.resources):
            list_watch = ListWatch.from_client(
                dynamic.resource(spec.api_version, spec.resource),
                namespace=spec.namespace, label_selector=spec.label_selector,
                field_selector=spec.field_selector)
            informers.append(SharedIndexInformer(
                recorder.list_watcher(index, list_watch), name=f"replayed-{spec.key}",
                use_watch_list=use_watch_list,
                backoff=ExponentialBackoff(initial=0.01, cap=0.05)))
        for informer in informers:
            informer.start()
        assert replay.wait(timeout), f"replay not done: {replay}"
        assert not replay.error, replay.error
        want = expected_events(original)
        wait_until(lambda: recorder.events >= want, timeout,
                   what=f"{want} events (got {recorder.events}) from {replay}")
        # the file is readable while it is written: wait for as many entries as recorded
        wait_until(lambda: len(Recording.read(out).entries) >= len(original.entries),
                   timeout, what="the replayed informers' entries")
        finals = [original.final_state(r) for r in range(len(original.resources))]
        # the caches settle a moment after the last event; the test compares them
        with contextlib.suppress(AssertionError):
            wait_until(lambda: [cache(i) for i in informers] == finals, 5.0)
        caches = [cache(i) for i in informers]
        stats = [i.stats()["reflector"] for i in informers]
    finally:
        recorder.stop()
        for informer in informers:
            informer.stop()
        dynamic.rest.close()
        server.stop()
    return ReplayRun(Recording.read(out), caches, replay, stats)
