"""A replay waits for clients of every recorded resource: it says so where the user looks
(a logged warning after `warn_after` seconds of its clock, its `state`), and
`resources=` replays only the resources that are watched."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import kubenb
from kubenb.clock import FakeClock
from kubenb.recording import Recording, RecordingError
from tests.helpers import wait_until
from tests.recording.support import DEPLOYMENTS, two_resources


def test_a_replay_waiting_for_clients_warns_after_a_while_and_says_so_in_its_state(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    with caplog.at_level(logging.WARNING, logger="kubenb.server.replay"), kubenb.embedded(
            replay=two_resources(tmp_path), speed=None,
            replay_options={"clock": clock, "warn_after": 5.0}) as cluster:
        replay = cluster.replay
        informer = cluster.informer("configmaps", namespace="default")  # configmaps only
        assert informer.last_sync_resource_version() == "50"
        assert replay.waiting_for == ["deployments.apps"]
        assert replay.state == "waiting for clients of deployments.apps"
        assert replay.progress()["state"] == replay.state
        wait_until(clock.has_waiters, what="the replay waiting on its clock")
        clock.step(4.9)
        assert not replay.warned and not caplog.records
        clock.step(0.2)
        wait_until(lambda: replay.warned, what="the warning")
        (record,) = [r for r in caplog.records if r.name == "kubenb.server.replay"]
        message = record.getMessage()
        assert record.levelno == logging.WARNING
        assert "waited 5s for clients of deployments.apps" in message
        assert "resources=['configmaps']" in message
        assert not replay.playing and replay.position == 0.0
        cluster.informer("deployments", namespace="default")  # the last one: it plays
        assert replay.wait(10), replay
        assert replay.state == "done" and replay.waiting_for == []


def test_resources_replays_only_the_watched_ones(tmp_path: Path) -> None:
    path = two_resources(tmp_path)
    with kubenb.embedded(replay=path, speed=None,
                         replay_options={"resources": ["configmaps"]}) as cluster:
        replay = cluster.replay
        assert [r.key for r in replay.recording.resources] == ["configmaps"]
        informer = cluster.informer("configmaps", namespace="default")
        assert replay.wait(10), replay  # no deployments client needed
        wait_until(lambda: (informer.get_indexer().get_by_key("default/a") or {}).get(
            "data") == {"v": "2"}, what="the replayed MODIFIED")
        assert replay.state == "done"
    with pytest.raises(RecordingError, match="no resource 'pods'"):
        kubenb.embedded(replay=path, replay_options={"resources": ["pods"]})


def test_select_keeps_the_entries_of_the_chosen_resources_renumbered(tmp_path: Path) -> None:
    recording = Recording.read(two_resources(tmp_path))
    only = recording.select(["Deployment"])
    assert [r.key for r in only.resources] == ["deployments.apps"]
    assert [(e.r, e.op) for e in only.entries] == [(0, "list"), (0, "watch")]
    assert only.header["resources"] == [DEPLOYMENTS.to_dict()]
    assert len(recording.resources) == 2, "the original is unchanged"
    with pytest.raises(RecordingError, match="at least one"):
        recording.select([])
