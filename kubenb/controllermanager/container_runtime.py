"""The simulated kubelet's container runtime: what each container does, and its state.

A real kubelet asks a container runtime (containerd) to start a pod's containers, learns
when they exit, restarts them as the pod's restartPolicy says with a back-off (10 s,
doubling to 5 min: `CrashLoopBackOff` meanwhile), and on deletion sends SIGTERM, waits
for the grace period, then SIGKILL (exit code 137). `ContainerRuntime` keeps that state
for the simulated kubelet (kubenb.controllermanager.kubelet), which turns it into pod
status, as the real one turns what containerd says into status.

What a container does comes from its image:

* an `Image` registered with a Python function (`runtime.image("worker", run=fn)`)
  runs `fn(ctx)` on a thread of its own for each container attempt: `ctx.log()` writes
  what `kubectl logs` shows, `ctx.ready()` flips readiness, `ctx.sleep()` waits on the
  kubelet's clock (cut short by SIGTERM) and returns True once SIGTERM came, and the
  return value is the exit code (an exception: 1, with its traceback in the log);
* any other image follows its command: `sleep N` / `exit N` in a container's command
  or args, or the pod annotations `kubenb.io/run-seconds` / `kubenb.io/exit-code`, say
  for how long it runs and how it exits; without them it runs forever under
  restartPolicy Always (a server: nginx) and `run_seconds` then exits 0 otherwise.

Either kind stops at once on SIGTERM (exit 0 for a command image) unless its `Image`
says `ignores_sigterm=True`: then it is killed when the grace period ends.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubenb.clock import Clock
from kubenb.controllermanager.command_plan import (
    EXIT_CODE_ANNOTATION,
    RUN_SECONDS_ANNOTATION,
    go_duration,
    planned_run,
)
from kubenb.controllermanager.container_logs import ContainerLog
from kubenb.errors import KubenbError
from kubenb.nodeinfo import image_id, image_ref, node_digest
from kubenb.timeutil import format_time, parse_time

__all__ = ["BACKOFF_SECONDS", "EXIT_CODE_ANNOTATION", "KILLED_EXIT_CODE",
           "MAX_BACKOFF_SECONDS", "RUN_SECONDS_ANNOTATION", "ContainerContext",
           "ContainerKilled", "ContainerRuntime", "Image", "LogNotFound", "planned_run"]

log = logging.getLogger(__name__)

#: A container restarted too soon waits this long, doubling per crash up to the cap.
BACKOFF_SECONDS = 10.0
MAX_BACKOFF_SECONDS = 300.0
#: What a container killed with SIGKILL exits with (128 + 9).
KILLED_EXIT_CODE = 137

Run = Callable[["ContainerContext"], "int | None"]


class ContainerKilled(BaseException):
    """Raised inside a container's `run(ctx)` (by `ctx.log` and `ctx.sleep`) once it was
    killed: like SIGKILL, it is not meant to be caught, so it derives from BaseException."""


class LogNotFound(KubenbError):
    """No log for that pod or container (`code` is the HTTP status a kubelet answers)."""

    def __init__(self, message: str, code: int = 400) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Image:
    """What containers of an image do (see the module docstring).

    `name` matches a container's image by repository ("worker" matches "worker",
    "worker:2" and "docker.io/library/worker:2"), or exactly when it has a tag or digest.
    `run(ctx)` is the program (None: the command decides, as for any image);
    `ignores_sigterm` makes deletion take the pod's whole grace period; `ready` is the
    readiness a started container has until `ctx.ready()` says otherwise.
    """

    name: str
    run: Run | None = None
    ignores_sigterm: bool = False
    ready: bool = True

    def matches(self, image: str) -> bool:
        """Whether a container's `image` is this one."""
        mine, theirs = image_ref(self.name), image_ref(image)
        if mine == theirs:
            return True
        return ("@" not in mine and ":" not in mine.rsplit("/", 1)[-1]
                and _repository(theirs) == mine)


