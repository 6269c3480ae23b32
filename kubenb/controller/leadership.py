"""Running a controller's workers only while it leads: `Controller.run(leader_election=...)`.

Each term of leadership is one term of work. The elector's `on_started_leading` runs
the controller's `lead(term_stop)` (handlers on, workers until the term ends, then
drain); when leadership is lost, `supervise` campaigns again, as a restarted replica
would. Without an elector, `supervise` runs a single term until the controller stops.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

from kubenb.clock import Clock
from kubenb.controller.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElector,
    LeaseLock,
)
from kubenb.errors import KubenbError

__all__ = ["Lead", "new_elector", "supervise"]

#: One term of work: runs until the given event is set.
Lead = Callable[[threading.Event], None]


def new_elector(name: str, leader_election: LeaderElectionConfig | LeaseLock, clock: Clock,
                lead: Lead) -> LeaderElector:
    """The elector of controller `name`: a `LeaseLock` gets default timings, a
    `LeaderElectionConfig` its own. The config's own callbacks are called too,
    `on_started_leading` first (it must return promptly: `lead` starts after it)."""
    if isinstance(leader_election, LeaseLock):
        config = LeaderElectionConfig(lock=leader_election, name=name)
    elif isinstance(leader_election, LeaderElectionConfig):
        config = leader_election
    else:
        raise KubenbError(f"controller {name!r}: leader_election must be a LeaseLock "
                          f"or a LeaderElectionConfig, got {type(leader_election).__name__}")
    user = config.callbacks

    def started(term_stop: threading.Event) -> None:
        if user.on_started_leading is not None:
            user.on_started_leading(term_stop)
        lead(term_stop)

    callbacks = LeaderCallbacks(on_started_leading=started,
                                on_stopped_leading=user.on_stopped_leading,
                                on_new_leader=user.on_new_leader)
    return LeaderElector(replace(config, callbacks=callbacks), clock=clock)


def supervise(stop: threading.Event, elector: LeaderElector | None, lead: Lead) -> None:
    """Run terms of work until `stop`: one term without an elector; with one, a term
    per leadership, campaigning again after each."""
    if elector is None:
        lead(stop)
        return
    while not stop.is_set():
        elector.run(stop)  # returns when leadership ends; then campaign again
