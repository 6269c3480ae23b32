"""The pod-lifecycle recording the repository ships (notebooks/data/churn-pods.jsonl.gz,
made by tests/recording/make_churn_recording.py) has what the notebook teaches with,
replays exactly, and the script that makes it still does."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubenb.recording import Recording
from tests.recording import make_churn_recording as churn
from tests.recording.support import assert_replayed, replay_through_informers


def _faults(rec: Recording) -> list[tuple[float, str, object]]:
    return [(e.t, e.op, e.code if e.op == "error" else e.reason) for e in rec.entries
            if e.op in ("end", "error")]


@pytest.mark.slow
def test_the_script_records_a_minute_with_a_dropped_watch_and_a_410(tmp_path: Path) -> None:
    rec = Recording.read(churn.write(tmp_path / "churn.jsonl.gz", seconds=45))
    assert rec.complete and rec.duration == 45.0
    assert _faults(rec) == [(20.0, "end", "closed"), (40.0, "end", "closed"),
                            (40.0, "error", 410)]
    ops = [e.op for e in rec.entries]
    assert ops.count("list") == 2 and ops[ops.index("error") + 1] == "list"
    phases = {e.object["status"]["phase"] for e in rec.entries if e.op == "event"}
    assert phases == {"Pending", "Running"}


def test_the_committed_sample_replays_exactly(tmp_path: Path) -> None:
    assert churn.OUTPUT.stat().st_size < 200_000
    original = Recording.read(churn.OUTPUT)
    assert _faults(original) == [(20.0, "end", "closed"), (40.0, "end", "closed"),
                                 (40.0, "error", 410)]
    run = replay_through_informers(churn.OUTPUT, tmp_path / "out.jsonl.gz")
    assert_replayed(run.recording, original)
    assert run.caches == [original.final_state()]
