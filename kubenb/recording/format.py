"""The recording file: JSON lines (gzip-compressed, or plain), a header first, read back
tolerantly.

One file holds what the informers of one or more resources received, in arrival order
(docs/recording.md has the full format):

    {"format": "kubenb-recording", "version": 1, "started": ..., "resources": [...], ...}
    {"t": 0.0123, "r": 0, "op": "list", "rv": "120", "items": [...], "more": false, ...}
    {"t": 0.0150, "r": 0, "op": "watch", "rv": "120", "initial": false}
    {"t": 1.5021, "r": 0, "op": "event", "type": "MODIFIED", "object": {...}}
    {"t": 9.0001, "r": 0, "op": "error", "during": "watch", "code": 410, ...}
    {"t": 9.0002, "r": 0, "op": "end", "reason": "closed"}
    {"t": 60.000, "op": "stop", "reason": "stopped", "events": 1234, ...}

`t` is seconds since the header's `started`, `r` the index of the resource in the
header. The recorder writes a complete gzip member every quarter second (and every
256 KiB of lines), compressed or, past its CPU budget, stored; or plain lines with
compresslevel=0. Readers take either, and any number of members.
A file cut short by a crash still reads back up to its last complete member; the "stop"
trailer is missing then, and `Recording.complete` says so.

Reading turns the raw lines into `Entry` items: list pages are joined into one list,
and the initial events of a streaming list (watch-list) become one list too, so a
replay and a test compare like with like.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gzip
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from kubenb._version import __version__
from kubenb.errors import RecordingError
from kubenb.jsondecode import decode_json
from kubenb.recording.offsets import format_offset, parse_offset

__all__ = [
    "FORMAT",
    "INITIAL_EVENTS_END",
    "OPS",
    "TIMELINE_COLUMNS",
    "VERSION",
    "Entry",
    "Recording",
    "RecordingError",
    "RecordingWriter",
    "ResourceSpec",
    "definition_names",
    "encode_line",
    "fold",
    "format_offset",
    "iter_lines",
    "make_header",
    "object_key",
    "object_rv",
    "parse_offset",
]

FORMAT = "kubenb-recording"
VERSION = 1
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
OPS = ("list", "watch", "event", "error", "end", "stop")
#: The columns of `Recording.timeline()`, in order (docs/recording.md says what each holds).
TIMELINE_COLUMNS = ("t", "time", "resource", "what", "key", "resourceVersion", "detail")
_READ_CHUNK = 256 * 1024

_encode = msgspec.json.Encoder().encode


@dataclass(frozen=True)
class ResourceSpec:
    """One recorded resource view: what an informer of it lists and watches."""

    api_version: str
    resource: str
    kind: str = ""
    namespaced: bool = True
    namespace: str = ""  # "" = all namespaces
    label_selector: str = ""
    field_selector: str = ""

    @property
    def group(self) -> str:
        return self.api_version.split("/", 1)[0] if "/" in self.api_version else ""

    @property
    def version(self) -> str:
        return self.api_version.rsplit("/", 1)[-1]

    @property
    def key(self) -> str:
        """`plural.group` (`plural` in the core group): the embedded server's storage key."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def to_dict(self) -> dict[str, Any]:
        return {"api_version": self.api_version, "resource": self.resource, "kind": self.kind,
                "namespaced": self.namespaced, "namespace": self.namespace,
                "label_selector": self.label_selector, "field_selector": self.field_selector}

    @classmethod
    def from_dict(cls, data: Any, where: str = "header") -> ResourceSpec:
        if not isinstance(data, dict) or not data.get("api_version") or not data.get("resource"):
            raise RecordingError(f"{where}: a resource needs api_version and resource, got "
                                 f"{data!r}")
        return cls(str(data["api_version"]), str(data["resource"]), str(data.get("kind") or ""),
                   bool(data.get("namespaced", True)), str(data.get("namespace") or ""),
                   str(data.get("label_selector") or ""), str(data.get("field_selector") or ""))

    def describe(self) -> str:
        where = f"namespace {self.namespace}" if self.namespace else (
            "all namespaces" if self.namespaced else "cluster")
        parts = [f"{self.key} ({where})"]
        if self.label_selector:
            parts.append(f"labels {self.label_selector}")
        if self.field_selector:
            parts.append(f"fields {self.field_selector}")
        return ", ".join(parts)


