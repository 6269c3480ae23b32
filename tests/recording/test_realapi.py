"""The recording stitched from the real kube-apiserver's watch streams and lists
(tests/recording/make_realapi_recording.py) is what the repository ships, and it
replays exactly: the real events, bookmarks and 410 reach an informer as recorded."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from kubenb.recording import Recording
from tests.realapi import REALAPI
from tests.recording import make_realapi_recording as realapi
from tests.recording.support import assert_replayed, replay_through_informers


def test_the_committed_file_is_the_conversion_of_the_fixtures(tmp_path: Path) -> None:
    fresh = realapi.write(tmp_path / "fresh.jsonl.gz")
    assert gzip.decompress(fresh.read_bytes()) == gzip.decompress(
        realapi.OUTPUT.read_bytes()), "run python -m tests.recording.make_realapi_recording"
    assert realapi.OUTPUT.stat().st_size < 200_000


def test_its_final_state_is_what_the_real_server_listed_afterwards() -> None:
    rec = Recording.read(realapi.OUTPUT)
    after = [json.loads(line)["object"] for line in (
        REALAPI / "watch" / "no-resourceversion-initial-state.jsonl").read_bytes().splitlines()]

    def bare(obj: dict) -> dict:  # list items come without kind and apiVersion
        return {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}

    final = rec.final_state("configmaps")
    assert {k: bare(v) for k, v in final.items()} == {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": bare(o) for o in after}
    assert rec.header["server_version"]["gitVersion"] == "v1.32.13"
    errors = [e for e in rec.entries if e.op == "error"]
    assert [(e.code, e.reason) for e in errors] == [(410, "Expired")]


def test_it_replays_exactly_through_informers(tmp_path: Path) -> None:
    original = Recording.read(realapi.OUTPUT)
    run = replay_through_informers(realapi.OUTPUT, tmp_path / "out.jsonl.gz")

    assert_replayed(run.recording, original, 0)  # configmaps: every entry
    # pods: the same objects; listed at the server's revision when the informer listed
    # (several resources share one revision counter: see kubenb.server.replay)
    (pods_list,) = [e for e in run.recording.entries if e.r == 1 and e.op == "list"]
    (recorded,) = [e for e in original.entries if e.r == 1 and e.op == "list"]
    assert pods_list.items == recorded.items
    assert int(pods_list.rv) <= int(recorded.rv)
    assert run.caches == [original.final_state(0), original.final_state(1)]
    assert run.reflector_stats[0]["gone"] == 1 and run.reflector_stats[0]["lists"] == 2
