"""The recording file: header, lines, reading back (also cut short), and redaction."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb.recording import (
    REDACTED,
    REDACTED_BASE64,
    TIMELINE_COLUMNS,
    Recording,
    RecordingError,
    Redactor,
    ResourceSpec,
    format_offset,
    parse_field_path,
    parse_offset,
)
from tests.realapi import REALAPI
from tests.recording.support import CONFIGMAPS, STARTED, configmap, write_recording

SECRETS = ResourceSpec("v1", "secrets", "Secret", True, "default")


def _records() -> list[dict]:
    def listed(name: str, rv: int) -> dict:
        return configmap(name, rv, "1", listed=True)

    bookmark = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"resourceVersion": "25"}}
    return [
        {"t": 0.01, "r": 0, "op": "list", "rv": "20", "items": [listed("a", 11), listed("b", 12)],
         "more": True, "continue": False},
        {"t": 0.02, "r": 0, "op": "list", "rv": "20", "items": [listed("c", 13)],
         "more": False, "continue": True},
        {"t": 0.03, "r": 0, "op": "watch", "rv": "20"},
        {"t": 1.50, "r": 0, "op": "event", "type": "MODIFIED", "object": configmap("a", 21, "2")},
        {"t": 2.00, "r": 0, "op": "event", "type": "DELETED", "object": configmap("b", 22, "1")},
        {"t": 3.00, "r": 0, "op": "event", "type": "BOOKMARK", "object": bookmark},
        {"t": 4.00, "r": 0, "op": "end", "reason": "closed"},
    ]


def test_pages_join_into_one_list_and_state_folds(tmp_path: Path) -> None:
    rec = Recording.read(write_recording(tmp_path / "r.jsonl.gz", [CONFIGMAPS], _records()))
    assert rec.complete and rec.stop_reason == "stopped"
    assert [e.op for e in rec.entries] == ["list", "watch", "event", "event", "bookmark", "end"]
    first = rec.entries[0]
    assert first.rv == "20" and [i["metadata"]["name"] for i in first.items] == ["a", "b", "c"]
    assert first.t == 0.02, "a list arrives with its last page"
    assert sorted(rec.objects_at(1.0)) == ["default/a", "default/b", "default/c"]
    assert rec.objects_at("00:01.5")["default/a"]["data"] == {"v": "2"}
    assert sorted(rec.final_state()) == ["default/a", "default/c"]
    assert rec.resource_version_at(2.5) == "22" and rec.resource_version_at() == "25"
    assert rec.started == dt.datetime.fromtimestamp(STARTED, dt.timezone.utc)
    # the same instant, five ways
    moment = rec.started + dt.timedelta(seconds=1.5)
    for when in (1.5, "00:01.5", "0:00:01.5", dt.timedelta(seconds=1.5), moment):
        assert rec.time_of(when) == pytest.approx(1.5)
    frame = rec.state_at("00:01.6")
    assert frame["NAME"].tolist() == ["a", "b", "c"] and "DATA" in frame.columns
    timeline = rec.timeline()
    assert timeline["what"].tolist() == ["list", "watch", "MODIFIED", "DELETED", "bookmark",
                                         "end"]
    assert timeline["key"].tolist()[2:4] == ["default/a", "default/b"]


def _documented_timeline_columns() -> list[str]:
    """The column names of the timeline table in docs/recording.md, in order."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "recording.md").read_text()
    table = doc.split("| column | what it holds |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s*\| `([^`]+)` \|", table, flags=re.MULTILINE)


