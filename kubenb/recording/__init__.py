"""The flight recorder: what informers received from a cluster, written to one file.

`Cluster.record(resources, path)` (or `python -m kubenb record`) rides on informers
and writes their lists, watch events, bookmarks, errors and watch ends, with arrival
times, to a JSON-lines file (gzip-compressed unless compresslevel=0).
`Recording.read(path)` reads it back (also a file cut short by a crash), and
`kubenb.embedded(replay=path)` or `kubenb serve --replay` replays it through the
embedded API server (kubenb.server.replay), creating the CustomResourceDefinitions
recorded with custom resources (definitions.py). commands.py holds the command line's
arguments and progress line. docs/recording.md explains it all.

The file format (format.py) stands on its own: the API server reads recordings with it
and must not import the client that the recorder rides on. So the recorder's names are
loaded here on first use, and `import kubenb.recording.format` loads nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kubenb.recording.format import (
    FORMAT,
    TIMELINE_COLUMNS,
    VERSION,
    Entry,
    Recording,
    RecordingError,
    RecordingWriter,
    ResourceSpec,
    encode_line,
    fold,
    format_offset,
    make_header,
    object_key,
    parse_offset,
)
from kubenb.recording.redactor import REDACTED, REDACTED_BASE64, Redactor, parse_field_path

if TYPE_CHECKING:
    from kubenb.recording.recorder import Recorder, RecordingListerWatcher, RecordingWatch

_RECORDER_NAMES = frozenset({"Recorder", "RecordingListerWatcher", "RecordingWatch"})


def __getattr__(name: str) -> Any:
    if name in _RECORDER_NAMES:
        return getattr(importlib.import_module("kubenb.recording.recorder"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "FORMAT",
    "REDACTED",
    "REDACTED_BASE64",
    "TIMELINE_COLUMNS",
    "VERSION",
    "Entry",
    "Recorder",
    "Recording",
    "RecordingError",
    "RecordingListerWatcher",
    "RecordingWatch",
    "RecordingWriter",
    "Redactor",
    "ResourceSpec",
    "encode_line",
    "fold",
    "format_offset",
    "make_header",
    "object_key",
    "parse_field_path",
    "parse_offset",
]

