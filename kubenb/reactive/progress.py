"""A progress bar for an informer's initial list: items and pages as they arrive.

Listing 100k objects takes a while; a cell that just hangs teaches nothing. The
Reflector reports each page (`on_list_page`, on its own thread); `ListProgress`
coalesces those reports and renders them from a publisher thread at a few updates a
second: an `ipywidgets.IntProgress` and a label inside a notebook, plain text lines
(rewritten in place on a terminal) elsewhere.

    progress = ListProgress("pods").attach(informer)   # before the informer starts
    informer.start(); informer.wait_for_cache_sync(); progress.finish()
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from kubenb.client.pager import PageInfo
from kubenb.clock import Clock
from kubenb.reactive.output import in_kernel
from kubenb.reactive.publisher import Publisher, PublisherError

if TYPE_CHECKING:
    from kubenb.cache import SharedIndexInformer

__all__ = ["ListProgress"]

_STATE = "state"


class ListProgress:
    """Shows an informer's initial list (see the module docstring).

    `widget=None` picks a widget inside a Jupyter kernel and text elsewhere; `stream`
    is where text goes (default stderr); `rate` caps redraws per second.
    """

    def __init__(self, description: str = "objects", *, widget: bool | None = None,
                 stream: Any = None, rate: float = 4.0, clock: Clock | None = None) -> None:
        self.description = description
        self.pages = 0
        self.items = 0
        self.total: int | None = None
        self.done = False
        self.error = ""
        self._finished = False
        self._lock = threading.Lock()
        self._stream = stream
        self.widget: Any = None
        self._bar: Any = None
        self._label: Any = None
        if widget is None:
            widget = in_kernel()
        if widget:
            self._make_widget()
        self._publisher = Publisher(f"progress-{description}", clock=clock)
        self._channel = self._publisher.channel(self._render, rate=rate,
                                                name=f"progress-{description}")
        self._publisher.start()

    def _make_widget(self) -> None:
        import ipywidgets

        self._bar = ipywidgets.IntProgress(value=0, min=0, max=1,
                                           description=f"{self.description}:",
                                           bar_style="info")
        self._label = ipywidgets.Label(value="listing...")
        self.widget = ipywidgets.HBox([self._bar, self._label])

    def __repr__(self) -> str:
        return f"ListProgress({self.text()!r})"

    def __enter__(self) -> ListProgress:
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self.finish(error="" if exc is None else f"{type(exc).__name__}: {exc}")

    def display(self) -> ListProgress:
        """Show the widget in the current cell (inside a kernel; text needs nothing)."""
        if self.widget is not None and in_kernel():
            from IPython.display import display

            display(self.widget)
        return self

    # -- input -------------------------------------------------------------------------

    def attach(self, informer: SharedIndexInformer) -> ListProgress:
        """Report `informer`'s list pages here; it must not have started yet."""
        if informer.is_started():
            raise PublisherError(f"ListProgress.attach: {informer!r} has already started; "
                                 "attach before start()")
        options = informer.reflector_options
        previous = options.get("on_list_page")

        def on_page(page: PageInfo) -> None:
            self.on_page(page)
            if previous is not None:
                previous(page)

        options["on_list_page"] = on_page
        return self

    def on_page(self, page: PageInfo) -> None:
        """A Reflector's `on_list_page` callback (any thread)."""
        with self._lock:
            if page.fallback or page.number == 1:  # a new list (or the full-list fallback)
                self.pages = 0
            self.pages += 1
            self.items = page.total
            self.total = page.total + page.remaining if page.remaining is not None else None
            state = self._state()
        self._channel.submit(_STATE, state)

    def finish(self, synced: bool = True, error: str = "") -> None:
        """The list is in the cache (or failed with `error`): draw the final state and
        end the drawing thread. Idempotent."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
            self.done = synced and not error
            self.error = error
            if self.done:
                self.total = self.items
            state = self._state()
        self._channel.submit(_STATE, state)
        self._publisher.stop()

    # -- output ------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        return {"pages": self.pages, "items": self.items, "total": self.total,
                "done": self.done, "error": self.error, "finished": self._finished}

    def text(self, state: dict[str, Any] | None = None) -> str:
        """The one-line description of a state (default: now)."""
        if state is None:
            with self._lock:
                state = self._state()
        pages = _count(state["pages"], "page")
        if state["error"]:
            return (f"listing {self.description} failed after "
                    f"{_count(state['items'], 'item')}, {pages}: {state['error']}")
        if state["done"]:
            return f"listed {self.description}: {_count(state['items'], 'item')} in {pages}"
        total = state["total"]
        if total is None:
            items = _count(state["items"], "item")
        else:
            items = f"{state['items']:,} of {_count(total, 'item')}"
        return f"listing {self.description}: {items}, {pages}"

    def _render(self, batch: dict[str, Any]) -> None:
        state = batch[_STATE]
        text = self.text(state)
        if self.widget is not None:
            total = state["total"] if state["total"] is not None else max(state["items"], 1)
            style = "danger" if state["error"] else "success" if state["done"] else "info"
            with self.widget.hold_sync():
                self._bar.max = max(total, 1)
                self._bar.value = min(state["items"], self._bar.max)
                self._bar.bar_style = style
                self._label.value = text
            return
        stream = self._stream if self._stream is not None else sys.stderr
        isatty = getattr(stream, "isatty", lambda: False)()
        if isatty:
            end = "\n" if state["finished"] else ""
            stream.write("\r" + text + end)
        else:
            stream.write(text + "\n")
        stream.flush()


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