def test_the_timeline_has_the_documented_columns(tmp_path: Path) -> None:
    records = [*_records(),
               {"t": 4.5, "r": 0, "op": "error", "during": "watch-open", "code": 500,
                "reason": "InternalError", "message": "boom"}]
    rec = Recording.read(write_recording(tmp_path / "r.jsonl.gz", [CONFIGMAPS], records))
    timeline = rec.timeline()
    assert list(timeline.columns) == list(TIMELINE_COLUMNS) == _documented_timeline_columns()
    rows = timeline.to_dict("records")
    assert rows[0] == {"t": 0.02, "time": "00:00.020", "resource": "configmaps",
                       "what": "list", "key": "", "resourceVersion": "20",
                       "detail": "3 objects"}
    assert rows[1]["detail"] == "from rv 20" and rows[1]["resourceVersion"] == "20"
    assert (rows[2]["what"], rows[2]["key"], rows[2]["resourceVersion"]) == (
        "MODIFIED", "default/a", "21")
    assert (rows[4]["what"], rows[4]["resourceVersion"]) == ("bookmark", "25")
    assert (rows[5]["what"], rows[5]["detail"]) == ("end", "closed")
    assert (rows[6]["what"], rows[6]["detail"]) == ("error", "watch-open: 500 InternalError boom")
    assert rec.timeline("configmaps").equals(timeline)


@settings(max_examples=40, deadline=None)
@given(cut=st.floats(min_value=0.0, max_value=1.0))
def test_a_file_cut_anywhere_reads_up_to_its_last_complete_line(
        tmp_path_factory: pytest.TempPathFactory, cut: float) -> None:
    """What a crash leaves: a gzip stream cut at any byte. Every line before the cut that
    decompresses whole is read; the header must survive for the file to be a recording."""
    folder = tmp_path_factory.mktemp("cut")
    full = write_recording(folder / "full.jsonl.gz", [CONFIGMAPS], _records()).read_bytes()
    all_lines = gzip.decompress(full).split(b"\n")
    data = full[:int(len(full) * cut)]
    path = folder / "cut.jsonl.gz"
    path.write_bytes(data)
    try:
        rec = Recording.read(path)
    except RecordingError as exc:
        assert "empty" in str(exc) or "not JSON" in str(exc)
        return
    whole = Recording.read(folder / "full.jsonl.gz")
    assert rec.lines <= len(all_lines)
    if rec.complete:  # only the gzip footer was lost: every line is there
        assert len(rec.entries) == len(whole.entries)
    # a prefix of the entries, never a damaged one
    assert [e.signature() for e in rec.entries] == [
        e.signature() for e in whole.entries[:len(rec.entries)]]


def test_a_flushed_file_without_its_end_is_readable(tmp_path: Path) -> None:
    """The writer's sync flush makes everything written so far decodable on its own."""
    from kubenb.recording import RecordingWriter, encode_line, make_header

    path = tmp_path / "open.jsonl.gz"
    writer = RecordingWriter(path, make_header([CONFIGMAPS]))
    for record in _records()[:4]:
        writer.write(encode_line(record))
    writer.flush()
    rec = Recording.read(path)  # while the writer still has it open
    assert not rec.complete and rec.stop_reason == "truncated"
    assert [e.op for e in rec.entries] == ["list", "watch", "event"]
    writer.close()


def test_plain_json_lines_and_bad_files(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    header = {"format": "kubenb-recording", "version": 1, "started": "2026-11-22T11:43:40Z",
              "resources": [CONFIGMAPS.to_dict()]}
    plain.write_text("\n".join(json.dumps(x) for x in [header, *_records()]) + "\n")
    assert len(Recording.read(plain).entries) == 6
    with pytest.raises(RecordingError, match="no recording at"):
        Recording.read(tmp_path / "missing.jsonl.gz")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(RecordingError, match="empty"):
        Recording.read(empty)
    other = tmp_path / "other.jsonl"
    other.write_text('{"kind": "Pod"}\n')
    with pytest.raises(RecordingError, match="not a kubenb recording"):
        Recording.read(other)
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps(dict(header, version=99)) + "\n")
    with pytest.raises(RecordingError, match="version 99"):
        Recording.read(newer)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(json.dumps(header) + "\n" + '{"t": 0, "r": 5, "op": "watch"}\n')
    with pytest.raises(RecordingError, match=r"line 2: resource index 5"):
        Recording.read(wrong)
    rec = Recording.read(plain)
    with pytest.raises(RecordingError, match="no resource 'pods'"):
        rec.state_at(None, "pods")
    with pytest.raises(RecordingError, match="not a time"):
        rec.time_of("soon")


