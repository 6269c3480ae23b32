"""Make notebooks/data/realapi-configmaps.jsonl.gz from the real kube-apiserver fixtures.

    python -m tests.recording.make_realapi_recording

What an informer of ConfigMaps in namespace kubenb-watch (label fixture=watch) and one
of every Pod would have recorded, stitched from real v1.32 responses
(tests/fixtures/realapi/): every object, event, bookmark and Status is taken byte for
byte from a fixture, every arrival time from the fixture's own timings. The stitching:

- 00:00.000  configmaps list at resourceVersion 255, empty: the watch fixture was
  started from that list's resourceVersion and its first event creates w-1 (the only
  ConfigMap in the namespace before, kube-root-ca.crt, has no fixture=watch label);
- 00:00.001  watch from 255: watch/configmaps-from-list-rv-with-bookmarks (six events,
  then the periodic BOOKMARK at 370); the capture closed it after 62.2 s, which the
  informer sees as a closed stream;
- 00:03.700  pods list (lists/pods-all-namespaces, resourceVersion 262, taken after
  the events above) and a pods watch from 262 that receives nothing;
- 01:02.200  watch from 370: watch/timeout-2s (from 370, ends after 2 s, empty);
- 01:04.210  watch from 370 answered with the 410 ERROR of
  watch/too-old-resourceversion-410 (that capture's Status, message and all: it asked
  from 255, after an apiserver restart);
- 01:10.004  the relist: a list at 377 of the objects watch/watchlist-sendinitialevents
  streamed as its initial events (the real capture, 8 s after the timeout above),
  then its live events as a watch from 377: w-4 ADDED at 378, a BOOKMARK at 378, and
  the end at timeoutSeconds=5.

The final state equals watch/no-resourceversion-initial-state (w-2, w-3, w-4, w-other):
the tests check that. The output is reproducible (gzip mtime 0).
"""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from kubenb.recording import RecordingWriter, ResourceSpec, encode_line, make_header

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "realapi"
OUTPUT = ROOT / "notebooks" / "data" / "realapi-configmaps.jsonl.gz"

CONFIGMAPS = ResourceSpec("v1", "configmaps", "ConfigMap", True, "kubenb-watch",
                          "fixture=watch", "")
PODS = ResourceSpec("v1", "pods", "Pod", True, "", "", "")


def _watch(name: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A watch fixture's events (decoded lines) and its meta."""
    folder = FIXTURES / "watch"
    lines = (folder / f"{name}.jsonl").read_bytes().splitlines()
    meta = json.loads((folder / f"{name}.meta.json").read_text())
    return [json.loads(line) for line in lines if line.strip()], meta


def _times(meta: dict[str, Any]) -> list[float]:
    return [e["completed_at_ms"] / 1000 for e in meta["response"]["events"]]


def records() -> list[dict[str, Any]]:
    """The stitched recording's lines after the header, in arrival order."""
    out: list[dict[str, Any]] = []

    def add(t: float, r: int, **fields: Any) -> None:
        out.append({"t": round(t, 6), "r": r, **fields})

    # 1. list at 255 and the watch from it
    add(0.0, 0, op="list", rv="255", items=[], more=False, **{"from": "0", "continue": False})
    add(0.001, 0, op="watch", rv="255", initial=False)
    events, meta = _watch("configmaps-from-list-rv-with-bookmarks")
    pods = json.loads((FIXTURES / "lists" / "pods-all-namespaces.json").read_text())
    pods_body = pods["response"]["body"]
    pods_added = False
    for t, event in zip(_times(meta), events, strict=True):
        if t > 3.7 and not pods_added:  # the pods list came after resourceVersion 262
            add(3.7, 1, op="list", rv=pods_body["metadata"]["resourceVersion"],
                items=pods_body["items"], more=False, **{"from": "0", "continue": False})
            add(3.701, 1, op="watch", rv=pods_body["metadata"]["resourceVersion"],
                initial=False)
            pods_added = True
        add(t, 0, op="event", type=event["type"], object=event["object"])
    closed_at = meta["response"]["duration_ms"] / 1000
    add(closed_at, 0, op="end", reason="closed")
    last_rv = events[-1]["object"]["metadata"]["resourceVersion"]

    # 2. the resume from 370 that times out empty
    _, meta = _watch("timeout-2s")
    assert meta["request"]["query_params"]["resourceVersion"] == last_rv
    start = closed_at + 0.007
    add(start, 0, op="watch", rv=last_rv, initial=False)
    add(start + meta["response"]["duration_ms"] / 1000, 0, op="end", reason="closed")

    # 3. the next resume meets a 410
    start = out[-1]["t"] + 0.006
    events, meta = _watch("too-old-resourceversion-410")
    add(start, 0, op="watch", rv=last_rv, initial=False)
    status = events[0]["object"]
    add(start + _times(meta)[0], 0, op="error", during="watch", code=status["code"],
        reason=status["reason"], message=status["message"], status=status)

    # 4. the relist, and the watch from it
    events, meta = _watch("watchlist-sendinitialevents")
    times = _times(meta)
    start = 70.0  # the watch-list capture came 8 s after the timeout-2s one
    end_index = next(i for i, e in enumerate(events) if e["type"] == "BOOKMARK")
    listed = [{k: v for k, v in e["object"].items() if k not in ("kind", "apiVersion")}
              for e in events[:end_index]]
    rv = events[end_index]["object"]["metadata"]["resourceVersion"]
    add(start + times[end_index], 0, op="list", rv=rv, items=listed, more=False,
        **{"from": last_rv, "continue": False})
    add(start + times[end_index] + 0.001, 0, op="watch", rv=rv, initial=False)
    for t, event in zip(times[end_index + 1:], events[end_index + 1:], strict=True):
        add(start + t, 0, op="event", type=event["type"], object=event["object"])
    add(start + meta["response"]["duration_ms"] / 1000, 0, op="end", reason="closed")
    return out


def header() -> dict[str, Any]:
    version = json.loads((FIXTURES / "discovery" / "version.json").read_text())
    _, meta = _watch("configmaps-from-list-rv-with-bookmarks")
    started = parsedate_to_datetime(meta["response"]["headers"]["Date"]).timestamp()
    return make_header([CONFIGMAPS, PODS], started=started,
                       server_version=version["response"]["body"],
                       source="tests/recording/make_realapi_recording.py from "
                              "tests/fixtures/realapi (kube-apiserver v1.32.13)")


def write(path: Path = OUTPUT) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = records()
    writer = RecordingWriter(path, header(), compresslevel=9, mtime=0)
    for record in lines:
        writer.write(encode_line(record))
    events = sum(1 for r in lines if r["op"] == "event")
    writer.close({"t": lines[-1]["t"], "op": "stop", "reason": "stopped", "events": events,
                  "lists": sum(1 for r in lines if r["op"] == "list"), "errors": 1})
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