def object_key(obj: Any) -> str:
    """`namespace/name` (or `name`), as the informer's cache keys it."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return ""
    ns, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{ns}/{name}" if ns else str(name)


def object_rv(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    return str(meta.get("resourceVersion") or "") if isinstance(meta, dict) else ""


# -- writing ---------------------------------------------------------------------------


def make_header(resources: Iterable[ResourceSpec], *, started: float | None = None,
                server_version: dict[str, Any] | None = None,
                redaction: dict[str, Any] | None = None,
                limits: dict[str, Any] | None = None, source: str = "",
                definitions: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """The first line of a recording (`started`: epoch seconds, default now).

    `definitions`: the CustomResourceDefinitions of the recorded custom resources, so a
    replay can serve them; the key is left out when there are none (files stay as they
    were, and a reader of an older file finds no definitions)."""
    started = _dt.datetime.now(_dt.timezone.utc).timestamp() if started is None else started
    stamp = _dt.datetime.fromtimestamp(started, _dt.timezone.utc)
    header = {"format": FORMAT, "version": VERSION,
              "started": stamp.isoformat().replace("+00:00", "Z"), "started_unix": started,
              "server_version": server_version or {},
              "resources": [r.to_dict() for r in resources],
              "redaction": redaction or {"secrets": True, "fields": []},
              "limits": limits or {}, "source": source or f"kubenb {__version__}"}
    crds = list(definitions)
    if crds:
        header["definitions"] = crds
    return header


def definition_names(crd: Any) -> tuple[str, str]:
    """(group, plural) a CustomResourceDefinition serves, or ("", "") if it is not one."""
    spec = crd.get("spec") if isinstance(crd, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("names"), dict):
        return "", ""
    return str(spec.get("group") or ""), str(spec["names"].get("plural") or "")


def encode_line(record: dict[str, Any]) -> bytes:
    """One record as a JSON line (compact, newline-terminated)."""
    return _encode(record) + b"\n"


class RecordingWriter:
    """Writes a recording file line by line (no threads: the Recorder runs it on its own).

    `flush()` pushes everything written so far to the operating system as complete gzip
    blocks, so a reader sees every line up to there even if the process dies next.
    `mtime=0` makes the output byte-for-byte reproducible (committed sample files).
    """

    def __init__(self, path: str | os.PathLike[str], header: dict[str, Any],
                 compresslevel: int = 6, mtime: float | None = None) -> None:
        self.path = Path(path)
        try:
            self._raw = open(self.path, "wb")  # noqa: SIM115 - closed in close()
        except OSError as exc:
            raise RecordingError(f"cannot write the recording {self.path}: "
                                 f"{exc.strerror or exc}") from None
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=self._raw,
                                 compresslevel=compresslevel, mtime=mtime)
        self.uncompressed = 0
        self.lines = 0
        self.closed = False
        self.write(encode_line(header))

    def write(self, data: bytes | bytearray) -> None:
        """Append complete lines (bytes ending in a newline)."""
        self._gz.write(data)
        self.uncompressed += len(data)
        self.lines += data.count(b"\n")

    def flush(self) -> None:
        self._gz.flush()  # a sync flush: every line so far decodes from the file alone

    @property
    def size(self) -> int:
        """Bytes on disk so far (exact right after `flush()`)."""
        return self._raw.tell()

    def close(self, trailer: dict[str, Any] | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if trailer is not None:
                self.write(encode_line(trailer))
            self._gz.close()
        finally:
            self._raw.close()


# -- reading -----------------------------------------------------------------------------


def iter_lines(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The complete lines of a recording file, gzip or plain; a file cut short (a crash
    while recording) yields every line before the cut and stops there quietly."""
    with open(path, "rb") as fh:
        head = fh.read(2)
        fh.seek(0)
        chunks = _gunzip(fh) if head == b"\x1f\x8b" else iter(lambda: fh.read(_READ_CHUNK), b"")
        tail = b""
        for chunk in chunks:
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            for line in lines:
                if line.strip():
                    yield line
        # `tail` has no newline: a line cut short, never a complete record


