"""The Job controller over real HTTP: completions and parallelism, failures and
backoffLimit, the failure backoff and activeDeadlineSeconds on the clock, and
`kubectl wait --for=condition=complete`."""

from __future__ import annotations

import json
from typing import Any

from kubenb.clock import FakeClock
from kubenb.cluster import Cluster
from tests.controllermanager.conftest import eventually, settle, step
from tests.helpers import Kubectl, needs_kubectl


def job(name: str = "pi", command: str = "sleep 5", restart: str = "Never",
        **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"restartPolicy": restart, "containers": [
                {"name": "main", "image": "busybox", "command": ["sh", "-c", command]}]}},
                     **spec}}


def job_status(cluster: Cluster, name: str = "pi") -> dict[str, Any]:
    return dict(cluster.resource("jobs").get(name).get("status") or {})


def job_pods(cluster: Cluster, name: str = "pi") -> list[dict[str, Any]]:
    return list(cluster.resource("pods").list(
        label_selector={"batch.kubernetes.io/job-name": name})["items"])


def phases(cluster: Cluster, name: str = "pi") -> list[str]:
    return sorted(p["status"].get("phase", "") for p in job_pods(cluster, name))


def conditions(cluster: Cluster, name: str = "pi") -> list[tuple[str, str]]:
    return [(c["type"], c.get("reason", "")) for c in job_status(cluster, name).get(
        "conditions") or ()]


def test_completions_run_at_most_parallelism_pods_at_once(cluster: Cluster,
                                                          clock: FakeClock) -> None:
    made = cluster.resource("jobs").create(job(completions=3, parallelism=2))
    eventually(lambda: phases(cluster) == ["Running", "Running"], "two pods running")
    pod = job_pods(cluster)[0]
    labels = pod["metadata"]["labels"]
    assert labels["batch.kubernetes.io/job-name"] == labels["job-name"] == "pi"
    assert labels["controller-uid"] == made["metadata"]["uid"]
    assert pod["metadata"]["ownerReferences"][0]["kind"] == "Job"
    s = eventually(lambda: (lambda s: s if s.get("ready") == 2 else None)(
        job_status(cluster)), "the status to count them")
    assert s["active"] == 2 and s["startTime"] and "succeeded" not in s
    step(clock, cluster, 5)  # `sleep 5`: both finish, and a third starts
    eventually(lambda: phases(cluster) == ["Running", "Succeeded", "Succeeded"], "the third")
    step(clock, cluster, 5)
    eventually(lambda: ("Complete", "CompletionsReached") in conditions(cluster), "Complete")
    s = job_status(cluster)
    assert s["succeeded"] == 3 and "active" not in s and s["completionTime"]
    assert [kind for kind, _ in conditions(cluster)] == ["SuccessCriteriaMet", "Complete"]
    assert phases(cluster) == ["Succeeded"] * 3


def test_failures_back_off_then_exhaust_the_backoff_limit(cluster: Cluster,
                                                          clock: FakeClock) -> None:
    cluster.resource("jobs").create(job(command="sleep 1; exit 3", backoffLimit=1))
    eventually(lambda: phases(cluster) == ["Running"], "the first pod")
    step(clock, cluster, 1)
    eventually(lambda: phases(cluster) == ["Failed"], "the first failure")
    failed = job_pods(cluster)[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert failed["exitCode"] == 3 and failed["reason"] == "Error"
    settle(cluster)
    step(clock, cluster, 9)  # the backoff after one failure is 10 s
    settle(cluster)
    assert phases(cluster) == ["Failed"]
    step(clock, cluster, 1)
    eventually(lambda: phases(cluster) == ["Failed", "Running"], "the retry after 10 s")
    step(clock, cluster, 1)
    eventually(lambda: ("Failed", "BackoffLimitExceeded") in conditions(cluster), "Failed")
    assert job_status(cluster)["failed"] == 2
    assert [kind for kind, _ in conditions(cluster)] == ["FailureTarget", "Failed"]


def test_on_failure_restarts_count_against_the_limit(cluster: Cluster,
                                                     clock: FakeClock) -> None:
    cluster.resource("jobs").create(job(command="exit 1", restart="OnFailure", backoffLimit=2))
    eventually(lambda: phases(cluster) == ["Running"], "the pod")
    # Each run is the default 1 s; the kubelet restarts at once, then after 10 s, 20 s.
    for restarts, back_off in ((1, 0), (2, 10), (3, 20)):
        step(clock, cluster, 1)
        if back_off:
            eventually(lambda: job_pods(cluster)[0]["status"]["containerStatuses"][0][
                "state"].get("waiting", {}).get("reason") == "CrashLoopBackOff", "back-off")
            step(clock, cluster, back_off)
        if restarts < 3:
            eventually(lambda r=restarts: job_pods(cluster)[0]["status"]["containerStatuses"][0][
                "restartCount"] == r, f"restart {restarts}")
    eventually(lambda: ("Failed", "BackoffLimitExceeded") in conditions(cluster), "Failed")
    eventually(lambda: not job_pods(cluster), "the active pod to be deleted (it stops at once)")
    settle(cluster)
    assert not job_pods(cluster)  # a failed Job starts no new pod
    assert job_status(cluster)["failed"] == 3


def test_active_deadline_seconds(cluster: Cluster, clock: FakeClock) -> None:
    cluster.resource("jobs").create(job(command="sleep 600", activeDeadlineSeconds=30))
    eventually(lambda: phases(cluster) == ["Running"], "the pod")
    step(clock, cluster, 30)
    eventually(lambda: ("Failed", "DeadlineExceeded") in conditions(cluster), "the deadline")


@needs_kubectl
def test_kubectl_waits_for_a_job_to_complete(cluster: Cluster, kubectl: Kubectl,
                                             clock: FakeClock) -> None:
    kubectl("apply", "-f", "-", stdin=json.dumps(job(command="sleep 2")))
    waiting = kubectl.popen("wait", "--for=condition=complete", "job/pi", "--timeout=60s")
    eventually(lambda: phases(cluster) == ["Running"], "the pod")
    assert waiting.poll() is None
    step(clock, cluster, 2)
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    assert "job.batch/pi condition met" in out
    listed = kubectl("get", "pods", "-l", "job-name=pi").stdout
    assert "Completed" in listed
