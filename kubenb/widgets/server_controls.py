"""ServerControls: the embedded server's fault switches and churn, as buttons.

For teaching: press "drop watches" and watch the Reflector resume; "compact" then
"drop watches" and watch it get 410 Gone and relist; "inject errors" and watch it
back off; "churn" to make the cache move. Each button calls the same method a cell
would (`server.faults.drop_watches()`, ...), then shows what it did.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from kubenb.errors import KubenbError
from kubenb.widgets._html import counter, esc

__all__ = ["ServerControls"]


class ServerControls:
    """Buttons over an `EmbeddedServer` (or a Cluster made by `kubenb.embedded()`).

    `churn_options` go to `server.churn(...)` when the churn button is first pressed.
    """

    def __init__(self, server: Any, *, error_fraction: float = 0.5, error_code: int = 500,
                 **churn_options: Any) -> None:
        server = getattr(server, "server", server) if not hasattr(server, "faults") else server
        if server is None or not hasattr(server, "faults"):
            raise KubenbError("ServerControls needs the embedded server (kubenb.embedded() "
                              "or EmbeddedServer); a real cluster has no fault switches")
        self.server = server
        self.churn_options = {"rate": 20.0, **churn_options}
        self.churn: Any = None
        self.error_fraction = error_fraction
        self.error_code = error_code
        self.last_action = ""
        self.buttons: dict[str, Any] = {}

        def button(name: str, description: str, action: Any, tooltip: str) -> widgets.Button:
            b = widgets.Button(description=description, tooltip=tooltip)
            b.add_class("kubenb-server-button")
            b.add_class(f"kubenb-server-{name}")
            b.on_click(lambda _b: self._run(name, action))
            self.buttons[name] = b
            return b

        drop = button("drop-watches", "drop watches", self.drop_watches,
                      "end every open watch now")
        compact = button("compact", "compact", self.compact,
                         "forget the event history: old resourceVersions get 410 Gone")
        fail = button("inject-errors", f"fail {error_fraction:.0%} ({error_code})",
                      self.inject_errors, "fail a fraction of all requests")
        clear = button("clear-faults", "clear faults", self.clear_faults,
                       "switch off injected errors and latency")
        self.churn_toggle = widgets.ToggleButton(value=False, description="churn",
                                                 tooltip="create/update/delete objects")
        self.churn_toggle.add_class("kubenb-server-button")
        self.churn_toggle.add_class("kubenb-server-churn")
        self.churn_toggle.observe(lambda c: self._run("churn", lambda: self.set_churn(
            c["new"])), names="value")
        self.buttons["churn"] = self.churn_toggle
        self.status = widgets.HTML()
        self.status.add_class("kubenb-server-status")
        self.widget = widgets.VBox([widgets.HBox([drop, compact, fail, clear,
                                                  self.churn_toggle]), self.status])
        self.widget.add_class("kubenb-server-controls")
        self.render()

    def _run(self, name: str, action: Any) -> None:
        if not getattr(self.server, "running", True) and not (name == "churn" and not
                                                              self.churn_toggle.value):
            self.last_action = (f"{name}: the embedded server is stopped (cluster.close() "
                                "stops it), so this button does nothing now; run the "
                                "notebook again for a live server")
            self.render()
            return
        try:
            result = action()
            self.last_action = f"{name}: {result}"
        except Exception as err:  # show it, never lose the widget over a click
            self.last_action = f"{name} failed: {type(err).__name__}: {err}"
        self.render()

    # -- the actions (also callable from a cell) ------------------------------------------

    def drop_watches(self) -> str:
        return f"{self.server.faults.drop_watches()} watches dropped"

    def compact(self) -> str:
        return f"history compacted at resourceVersion {self.server.faults.compact()}"

    def inject_errors(self) -> str:
        self.server.faults.fail(fraction=self.error_fraction, code=self.error_code)
        return f"failing {self.error_fraction:.0%} of requests with {self.error_code}"

    def clear_faults(self) -> str:
        self.server.faults.clear()
        return "failures and latency switched off"

    def set_churn(self, on: bool) -> str:
        """Start or stop the churn generator (made on first use)."""
        if on:
            if self.churn is None:
                self.churn = self.server.churn(**self.churn_options)
            if not self.churn.running:
                self.churn.start()
            if not self.churn_toggle.value:
                self.churn_toggle.value = True
            return f"churn on at {self.churn.rate:g}/s"
        if self.churn is not None and self.churn.running:
            self.churn.stop()
        if self.churn_toggle.value:
            self.churn_toggle.value = False
        return "churn off"

    def render(self) -> None:
        """Show the fault counters, the active rules and the last action."""
        stats = self.server.faults.stats()
        ops = self.churn.ops if self.churn is not None else {}
        parts = [
            counter("server-watches-dropped", "watches dropped", stats["watches_dropped"]),
            counter("server-compactions", "compactions", stats["compactions"]),
            counter("server-failed", "requests failed", stats["failed"]),
            counter("server-fail-rules", "fail rules", len(self.server.faults.rules())),
            counter("server-churn-ops", "churn ops",
                    sum(ops.get(k, 0) for k in ("create", "update", "delete"))),
            f'<div class="kubenb-server-last-action">{esc(self.last_action)}</div>',
        ]
        self.status.value = "".join(parts)

    def close(self) -> None:
        """Stop the churn this widget started."""
        if self.churn is not None and self.churn.running:
            self.churn.stop()

    def __repr__(self) -> str:
        return f"ServerControls({getattr(self.server, 'url', '?')!r})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