def _gunzip(fh: Any) -> Iterator[bytes]:
    """Decompress what there is of a (possibly truncated, possibly multi-member) gzip file."""
    inflater = zlib.decompressobj(31)
    while True:
        data = fh.read(_READ_CHUNK)
        if not data:
            return
        while data:
            try:
                out = inflater.decompress(data)
            except zlib.error:
                return  # corrupt from here on: keep what came before
            if out:
                yield out
            if inflater.eof:
                data = inflater.unused_data
                inflater = zlib.decompressobj(31)
            else:
                data = b""


@dataclass
class Entry:
    """One thing an informer received, as read back from a recording.

    op: "list" (a complete list: `items`, `rv`; `initial` if it came as the initial
    events of a watch-list), "watch" (a watch opened from `rv`; `initial` if it asked
    for initial events), "event" (`type`, `object`, `key`, `rv`), "bookmark" (`rv`),
    "error" (`during` list|watch-open|watch, `code`, `reason`, `message`, `status`),
    "end" (a watch ended: `reason` closed|stopped|idle-timeout|connection-lost).
    """

    t: float
    r: int
    op: str
    type: str = ""
    object: dict[str, Any] | None = field(default=None, repr=False)  # never in a repr
    key: str = ""
    rv: str = ""
    items: list[dict[str, Any]] | None = field(default=None, repr=False)
    initial: bool = False
    during: str = ""
    code: int | None = None
    reason: str = ""
    message: str = ""
    status: dict[str, Any] | None = field(default=None, repr=False)

    def signature(self) -> tuple[Any, ...]:
        """What a replay must reproduce of this entry (times and object bodies aside)."""
        if self.op == "list":
            return ("list", self.r, self.rv, tuple(sorted(
                (object_key(o), object_rv(o)) for o in self.items or [])))
        if self.op == "event":
            return ("event", self.r, self.type, self.key, self.rv)
        if self.op == "bookmark":
            return ("bookmark", self.r, self.rv)
        if self.op == "error":
            return ("error", self.r, self.during, self.code)
        if self.op == "end":
            return ("end", self.r, self.reason)
        return ("watch", self.r, self.rv, self.initial)


@dataclass
class _Stream:
    """Per-resource reading state: pages being joined, a watch-list's initial events."""

    pages: list[dict[str, Any]] | None = None
    page_rv: str = ""
    streamed: dict[str, dict[str, Any]] | None = None


