"""DeltaStepper: pause an informer's process loop and apply one delta at a time.

For teaching. `pause()` stops the Controller from applying deltas (the Reflector
keeps queueing them: watch the FIFO fill); `step()` applies the next queued item
and shows its deltas, the store's object before and after (and their diff), and
the handler calls it caused. `resume()` lets the loop run again. Built on
`Controller.pause/step/resume` (kubenb.cache.controller); `InformerDiagram` has the
same three buttons on its DeltaFIFO.

The handler calls are read from the handlers' own counters (each registration's
`stats()`), before and after the step, once every handler has caught up: the
stepper registers no handler of its own, so the informer it shows is the
learner's, unchanged. The "keys queued" line is sampled live, like the diagram.

Buttons run on the kernel thread, which is the caller's own thread: `step()` waits
(at most `timeout` real seconds) for the informer's loop to apply the item.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from kubenb.clock import Clock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.widgets._feed import PolledView, gone_reason
from kubenb.widgets._html import esc
from kubenb.widgets.table import SCROLL_STYLE, diff_html, to_yaml, yaml_diff

if TYPE_CHECKING:
    from kubenb.cache import SharedIndexInformer

__all__ = ["DeltaStepper", "StepResult", "apply_one", "step_html", "waiting_keys"]

_CALLS = (("adds", "on_add"), ("updates", "on_update"), ("deletes", "on_delete"))


class StepResult:
    """What one step did: the key, its deltas, the object before/after, and the calls.

    `calls` is one `(call, key)` per handler call (e.g. `("on_update", "default/a")`);
    `handlers` says which handler made each: `(handler, call)`.
    """

    def __init__(self, key: str, deltas: list[tuple[str, Any]], before: Any, after: Any,
                 calls: list[tuple[str, str]],
                 handlers: list[tuple[str, str]] | None = None) -> None:
        self.key, self.deltas, self.before, self.after, self.calls = (
            key, deltas, before, after, calls)
        self.handlers = handlers or []

    def diff(self) -> list[str]:
        """The unified diff of the object's YAML, before -> after."""
        return yaml_diff(self.before, self.after)

    def __repr__(self) -> str:
        return (f"StepResult({self.key!r}, deltas={[t for t, _ in self.deltas]}, "
                f"calls={[c for c, _ in self.calls]})")


def waiting_keys(controller: Any) -> list[str]:
    """Keys the paused loop will apply, in order: the one it popped and holds, then
    the FIFO's."""
    held = controller.held()
    keys = [controller.queue.key_of(held)] if held else []
    return keys + list(controller.queue.list_keys())


def _listeners(informer: SharedIndexInformer) -> list[Any]:
    processor = getattr(informer, "processor", None)
    return processor.listeners() if processor is not None else []


def _counts(informer: SharedIndexInformer) -> dict[int, tuple[Any, dict[str, int]]]:
    return {id(lst): (lst, lst.stats()) for lst in _listeners(informer)}


def _wait_idle(informer: SharedIndexInformer, timeout: float) -> bool:
    """Wait until every handler has delivered what it was handed (True), or timeout."""
    deadline = time.monotonic() + timeout
    while True:
        if all(not s["pending"] and not s["busy"] for s in
               (lst.stats() for lst in _listeners(informer))):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)  # a listener thread delivering; no event to wait on


def _handler_label(listener: Any) -> str:
    from kubenb.widgets._samples import _handler_name

    return _handler_name(listener)