def _repository(ref: str) -> str:
    ref = ref.split("@", 1)[0]
    head, _, last = ref.rpartition("/")
    return f"{head}/{last.split(':', 1)[0]}" if head else last.split(":", 1)[0]


class ContainerContext:
    """What a container's `run(ctx)` gets: its pod and container spec, `env` (the
    literal `value`s of the container's env), `attempt` (its restart count), the
    kubelet's `clock`, and `stopping`, an Event set when SIGTERM comes."""

    def __init__(self, runtime: ContainerRuntime, record: _Container, pod: dict[str, Any],
                 container: dict[str, Any]) -> None:
        self._runtime = runtime
        self._record = record
        self.pod = pod
        self.container = container
        self.namespace = str((pod.get("metadata") or {}).get("namespace") or "")
        self.pod_name = str((pod.get("metadata") or {}).get("name") or "")
        self.name = str(container.get("name") or "")
        self.env = {str(e.get("name")): str(e.get("value", "")) for e in
                    container.get("env") or [] if isinstance(e, dict) and "value" in e}
        self.attempt = record.attempt
        self.clock: Clock = runtime.clock
        self.stopping = threading.Event()
        self._killed = threading.Event()
        self._wake = threading.Event()  # SIGTERM or SIGKILL

    def __repr__(self) -> str:
        return (f"ContainerContext({self.namespace}/{self.pod_name}/{self.name}, "
                f"attempt={self.attempt})")

    @property
    def killed(self) -> bool:
        return self._killed.is_set()

    def _check(self) -> None:
        if self._killed.is_set():
            raise ContainerKilled(f"container {self.name} of pod {self.namespace}/"
                                  f"{self.pod_name} was killed")

    def log(self, *parts: Any) -> None:
        """Write a line (parts joined by spaces, as print does) to the container's log."""
        self._check()
        self._record.log.write(" ".join(str(p) for p in parts))

    def ready(self, ready: bool = True) -> None:
        """Report the container ready or not (what a readiness probe would find)."""
        self._check()
        self._runtime.set_ready(self._record, bool(ready))

    def sleep(self, seconds: float) -> bool:
        """Wait `seconds` on the kubelet's clock, or less if SIGTERM comes meanwhile;
        True once SIGTERM has come. After SIGTERM it waits the whole time (a program
        draining before it exits), unless the container is killed. Waiting here is idle
        time: `ControllerManager.wait_idle()` does not wait for it."""
        self._check()
        until = self._killed if self.stopping.is_set() else self._wake
        self._runtime.parked(+1)
        try:
            self.clock.wait_event(until, max(float(seconds), 0.0))
        finally:
            self._runtime.parked(-1)
        self._check()
        return self.stopping.is_set()


@dataclass
class _Container:
    """One container of one pod, as the runtime knows it (guarded by the runtime's lock)."""

    pod_key: str
    uid: str
    name: str
    image: str
    behaviour: Image | None
    attempt: int = 0
    state: str = "running"  # running | terminated | backoff
    started: float = 0.0  # wall clock
    finished: float = 0.0
    finished_clock: float = 0.0
    exit_code: int = 0
    ready: bool = True
    exits_at: float | None = None  # clock time a command image's container exits
    planned_code: int = 0
    stopping: bool = False
    kill_at: float | None = None
    last: dict[str, Any] | None = None  # lastState.terminated
    backoff: float | None = None
    backoff_updated: float = 0.0
    ctx: ContainerContext | None = None
    thread: threading.Thread | None = None
    log: ContainerLog = field(default_factory=ContainerLog)  # the current attempt's
    previous_log: ContainerLog | None = None
    ran: bool = False  # whether an attempt was started (so `log` is not the first's)

    def container_id(self, attempt: int | None = None) -> str:
        n = self.attempt if attempt is None else attempt
        return "containerd://" + node_digest(self.uid, self.name, str(n))

    def terminated(self) -> dict[str, Any]:
        return {"containerID": self.container_id(), "exitCode": self.exit_code,
                "reason": "Completed" if self.exit_code == 0 else "Error",
                "startedAt": format_time(self.started),
                "finishedAt": format_time(self.finished)}