@dataclass
class Recording:
    """A recording read back: its header, resources, normalized entries and trailer."""

    path: Path | None
    header: dict[str, Any]
    resources: list[ResourceSpec]
    entries: list[Entry]
    trailer: dict[str, Any] | None = None
    lines: int = 0

    def __repr__(self) -> str:
        where = self.path.name if self.path else "<memory>"
        state = "complete" if self.complete else "truncated"
        return (f"Recording({where!r}, {len(self.resources)} resource(s), "
                f"{len(self.entries)} entries, {self.duration:.1f}s, {state})")

    # -- construction ------------------------------------------------------------------

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Recording:
        """Read a recording file (a truncated one up to its last complete line)."""
        path = Path(path)
        if not path.is_file():
            raise RecordingError(f"no recording at {path}")
        return cls.from_lines(iter_lines(path), path)

    @classmethod
    def from_lines(cls, lines: Iterable[bytes], path: Path | None = None) -> Recording:
        where = str(path) if path else "recording"
        it = iter(lines)
        first = next(it, None)
        if first is None:
            raise RecordingError(f"{where} is empty: no header line")
        header = _parse(first, where, 1)
        if header.get("format") != FORMAT:
            raise RecordingError(f"{where} is not a kubenb recording (its first line has "
                                 f"format {header.get('format')!r}, expected {FORMAT!r})")
        if header.get("version") != VERSION:
            raise RecordingError(f"{where} has format version {header.get('version')!r}; this "
                                 f"kubenb reads version {VERSION}")
        resources = [ResourceSpec.from_dict(r, f"{where}, header")
                     for r in header.get("resources") or []]
        streams = [_Stream() for _ in resources]
        entries: list[Entry] = []
        trailer = None
        count = 1
        for number, line in enumerate(it, start=2):
            count = number
            try:
                record = _parse(line, where, number)
            except RecordingError:
                break  # a damaged line (a crash mid-write): what came before stands
            if record.get("op") == "stop":
                trailer = record
                break
            entries.extend(_normalize(record, streams, where, number))
        return cls(path, header, resources, entries, trailer, count)

    # -- facts -------------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """True when the recorder closed the file (a "stop" trailer); False if cut short."""
        return self.trailer is not None

    @property
    def stop_reason(self) -> str:
        """Why recording stopped ("stopped", "max-events", "max-bytes", "duration"), or
        "truncated" when the file has no trailer."""
        return str(self.trailer.get("reason", "")) if self.trailer else "truncated"

    @property
    def duration(self) -> float:
        """Seconds from the start to the last entry (or to the trailer)."""
        last = self.entries[-1].t if self.entries else 0.0
        if self.trailer is not None:
            last = max(last, float(self.trailer.get("t") or 0.0))
        return last

    @property
    def started(self) -> _dt.datetime:
        """When recording started (UTC)."""
        unix = self.header.get("started_unix")
        if isinstance(unix, (int, float)):
            return _dt.datetime.fromtimestamp(unix, _dt.timezone.utc)
        return _dt.datetime.fromisoformat(str(self.header.get("started")).replace("Z", "+00:00"))

    @property
    def definitions(self) -> list[dict[str, Any]]:
        """The CustomResourceDefinitions recorded with the custom resources (none in a file
        from a kubenb that did not record them)."""
        crds = self.header.get("definitions") or []
        if not isinstance(crds, list) or not all(isinstance(c, dict) for c in crds):
            where = self.path or "recording"
            raise RecordingError(f"{where}: the header's definitions must be a list of "
                                 "CustomResourceDefinition objects")
        return crds

    def definition_of(self, resource: int | str | ResourceSpec) -> dict[str, Any] | None:
        """The recorded CustomResourceDefinition of `resource`, or None (built-in, or not
        recorded)."""
        spec = resource if isinstance(resource, ResourceSpec) else \
            self.resources[self.resource_index(resource)]
        for crd in self.definitions:
            if definition_names(crd) == (spec.group, spec.resource):
                return crd
        return None

    def select(self, resources: Iterable[int | str]) -> Recording:
        """This recording with only `resources` (indexes, "pods", "deployments.apps" or
        kinds), in the order recorded: what a replay of some of them plays."""
        keep = sorted({self.resource_index(r) for r in resources})
        if not keep:
            raise RecordingError("select at least one resource (this recording has "
                                 f"{', '.join(r.key for r in self.resources)})")
        index = {old: new for new, old in enumerate(keep)}
        specs = [self.resources[r] for r in keep]
        header = {**self.header, "resources": [s.to_dict() for s in specs]}
        crds = [c for c in self.definitions if any(
            definition_names(c) == (s.group, s.resource) for s in specs)]
        header.pop("definitions", None)
        if crds:
            header["definitions"] = crds
        entries = [dataclasses.replace(e, r=index[e.r]) for e in self.entries if e.r in index]
        return Recording(self.path, header, specs, entries, self.trailer, self.lines)

    def resource_index(self, resource: int | str | None) -> int:
        """The index of `resource` (an index, "pods", "deployments.apps" or a kind)."""
        if resource is None:
            if len(self.resources) == 1:
                return 0
            raise RecordingError(f"this recording has {len(self.resources)} resources "
                                 f"({', '.join(r.key for r in self.resources)}): say which")
        if isinstance(resource, int):
            if 0 <= resource < len(self.resources):
                return resource
        else:
            for i, spec in enumerate(self.resources):
                if resource in (spec.key, spec.resource, spec.kind):
                    return i
        raise RecordingError(f"no resource {resource!r} in this recording (it has "
                             f"{', '.join(r.key for r in self.resources) or 'none'})")

    def entries_of(self, resource: int | str | None = None) -> list[Entry]:
        r = self.resource_index(resource)
        return [e for e in self.entries if e.r == r]

    def time_of(self, when: Any) -> float:
        """Seconds since the start for `when`: seconds (a number), "mm:ss" or "hh:mm:ss"
        (since the start), a `timedelta`, or a `datetime` (an instant; naive means UTC)."""
        if when is None:
            return self.duration
        if isinstance(when, bool):
            raise RecordingError(f"not a time: {when!r}")
        if isinstance(when, (int, float)):
            return float(when)
        if isinstance(when, _dt.timedelta):
            return when.total_seconds()
        if isinstance(when, _dt.datetime):
            moment = when if when.tzinfo else when.replace(tzinfo=_dt.timezone.utc)
            return (moment - self.started).total_seconds()
        if isinstance(when, str):
            return parse_offset(when)
        raise RecordingError(f"not a time: {when!r} (give seconds, 'mm:ss', a timedelta or "
                             "a datetime)")

    # -- state -------------------------------------------------------------------------

    def objects_at(self, when: Any = None, resource: int | str | None = None
                   ) -> dict[str, dict[str, Any]]:
        """The informer's cache at `when` (default: the end): key -> object."""
        r = self.resource_index(resource)
        return fold(self.entries, self.time_of(when))[r][0]

    def resource_version_at(self, when: Any = None, resource: int | str | None = None) -> str:
        """The informer's last synced resourceVersion at `when` (default: the end)."""
        r = self.resource_index(resource)
        return fold(self.entries, self.time_of(when))[r][1]

    def state_at(self, when: Any = None, resource: int | str | None = None,
                 columns: Any = None) -> Any:
        """The cache at `when` as a pandas DataFrame with `kubectl get`'s columns for the
        kind (or `columns`, as `LiveFrame` takes them); ages are as of that instant."""
        from kubenb.reactive import build_columns, build_frame

        r = self.resource_index(resource)
        spec = self.resources[r]
        t = self.time_of(when)
        objects = fold(self.entries, t)[r][0]
        cols = build_columns(columns, kind=spec.kind or None, group=spec.group,
                             with_namespace=spec.namespaced and not spec.namespace)
        now = self.started.timestamp() + t
        return build_frame([objects[k] for k in sorted(objects)], cols, now)

    def final_state(self, resource: int | str | None = None) -> dict[str, dict[str, Any]]:
        return self.objects_at(None, resource)

    def timeline(self, resource: int | str | None = None) -> Any:
        """Every entry (of one resource, or all) as a row of a pandas DataFrame with the
        columns TIMELINE_COLUMNS: `t` (seconds since the start), `time` ("mm:ss.mmm"),
        `resource`, `what` (the event type, or list / watch / bookmark / error / end),
        `key` (an event's namespace/name), `resourceVersion` and `detail` (a list's size,
        a watch's starting RV, an error's code and message, why a watch ended)."""
        import pandas as pd

        rows = []
        only = None if resource is None else self.resource_index(resource)
        for e in self.entries:
            if only is not None and e.r != only:
                continue
            what = e.type if e.op == "event" else e.op
            detail = ""
            if e.op == "list":
                detail = f"{len(e.items or [])} objects" + (" (watch-list)" if e.initial else "")
            elif e.op == "watch":
                detail = f"from rv {e.rv or '(none)'}" + (", initial events" if e.initial else "")
            elif e.op == "error":
                detail = f"{e.during}: {e.code or ''} {e.reason} {e.message}".strip()
            elif e.op == "end":
                detail = e.reason
            rows.append((round(e.t, 3), format_offset(e.t), self.resources[e.r].key, what,
                         e.key, e.rv, detail))
        return pd.DataFrame(rows, columns=list(TIMELINE_COLUMNS))


