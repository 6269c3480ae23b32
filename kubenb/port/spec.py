"""What a running (or merely built) `Controller` is, read off it for the Go project.

`describe(controller)` collects everything `kubenb port` writes from: the resources its
informers watch (with namespace, selectors, resync period, indexers and captured
objects), how each informer's events map to keys, the rate limiter, the workers, leader
election, the reconcile function, and the requests the reconciles made (recorded by
kubenb.client.request_log while the controller ran).
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from kubenb.cache.keys import NAMESPACE_INDEX
from kubenb.client.discovery import ResourceInfo
from kubenb.client.request_log import RequestRecord
from kubenb.controller.enqueue import enqueue_key
from kubenb.controller.leaderelection import LeaderElectionConfig, LeaseLock
from kubenb.controller.runner import Controller
from kubenb.errors import KubenbError
from kubenb.port.resources import GoResource, builtin_info, guess_kind
from kubenb.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
)

__all__ = [
    "ControllerSpec",
    "LeaderElectionSpec",
    "Mapping",
    "RateLimiterSpec",
    "Watched",
    "describe",
    "python_source",
]

#: How many objects per informer the port keeps as test fixtures.
_CAPTURE = 20

_DESCRIPTION = re.compile(r"^(?P<api_version>\S+) (?P<resource>\S+) in (?P<where>[^,]+)"
                          r"(?:, labels '(?P<labels>[^']*)')?(?:, fields '(?P<fields>[^']*)')?$")


@dataclass
class Mapping:
    """How an informer's events become keys: "own", "owner" (of `owner_kind`) or "custom"."""

    how: str
    owner_kind: str = ""
    owner_group: str | None = None
    name: str = ""
    source: str = ""
    func: Any = None  # the Python function of a custom mapping


@dataclass
class Watched:
    """One watched informer as the Go project needs it."""

    resource: GoResource
    namespace: str
    label_selector: str
    field_selector: str
    resync: float
    mapping: Mapping
    indexers: dict[str, str] = field(default_factory=dict)  # name -> Python source
    predicate: str | None = None
    objects: list[dict[str, Any]] = field(default_factory=list)
    index_funcs: dict[str, Any] = field(default_factory=dict)  # name -> Python function


@dataclass
class RateLimiterSpec:
    """The workqueue's limiter as client-go builds it; `note` says what was approximated."""

    base_delay: float = 0.005
    max_delay: float = 1000.0
    qps: float | None = 10.0
    burst: int = 100
    note: str = ""


@dataclass
class LeaderElectionSpec:
    namespace: str
    name: str
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    release_on_cancel: bool = True


@dataclass
class ControllerSpec:
    name: str
    workers: int
    max_retries: int | None
    watched: list[Watched]
    rate_limiter: RateLimiterSpec
    leader_election: LeaderElectionSpec | None
    reconcile: Any
    requests: dict[RequestRecord, int]
    requests_by_key: dict[str, list[RequestRecord]]
    resources: dict[tuple[str, str], GoResource]  # (group, resource) -> every one known


def python_source(func: Any) -> str:
    """The dedented source of a function, or "" when Python cannot find it."""
    try:
        return textwrap.dedent(inspect.getsource(func)).rstrip()
    except (OSError, TypeError):
        return ""


def _unwrap_method(func: Any) -> Any:
    return getattr(func, "__func__", func)


def _mapping(enqueue: Any) -> Mapping:
    if enqueue is enqueue_key:
        return Mapping("own")
    if getattr(enqueue, "__name__", "").startswith("enqueue_owner("):
        closure = inspect.getclosurevars(enqueue).nonlocals
        return Mapping("owner", owner_kind=str(closure.get("kind", "")),
                       owner_group=closure.get("group"))
    source = python_source(enqueue)
    name = getattr(enqueue, "__name__", "mapping")
    if _returns_own_key(source):
        return Mapping("own", name=name, source=source)
    return Mapping("custom", name=name, source=source, func=enqueue)


def _returns_own_key(source: str) -> bool:
    """A function whose whole body is `return enqueue_key(obj)` (a docstring aside)."""
    body = [line.strip() for line in source.splitlines()[1:] if line.strip()]
    code = [line for line in body if not line.startswith(('"""', "'''", "#"))
            and not line.endswith(('"""', "'''"))]
    return len(code) == 1 and re.fullmatch(r"return enqueue_key\(\w+\)", code[0]) is not None


def _rate_limiter(limiter: Any) -> RateLimiterSpec:
    parts = list(limiter.limiters) if isinstance(limiter, MaxOfRateLimiter) else [limiter]
    spec = RateLimiterSpec(qps=None, burst=0)
    unknown = []
    for part in parts:
        if isinstance(part, ItemExponentialFailureRateLimiter):
            spec.base_delay, spec.max_delay = part.base_delay, part.max_delay
        elif isinstance(part, BucketRateLimiter):
            spec.qps, spec.burst = part.qps, part.burst
        else:
            unknown.append(type(part).__name__)
    if unknown:
        spec.note = (f"{', '.join(unknown)} has no translation; the per-item exponential "
                     "and bucket limiters are kept")
    return spec


