"""benchmarks/harness.py: the best-of-rounds ratio, and the spread of single rounds."""

from __future__ import annotations

import pytest

from benchmarks.harness import Result, compare, format_table


@pytest.mark.slow  # a full collection per round: seconds in a worker with a big heap
def test_compare_keeps_the_best_times_and_each_rounds_ratio() -> None:
    calls: list[str] = []
    result = compare("work", 10, lambda: calls.append("k"), "base",
                     lambda: calls.append("b"), rounds=3, target_ratio=0.5)
    assert calls == ["k", "b"] * 3  # interleaved, kubenb first in each round
    assert len(result.round_ratios) == 3
    assert all(r > 0 for r in result.round_ratios)
    assert result.kubenb_seconds > 0 and result.baseline_seconds > 0


def test_the_table_shows_the_spread_of_rounds_and_the_target() -> None:
    spread = Result("watch", 100, 2.0, "raw", 1.5, 0.7, (0.59, 0.75, 0.68))
    single = Result("list", 100, 1.0, "raw", 1.0, None, (1.0,))
    table = format_table([spread, single])
    header, _, spread_row, single_row = table.splitlines()
    assert "rounds" in header
    assert "0.75x" in spread_row and "0.59x-0.75x" in spread_row
    assert spread_row.endswith(">= 0.70x ok")
    assert "1.00x" in single_row and single_row.split()[-2:] == ["-", "-"]


def test_a_missed_target_says_so() -> None:
    missed = Result("watch", 100, 2.0, "raw", 1.0, 0.7, (0.5, 0.45))
    assert missed.meets_target is False
    assert format_table([missed]).splitlines()[-1].endswith(">= 0.70x MISSED")


def test_the_fault_check_times_one_fault_per_page_at_each_size() -> None:
    from benchmarks import fault_check

    assert fault_check.touch(4) > 0
    row = fault_check.result(4, 8, rounds=2)
    assert "8 MB vs 4 MB" in row.name and "no kubenb code" in row.name
    assert len(row.round_ratios) == 2 and all(r > 0 for r in row.round_ratios)
    assert row.target_ratio is None  # a control: it describes the machine, not kubenb


