"""DeltaStepper: pause an informer's process loop and apply one delta at a time.

For teaching. `pause()` stops the Controller from applying deltas (the Reflector
keeps queueing them: watch the FIFO fill); `step()` applies the next queued item
and shows its deltas, the store's object before and after, and the handler calls
it caused (as seen by a recording handler this widget registers). `resume()` lets
the loop run again. Built on `Controller.pause/step/resume` (kubenb.cache.controller).

Buttons run on the kernel thread, which is the caller's own thread: `step()` waits
(at most `timeout` real seconds) for the informer's loop to apply the item.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as widgets

from kubenb.errors import KubenbError
from kubenb.widgets._html import esc
from kubenb.widgets.table import to_yaml

__all__ = ["DeltaStepper", "StepResult"]


class _Calls:
    """A handler recording calls; runs on its own listener thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[tuple[str, str]] = []

    def _key(self, obj: Any) -> str:
        from kubenb.cache.keys import deletion_handling_meta_namespace_key_func

        try:
            return deletion_handling_meta_namespace_key_func(obj)
        except Exception:
            return "?"

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        with self.lock:
            self.calls.append(("on_add", self._key(obj)))

    def on_update(self, old: Any, new: Any) -> None:
        with self.lock:
            self.calls.append(("on_update", self._key(new)))

    def on_delete(self, obj: Any) -> None:
        with self.lock:
            self.calls.append(("on_delete", self._key(obj)))


class StepResult:
    """What one step did: the key, its deltas, the object before/after, the calls."""

    def __init__(self, key: str, deltas: list[tuple[str, Any]], before: Any, after: Any,
                 calls: list[tuple[str, str]]) -> None:
        self.key, self.deltas, self.before, self.after, self.calls = (
            key, deltas, before, after, calls)

    def __repr__(self) -> str:
        return (f"StepResult({self.key!r}, deltas={[t for t, _ in self.deltas]}, "
                f"calls={[c for c, _ in self.calls]})")


class DeltaStepper:
    """Pause / step / resume buttons over a running SharedIndexInformer."""

    def __init__(self, informer: Any, *, timeout: float = 5.0) -> None:
        if informer is None or not hasattr(informer, "get_controller"):
            raise KubenbError(f"DeltaStepper needs a SharedIndexInformer, got "
                              f"{type(informer).__name__}")
        self.informer = informer
        self.timeout = timeout
        self.recorder = _Calls()
        self._registration = informer.add_event_handler(self.recorder)
        self.history: list[StepResult] = []
        self.pause_button = widgets.Button(description="pause")
        self.step_button = widgets.Button(description="step")
        self.resume_button = widgets.Button(description="resume")
        for name, button, action in (("pause", self.pause_button, self.pause),
                                     ("step", self.step_button, self.step),
                                     ("resume", self.resume_button, self.resume)):
            button.add_class(f"kubenb-stepper-{name}")
            button.on_click(lambda _b, action=action: action())
        self.queue_view = widgets.HTML()
        self.queue_view.add_class("kubenb-stepper-queue")
        self.step_view = widgets.HTML()
        self.step_view.add_class("kubenb-stepper-step")
        self.widget = widgets.VBox([widgets.HBox([self.pause_button, self.step_button,
                                                  self.resume_button]),
                                    self.queue_view, self.step_view])
        self.widget.add_class("kubenb-stepper")
        self.render_queue()

    def _controller(self) -> Any:
        controller = self.informer.get_controller()
        if controller is None:
            raise KubenbError("DeltaStepper: the informer is not running; start it first")
        return controller

    def pause(self) -> None:
        self._controller().pause()
        self.render_queue()

    def resume(self) -> None:
        self._controller().resume()
        self.render_queue()

    def next_key(self) -> str | None:
        """The key the next step applies (held by the pause, else the queue's head)."""
        controller = self._controller()
        held = controller.held()
        if held:
            return controller.queue.key_of(held)
        keys = controller.queue.list_keys()
        return keys[0] if keys else None

    def step(self) -> StepResult | None:
        """Apply the next queued item; None when nothing is queued."""
        controller = self._controller()
        key = self.next_key()
        if key is None:
            self.step_view.value = "<i>nothing queued</i>"
            return None
        indexer = self.informer.get_indexer()
        before = indexer.get_by_key(key)
        listener = self._registration
        with self.recorder.lock:
            start = len(self.recorder.calls)
        deltas = controller.step(self.timeout)
        if deltas is None:
            self.step_view.value = "<i>nothing applied</i>"
            return None
        # the notifications were handed to our listener before step() returned: wait
        # for its thread to deliver them
        import time

        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            stats = listener.stats()
            if not stats["pending"] and not stats["busy"]:
                break
            time.sleep(0.002)
        with self.recorder.lock:
            calls = self.recorder.calls[start:]
        result = StepResult(key, [(str(d.type), d.object) for d in deltas], before,
                            indexer.get_by_key(key), calls)
        self.history.append(result)
        self.step_view.value = self._step_html(result)
        self.render_queue()
        return result

    def render_queue(self) -> None:
        controller = self.informer.get_controller()
        if controller is None:
            self.queue_view.value = "<i>informer not running</i>"
            return
        keys = controller.queue.list_keys()
        state = "paused" if controller.is_paused() else "running"
        self.queue_view.value = (
            f'<div>loop <b class="kubenb-stepper-state">{state}</b>, '
            f'<span class="kubenb-counter kubenb-counter-stepper-queued" '
            f'data-value="{len(keys)}">{len(keys)}</span> keys queued: '
            f"{esc(', '.join(keys[:20]))}</div>")

    def _step_html(self, r: StepResult) -> str:
        deltas = "".join(f"<li>{esc(t)}</li>" for t, _ in r.deltas)
        calls = "".join(f"<li>{esc(c)}({esc(k)})</li>" for c, k in r.calls)

        def yaml_of(obj: Any) -> str:
            return "(not in store)" if obj is None else to_yaml(obj)

        return (f'<div class="kubenb-step"><b>{esc(r.key)}</b>'
                f'<div>deltas:<ul class="kubenb-step-deltas">{deltas}</ul></div>'
                f'<div>handler calls:<ul class="kubenb-step-calls">{calls}</ul></div>'
                f'<div style="display:flex"><pre class="kubenb-step-before">'
                f'{esc(yaml_of(r.before))}</pre><pre class="kubenb-step-after">'
                f"{esc(yaml_of(r.after))}</pre></div></div>")

    def close(self) -> None:
        """Resume the loop if paused and remove the recording handler."""
        controller = self.informer.get_controller()
        if controller is not None and controller.is_paused():
            controller.resume()
        self.informer.remove_event_handler(self._registration)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
