"""batch/v1's printers: Jobs and CronJobs."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    CONTAINERS_DOC,
    IMAGES_DOC,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    containers_and_images,
    dicts,
    format_label_selector,
    name_column,
    object_age,
    object_name,
    template_containers,
)
from kubenb.timeutil import age, human_duration, parse_time

__all__ = ["CRONJOB_PRINTER", "JOB_PRINTER"]


def _bool_ptr(value: Any) -> str:
    """Go's `printBoolPtr`: "True", "False" or "<unset>"."""
    if value is None:
        return "<unset>"
    return "True" if value is True else "False"


def _condition_is_true(conditions: Any, kind: str) -> bool:
    """Go's hasJobCondition: the first condition of `kind` decides."""
    for cond in dicts(conditions):
        if cond.get("type") == kind:
            return cond.get("status") == "True"
    return False


def _job_status(job: Obj) -> str:
    conditions = nested_field(job, "status", "conditions")
    if _condition_is_true(conditions, "Complete"):
        return "Complete"
    if _condition_is_true(conditions, "Failed"):
        return "Failed"
    if nested_field(job, "metadata", "deletionTimestamp"):
        return "Terminating"
    if _condition_is_true(conditions, "Suspended"):
        return "Suspended"
    if _condition_is_true(conditions, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def _job_cells(job: Obj, now: float) -> list[Any]:
    spec = dict_field(job, "spec")
    status = dict_field(job, "status")
    succeeded = as_int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{as_int(spec.get('completions'))}"
    elif as_int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {as_int(spec.get('parallelism'))}"
    else:
        completions = f"{succeeded}/1"
    started = parse_time(status.get("startTime"))
    finished = parse_time(status.get("completionTime"))
    duration = "" if started is None else human_duration(
        (now if finished is None else finished) - started)
    names, images = containers_and_images(template_containers(job))
    return [object_name(job), _job_status(job), completions, duration, object_age(job, now), names,
            images, format_label_selector(spec.get("selector"))]


JOB_PRINTER = TablePrinter((
    name_column(),
    Column("Status", description="Status of the job."),
    Column("Completions", description=(
        "The number of pods which reached phase Succeeded. The value increases monotonically "
        "for a given spec. However, it may decrease in reaction to scale down of elastic "
        "indexed jobs.")),
    Column("Duration", description="Time required to complete the job."),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "A label query over pods that should match the pod count. Normally, the system sets "
        "this field for you. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _job_cells)


def _cronjob_cells(cronjob: Obj, now: float) -> list[Any]:
    spec = dict_field(cronjob, "spec")
    last = nested_field(cronjob, "status", "lastScheduleTime")
    job_spec = dict_field(dict_field(spec, "jobTemplate"), "spec")
    names, images = containers_and_images(nested_field(job_spec, "template", "spec", "containers"))
    time_zone = spec.get("timeZone")
    return [object_name(cronjob), as_str(spec.get("schedule")),
            NONE if time_zone is None else as_str(time_zone), _bool_ptr(spec.get("suspend")),
            len(dicts(nested_field(cronjob, "status", "active"))),
            NONE if last is None else age(last, now), object_age(cronjob, now), names, images,
            format_label_selector(job_spec.get("selector"))]


CRONJOB_PRINTER = TablePrinter((
    name_column(),
    Column("Schedule", description=(
        "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.")),
    Column("Timezone", description=(
        "The time zone name for the given schedule, see "
        "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
        "will default to the time zone of the kube-controller-manager process. The set of "
        "valid time zone names and the time zone offset is loaded from the system-wide time "
        "zone database by the API server during CronJob validation and the controller manager "
        "during execution. If no system-wide time zone database can be found a bundled version "
        "of the database is used instead. If the time zone name becomes invalid during the "
        "lifetime of a CronJob or due to a change in host configuration, the controller will "
        "stop creating new new Jobs and will create a system event with the reason "
        "UnknownTimeZone. More information can be found in "
        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones")),
    Column("Suspend", "boolean", description=(
        "This flag tells the controller to suspend subsequent executions, it does not apply to "
        "already started executions.  Defaults to false.")),
    Column("Active", "integer", description="A list of pointers to currently running jobs."),
    Column("Last Schedule", description=(
        "Information when was the last time the job was successfully scheduled.")),
    AGE_COLUMN,
    Column("Containers", priority=1, description=CONTAINERS_DOC),
    Column("Images", priority=1, description=IMAGES_DOC),
    Column("Selector", priority=1, description=(
        "A label query over pods that should match the pod count. Normally, the system sets "
        "this field for you. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
        "#label-selectors")),
), _cronjob_cells)
