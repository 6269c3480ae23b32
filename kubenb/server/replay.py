"""Replay: a recording played back through the embedded API server's storage.

The server starts from each recorded resource's first list (objects and
resourceVersions as recorded) and then re-applies what the recorded informers saw, at
the recorded pace times `speed` (or as fast as it can with `speed=None`, or one step
at a time with `step()`):

- an ADDED / MODIFIED / DELETED event is written with its recorded resourceVersion, so
  watches, resumes from any resourceVersion, Exact lists and bookmarks work as on the
  real cluster;
- a recorded BOOKMARK is sent to the open watches of its resource (the server's own
  periodic bookmarks are off in a replay unless asked for);
- a watch that ended (dropped, timed out) ends the open watches of its resource;
- a watch ERROR (a 410 Expired, say) is sent to the open watches as the same ERROR;
  the relist that followed in the recording replaces the resource's objects, forgets
  the history (as a compaction does) and so answers the client's relist;
- a list or watch request that failed with 500 or 429 fails the next `fail_attempts`
  such requests (4: kubenb's REST client retries three times before its caller, the
  Reflector, sees the error).

So an informer over the replay server receives the recorded sequence of lists and
(type, key, resourceVersion) events through real HTTP. Where the replay must not run
ahead of its clients (a relist after an error, a resume after a dropped watch) it
waits, at most `gate_timeout` real seconds, for a client to list or watch again.

A recording's CustomResourceDefinitions (kept with its custom resources) are created
first, so those resources are served. With `autoplay`, playback starts once every
recorded resource has a client; a replay still waiting after `warn_after` seconds (of
its clock) logs which resources lack one, and `resources=` replays only some of them.

Several resources in one recording share one revision counter: the replay applies
their events in resourceVersion order and starts the server's revision at the lowest
first-list resourceVersion, so a resource listed later in the recording is listed at
a lower list resourceVersion in the replay (its objects and events are unchanged).

One concept, past the usual length of a module: the actions a recording becomes, and the
player that applies, gates and seeks them, share one timeline.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kubenb.clock import Clock, RealClock
from kubenb.recording.format import (
    Entry,
    Recording,
    RecordingError,
    ResourceSpec,
    definition_names,
    fold,
    format_offset,
)
from kubenb.server.errors import StatusError

if TYPE_CHECKING:
    from kubenb.server.server import EmbeddedServer

__all__ = ["Action", "Replay"]

log = logging.getLogger(__name__)

_DROP_REASONS = ("closed", "connection-lost", "idle-timeout")
_VERY_SHORT_WATCH = 1.05  # seconds (the Reflector's threshold is 1.0)
_LISTS = ("list", "initial")
_CRDS = ("apiextensions.k8s.io", "v1", "customresourcedefinitions")


@dataclass
class Action:
    """One thing the replay does to the server, at recording time `t`."""

    t: float  # when, in seconds since the recording started (never before the last action)
    r: int  # which recorded resource
    kind: str  # apply | bookmark | load | drop | error | fail
    rv: int | None = None  # the resourceVersion this action brings (apply, bookmark, load)
    type: str = ""  # apply: ADDED | MODIFIED | DELETED
    obj: dict[str, Any] | None = field(default=None, repr=False)  # apply: the object
    items: list[dict[str, Any]] | None = field(default=None, repr=False)  # load
    status: dict[str, Any] | None = None  # error / load after an error: the ERROR Status
    verb: str = ""  # fail: list | watch
    code: int = 0  # fail: 500 | 429
    hold: float = 0.0  # drop: how long the dropped watch must have been open (see below)
    ends_watch: bool = False  # load: it ends a watch (the ERROR or drop before the relist)
    source_t: float = 0.0  # when the recorded entry behind it arrived
    key: str = ""
    resource: str = ""

    def __repr__(self) -> str:
        when = format_offset(self.t)
        if self.kind == "apply":
            return f"{when} {self.resource} {self.type} {self.key} rv={self.rv}"
        if self.kind == "bookmark":
            return f"{when} {self.resource} BOOKMARK rv={self.rv}"
        if self.kind == "load":
            after = f" after ERROR {self.status.get('code')}" if self.status else ""
            return (f"{when} {self.resource} relist{after}: {len(self.items or [])} objects "
                    f"at rv={self.rv}")
        if self.kind == "error":
            return f"{when} {self.resource} watch ERROR {(self.status or {}).get('code')}"
        if self.kind == "fail":
            return f"{when} {self.resource} next {self.verb} fails with {self.code}"
        return f"{when} {self.resource} watch dropped"


def _status(entry: Entry) -> dict[str, Any]:
    """The ERROR Status of a recorded watch error (made up from its code if it had none)."""
    if entry.status is not None:
        return entry.status
    code = entry.code or 500
    reason = entry.reason if entry.code else "InternalError"
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": entry.message or reason, "reason": reason, "code": code}


def _int_rv(text: str, spec: ResourceSpec, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RecordingError(f"{spec.key}: {what} has resourceVersion {text!r}; a replay "
                             "needs the integer resourceVersions Kubernetes servers give"
                             ) from None


def _stream_actions(entries: Sequence[Entry], r: int, spec: ResourceSpec) -> list[Action]:
    """What the server must do to give a client of resource `r` these entries (its first
    list included, as a "load")."""
    actions: list[Action] = []
    last_rv = -1
    opened, quiet = 0.0, True  # when the current watch opened; no event on it yet
    for e in entries:
        base: dict[str, Any] = {"t": e.t, "r": r, "source_t": e.t, "resource": spec.key}
        if e.op == "watch":
            opened, quiet = e.t, True
        elif e.op in ("event", "bookmark"):
            quiet = False
        if e.op == "event":
            assert e.object is not None
            rv = _int_rv(e.rv, spec, f"{e.type} {e.key}")
            actions.append(Action(kind="apply", rv=rv, type=e.type, obj=e.object, key=e.key,
                                  **base))
        elif e.op == "bookmark":
            rv = _int_rv(e.rv, spec, "a BOOKMARK")
            if rv < last_rv:
                continue  # an older bookmark says nothing new
            actions.append(Action(kind="bookmark", rv=rv, **base))
        elif e.op == "list":
            rv = _int_rv(e.rv, spec, "a list")
            load = Action(kind="load", rv=rv, items=list(e.items or []), **base)
            if actions and actions[-1].kind in ("error", "drop"):
                # the watch's end and the relist it led to, as one step (Storage.load)
                ended = actions.pop()
                load.t, load.status, load.ends_watch = ended.t, ended.status, True
            actions.append(load)
        elif e.op == "error":
            if e.during == "watch":
                actions.append(Action(kind="error", status=_status(e), **base))
            elif e.code in (500, 429):
                # armed before the watch's end it followed, so the request it failed
                # (the resume, or the relist) meets it
                verb = "list" if e.during == "list" else "watch"
                at = len(actions)
                while at and actions[at - 1].kind in ("drop", "error"):
                    at -= 1
                actions.insert(at, Action(kind="fail", verb=verb, code=e.code, **base))
        elif e.op == "end" and e.reason in _DROP_REASONS:
            # A watch that ends within a second of opening, having delivered nothing, makes
            # a Reflector relist (client-go's "very short watch"): if the recorded one
            # lasted longer, the replay lets it live that long too.
            hold = _VERY_SHORT_WATCH if quiet and e.t - opened >= _VERY_SHORT_WATCH else 0.0
            actions.append(Action(kind="drop", hold=hold, **base))
        latest = actions[-1] if actions else None
        if latest is not None and latest.rv is not None and latest.source_t == e.t:
            if latest.kind == "apply" and latest.rv <= last_rv:
                raise RecordingError(f"{spec.key}: {latest.type} {latest.key} at "
                                     f"{format_offset(e.t)} has resourceVersion {latest.rv}, "
                                     f"not newer than {last_rv} before it")
            last_rv = max(last_rv, latest.rv)
    return actions


def _merge_actions(streams: Sequence[Sequence[Action]]) -> list[Action]:
    """One sequence from every resource's: resourceVersions never go back (the server has
    one revision counter), otherwise earliest first; `t` made non-decreasing."""
    heads = [0] * len(streams)
    next_rv: list[list[int | None]] = []
    for stream in streams:  # the resourceVersion of the next action that has one
        upcoming: list[int | None] = [None] * (len(stream) + 1)
        for i in range(len(stream) - 1, -1, -1):
            upcoming[i] = stream[i].rv if stream[i].rv is not None else upcoming[i + 1]
        next_rv.append(upcoming)
    out: list[Action] = []
    clock = float("-inf")
    while True:
        pending = [i for i, s in enumerate(streams) if heads[i] < len(s)]
        if not pending:
            return out
        rvs = [v for i in pending if (v := next_rv[i][heads[i]]) is not None]
        low = min(rvs) if rvs else None
        best: Action | None = None
        best_i = -1
        for i in pending:
            action = streams[i][heads[i]]
            if action.rv is not None and low is not None and action.rv > low:
                continue
            if best is None or action.t < best.t:
                best, best_i = action, i
        assert best is not None
        heads[best_i] += 1
        clock = max(clock, best.t)
        best.t = clock
        out.append(best)


class Replay:
    """Plays a recording through `server` (see the module docstring).

    `speed`: 1.0 is the recorded pace, 2.0 twice as fast, None (or 0) as fast as the
    gates allow. `autoplay`: start playing once every recorded resource has been listed
    or watched by some client, so each informer sees the history from its start (else
    `play()` or `step()`). `start` / `end` cut the recording
    (seconds, "mm:ss", a timedelta or a datetime): the server starts from the state at
    `start`; `start == end` is a snapshot. `clock` paces playback (a FakeClock lets a
    test or a lesson step time by hand). `resources` replays only those recorded
    resources ("pods", "deployments.apps", kinds or indexes), e.g. the ones your clients
    watch. `warn_after`: seconds of `clock` an autoplay may wait for clients before it
    logs a warning naming the resources nobody lists or watches (`state` says it too;
    None: never).
    """

    def __init__(self, server: EmbeddedServer, recording: Recording | str | Path, *,
                 speed: float | None = 1.0, autoplay: bool = True, start: Any = None,
                 end: Any = None, clock: Clock | None = None,
                 gate_timeout: float = 10.0, fail_attempts: int = 4,
                 resources: Sequence[int | str] | None = None,
                 warn_after: float | None = 5.0) -> None:
        recording = recording if isinstance(recording, Recording) else \
            Recording.read(recording)
        if isinstance(resources, str):
            resources = [resources]
        self.recording = recording.select(resources) if resources is not None else recording
        self.server = server
        self.storage = server.storage
        self.clock = clock or RealClock()
        self.gate_timeout = gate_timeout
        self.fail_attempts = fail_attempts
        self.autoplay = autoplay
        self.warn_after = warn_after
        self._speed = float(speed or 0.0)
        if self._speed < 0:
            raise RecordingError(f"speed={speed!r}: must be > 0 (or None: as fast as possible)")
        self._keys: list[str] = []
        self._kinds: list[tuple[str, str]] = []
        self.definitions_created = self._create_definitions()
        for spec in self.recording.resources:
            rtype = server.types.lookup(spec.group, spec.version, spec.resource)
            if rtype is None:
                raise RecordingError(
                    f"the recording has {spec.key} ({spec.api_version}), which this server "
                    "does not serve, and no CustomResourceDefinition for it (recorded by an "
                    "older kubenb, or without permission to read CRDs); create the CRD "
                    "first, then replay with server.replay(...)")
            self._keys.append(rtype.key)
            self._kinds.append((spec.kind or rtype.kind, rtype.stored_group_version))
        self._initial, self.actions, self.start_t = self._plan(start, end)
        self.end_t = self.recording.time_of(end) if end is not None else max(
            [self.recording.duration, self.start_t] + [a.t for a in self.actions])
        self._next = 0  # the next action to take
        self._applied = 0  # actions taken and applied
        self._position = self.start_t
        self._anchor_clock = 0.0
        self._cond = threading.Condition(threading.Lock())  # clients seen, state flags
        self._apply_lock = threading.Lock()  # one applier at a time (the thread or step())
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._playing = False
        self._loaded = False
        self._thread: threading.Thread | None = None
        self._clients: set[str] = set()
        self._lists: dict[str, tuple[int, int]] = {}  # key -> (lists seen, latest rv)
        self._watch_opened: dict[str, float] = {}  # key -> when a watch last opened (real)
        self.error: str = ""
        self.gate_timeouts = 0
        self._waiting_since = 0.0  # clock time playback started waiting for clients
        self.warned = False  # the waiting-for-clients warning was logged

    def __repr__(self) -> str:
        speed = f"speed {self._speed:g}" if self._speed else "as fast as possible"
        return (f"Replay({self.state}, {self._next}/{len(self.actions)} actions, at "
                f"{format_offset(self.position)} of {format_offset(self.end_t)}, {speed})")

    def _create_definitions(self) -> list[str]:
        """Create the recorded CRDs of the resources this server does not serve yet;
        returns their names."""
        created: list[str] = []
        rtype = self.server.types.lookup(*_CRDS)
        for spec in self.recording.resources:
            crd = self.recording.definition_of(spec)
            if crd is None or rtype is None or self.server.types.lookup(
                    spec.group, spec.version, spec.resource) is not None:
                continue
            name = f"{definition_names(crd)[1]}.{definition_names(crd)[0]}"
            try:
                self.server.registry.create(rtype, "", crd)
            except StatusError as exc:
                raise RecordingError(f"the recording's CustomResourceDefinition {name} "
                                     f"cannot be created: {exc}") from None
            created.append(name)
        return created

    @property
    def waiting_for(self) -> list[str]:
        """The recorded resources no client has listed or watched yet, while autoplay
        waits for them (else empty)."""
        with self._cond:
            if not self.autoplay or self._playing or self.done:
                return []
            return [k for k in self._keys if k not in self._clients]

    @property
    def state(self) -> str:
        """"playing", "paused", "done", "failed: why" or "waiting for clients of ..."."""
        if self.error:
            return f"failed: {self.error}"
        if self.done:
            return "done"
        if self._playing:
            return "playing"
        waiting = self.waiting_for
        return f"waiting for clients of {', '.join(waiting)}" if waiting else "paused"

    def progress(self) -> dict[str, Any]:
        """A snapshot for progress displays: state, actions applied of all, position and
        end (seconds), the resources still without a client."""
        return {"state": self.state, "applied": self._applied, "actions": len(self.actions),
                "position": self.position, "end": self.end_t,
                "waiting_for": self.waiting_for}

    # -- planning ---------------------------------------------------------------------------

    def _plan(self, start: Any, end: Any) -> tuple[dict[int, tuple[list[Any], str]],
                                                   list[Action], float]:
        rec = self.recording
        per_stream = [_stream_actions(rec.entries_of(r), r, spec)
                      for r, spec in enumerate(rec.resources)]
        initial: dict[int, tuple[list[Any], str]] = {}
        if start is None:
            firsts = []
            for r, stream in enumerate(per_stream):
                index = next((i for i, a in enumerate(stream) if a.kind == "load"), None)
                if index is None:
                    continue
                load = stream.pop(index)  # the first list is the starting state
                initial[r] = (load.items or [], str(load.rv))
                firsts.append(load.source_t)
            start_t = max(firsts) if firsts else 0.0
        else:
            start_t = rec.time_of(start)
            for r, (objects, rv) in fold(rec.entries, start_t).items():
                if rv:
                    initial[r] = ([objects[k] for k in sorted(objects)], rv)
            per_stream = [[a for a in s if a.source_t > start_t] for s in per_stream]
        actions = _merge_actions(per_stream)
        if end is not None:
            end_t = rec.time_of(end)
            if end_t < start_t:
                raise RecordingError(f"end ({format_offset(end_t)}) is before start "
                                     f"({format_offset(start_t)})")
            actions = [a for a in actions if a.source_t <= end_t]
        for action in actions:
            action.t = max(action.t, start_t)
        return initial, actions, start_t

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> Replay:
        """Load the starting state into the server and start the player thread."""
        with self._cond:
            if self._loaded:
                return self
            self._loaded = True
        states: dict[str, list[Any]] = {key: [] for key in self._keys}
        rvs = []
        for r, (objects, rv) in self._initial.items():
            states[self._keys[r]] = [self._stored(r, obj) for obj in objects]
            rvs.append(_int_rv(rv, self.recording.resources[r], "the starting state"))
        self.storage.load(states, min(rvs) if rvs else self.storage.resource_version)
        self.storage.observer = self._observe
        self._waiting_since = self.clock.now()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name="kubenb-replay")
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop playing for good and join the player thread (the server keeps its state)."""
        self._stop.set()
        self._wake.set()
        with self._cond:
            self._playing = False
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        if self.storage.observer == self._observe:
            self.storage.observer = None

    close = stop

    def _stored(self, r: int, obj: dict[str, Any]) -> dict[str, Any]:
        """A recorded object as the server stores it: with kind and apiVersion."""
        if "kind" in obj and "apiVersion" in obj:
            return obj
        kind, api_version = self._kinds[r]
        return {"kind": kind, "apiVersion": api_version, **obj}

    # -- state ------------------------------------------------------------------------------

    @property
    def position(self) -> float:
        """Where playback is, in seconds since the recording started."""
        with self._cond:
            if self._playing and self._speed and self._next < len(self.actions):
                moved = self._position + (self.clock.now() - self._anchor_clock) * self._speed
                return min(moved, self.actions[self._next].t)
            return self._position

    @property
    def done(self) -> bool:
        """Every action has been applied (or the replay failed or was stopped)."""
        return self._applied >= len(self.actions) or bool(self.error) or self._stop.is_set()

    @property
    def playing(self) -> bool:
        return self._playing and not self.done

    @property
    def speed(self) -> float | None:
        return self._speed or None

    @speed.setter
    def speed(self, value: float | None) -> None:
        if value is not None and value < 0:
            raise RecordingError(f"speed={value!r}: must be > 0 (or None: as fast as possible)")
        with self._cond:
            self._position = self._position_locked()
            self._anchor_clock = self.clock.now()
            self._speed = float(value or 0.0)
        self._wake.set()

    def _position_locked(self) -> float:
        if self._playing and self._speed and self._next < len(self.actions):
            moved = self._position + (self.clock.now() - self._anchor_clock) * self._speed
            return min(moved, self.actions[self._next].t)
        return self._position

    def remaining(self) -> list[Action]:
        """The actions not applied yet."""
        return self.actions[self._next:]

    def state_at(self, when: Any = None, resource: int | str | None = None,
                 columns: Any = None) -> Any:
        """The recorded cache at `when` (default: where playback is) as a DataFrame."""
        return self.recording.state_at(self.position if when is None else when, resource,
                                       columns)

    def timeline(self, resource: int | str | None = None) -> Any:
        """Every recorded entry as a DataFrame row (see `Recording.timeline`)."""
        return self.recording.timeline(resource)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the replay is done; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self.done, timeout)

    # -- control ----------------------------------------------------------------------------

    def play(self) -> Replay:
        """Play from where it is (the starting state is loaded first if need be)."""
        self.start()
        with self._cond:
            if not self._playing:
                self._playing = True
                self._anchor_clock = self.clock.now()
                self._cond.notify_all()
        return self

    def pause(self) -> Replay:
        """Stop moving; `play()` goes on from here."""
        self.autoplay = False
        with self._cond:
            if self._playing:
                self._position = self._position_locked()
                self._playing = False
                self._cond.notify_all()
        self._wake.set()
        return self

    def step(self, n: int = 1, wait: bool = True) -> list[Action]:
        """Pause, then apply the next `n` actions now; returns them. With `wait`, each
        waits (as in playback) for clients to relist or re-watch when it must."""
        self.autoplay = False
        self.start()
        self.pause()
        done: list[Action] = []
        with self._apply_lock:
            for _ in range(n):
                action = self._take()
                if action is None:
                    break
                self._apply(action, gates=wait)
                done.append(action)
        return done

    def seek(self, when: Any, wait: bool = True) -> list[Action]:
        """Apply everything up to `when` (forward only; for an earlier moment replay again
        with `start=`), then stay there, playing if it was playing; returns what was done."""
        target = self.recording.time_of(when)
        if target < self.position - 1e-9:
            raise RecordingError(f"cannot seek back to {format_offset(target)} from "
                                 f"{format_offset(self.position)}: the server cannot forget "
                                 "what clients saw; replay again with start=")
        self.autoplay = False
        self.start()
        was_playing = self._playing
        self.pause()
        done: list[Action] = []
        with self._apply_lock:
            while self._next < len(self.actions) and self.actions[self._next].t <= target:
                action = self._take()
                assert action is not None
                self._apply(action, gates=wait)
                done.append(action)
            with self._cond:
                self._position = max(self._position, min(target, self.end_t))
        if was_playing:
            self.play()
        return done

    def _take(self) -> Action | None:
        with self._cond:
            if self._next >= len(self.actions) or self.error or self._stop.is_set():
                return None
            action = self.actions[self._next]
            self._next += 1
            self._position = max(self._position, action.t)
            self._anchor_clock = self.clock.now()
            return action

    # -- the player thread ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                with self._cond:
                    self._await_playing()
                    if self._stop.is_set():
                        return
                    action = self.actions[self._next]
                    delay = (action.t - self._position_locked()) / self._speed \
                        if self._speed else 0.0
                    if delay <= 0:
                        self._position = self._position_locked()
                    self._wake.clear()
                if delay > 0:
                    self.clock.wait_event(self._wake, delay)
                    with self._cond:
                        if self._playing:
                            self._position = self._position_locked()
                            self._anchor_clock = self.clock.now()
                    continue  # check again: paused, sped up, stepped or due
                with self._apply_lock:
                    with self._cond:
                        if not self._playing or self._next >= len(self.actions) or \
                                self.actions[self._next] is not action:
                            continue
                    taken = self._take()
                    assert taken is action
                    self._apply(action, gates=True)
                with self._cond:
                    self._anchor_clock = self.clock.now()
                    self._cond.notify_all()
        except Exception as exc:  # a broken recording, or a write to the server mid-replay
            self.error = f"replay stopped at {format_offset(self._position)}: {exc}"
            log.warning("%s", self.error)
        finally:
            with self._cond:
                self._playing = False
                self._cond.notify_all()

    def _await_playing(self) -> None:
        """Wait (the lock held) until playing or stopped; warn once if autoplay waits for
        clients longer than `warn_after` seconds of the replay's clock."""
        while not (self._stop.is_set() or (self._playing and self._next < len(self.actions))):
            if not self.autoplay or self.warned or self.done or self.warn_after is None:
                self._cond.wait()
                continue
            deadline = self._waiting_since + self.warn_after
            if self.clock.now() < deadline:
                self.clock.wait_until(self._cond, deadline)
                continue
            self.warned = True
            missing = [k for k in self._keys if k not in self._clients]
            watched = [k for k in self._keys if k in self._clients]
            if missing:
                only = f"resources={watched!r}" if watched else "resources=[...]"
                log.warning(
                    "replay of %s has waited %gs for clients of %s: it starts once every "
                    "recorded resource is listed or watched. Watch %s too, call play(), or "
                    "replay only what is watched with %s", self.recording.path or "a "
                    "recording", self.warn_after, ", ".join(missing),
                    "it" if len(missing) == 1 else "them", only)

    # -- applying ---------------------------------------------------------------------------

    def _observe(self, what: str, resource: str, rv: int) -> None:
        """Storage tells us a client listed or watched (on a server thread: be quick)."""
        start = False
        with self._cond:
            self._clients.add(resource)
            if what in _LISTS:
                count, _ = self._lists.get(resource, (0, 0))
                self._lists[resource] = (count + 1, rv)
            if what != "list":
                self._watch_opened[resource] = time.monotonic()
            if self.autoplay and not self._playing and self._clients.issuperset(self._keys):
                self.autoplay = False
                start = True
            self._cond.notify_all()
        if start:
            self.play()

    def _gate(self, predicate: Callable[[], bool], what: str) -> None:
        with self._cond:
            ok = self._cond.wait_for(lambda: self._stop.is_set() or predicate(),
                                     self.gate_timeout)
        if not ok:
            self.gate_timeouts += 1
            log.info("replay: no client %s within %ss; going on", what, self.gate_timeout)

    def _open_watches(self, key: str) -> int:
        return self.storage.signal_watches(key)

    def _await_watch(self, key: str, hold: float = 0.0) -> None:
        """Gate: a client of `key` is watching (for at least `hold` real seconds)."""
        self._gate(lambda: self._open_watches(key) > 0, f"watching {key}")
        with self._cond:
            age = time.monotonic() - self._watch_opened.get(key, 0.0)
        if hold > age:
            self._stop.wait(hold - age)

    def _apply(self, action: Action, gates: bool) -> None:
        try:
            self._apply_one(action, gates)
        finally:
            with self._cond:
                self._applied += 1
                self._cond.notify_all()

    def _apply_one(self, action: Action, gates: bool) -> None:
        key = self._keys[action.r]
        watched = gates and key in self._clients  # gates only where a client is there
        if action.kind == "apply":
            assert action.obj is not None
            try:
                self.storage.apply_event(action.type, key, self._stored(action.r, action.obj))
            except ValueError as exc:
                raise RecordingError(f"{exc} (was something else written to the replay "
                                     "server?)") from None
        elif action.kind == "bookmark":
            assert action.rv is not None
            if watched:
                self._await_watch(key)
            self.storage.signal_watches(key, "BOOKMARK", rv=action.rv)
        elif action.kind == "drop":
            if watched:
                self._await_watch(key, action.hold)
            if self.storage.signal_watches(key, close=True) and gates:
                self._gate(lambda: self._open_watches(key) > 0, f"re-watched {key}")
        elif action.kind == "error":
            if watched:
                self._await_watch(key)
            self.storage.signal_watches(key, "ERROR", obj=action.status, close=True)
        elif action.kind == "fail":
            if watched:  # the failure was met after a watch: not by the one being opened
                self._await_watch(key)
            self.server.faults.fail(action.verb, code=action.code, resource=key,
                                    count=self.fail_attempts, retry_after=0)
        elif action.kind == "load":
            assert action.rv is not None
            if watched and action.ends_watch:
                self._await_watch(key)
            with self._cond:
                lists_before = self._lists.get(key, (0, 0))[0]
            rv = max(action.rv, self.storage.resource_version)
            closed = self.storage.load(
                {key: [self._stored(action.r, o) for o in action.items or []]}, rv,
                error=action.status)
            if gates and (closed or watched):
                def relisted() -> bool:
                    count, seen_rv = self._lists.get(key, (0, 0))
                    return count > lists_before and seen_rv >= rv

                self._gate(relisted, f"relisted {key}")
