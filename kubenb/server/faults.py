"""Fault switches: break the embedded server on purpose, at run time, to watch clients heal.

A notebook (or a test) flips a switch and sees what a Reflector does about it: watches
dropped, history compacted away (resumes get 410), a fraction of one verb failing with
500, 429 + Retry-After or an RBAC-style 403, slow answers, continue tokens expired.
Failures are Status bodies shaped like the real apiserver's, so clients take their real
error paths.
Discovery, health and /version are never touched, so clients can always connect.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kubenb.errors import FaultConfigError
from kubenb.server import errors, rbac
from kubenb.server.authentication import UserInfo
from kubenb.server.continue_tokens import CONTINUE_EXPIRED, decode_continue, encode_continue
from kubenb.server.handlers import Request, Response, status_response
from kubenb.server.request_info import Attributes, request_attributes
from kubenb.server.storage import Storage

__all__ = [
    "FAIL_CODES",
    "VERBS",
    "FailRule",
    "FaultConfigError",
    "Faults",
    "RequestInfo",
    "request_info",
]

VERBS = ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")
FAIL_CODES = (500, 429, 403)
_TOO_MANY_REQUESTS = "Too many requests, please try again later."
_INJECTED_500 = "kubenb fault injection failed this request on purpose"


@dataclass(frozen=True)
class RequestInfo:
    """What a request does, as the apiserver's RequestInfoFactory sees it."""

    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    namespace: str | None = None
    name: str = ""


def request_info(method: str, path: str, params: dict[str, str]) -> RequestInfo | None:
    """The verb and resource of a resource request, as the authorizer reads it
    (kubenb.server.request_info); None for discovery, health, /version, OpenAPI and
    anything else that is not a resource (those are never failed)."""
    return _info(request_attributes(method, path, params))


def _info(attrs: Attributes) -> RequestInfo | None:
    if not attrs.resource_request or not attrs.resource or attrs.verb not in VERBS:
        return None
    # A namespace is cluster-scoped: rules on "namespaces" see no namespace of their own.
    namespace = attrs.namespace if attrs.namespace and attrs.resource != "namespaces" else None
    return RequestInfo(attrs.verb, attrs.resource, attrs.api_group, attrs.subresource,
                       namespace, attrs.name)


@dataclass
class FailRule:
    """One `fail()` switch; `injected` counts the requests it failed."""

    verb: str | None
    fraction: float
    code: int
    retry_after: int
    resource: str | None
    count: int | None  # fail at most this many (None: no limit)
    seed: int | None
    user: str = "kubenb-user"  # who a 403 names
    injected: int = 0
    _rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def matches(self, info: RequestInfo) -> bool:
        """Whether this rule applies to the request (before the coin is tossed)."""
        if self.verb is not None and info.verb != self.verb:
            return False
        if self.count is not None and self.injected >= self.count:
            return False
        if self.resource is None:
            return True
        qualified = f"{info.resource}.{info.group}" if info.group else info.resource
        full = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
        return self.resource in (info.resource, qualified, full)


