"""Recording: what the flight recorder costs the informer it rides on.

The same stream of E MODIFIED pod events (replayed byte for byte by a separate process,
as in bench_informer) is watched by a kubenb informer handing every event to a handler,
once with a `Recorder` on its ListerWatcher (kubenb.recording) and once without, in the
same run, interleaved, at least five rounds even with --quick (one round on a shared
machine is noise). The recorded run's time includes closing the recording (the last
batch compressed and written). Target: recording costs at most 10% (>= 0.9x).

What it costs: on the informer's thread, copying each event's line (as the server sent
it) into a buffer; on the recorder's thread, gzip (level 1), which releases the GIL and
runs on another CPU when one is free. On a machine whose CPUs are all busy, the
compression's CPU time shows in this ratio.
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path

from benchmarks.bench_informer import make_stream, replay_process
from benchmarks.harness import Result, compare
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import config_from_dict
from kubenb.client.dynamic import DynamicClient
from kubenb.recording import Recorder, Recording, ResourceSpec

PODS = ResourceSpec("v1", "pods", "Pod", True, "default")


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    events = max(1000, int(50_000 * scale))
    with tempfile.TemporaryDirectory(prefix="kubenb-bench-") as tmp:
        stream = Path(tmp) / "stream.jsonl"
        make_stream(stream, events)
        output = Path(tmp) / "recorded.jsonl.gz"
        with replay_process(stream) as (url, _pid):
            dynamic = DynamicClient(config_from_dict({
                "clusters": [{"name": "r", "cluster": {"server": url}}],
                "users": [{"name": "r", "user": {}}],
                "contexts": [{"name": "r", "context": {"cluster": "r", "user": "r"}}],
                "current-context": "r"}))

            def watch(record: bool) -> None:
                seen = [0]
                done = threading.Event()

                def on_update(old: object, new: object) -> None:
                    seen[0] += 1
                    if seen[0] == events:
                        done.set()

                list_watch = ListWatch.from_client(dynamic.resource("v1", "pods"),
                                                   namespace="default")
                recorder = None
                if record:
                    recorder = Recorder(output, [PODS]).start()
                    list_watch = recorder.list_watcher(0, list_watch)  # type: ignore[assignment]
                informer = SharedIndexInformer(list_watch)
                informer.add_event_handler(ResourceEventHandlerFuncs(
                    on_add=lambda obj: None, on_update=on_update))
                informer.start()
                assert done.wait(600)
                if recorder is not None:
                    recorder.stop()
                informer.stop()

            results = [compare(f"watch {events} events to a handler, recorded", events,
                               lambda: watch(True), "the same informer, not recorded",
                               lambda: watch(False), max(rounds, 5), target_ratio=0.9)]
            dynamic.rest.close()
        recorded = Recording.read(output)
        size = output.stat().st_size
        count = sum(1 for e in recorded.entries if e.op == "event")
        print(f"recording: {count} events in {size / 1024:.0f} KiB on disk "
              f"({size / max(count, 1):.0f} bytes per event; a pod is "
              f"{stream.stat().st_size / events:.0f} bytes of JSON)\n")
    return results
