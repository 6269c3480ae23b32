"""The flight recorder: what informers received from a cluster, written to one file.

`Cluster.record(resources, path)` (or `python -m kubenb record`) rides on informers
and writes their lists, watch events, bookmarks, errors and watch ends, with arrival
times, to a JSON-lines file (gzip-compressed unless compresslevel=0).
`Recording.read(path)` reads it back (also a file cut short by a crash), and
`kubenb.embedded(replay=path)` replays it through the embedded API server
(kubenb.server.replay). docs/recording.md explains it.
"""

from kubenb.recording.format import (
    FORMAT,
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
from kubenb.recording.recorder import Recorder, RecordingListerWatcher, RecordingWatch
from kubenb.recording.redact import REDACTED, Redactor, parse_field_path

__all__ = [
    "FORMAT",
    "REDACTED",
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