def apply_one(informer: SharedIndexInformer, timeout: float = 5.0) -> StepResult | None:
    """Apply the next item a paused informer holds or queues, and report it (None
    when nothing is queued). Raises KubenbError when the informer is not running or
    not paused, saying what to do."""
    reason = gone_reason(informer)
    if reason:
        raise KubenbError(f"cannot step: {reason}")
    controller = informer.get_controller()
    if controller is None:  # gone_reason says so first; typed here for the reader
        raise KubenbError("cannot step: the informer is not running yet: start it first")
    if not controller.is_paused():
        raise KubenbError("step needs the loop paused first: press pause (or call "
                          "pause()), then step")
    keys = waiting_keys(controller)
    if not keys:
        return None
    key = keys[0]
    indexer = informer.get_indexer()
    _wait_idle(informer, timeout)  # calls made before this step are not counted as its
    before_counts = _counts(informer)
    before = indexer.get_by_key(key)
    deltas = controller.step(timeout)
    if deltas is None:
        return None
    # the notifications were handed to the listeners before step() returned: wait
    # for their threads to deliver them
    _wait_idle(informer, timeout)
    calls: list[tuple[str, str]] = []
    handlers: list[tuple[str, str]] = []
    for ident, (listener, after_stats) in _counts(informer).items():
        old = before_counts.get(ident, (listener, {}))[1]
        for counter, call in _CALLS:
            for _ in range(int(after_stats.get(counter, 0)) - int(old.get(counter, 0))):
                calls.append((call, key))
                handlers.append((_handler_label(listener), call))
    return StepResult(key, [(str(d.type), d.object) for d in deltas], before,
                      indexer.get_by_key(key), calls, handlers)


def _yaml_box(label: str, css: str, obj: Any, height: int) -> str:
    text = "(not in the Indexer)" if obj is None else to_yaml(obj)
    return (f'<div style="flex:1;min-width:0"><div class="kubenb-step-label"><b>{esc(label)}'
            f'</b></div><pre class="{css}" style="{SCROLL_STYLE};height:{height}px">'
            f"{esc(text)}</pre></div>")


def step_html(r: StepResult, height: int = 260) -> str:
    """One step as HTML: key, deltas, handler calls, YAML before / after (fixed-height
    boxes of `height` pixels, managedFields left out), and the diff."""
    deltas = "".join(f"<li>{esc(t)}</li>" for t, _ in r.deltas)
    calls = "".join(f"<li>{esc(c)}({esc(k)})"
                    + (f" <i>by {esc(r.handlers[i][0])}</i>" if i < len(r.handlers) else "")
                    + "</li>" for i, (c, k) in enumerate(r.calls)) or "<li><i>none (no " \
        "handler registered)</i></li>"
    return (f'<div class="kubenb-step"><b>applied {esc(r.key)}</b>'
            f'<div>deltas:<ul class="kubenb-step-deltas">{deltas}</ul></div>'
            f'<div>handler calls:<ul class="kubenb-step-calls">{calls}</ul></div>'
            f'<div style="display:flex;gap:6px">'
            + _yaml_box("before: the Indexer before this step", "kubenb-step-before",
                        r.before, height)
            + _yaml_box("after: the Indexer now", "kubenb-step-after", r.after, height)
            + f'<div style="flex:1;min-width:0"><div class="kubenb-step-label"><b>diff, before -> '
            f'after</b></div>{diff_html(r.diff(), "kubenb-step-diff", height)}</div></div></div>')