class Faults:
    """The fault switches of one EmbeddedServer (`server.faults`); thread-safe."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._lock = threading.Lock()
        self._rules: list[FailRule] = []
        self._latency: dict[str | None, float] = {}
        self._continue_cutoff: int | None = None
        # Whether any switch is on: with none, `intercept` returns at once (it is on
        # every request's path). Written under the lock, read without it.
        self._armed = False
        self._wake = threading.Event()
        self._stats: Counter[str] = Counter()
        self._failed_by_verb: Counter[str] = Counter()
        self._delay_total = 0.0

    def __repr__(self) -> str:
        with self._lock:
            rules, latency = len(self._rules), dict(self._latency)
        return f"Faults(fail_rules={rules}, latency={latency})"

    # -- switches ------------------------------------------------------------------

    def drop_watches(self) -> int:
        """End every open watch now (clients see the stream close); returns how many."""
        dropped = self._storage.close_all_watches()
        with self._lock:
            self._stats["watches_dropped"] += dropped
        return dropped

    def compact(self) -> int:
        """Forget the event history up to now, like an etcd compaction: a watch resume or
        an Exact list from an older resourceVersion gets 410 Expired. Returns the RV."""
        rv = self._storage.compact()
        with self._lock:
            self._stats["compactions"] += 1
        return rv

    def fail(self, verb: str | None = None, fraction: float = 1.0, code: int = 500,
             retry_after: int = 1, resource: str | None = None, count: int | None = None,
             seed: int | None = None, user: str = "kubenb-user") -> FailRule:
        """Fail `fraction` of the requests of `verb` (None: every verb) on `resource`
        (None: every resource; "pods", "deployments.apps" or "pods/status") with a 500
        InternalError, a 429 TooManyRequests + Retry-After, or a 403 Forbidden worded as
        RBAC denies `user` (what a user with less than cluster-admin meets). `count` caps how many
        are failed; `seed` makes the random choice repeatable. Rules add up; the first
        that fires answers. Returns the rule (its `injected` counts failures)."""
        if verb is not None and verb not in VERBS:
            raise FaultConfigError(f"fail(verb={verb!r}): the verb must be one of "
                                   f"{', '.join(VERBS)} (or None for all)")
        if not 0.0 <= fraction <= 1.0:
            raise FaultConfigError(f"fail(fraction={fraction!r}): must be between 0 and 1")
        if code not in FAIL_CODES:
            raise FaultConfigError(f"fail(code={code!r}): must be 500, 429 or 403")
        if retry_after < 0:
            raise FaultConfigError(f"fail(retry_after={retry_after!r}): must be >= 0 seconds")
        if count is not None and count < 0:
            raise FaultConfigError(f"fail(count={count!r}): must be >= 0 (or None)")
        rule = FailRule(verb, float(fraction), code, int(retry_after), resource, count, seed,
                        user=user, _rng=random.Random(seed))
        with self._lock:
            self._rules.append(rule)
            self._arm()
        return rule

    def latency(self, seconds: float, verb: str | None = None) -> None:
        """Delay every request of `verb` (None: all resource requests) by `seconds` before
        it is answered; a verb's own setting wins over the all-verbs one; 0 removes it."""
        if verb is not None and verb not in VERBS:
            raise FaultConfigError(f"latency(verb={verb!r}): the verb must be one of "
                                   f"{', '.join(VERBS)} (or None for all)")
        if seconds < 0:
            raise FaultConfigError(f"latency(seconds={seconds!r}): must be >= 0")
        with self._lock:
            if seconds:
                self._latency[verb] = float(seconds)
            else:
                self._latency.pop(verb, None)
            self._arm()

    def expire_continue_tokens(self) -> int:
        """Make every continue token issued so far answer 410 Expired (with the real
        server's message and a fresh `continue` to go on inconsistently); tokens
        issued later work. Returns the resourceVersion at the cut."""
        with self._storage.lock:
            cutoff = self._storage.resource_version
            # The revision moves on (as the apiserver's compactor write moves etcd's), so
            # lists served from now on hand out tokens above the cut.
            self._storage.advance_revision()
        with self._lock:
            self._continue_cutoff = max(cutoff, self._continue_cutoff or 0)
            self._stats["continue_expiries"] += 1
            self._arm()
        return cutoff

    def clear(self) -> None:
        """Switch off failures and latency (waking delayed requests). Dropped watches,
        compacted history and expired tokens stay what they are: they are history."""
        with self._lock:
            self._rules.clear()
            self._latency.clear()
            self._arm()
            wake, self._wake = self._wake, threading.Event()
        wake.set()

    def reset(self) -> None:
        """`clear()`, and zero the counters `stats()` reports, so that what one test
        switched on and counted is not seen by the next test on the same server."""
        self.clear()
        with self._lock:
            self._stats.clear()
            self._failed_by_verb.clear()
            self._delay_total = 0.0

    def release(self) -> None:
        """Wake every request sleeping in a latency fault (the server is stopping)."""
        with self._lock:
            wake, self._wake = self._wake, threading.Event()
        wake.set()

    def rules(self) -> list[FailRule]:
        """The active `fail()` rules."""
        with self._lock:
            return list(self._rules)

    def stats(self) -> dict[str, Any]:
        """Counters of injected faults (a snapshot)."""
        with self._lock:
            out: dict[str, Any] = {
                "failed": sum(self._failed_by_verb.values()),
                "failed_500": self._stats["failed_500"],
                "failed_429": self._stats["failed_429"],
                "failed_403": self._stats["failed_403"],
                "failed_by_verb": dict(self._failed_by_verb),
                "delayed": self._stats["delayed"],
                "delay_seconds": round(self._delay_total, 6),
                "watches_dropped": self._stats["watches_dropped"],
                "compactions": self._stats["compactions"],
                "continue_expiries": self._stats["continue_expiries"],
                "continue_expired": self._stats["continue_expired"],
            }
        return out

    # -- the hook ApiHandler.handle() calls ----------------------------------------------

    def _arm(self) -> None:
        """(Under the lock) note whether any switch is on now."""
        self._armed = bool(self._rules or self._latency or self._continue_cutoff is not None)

    def intercept(self, request: Request) -> Response | None:
        """Delay and/or fail this request as the switches say; None lets it through."""
        if not self._armed:
            return None
        attrs = request_attributes(request.method, request.path, request.params)
        info = _info(attrs)
        if info is None:
            return None
        self._delay(info.verb)
        rule = self._pick(info)
        if rule is not None:
            return self._failure(rule, attrs)
        if info.verb == "list" and request.params.get("continue"):
            return self._expired_continue(request.params)
        return None

    def _delay(self, verb: str) -> None:
        with self._lock:
            seconds = self._latency.get(verb, self._latency.get(None, 0.0))
            wake = self._wake
            if seconds:
                self._stats["delayed"] += 1
                self._delay_total += seconds
        if seconds:
            wake.wait(seconds)

    def _pick(self, info: RequestInfo) -> FailRule | None:
        with self._lock:
            for rule in self._rules:
                if rule.matches(info) and (rule.fraction >= 1.0
                                           or rule._rng.random() < rule.fraction):
                    rule.injected += 1
                    self._stats[f"failed_{rule.code}"] += 1
                    self._failed_by_verb[info.verb] += 1
                    return rule
        return None

    @staticmethod
    def _failure(rule: FailRule, attrs: Attributes) -> Response:
        if rule.code == 403:
            return status_response(rbac.forbidden(UserInfo(rule.user), attrs))
        if rule.code == 429:
            err = errors.StatusError(errors.status_body(
                429, "TooManyRequests", _TOO_MANY_REQUESTS,
                {"retryAfterSeconds": rule.retry_after}))
            response = status_response(err)
            response.headers.append(("Retry-After", str(rule.retry_after)))
            return response
        return status_response(errors.internal_error(_INJECTED_500))

    def _expired_continue(self, params: dict[str, str]) -> Response | None:
        with self._lock:
            cutoff = self._continue_cutoff
        if cutoff is None or params.get("resourceVersion"):
            return None  # the registry answers the 400 for continue + resourceVersion
        try:
            rv, start = decode_continue(params["continue"])
        except errors.StatusError:
            return None  # not a token of ours: the registry answers 400
        if rv < 0 or rv > cutoff:
            return None
        with self._lock:
            self._stats["continue_expired"] += 1
        return status_response(errors.expired(CONTINUE_EXPIRED,
                                              {"continue": encode_continue(-1, start)}))
