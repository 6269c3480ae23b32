"""kubenb.printers.batch: Jobs' status, completions and duration; CronJobs' schedule."""

from __future__ import annotations

from kubenb.printers import printer_for
from tests.printers.support import META, NOW, cells


def test_job_status_completions_and_duration() -> None:
    template = {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}
    job = {"spec": {"completions": 3, "template": template,
                    "selector": {"matchLabels": {"job-name": "x"}}},
           "status": {"succeeded": 2, "startTime": "2026-01-01T00:00:02Z"}}
    assert cells("Job", "batch", job) == ["x", "Running", "2/3", "8s", "10s", "pi", "perl",
                                          "job-name=x"]
    done = {"spec": {"parallelism": 4}, "status": {
        "succeeded": 1, "startTime": "2026-01-01T00:00:00Z",
        "completionTime": "2026-01-01T00:00:05Z",
        "conditions": [{"type": "Complete", "status": "True"}]}}
    assert cells("Job", "batch", done)[1:4] == ["Complete", "1/1 of 4", "5s"]
    for conditions, status in [([{"type": "Failed", "status": "True"}], "Failed"),
                               ([{"type": "Suspended", "status": "True"}], "Suspended"),
                               ([{"type": "FailureTarget", "status": "True"}],
                                "FailureTarget"),
                               ([{"type": "Complete", "status": "False"}], "Running")]:
        assert cells("Job", "batch", {"status": {"conditions": conditions}})[1:4] == [
            status, "0/1", ""]
    deleting = {"metadata": {**META, "deletionTimestamp": "2026-01-01T00:00:09Z"}}
    assert printer_for("Job", "batch").cells(deleting, NOW)[1] == "Terminating"


def test_cronjob_cells() -> None:
    cron = {"spec": {"schedule": "*/5 * * * *", "suspend": True, "jobTemplate": {"spec": {
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}},
            "status": {"active": [{"name": "a"}, {"name": "b"}],
                       "lastScheduleTime": "2026-01-01T00:00:07Z"}}
    assert cells("CronJob", "batch", cron) == [
        "x", "*/5 * * * *", "<none>", "True", 2, "3s", "10s", "c", "busybox", "<none>"]
    assert cells("CronJob", "batch", {"spec": {"timeZone": "Etc/UTC"}})[2:6] == [
        "Etc/UTC", "<unset>", 0, "<none>"]