def _leader_election(controller: Controller, given: Any) -> LeaderElectionSpec | None:
    source = given
    if source is None and controller.leader_elector is not None:
        source = controller.leader_elector.config
    if source is None:
        return None
    if isinstance(source, LeaseLock):
        source = LeaderElectionConfig(lock=source)
    if not isinstance(source, LeaderElectionConfig):
        raise KubenbError(f"port: leader_election must be a LeaseLock or a "
                          f"LeaderElectionConfig, got {type(source).__name__}")
    return LeaderElectionSpec(source.lock.namespace, source.lock.name, source.lease_duration,
                              source.renew_deadline, source.retry_period,
                              source.release_on_cancel)


def _known_infos(controller: Controller) -> dict[tuple[str, str], ResourceInfo]:
    """ResourceInfos the prototype holds (typed listers and informer accessors), which
    know a CRD's Kind; keyed by (group, resource)."""
    owner = getattr(controller.reconcile, "__self__", None)
    values = list(vars(owner).values()) if owner is not None and hasattr(owner, "__dict__") \
        else []
    try:
        closure = inspect.getclosurevars(_unwrap_method(controller.reconcile))
        values += list(closure.nonlocals.values()) + list(closure.globals.values())
    except TypeError:
        pass
    found = {}
    for value in values:
        info = getattr(type(value), "info", None)
        if isinstance(info, ResourceInfo):
            found[(info.group, info.resource)] = info
    return found


def _watched_info(description: str, known: dict[tuple[str, str], ResourceInfo],
                  owner_kinds: set[str]) -> tuple[ResourceInfo, str, str, str]:
    match = _DESCRIPTION.match(description)
    if match is None:
        raise KubenbError(f"port: cannot tell which resource the informer {description!r} "
                          "watches (made without a resource client?)")
    api_version, resource = match["api_version"], match["resource"]
    group, _, version = api_version.rpartition("/")
    where = match["where"]
    namespace = "" if where == "all namespaces" else where
    info = known.get((group, resource)) or builtin_info(group, version, resource)
    if info is None:
        kind = guess_kind(resource)
        for owner in owner_kinds:  # enqueue_owner("Foo") names the CRD's Kind
            if owner.lower() == kind.lower():
                kind = owner
        info = ResourceInfo(group, version, resource, kind, namespaced=True)
    return info, namespace, match["labels"] or "", match["fields"] or ""


def _captured(informer: Any) -> list[dict[str, Any]]:
    try:
        items = informer.get_indexer().list()
    except Exception:  # an informer that never ran has an empty store anyway
        return []
    items = [i for i in items if isinstance(i, dict)]
    items.sort(key=lambda o: ((o.get("metadata") or {}).get("namespace") or "",
                              (o.get("metadata") or {}).get("name") or ""))
    return items[:_CAPTURE]


def describe(controller: Controller, *, leader_election: Any = None) -> ControllerSpec:
    """Everything the Go project is written from. `leader_election` (a `LeaseLock` or
    `LeaderElectionConfig`) stands in for one the controller has not run with."""
    if not isinstance(controller, Controller):
        inner = getattr(controller, "controller", None)
        if not isinstance(inner, Controller):
            raise KubenbError(f"port: needs a kubenb.controller.Controller (or an object "
                              f"with one as .controller), got {type(controller).__name__}")
        controller = inner
    known = _known_infos(controller)
    watches = controller.watches
    mappings = [_mapping(w.enqueue) for w in watches]
    owner_kinds = {m.owner_kind for m in mappings if m.how == "owner"}
    watched = []
    for watch, mapping in zip(watches, mappings, strict=True):
        informer = watch.informer
        description = getattr(getattr(informer, "list_watcher", None), "description", "")
        info, namespace, labels, fields = _watched_info(str(description), known, owner_kinds)
        known.setdefault((info.group, info.resource), info)
        indexers = {name: python_source(func) or f"# {name}: source not found"
                    for name, func in informer.get_indexer().get_indexers().items()
                    if name != NAMESPACE_INDEX}
        watched.append(Watched(
            GoResource(info), namespace, labels, fields,
            float(getattr(informer, "default_event_handler_resync_period", 0.0) or 0.0),
            mapping, indexers,
            python_source(watch.predicate) if watch.predicate is not None else None,
            _captured(informer),
            {name: func for name, func in informer.get_indexer().get_indexers().items()
             if name != NAMESPACE_INDEX}))
    return ControllerSpec(
        name=controller.name, workers=controller.workers, max_retries=controller.max_retries,
        watched=watched, rate_limiter=_rate_limiter(controller.rate_limiter),
        leader_election=_leader_election(controller, leader_election),
        reconcile=controller.reconcile, requests=controller.requests.counts(),
        requests_by_key=dict(controller.requests_by_key),
        resources={key: GoResource(info) for key, info in known.items()})
