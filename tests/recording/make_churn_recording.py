"""Make notebooks/data/churn-pods.jsonl.gz: a minute of pod lifecycles, recorded.

    python -m tests.recording.make_churn_recording

An embedded server's churn generator (kubenb.server.churn) creates, updates and deletes
pods in namespace "shop", and the cluster's simulated kubelet (kubenb.controllermanager) moves
each new pod from Pending to bound to Running. `Cluster.record` records what an informer
of those pods receives. Recording time runs on a FakeClock stepped one second at a time, and each
step waits until the informer has received everything, so the file reads as a tidy
minute: a churn operation every other second, a kubelet delay of two seconds. At
00:20 every watch is dropped (the informer resumes); at 00:40 a resume is held back
while history is compacted (the informer gets 410 Expired and relists).

uids, timestamps and IPs differ from run to run; names, order and resourceVersions
follow from the seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubenb.clock import FakeClock
from kubenb.cluster import connect
from kubenb.controllermanager import ControllerManager
from kubenb.server import EmbeddedServer
from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "notebooks" / "data" / "churn-pods.jsonl.gz"
NAMESPACE = "shop"


def _server_pods(server: EmbeddedServer) -> dict[str, str]:
    items, _ = server.storage.list("pods", NAMESPACE)
    return {f"{NAMESPACE}/{p['metadata']['name']}": p["metadata"]["resourceVersion"]
            for p in items}


def write(path: Path = OUTPUT, seconds: int = 60, seed: int = 7) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    clock = FakeClock()
    with EmbeddedServer(bookmark_interval=1e9) as server:
        churn = server.churn(rate=0, kinds=("pods",), namespaces=(NAMESPACE,), seed=seed,
                             max_objects=6, clock=clock)
        kubelet = ControllerManager(server.kubeconfig_path, {"kubelet"}, clock=clock,
                                    kubelet={"start_delay": 2.0}).start()
        churn.run(3)  # a few pods before recording starts
        kubelet.wait_idle()
        cluster = connect(server.kubeconfig_path)
        try:
            recorder = cluster.record("pods", path, namespace=NAMESPACE, clock=clock,
                                      flush_interval=0.05)
            informer = cluster.informer("pods", namespace=NAMESPACE)
            reflector = informer.get_controller().reflector  # type: ignore[union-attr]

            def cached() -> dict[str, Any]:
                indexer = informer.get_indexer()
                return {k: indexer.get_by_key(k)["metadata"]["resourceVersion"]
                        for k in indexer.list_keys()}

            def settle() -> None:
                wait_until(lambda: cached() == _server_pods(server), 30,
                           what="the informer to catch up")

            for second in range(1, seconds + 1):
                clock.step(1.0)
                if second % 2:
                    churn.run(1)
                kubelet.wait_idle()  # the kubelet does what is due at this second
                if second == 20:
                    resumes = reflector.stats().get("resumes", 0)
                    server.drop_watches()
                    wait_until(lambda r=resumes: reflector.stats().get("resumes", 0) > r,
                               what="the resume")
                if second == 40:
                    lists = reflector.stats()["lists"]
                    server.faults.latency(30.0, verb="watch")
                    server.drop_watches()
                    wait_until(lambda: server.faults.stats()["delayed"] >= 1,
                               what="the resume held back")
                    churn.run(1)  # happens while the informer is not watching
                    server.compact()
                    server.faults.clear()
                    wait_until(lambda n=lists: reflector.stats()["lists"] > n, 30,
                               what="the relist after 410")
                settle()
            recorder.stop()
        finally:
            cluster.close()
            kubelet.stop()
    return path


if __name__ == "__main__":
    written = write()
    print(f"wrote {written} ({written.stat().st_size} bytes)")
