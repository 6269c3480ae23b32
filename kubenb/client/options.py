"""`ListOptions`: the query of a list or watch request, as apimachinery's `metav1.ListOptions`.

A dataclass rather than a dict so the Reflector and the pager can copy it with one
field changed (`dataclasses.replace`), exactly as client-go copies the Go struct.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ListOptions",
]


@dataclass(frozen=True)
class ListOptions:
    """Options of a list or watch request; empty values are left out of the query."""

    label_selector: str = ""
    field_selector: str = ""
    resource_version: str = ""
    resource_version_match: str = ""  # "", "NotOlderThan" or "Exact"
    limit: int = 0
    continue_: str = ""
    timeout_seconds: int | None = None
    allow_watch_bookmarks: bool = False
    send_initial_events: bool | None = None

    def to_params(self, watch: bool = False) -> dict[str, str]:
        """The query parameters, with the wire names of `ListOptions` (W7)."""
        params: dict[str, str] = {}
        if watch:
            params["watch"] = "true"
        if self.label_selector:
            params["labelSelector"] = str(self.label_selector)
        if self.field_selector:
            params["fieldSelector"] = str(self.field_selector)
        if self.resource_version:
            params["resourceVersion"] = self.resource_version
        if self.resource_version_match:
            params["resourceVersionMatch"] = self.resource_version_match
        if self.limit:
            params["limit"] = str(self.limit)
        if self.continue_:
            params["continue"] = self.continue_
        if self.timeout_seconds is not None:
            params["timeoutSeconds"] = str(int(self.timeout_seconds))
        if self.allow_watch_bookmarks:
            params["allowWatchBookmarks"] = "true"
        if self.send_initial_events is not None:
            params["sendInitialEvents"] = "true" if self.send_initial_events else "false"
        return params
