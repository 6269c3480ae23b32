"""What the translation of one controller shares between its functions.

The Go file is written after every function is translated, from what they asked for:
the constants they read, the helper functions they called (translated in turn), the
dynamic resources they reached (a GroupVersionResource each), the unstructured readers
they used, and whether they record Events or requeue. Each untranslated statement is a
`Todo`; `Reach` counts statements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubenb.port.resources import GoResource
from kubenb.port.spec import ControllerSpec

__all__ = ["GoFunction", "PortContext", "Reach", "Todo"]


@dataclass
class Todo:
    """An untranslated Python statement: where it was and why."""

    function: str
    line: int
    python: str
    reason: str
    go_line: int = 0  # filled in when controller.go is written
    file: str = ""  # the Python file's name (no directory: the output names no machine)


@dataclass
class Reach:
    translated: int = 0
    total: int = 0

    @property
    def share(self) -> float:
        return self.translated / self.total if self.total else 1.0


@dataclass
class GoFunction:
    """A translated function: Go source lines and the Python it came from."""

    name: str
    python_name: str
    source: str
    lines: list[str]
    todos: list[Todo]
    reach: Reach
    returns: str = "error"  # "error", a Go type (pure), or "T,error"
    needs_ctx: bool = True
    method: bool = True
    params: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class PortContext:
    spec: ControllerSpec
    constants: dict[str, tuple[str, Any]] = field(default_factory=dict)  # go -> (py, value)
    helpers: dict[Any, GoFunction] = field(default_factory=dict)  # (func, types) -> done
    in_progress: set[Any] = field(default_factory=set)
    dynamic: dict[str, GoResource] = field(default_factory=dict)  # key -> resource
    unstructured_readers: set[str] = field(default_factory=set)
    dynamic_getters: dict[str, GoResource] = field(default_factory=dict)
    key_getters: dict[str, GoResource] = field(default_factory=dict)
    uses_recorder: bool = False
    uses_requeue: bool = False
    uses_requeue_after: bool = False
    uses_not_ported: bool = False

    def watched_resource(self, group: str, resource: str) -> GoResource | None:
        for watched in self.spec.watched:
            info = watched.resource.info
            if (info.group, info.resource) == (group, resource):
                return watched.resource
        return None

    def resource(self, group: str, resource: str) -> GoResource | None:
        found = self.watched_resource(group, resource)
        if found is None:
            found = self.spec.resources.get((group, resource))
        if found is not None and not found.typed:
            self.dynamic[found.key] = found
        return found

    def samples(self, resource: GoResource | None) -> list[dict[str, Any]]:
        if resource is None:
            return []
        for watched in self.spec.watched:
            if watched.resource.key == resource.key:
                return watched.objects
        return []