class ContainerRuntime:
    """The containers of one node's pods (see the module docstring).

    `on_change(pod_key)` is called (from any thread) when a container changes on its
    own: a Python program returned, or flipped its readiness. `run_seconds` is how long
    a command image's container runs when nothing says; `stop_seconds` how long it takes
    to stop on SIGTERM (0: at once; None: images not declared otherwise ignore it)."""

    def __init__(self, clock: Clock, on_change: Callable[[str], None], *,
                 run_seconds: float = 1.0, stop_seconds: float | None = 0.0,
                 wall: Callable[[], float] | None = None) -> None:
        self.clock = clock
        self.on_change = on_change
        self.run_seconds = run_seconds
        self.stop_seconds = stop_seconds
        self._wall = wall or time.time
        self._cond = threading.Condition()
        self._images: list[Image] = []
        self._containers: dict[tuple[str, str], _Container] = {}  # (uid, name)
        # uid -> its containers' names: a node with thousands of pods looks a pod up
        # without walking every container of the node
        self._names_by_uid: dict[str, dict[str, None]] = {}  # names in start order
        self._pods: dict[str, str] = {}  # "ns/name" -> uid
        self._threads = 0  # Python programs running
        self._parked = 0  # of them, waiting in ctx.sleep
        self._changes = 0
        self._stopped = False

    def __repr__(self) -> str:
        with self._cond:
            return (f"ContainerRuntime({len(self._containers)} containers, "
                    f"images={[i.name for i in self._images]})")

    # -- images -------------------------------------------------------------------------------

    def image(self, name: str, run: Run | None = None, *, ignores_sigterm: bool = False,
              ready: bool = True) -> Image:
        """Declare what containers of image `name` do (replacing an earlier declaration)."""
        if not isinstance(name, str) or not name.strip():
            raise KubenbError(f"image: the name must be a non-empty image reference, got "
                              f"{name!r}")
        if run is not None and not callable(run):
            raise KubenbError(f"image {name!r}: run must be a function taking the container "
                              f"context, got {type(run).__name__}")
        declared = Image(name.strip(), run, bool(ignores_sigterm), bool(ready))
        with self._cond:
            self._images = [i for i in self._images if i.name != declared.name]
            self._images.append(declared)
        return declared

    def behaviour(self, image: str) -> Image | None:
        """The declared Image a container image reference runs (exact names first)."""
        with self._cond:
            images = list(self._images)
        exact = [i for i in images if image_ref(i.name) == image_ref(image)]
        found = exact or [i for i in images if i.matches(image)]
        return found[0] if found else None

    # -- a pod's containers -------------------------------------------------------------------

    def admit(self, pod: dict[str, Any]) -> None:
        """The kubelet took the pod on: its containers are being created (a log request
        for them says so)."""
        metadata = pod.get("metadata") or {}
        key = f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"
        uid = str(metadata.get("uid") or "")
        with self._cond:
            replaced = self._pods.get(key)
            self._pods[key] = uid
        if replaced is not None and replaced != uid:  # a new pod of the same name
            self.forget(replaced)
            with self._cond:
                self._pods[key] = uid

    def started(self, uid: str) -> bool:
        with self._cond:
            return uid in self._names_by_uid

    def adopt(self, pod: dict[str, Any]) -> bool:
        """Take over the containers a Running pod's status says are running, without
        starting them again: what a kubelet that restarts finds through its container
        runtime (a cluster seeded with Running pods, a snapshot). True if adopted; a
        pod with a container not running, or one whose image runs Python (its program
        would have to start), is left to `sync`."""
        metadata, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        status = pod.get("status") or {}
        uid = str(metadata.get("uid") or "")
        key = f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"
        containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
        if status.get("phase") != "Running" or not containers or not uid:
            return False
        reported = {str(s.get("name")): s for s in status.get("containerStatuses") or []
                    if isinstance(s, dict)}
        now = self.clock.now()
        records = []
        for container in containers:
            name, image = str(container.get("name") or ""), str(container.get("image") or "")
            seen = reported.get(name) or {}
            running = (seen.get("state") or {}).get("running")
            behaviour = self.behaviour(image)
            if not isinstance(running, dict) or (behaviour is not None
                                                 and behaviour.run is not None):
                return False
            record = _Container(key, uid, name, image, behaviour,
                                attempt=int(seen.get("restartCount") or 0), ran=True,
                                started=parse_time(running.get("startedAt")) or self._wall(),
                                ready=bool(seen.get("ready", True)))
            seconds, record.planned_code = planned_run(pod, self.run_seconds, container)
            record.exits_at = None if seconds is None else now + seconds
            records.append(record)
        self.admit(pod)
        with self._cond:
            if self._stopped or uid in self._names_by_uid:
                return False
            for record in records:
                self._containers[(uid, record.name)] = record
                self._names_by_uid.setdefault(uid, {})[record.name] = None
        return True

    def sync(self, pod: dict[str, Any]) -> float | None:
        """Start the pod's containers, finish the ones whose time is up, restart what the
        restartPolicy restarts (after the back-off). Returns clock seconds until the next
        of these is due, or None."""
        metadata, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        uid = str(metadata.get("uid") or "")
        key = f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"
        policy = spec.get("restartPolicy", "Always")
        now = self.clock.now()
        dues: list[float] = []
        with self._cond:
            if self._stopped:
                return None
        self.admit(pod)
        for container in spec.get("containers") or []:
            if not isinstance(container, dict):
                continue
            name = str(container.get("name") or "")
            with self._cond:
                record = self._containers.get((uid, name))
            if record is None:
                record = _Container(key, uid, name, str(container.get("image") or ""),
                                    self.behaviour(str(container.get("image") or "")))
                with self._cond:
                    self._containers[(uid, name)] = record
                    self._names_by_uid.setdefault(uid, {})[name] = None
                self._start(record, pod, container)
            with self._cond:
                if record.state == "running" and record.exits_at is not None and \
                        now >= record.exits_at:
                    self._finish(record, record.planned_code)
                if record.state in ("terminated", "backoff") and not record.stopping and (
                        policy == "Always" or (policy == "OnFailure" and record.exit_code)):
                    # Go's flowcontrol.Backoff: a back-off last moved more than twice the
                    # cap before this crash has expired, and starts again from 10 s.
                    since = record.finished_clock
                    expired = record.backoff is None or \
                        since - record.backoff_updated > 2 * MAX_BACKOFF_SECONDS
                    if not expired and now - since < (record.backoff or 0.0):
                        record.state = "backoff"
                        dues.append(since + (record.backoff or 0.0))
                        continue
                    record.backoff = BACKOFF_SECONDS if expired else \
                        min((record.backoff or 0.0) * 2, MAX_BACKOFF_SECONDS)
                    record.backoff_updated = since
                    record.last = record.terminated()
                    record.attempt += 1
                    restart = True
                else:
                    restart = False
            if restart:
                self._start(record, pod, container)
            with self._cond:
                if record.state == "running" and record.exits_at is not None:
                    dues.append(record.exits_at)
        return max(min(dues) - now, 0.0) if dues else None

    def _start(self, record: _Container, pod: dict[str, Any], container: dict[str, Any]
               ) -> None:
        now = self.clock.now()
        with self._cond:
            if record.ran:
                record.previous_log, record.log = record.log, ContainerLog()
                record.previous_log.close()
            record.ran = True
            record.state, record.started, record.stopping = "running", self._wall(), False
            record.kill_at = None
            behaviour = record.behaviour
            record.ready = behaviour.ready if behaviour is not None else True
            if behaviour is None or behaviour.run is None:
                seconds, code = planned_run(pod, self.run_seconds, container)
                record.exits_at = None if seconds is None else now + seconds
                record.planned_code = code
                return
            record.exits_at = None
            ctx = ContainerContext(self, record, pod, container)
            record.ctx = ctx
            self._threads += 1
            thread = threading.Thread(
                target=self._run, args=(record, ctx, behaviour), daemon=True,
                name=f"kubenb-kubelet-container-{record.pod_key}/{record.name}")
            record.thread = thread
        thread.start()

    def _run(self, record: _Container, ctx: ContainerContext, behaviour: Image) -> None:
        code = 1
        try:
            assert behaviour.run is not None
            result = behaviour.run(ctx)
            if result is None:
                code = 0
            elif isinstance(result, int) and not isinstance(result, bool):
                code = result
            else:
                record.log.write(f"kubenb: run() of image {behaviour.name!r} returned "
                                 f"{result!r}: it must return an exit code (int) or None")
        except ContainerKilled:
            code = KILLED_EXIT_CODE
        except Exception:
            record.log.write(traceback.format_exc().rstrip("\n"))
        finally:
            with self._cond:
                changed = record.ctx is ctx and record.state == "running"
                if changed:
                    self._finish(record, code)
                self._threads -= 1
                self._cond.notify_all()
            if changed:
                self.on_change(record.pod_key)

    def _finish(self, record: _Container, code: int) -> None:
        """The container's attempt ended with `code` (called with the lock held)."""
        record.state, record.exit_code, record.ready = "terminated", code, False
        record.finished, record.finished_clock = self._wall(), self.clock.now()
        record.exits_at = None
        record.log.close()
        if record.ctx is not None:
            record.ctx._wake.set()
            if code == KILLED_EXIT_CODE:
                record.ctx._killed.set()
        record.ctx = None
        self._changes += 1
        self._cond.notify_all()

    def set_ready(self, record: _Container, ready: bool) -> None:
        with self._cond:
            if record.state != "running" or record.ready == ready:
                return
            record.ready = ready
            self._changes += 1
        self.on_change(record.pod_key)

    def kill(self, pod: dict[str, Any], grace: float) -> float | None:
        """Stop the pod's containers: SIGTERM now, SIGKILL when `grace` clock seconds have
        passed. Returns clock seconds until the next step is due, None once all stopped
        (a container still finishing on its own brings `on_change`)."""
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        now = self.clock.now()
        dues: list[float] = []
        running = False
        with self._cond:
            records = [self._containers[(uid, n)] for n in self._names_by_uid.get(uid, ())]
            for record in records:
                if record.state == "backoff":  # a crash-looping container stays down
                    record.state = "terminated"
                if record.state != "running":
                    record.stopping = True
                    continue
                behaviour = record.behaviour
                # No declared Image: stop_seconds=None means every image ignores SIGTERM.
                ignores = behaviour.ignores_sigterm if behaviour is not None else \
                    self.stop_seconds is None
                if not record.stopping:  # SIGTERM
                    record.stopping, record.kill_at = True, now + max(grace, 0.0)
                    if record.ctx is not None and not ignores:
                        record.ctx.stopping.set()
                        record.ctx._wake.set()
                    elif record.ctx is None and not ignores:
                        stop = now + (self.stop_seconds or 0.0)
                        if record.exits_at is None or stop < record.exits_at:
                            record.exits_at, record.planned_code = stop, 0
                if record.exits_at is not None and now >= record.exits_at:
                    self._finish(record, record.planned_code)
                elif record.kill_at is not None and now >= record.kill_at:
                    self._finish(record, KILLED_EXIT_CODE)  # SIGKILL
                else:
                    running = True
                    dues += [t for t in (record.exits_at, record.kill_at) if t is not None]
        if not running:
            return None
        return max(min(dues) - now, 0.0) if dues else 0.0

    def container_statuses(self, pod: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The pod's `status.containerStatuses` as a kubelet writes them, or None before
        its containers were started."""
        metadata = pod.get("metadata") or {}
        uid = str(metadata.get("uid") or "")
        statuses = []
        with self._cond:
            if uid not in self._names_by_uid:
                return None
            for container in (pod.get("spec") or {}).get("containers") or []:
                if not isinstance(container, dict):
                    continue
                record = self._containers.get((uid, str(container.get("name") or "")))
                statuses.append(self._status(metadata, container, record))
        return statuses

    def _status(self, metadata: dict[str, Any], container: dict[str, Any],
                record: _Container | None) -> dict[str, Any]:
        ref = image_ref(str(container.get("image") or ""))
        status: dict[str, Any] = {"name": container.get("name", ""), "image": ref,
                                  "imageID": "", "lastState": {}, "ready": False,
                                  "restartCount": 0, "started": False}
        if record is None:
            status["state"] = {"waiting": {"reason": "ContainerCreating"}}
            return status
        status.update(imageID=image_id(ref), containerID=record.container_id(),
                      restartCount=record.attempt)
        if record.last is not None:
            status["lastState"] = {"terminated": dict(record.last)}
        if record.state == "running":
            status["state"] = {"running": {"startedAt": format_time(record.started)}}
            status["ready"], status["started"] = record.ready, True
        elif record.state == "backoff":
            status["containerID"] = record.container_id()
            status["lastState"] = {"terminated": record.terminated()}
            status["state"] = {"waiting": {
                "reason": "CrashLoopBackOff",
                "message": f"back-off {go_duration(record.backoff or 0)} restarting failed "
                           f"container={record.name} pod={metadata.get('name')}_"
                           f"{metadata.get('namespace')}({record.uid})"}}
        else:
            status["state"] = {"terminated": record.terminated()}
        return status

    # -- logs ---------------------------------------------------------------------------------

    def log(self, namespace: str, name: str, container: str, previous: bool = False
            ) -> ContainerLog:
        """A container's log (the attempt before the current one with `previous`);
        LogNotFound says why there is none, as a kubelet would."""
        with self._cond:
            uid = self._pods.get(f"{namespace}/{name}")
            record = self._containers.get((uid, container)) if uid else None
            if uid is None:
                raise LogNotFound(f'pod "{namespace}/{name}" not found on this node', 404)
            if record is None:
                if uid not in self._names_by_uid:
                    raise LogNotFound(f'container "{container}" in pod "{name}" is waiting '
                                      "to start: ContainerCreating")
                raise LogNotFound(f'container "{container}" in pod "{name}" is not '
                                  "available")
            if previous:
                if record.previous_log is None:
                    raise LogNotFound(f'previous terminated container "{container}" in pod '
                                      f'"{name}" not found')
                return record.previous_log
            return record.log

    # -- housekeeping -------------------------------------------------------------------------

    def forget(self, uid: str) -> None:
        """The pod is gone: drop its containers (killing any still running)."""
        with self._cond:
            for name in self._names_by_uid.pop(uid, {}):
                record = self._containers.pop((uid, name))
                if record.state == "running":
                    self._finish(record, KILLED_EXIT_CODE)
                record.log.close()
            for pod_key in [k for k, u in self._pods.items() if u == uid]:
                del self._pods[pod_key]

    def parked(self, delta: int) -> None:
        """A Python program starts (+1) or stops (-1) waiting on the clock."""
        with self._cond:
            self._parked += delta
            self._cond.notify_all()

    def changes(self) -> int:
        """How many container state changes there have been (for idleness checks)."""
        with self._cond:
            return self._changes

    def wait_idle(self, timeout: float) -> bool:
        """Wait (real time) until every running Python program waits on the clock or
        has returned; False if `timeout` passed first."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._threads > self._parked:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def stop(self, timeout: float = 5.0) -> None:
        """Kill every container (the kubelet is stopping) and join their threads."""
        with self._cond:
            self._stopped = True
            threads = [c.thread for c in self._containers.values() if c.thread is not None]
            for record in self._containers.values():
                if record.state == "running" and record.ctx is not None:
                    self._finish(record, KILLED_EXIT_CODE)
        for thread in threads:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("kubelet: container thread %s did not return after it was "
                            "killed; it is left running as a daemon", thread.name)