def test_a_watch_list_stream_reads_as_a_list() -> None:
    """The real apiserver's streaming list (fixture): its initial events and the
    initial-events-end bookmark become one list; the live events after it stay events."""
    stream = REALAPI / "watch" / "watchlist-sendinitialevents.jsonl"
    meta = json.loads((REALAPI / "watch" / "watchlist-sendinitialevents.meta.json").read_text())
    times = [e["completed_at_ms"] / 1000 for e in meta["response"]["events"]]
    lines = [json.dumps({"format": "kubenb-recording", "version": 1, "started": "x",
                         "started_unix": STARTED, "resources": [CONFIGMAPS.to_dict()]}).encode(),
             b'{"t": 0.0, "r": 0, "op": "watch", "rv": "", "initial": true}']
    for t, line in zip(times, stream.read_bytes().splitlines(), strict=True):
        event = json.loads(line)
        lines.append(json.dumps({"t": t, "r": 0, "op": "event", **event}).encode())
    rec = Recording.from_lines(lines)
    ops = [(e.op, e.type or e.rv) for e in rec.entries]
    assert ops == [("watch", ""), ("list", "377"), ("event", "ADDED"), ("bookmark", "378")]
    listed = rec.entries[1]
    assert listed.initial and sorted(o["metadata"]["name"] for o in listed.items) == [
        "w-2", "w-3", "w-other"]
    assert sorted(rec.final_state()) == ["kubenb-watch/w-2", "kubenb-watch/w-3",
                                         "kubenb-watch/w-4", "kubenb-watch/w-other"]


def test_offsets() -> None:
    assert parse_offset("02:13") == 133.0
    assert parse_offset("1:02:13.5") == 3733.5
    assert parse_offset("75") == 75.0
    assert format_offset(133.25) == "02:13.250"
    assert format_offset(3733.5) == "1:02:13.500"


# -- redaction --------------------------------------------------------------------------------


def _secret() -> dict:
    return {"kind": "Secret", "apiVersion": "v1",
            "metadata": {"name": "db", "namespace": "default", "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": '{"data":{"pw":"czNjcjN0"}}',
                "team": "x"}},
            "data": {"pw": "czNjcjN0", "user": "YWRtaW4="}, "stringData": {"token": "t0k3n"},
            "type": "Opaque"}


def test_secret_values_are_redacted_by_default_and_the_original_is_untouched() -> None:
    secret = _secret()
    before = json.dumps(secret, sort_keys=True)
    redact = Redactor().for_resource(SECRETS)
    assert redact is not None
    out = redact(secret)
    assert out["data"] == {"pw": REDACTED_BASE64, "user": REDACTED_BASE64}
    assert base64.b64decode(REDACTED_BASE64, validate=True) == REDACTED.encode()
    assert out["stringData"] == {"token": REDACTED}
    annotations = out["metadata"]["annotations"]
    assert annotations["kubectl.kubernetes.io/last-applied-configuration"] == REDACTED
    assert annotations["team"] == "x" and out["type"] == "Opaque"
    assert json.dumps(secret, sort_keys=True) == before, "the informer's object changed"
    assert "czNjcjN0" not in json.dumps(out)
    assert Redactor(secrets=False).for_resource(SECRETS) is None
    assert Redactor().for_resource(CONFIGMAPS) is None, "nothing to do: no cost"


def test_named_fields_are_redacted_everywhere_they_are() -> None:
    pod = {"metadata": {"name": "p", "annotations": {"example.com/token": "abc", "keep": "1"}},
           "spec": {"containers": [{"name": "a", "env": [{"name": "PW", "value": "x"}]},
                                   {"name": "b"}]}}
    redact = Redactor(["spec.containers.env", r"metadata.annotations.example\.com/token",
                       ("status", "podIP")]).for_resource(CONFIGMAPS)
    assert redact is not None
    out = redact(pod)
    assert out["spec"]["containers"][0]["env"] == REDACTED
    assert "env" not in out["spec"]["containers"][1]
    assert out["metadata"]["annotations"] == {"example.com/token": REDACTED, "keep": "1"}
    assert "status" not in out
    assert pod["spec"]["containers"][0]["env"][0]["value"] == "x"
    assert parse_field_path(r"a.b\.c") == ("a", "b.c")
    with pytest.raises(RecordingError, match="field path"):
        parse_field_path("a..b")