@pytest.mark.slow
def test_the_real_pod_watch_rows_deliver_every_update(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The extra rows over real v1.32 pods: the replay serves pods with managedFields,
    and both informers (defaults, stripped) hand every update to their handler (each
    run waits for the last one)."""
    from benchmarks import bench_watch
    from benchmarks.bench_memory import realapi_pods

    assert all(pod["metadata"].get("managedFields") for pod in realapi_pods(4))
    rows = bench_watch.real_pod_results(tmp_path, events=60, cached=12, rounds=1)
    assert [row.name.rsplit(", 1 handler", 1)[1] for row in rows] == [
        "", ", transform_strip_managed_fields()"]
    assert all("60 updates of real v1.32 pods" in row.name for row in rows)
    assert all(len(row.round_ratios) == 1 and row.round_ratios[0] > 0 for row in rows)
    assert all(row.target_ratio is None for row in rows)
    assert list(tmp_path.glob("real-pod-updates*")) == []  # its files are removed


@pytest.mark.slow
def test_the_handoff_check_keeps_what_one_thread_keeps() -> None:
    from benchmarks import handoff_check

    lines = [b'{"type":"MODIFIED","object":{"metadata":{"name":"p%d","resourceVersion":"%d"}}}'
             % (i % 7, i) for i in range(500)]
    expected = handoff_check.one_thread(lines)
    assert handoff_check.two_threads(lines) == expected  # nothing lost, the last one wins
    assert handoff_check.two_threads(lines, batch=1) == expected
    rows = handoff_check.results(lines, rounds=3)
    assert rows and all("no kubenb code" in row.name for row in rows)
    assert all(len(row.round_ratios) == 3 and row.target_ratio is None for row in rows)


@pytest.mark.slow
def test_the_recording_parts_each_run_the_whole_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """benchmarks/recording_parts.py: every recorder step watches the whole stream (each
    run waits for its last update), and the steps that write keep what they say."""
    from benchmarks import recording_parts
    from benchmarks.bench_recording import firehose, interleaved
    from kubenb.recording import Recording

    with firehose(120) as (_folder, _stream, dynamic):
        (tmp_path / "memory").mkdir()
        steps = recording_parts.paths(tmp_path, tmp_path / "memory")
        runs = interleaved(dynamic, 120, 1, steps)
        assert list(runs) == list(steps) and all(len(times) == 1 for times in runs.values())
        assert all(wall > 0 and cpu > 0 for (wall, cpu, _), in runs.values())
    # each run ends at its handler's 120th update; the replay server starts its stream
    # again for the Reflector's next watch, so a recorder may see more before stop()
    for name in ("plain.jsonl", "gzip.jsonl.gz"):
        assert sum(1 for e in Recording.read(tmp_path / name).entries
                   if (e.op, e.type) == ("event", "MODIFIED")) >= 120
    unframed = (tmp_path / "unframed").read_bytes().split(b"\n")
    assert sum(line.startswith(b'{"type":"MODIFIED"') for line in unframed) >= 120
    framed = next((tmp_path / "memory").iterdir()).read_bytes()
    assert framed.count(b'"op":"event","type":"MODIFIED"') >= 120
    for nothing_kept in ("tap", "queued"):  # the header and the trailer, no event
        assert b"MODIFIED" not in (tmp_path / nothing_kept).read_bytes()


@pytest.mark.slow
def test_the_real_cluster_rows_run_end_to_end_and_clean_up(capsys) -> None:  # type: ignore[no-untyped-def]
    """benchmarks/real_cluster.py against the embedded server (a real HTTP server, the
    official client included): every row runs on the history it wrote, the informer
    rows count the same events as the raw reader, and the namespace is gone after."""
    from benchmarks import real_cluster
    from benchmarks.server_process import server_process
    from kubenb.client.config import load_config
    from kubenb.client.dynamic import DynamicClient

    with server_process(0) as server:
        assert real_cluster.main(["--kubeconfig", server.kubeconfig, "--pods", "12",
                                  "--events", "15", "--rounds", "1"]) == 0
        out = capsys.readouterr().out
        rows = [line for line in out.splitlines() if line.startswith("real: ")]
        assert len(rows) == 20
        assert sum("12 pods" in row for row in rows) == 4
        assert sum("15 updates" in row for row in rows) == 11
        assert sum("transform_strip_managed_fields()" in row for row in rows) == 3
        assert sum("12 new keys" in row for row in rows) == 4
        namespace = out.split("namespace='", 1)[1].split("'", 1)[0]
        dynamic = DynamicClient(load_config(server.kubeconfig))
        phase = [ns["status"].get("phase") for ns in
                 dynamic.resource("v1", "namespaces").list()["items"]
                 if ns["metadata"]["name"] == namespace]
        assert phase in ([], ["Terminating"])  # deleted (the cluster's controller finishes it)
        dynamic.rest.close()


#: Stands in for the realapi probe (client-go's informer, which CI cannot build): the
#: same command line and SYNCED line, a kubenb informer inside, and the WatchListClient
#: gate it was given written down, so the test sees which mode each row asked for.
_STAND_IN_PROBE = '''
import json, os, sys, time
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
gate = os.environ.get("KUBE_FEATURE_WatchListClient", "")
with open(os.environ["STAND_IN_GATES"], "a") as out:
    out.write(gate + "\\n")
pods = DynamicClient(load_config(args["-kubeconfig"])).resource("v1", args["-resource"])
informer = SharedIndexInformer(ListWatch.from_client(pods, namespace=args["-namespace"]),
                               use_watch_list=gate == "true").start()
while not informer.has_synced():
    time.sleep(0.01)
print(json.dumps({"type": "SYNCED", "items": len(informer.get_indexer().list_keys())}),
      flush=True)
time.sleep(60)  # the harness ends it once synced, as it does the real probe
'''


@pytest.mark.slow
def test_the_client_go_rows_run_the_probe_paged_and_with_watch_list(
        tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """--client-go PROBE: the sync row against the probe's paged list, and the probe's own
    watch-list against its paged list (the WatchListClient gate in its environment)."""
    import os
    import stat
    import sys
    from pathlib import Path

    from benchmarks import real_cluster
    from benchmarks.server_process import server_process

    probe = tmp_path / "probe"
    probe.write_text(f"#!{sys.executable}\n{_STAND_IN_PROBE}")
    probe.chmod(probe.stat().st_mode | stat.S_IEXEC)
    gates = tmp_path / "gates"
    monkeypatch.setenv("STAND_IN_GATES", str(gates))
    root = str(Path(__file__).resolve().parent.parent)  # kubenb, installed or not
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        filter(None, [root, os.environ.get("PYTHONPATH")])))
    with server_process(0) as server:
        assert real_cluster.main(["--kubeconfig", server.kubeconfig, "--pods", "6",
                                  "--events", "3", "--rounds", "1", "--only", "sync",
                                  "--client-go", str(probe)]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.startswith("real: ")]
    assert len(rows) == 7
    assert "client-go informer (exec)" in rows[5]
    assert "WatchListClient" in rows[6] and "client-go informer, paged list" in rows[6]
    # one paged probe run for row 6, and a paged and a watch-list one for row 7
    assert sorted(gates.read_text().split()) == ["false", "false", "true"]


@pytest.mark.slow
def test_a_run_waits_for_an_earlier_runs_namespace_still_being_deleted(capsys) -> None:  # type: ignore[no-untyped-def]
    """The cluster deletes a run's pods after the run (100k pods: ~20 minutes), which
    loads the server: the next run waits for that, and names what was left behind."""
    from benchmarks import real_cluster
    from benchmarks.server_process import server_process
    from kubenb.client.config import load_config
    from kubenb.client.dynamic import DynamicClient

    with server_process(0) as server:
        dynamic = DynamicClient(load_config(server.kubeconfig))
        namespaces = dynamic.resource("v1", "namespaces")
        namespaces.create({"metadata": {"name": "kubenb-bench-deleting",
                                        "finalizers": ["example.com/hold"]}})
        namespaces.delete("kubenb-bench-deleting")  # Terminating while the finalizer holds
        namespaces.create({"metadata": {"name": "kubenb-bench-kept"}})
        namespaces.create({"metadata": {"name": "someone-else"}})

        assert real_cluster.wait_for_earlier_runs(dynamic, timeout=0) == [
            "kubenb-bench-deleting", "kubenb-bench-kept"]
        out = capsys.readouterr().out
        assert "still being deleted after 0 s, measuring anyway: kubenb-bench-deleting" in out
        assert "left behind by earlier runs" in out and "someone-else" not in out

        sleeps: list[float] = []

        def deletion_finishes(seconds: float) -> None:  # in place of time.sleep
            sleeps.append(seconds)
            namespaces.patch("kubenb-bench-deleting",
                             {"metadata": {"finalizers": None}}, patch_type="merge")

        assert real_cluster.wait_for_earlier_runs(
            dynamic, timeout=60, poll=0.5, sleep=deletion_finishes) == ["kubenb-bench-kept"]
        assert sleeps == [0.5]
        out = capsys.readouterr().out
        assert "waiting for earlier runs' namespaces to be deleted" in out
        assert "kubenb-bench-deleting" in out and "measuring anyway" not in out
        dynamic.rest.close()