def _parse(line: bytes, where: str, number: int) -> dict[str, Any]:
    try:
        value = decode_json(line)  # what the client accepted, the reader accepts
    except ValueError as exc:
        raise RecordingError(f"{where}, line {number}: not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise RecordingError(f"{where}, line {number}: expected a JSON object")
    return value


def _normalize(record: dict[str, Any], streams: list[_Stream], where: str,
               number: int) -> list[Entry]:
    op = record.get("op")
    r = record.get("r")
    if op not in OPS:
        raise RecordingError(f"{where}, line {number}: unknown op {op!r}")
    if not isinstance(r, int) or not 0 <= r < len(streams):
        raise RecordingError(f"{where}, line {number}: resource index {r!r} is not in the "
                             f"header")
    t = float(record.get("t") or 0.0)
    stream = streams[r]
    if op == "list":
        if not record.get("continue"):
            stream.pages, stream.page_rv = [], str(record.get("rv") or "")
        if stream.pages is None:
            return []  # a continuation without its first page
        stream.pages.extend(record.get("items") or [])
        if record.get("more"):
            return []
        items, stream.pages = stream.pages, None
        return [Entry(t, r, "list", rv=stream.page_rv, items=items)]
    if op == "watch":
        initial = bool(record.get("initial"))
        stream.streamed = {} if initial else None
        stream.pages = None
        return [Entry(t, r, "watch", rv=str(record.get("rv") or ""), initial=initial)]
    if op == "event":
        kind = str(record.get("type") or "")
        obj = record.get("object")
        if not isinstance(obj, dict):
            raise RecordingError(f"{where}, line {number}: an event without an object")
        rv = object_rv(obj)
        if kind == "BOOKMARK":
            if stream.streamed is not None and (
                    (obj.get("metadata") or {}).get("annotations") or {}).get(
                        INITIAL_EVENTS_END) == "true":
                items = list(stream.streamed.values())
                stream.streamed = None
                return [Entry(t, r, "list", rv=rv, items=items, initial=True)]
            return [Entry(t, r, "bookmark", rv=rv)]
        if kind not in ("ADDED", "MODIFIED", "DELETED"):
            raise RecordingError(f"{where}, line {number}: unknown event type {kind!r}")
        key = object_key(obj)
        if stream.streamed is not None:  # the initial events of a watch-list
            if kind == "DELETED":
                stream.streamed.pop(key, None)
            else:
                stream.streamed[key] = obj
            return []
        return [Entry(t, r, "event", type=kind, object=obj, key=key, rv=rv)]
    if op == "error":
        stream.streamed = None
        if record.get("during") == "list":
            stream.pages = None
        status = record.get("status")
        code = record.get("code")
        return [Entry(t, r, "error", during=str(record.get("during") or ""),
                      code=int(code) if isinstance(code, int) else None,
                      reason=str(record.get("reason") or ""),
                      message=str(record.get("message") or ""),
                      status=status if isinstance(status, dict) else None)]
    stream.streamed = None  # "end"
    return [Entry(t, r, "end", reason=str(record.get("reason") or ""))]


def fold(entries: Iterable[Entry], until: float | None = None
         ) -> dict[int, tuple[dict[str, dict[str, Any]], str]]:
    """Each resource's cache (key -> object) and last synced RV after the entries up to
    `until` seconds: lists replace, events add, update and delete, bookmarks move the RV."""
    states: dict[int, tuple[dict[str, dict[str, Any]], str]] = {}
    for e in entries:
        if until is not None and e.t > until:
            break
        objects, rv = states.get(e.r, ({}, ""))
        if e.op == "list":
            objects = {object_key(o): o for o in e.items or []}
            rv = e.rv
        elif e.op == "event":
            if e.type == "DELETED":
                objects.pop(e.key, None)
            else:
                assert e.object is not None
                objects[e.key] = e.object
            rv = e.rv
        elif e.op == "bookmark":
            rv = e.rv
        states[e.r] = (objects, rv)
    return states