class DeltaStepper(PolledView):
    """Pause / step / resume buttons over a running SharedIndexInformer; the line
    above them (loop state, keys queued) is sampled every `interval` clock seconds."""

    def __init__(self, informer: SharedIndexInformer, *, timeout: float = 5.0,
                 interval: float = 0.5,
                 publisher: Publisher | None = None, rate: float = DEFAULT_RATE,
                 clock: Clock | None = None, name: str = "", poll: bool = True) -> None:
        if informer is None or not hasattr(informer, "get_controller"):
            raise KubenbError(f"DeltaStepper needs a SharedIndexInformer, got "
                              f"{type(informer).__name__}")
        self.informer = informer
        self.timeout = timeout
        self.history: list[StepResult] = []
        self.pause_button = widgets.Button(description="pause", icon="pause",
                                           tooltip="stop applying deltas; the FIFO fills")
        self.step_button = widgets.Button(description="step", icon="step-forward",
                                          tooltip="apply the next key's deltas")
        self.resume_button = widgets.Button(description="resume", icon="play",
                                            tooltip="apply deltas again")
        for label, button, action in (("pause", self.pause_button, self.pause),
                                      ("step", self.step_button, self.step),
                                      ("resume", self.resume_button, self.resume)):
            button.add_class(f"kubenb-stepper-{label}")
            button.on_click(lambda _b, action=action: self._click(action))
        self.queue_view = widgets.HTML()
        self.queue_view.add_class("kubenb-stepper-queue")
        self.status = widgets.HTML()
        self.status.add_class("kubenb-stepper-status")
        self.step_view = widgets.HTML()
        self.step_view.add_class("kubenb-stepper-step")
        self.widget = widgets.VBox([widgets.HBox([self.pause_button, self.step_button,
                                                  self.resume_button]),
                                    self.queue_view, self.status, self.step_view])
        self.widget.add_class("kubenb-stepper")
        self._start_feed(interval=interval, publisher=publisher, rate=rate, clock=clock,
                         name=name, poll=poll)
        self.render_queue()

    # -- buttons ---------------------------------------------------------------------------

    def _click(self, action: Any) -> None:
        """A button press: never silent. What went wrong is shown under the buttons."""
        try:
            action()
        except KubenbError as err:
            self.status.value = (f'<span class="kubenb-notice" style="color:#b26a00">'
                                 f"{esc(err)}</span>")

    def _controller(self) -> Any:
        reason = gone_reason(self.informer)  # first: what a closed cluster did is the news
        if reason:
            raise KubenbError(reason)
        if self.closed:
            raise KubenbError("this stepper is closed (close() was called); run its cell "
                              "again for a live one")
        return self.informer.get_controller()

    def pause(self) -> None:
        self._controller().pause()
        self.status.value = ""
        self.render_queue()

    def resume(self) -> None:
        self._controller().resume()
        self.status.value = ""
        self.render_queue()

    def next_key(self) -> str | None:
        """The key the next step applies (held by the pause, else the queue's head)."""
        keys = waiting_keys(self._controller())
        return keys[0] if keys else None

    def step(self) -> StepResult | None:
        """Apply the next queued item; None when nothing is queued."""
        self._controller()
        result = apply_one(self.informer, self.timeout)
        if result is None:
            self.step_view.value = "<i>nothing queued</i>"
        else:
            self.history.append(result)
            self.step_view.value = step_html(result)
        self.status.value = ""
        self.render_queue()
        return result

    # -- the live line ---------------------------------------------------------------------

    def _sample(self) -> dict[str, Any]:
        controller = self.informer.get_controller()
        if controller is None or self.informer.is_stopped():
            return {"state": "stopped" if self.informer.is_stopped() else "not running",
                    "keys": []}
        return {"state": "paused" if controller.is_paused() else "running",
                "keys": waiting_keys(controller)}

    def _render(self, sample: dict[str, Any]) -> None:
        keys = sample["keys"]
        shown = ", ".join(keys[:20]) + (" ..." if len(keys) > 20 else "")
        self.queue_view.value = (
            f'<div>loop <b class="kubenb-stepper-state">{esc(sample["state"])}</b>, '
            f'<span class="kubenb-counter kubenb-counter-stepper-queued" '
            f'data-value="{len(keys)}">{len(keys)}</span> keys queued'
            f'{": " + esc(shown) if keys else ""}</div>')

    def render_queue(self) -> None:
        """Redraw the state line now (buttons do; the poll thread does it live)."""
        with self._render_lock:
            self._render(self._sample())

    def close(self) -> None:
        """Resume the loop if paused, and stop sampling."""
        controller = self.informer.get_controller()
        if controller is not None and controller.is_paused():
            controller.resume()
        super().close()

    def __repr__(self) -> str:
        return f"DeltaStepper({self.informer.name!r}, steps={len(self.history)})"
