"""What a command image's container does: how long it runs and how it exits.

An image with no Python program behind it (nginx, busybox, a Go binary) is judged by
its container's command, as a learner reads it: `sleep N` runs N seconds, `exit N`
exits with N; the pod annotations `kubenb.io/run-seconds` and `kubenb.io/exit-code`
say so for any image. Without them a container of a restartPolicy Always pod serves
until it is stopped. Kept apart from the runtime that acts on it
(kubenb.controllermanager.container_runtime), which it needs nothing of.
"""

from __future__ import annotations

import re
from typing import Any

from kubenb.errors import KubenbError

__all__ = ["EXIT_CODE_ANNOTATION", "RUN_SECONDS_ANNOTATION", "go_duration", "planned_run"]

RUN_SECONDS_ANNOTATION = "kubenb.io/run-seconds"
EXIT_CODE_ANNOTATION = "kubenb.io/exit-code"
_SLEEP = re.compile(r"\bsleep\s+(\d+(?:\.\d+)?)")
_EXIT = re.compile(r"\bexit\s+(\d+)")


def planned_run(pod: dict[str, Any], default_seconds: float,
                container: dict[str, Any] | None = None) -> tuple[float | None, int]:
    """How long a command image's container runs and its exit code: the annotations,
    else `sleep N` / `exit N` in its command and args (`container`, default the first).
    (None, 0): nothing says so and the pod restarts Always: it serves until stopped."""
    metadata = pod.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    spec = pod.get("spec") or {}
    if container is None:
        container = (spec.get("containers") or [{}])[0]
    words = " ".join(str(w) for w in [*(container.get("command") or []),
                                      *(container.get("args") or [])])
    seconds: float | None = None
    code: int | None = None
    if (found := _SLEEP.search(words)) is not None:
        seconds = float(found.group(1))
    if (exited := _EXIT.search(words)) is not None:
        code = int(exited.group(1))
    try:
        if RUN_SECONDS_ANNOTATION in annotations:
            seconds = float(annotations[RUN_SECONDS_ANNOTATION])
        if EXIT_CODE_ANNOTATION in annotations:
            code = int(annotations[EXIT_CODE_ANNOTATION])
    except ValueError as err:
        raise KubenbError(f"pod {metadata.get('namespace')}/{metadata.get('name')}: "
                          f"{RUN_SECONDS_ANNOTATION} must be a number and "
                          f"{EXIT_CODE_ANNOTATION} an integer ({err})") from None
    if seconds is None and code is None and spec.get("restartPolicy", "Always") == "Always":
        return None, 0
    return max(seconds if seconds is not None else default_seconds, 0.0), code or 0


def go_duration(seconds: float) -> str:
    """Go's time.Duration text of whole seconds: 10s, 1m20s, 5m0s."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest}s" if minutes else f"{rest}s"
