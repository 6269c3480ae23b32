"""InformerDiagram: client-go's controller-interaction picture, drawn live.

The picture every client-go tutorial starts from, with the informer's own numbers in
it: `diagram_svg.py` draws it, `diagram_inspector.py` writes what a click on a box
shows, and this module is the widget that samples, redraws and takes the clicks.

- Boxes carry live counts; an arrow lights up, with `+N`, when traffic crosses it, and
  stays lit, counting, until it has been quiet for `fade` seconds (dimming meanwhile),
  so what a cell did is still visible after it ran. `picture()` gives picture-only
  copies, kept current, for a chapter's own cell.
- Click a box (or its button under the picture) for its inspector: the FIFO's
  queued keys and delta types, the indexes, each handler's backlog, the workqueue's
  keys with requeue counts and next retry, the last items processed.
- pause / step / resume drive the informer's process loop (`Controller.pause`,
  kubenb.cache.controller); "process next key" runs one processNextWorkItem on the
  workqueue (get, your `process_item(key)` or a stopped Controller's reconcile,
  forget or add_rate_limited, done) when no worker takes keys itself; "clock +1s"
  steps a workqueue's FakeClock. With a kubenb Controller attached, pause workers /
  step worker / resume workers drive its gate (`Controller.pause`, `step(1)`,
  `resume`): a running controller's keys wait in the workqueue and its workers take
  them one step at a time.
- Without a workqueue the lower half is drawn greyed out.

Why plain ipywidgets: one `HTML` widget holds the SVG (one comm message per
picture, no frontend extension, no new dependency, and it renders anywhere
ipywidgets does: JupyterLab, Notebook 7, VS Code, Voila); real `Button`s carry the
clicks to Python. A click on a box in the picture presses that box's button, so the
picture is clickable and the buttons remain for keyboards and for tests.

Counters are sampled on a poll thread and rendered by the reactive publisher (see
`_feed.py`): nothing here runs on an informer thread. The picture's and the
inspector's public names are re-exported here, where code has imported them from.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from kubenb.clock import Clock, FakeClock
from kubenb.errors import KubenbError
from kubenb.reactive.publisher import DEFAULT_RATE, Publisher
from kubenb.widgets._feed import PolledView, gone_reason
from kubenb.widgets._html import esc, wall_time
from kubenb.widgets._samples import (
    MAX_LISTED,
    controller_of,
    informer_sample,
    queue_detail,
    queue_of,
    queue_snapshot,
    workqueue_sample,
)
from kubenb.widgets.diagram_inspector import ACTIVITY_LABELS, inspector_html
from kubenb.widgets.diagram_svg import (
    _WARN,
    ARROWS,
    BOXES,
    diagram_svg,
    flow_changes,
    flow_totals,
)
from kubenb.widgets.stepper import StepResult, apply_one, step_html
from kubenb.widgets.table import scrolling
from kubenb.workqueue.interface import Interface, RateLimitingInterface

if TYPE_CHECKING:
    from kubenb.cache.shared_informer import SharedIndexInformer

__all__ = ["ARROWS", "BOXES", "InformerDiagram", "diagram_svg", "flow_totals", "inspector_html"]

_SHORT = {"api": "API server", "store": "Store", "handlers": "Handlers", "fifo": "FIFO",
          "process": "Process Item"}


# -- the widget ------------------------------------------------------------------------------


class InformerDiagram(PolledView):
    """client-go's controller picture, live (see the module docstring).

    `workqueue`: a workqueue or a `kubenb.controller` Controller fed by the
    informer's handlers (None: the lower half is greyed out). `process_item(key)`:
    what "process next key" runs for a bare workqueue (your reconcile; raise to have
    the key requeued with backoff). `interval`: how often counters are sampled
    (clock seconds); a lit arrow fades over `fade` clock seconds after its last
    traffic, counting all the traffic it carried meanwhile; `activity_size` bounds
    each box's recent-activity list.
    """

    def __init__(self, informer: SharedIndexInformer, workqueue: Any = None, *,
                 process_item: Callable[[Any], Any] | None = None,
                 interval: float = 0.5, fade: float = 5.0, activity_size: int = 50,
                 step_timeout: float = 5.0,
                 clock_step: float = 1.0, publisher: Publisher | None = None,
                 rate: float = DEFAULT_RATE, clock: Clock | None = None, name: str = "",
                 poll: bool = True) -> None:
        if informer is None or not hasattr(informer, "stats"):
            raise KubenbError(f"{type(self).__name__} needs a SharedIndexInformer, got "
                              f"{type(informer).__name__}")
        if workqueue is not None and not hasattr(workqueue, "metrics"):
            raise KubenbError(f"{type(self).__name__}(workqueue=...): expected a workqueue or "
                              f"a controller with metrics(), got {type(workqueue).__name__}")
        if process_item is not None and not callable(process_item):
            raise KubenbError(f"{type(self).__name__}(process_item=...): expected a function "
                              f"of a key, got {type(process_item).__name__}")
        self.informer = informer
        self.workqueue = workqueue
        self.process_item = process_item
        self.step_timeout = step_timeout
        self.clock_step = clock_step
        self.lower = workqueue is not None
        self.activity: dict[str, deque[str]] = {b: deque(maxlen=activity_size)
                                                for b, _ in BOXES}
        self.selected: str | None = None
        self.last_sample: dict[str, Any] = {}
        self.last_flows: dict[str, int] = {}
        self.fade = float(fade)
        # arrow -> [traffic since it lit up, clock time of its last traffic]
        self.traffic: dict[str, list[float]] = {}
        self.last_heat: dict[str, float] = {}
        self._pictures: list[widgets.HTML] = []
        self._closed_reason = ""
        self.last_outcome = ""  # what the Process Item box says the last key came to
        self.last_step: StepResult | None = None
        self.recent: deque[tuple[str, str, str]] = deque(maxlen=20)
        self._previous: dict[str, Any] | None = None
        self._own = {"gets": 0, "done": 0, "errors": 0}
        self._own_keys: set[str] = set()

        self.svg = widgets.HTML()
        self.svg.add_class("kubenb-diagram-picture")
        self.buttons: dict[str, widgets.Button] = {}
        inspect = []
        for box, title in BOXES:
            button = widgets.Button(description=_SHORT.get(box, title),
                                    tooltip=f"inspect the {title}",
                                    layout=widgets.Layout(width="auto"))
            for css in ("kubenb-diagram-inspect", f"kubenb-diagram-inspect-{box}",
                        "kubenb-stage-button", f"kubenb-stage-button-{box}"):
                button.add_class(css)
            button.on_click(lambda _b, box=box: self._click(lambda: self.select(
                None if self.selected == box else box)))
            self.buttons[box] = button
            inspect.append(button)
        self.controls: dict[str, widgets.Button] = {}

        def control(name: str, description: str, icon: str, tooltip: str, action: Any
                    ) -> widgets.Button:
            b = widgets.Button(description=description, icon=icon, tooltip=tooltip,
                               layout=widgets.Layout(width="auto"))
            b.add_class("kubenb-diagram-control")
            b.add_class(f"kubenb-diagram-{name}")
            b.on_click(lambda _b: self._click(action))
            self.controls[name] = b
            return b

        fifo_row = [widgets.HTML("<b>DeltaFIFO</b>"),
                    control("pause", "pause", "pause",
                            "stop the process loop: the FIFO fills, nothing reaches the "
                            "Indexer", self.pause),
                    control("step", "step", "step-forward",
                            "apply the next key's deltas (Indexer, then handlers)", self.step),
                    control("resume", "resume", "play", "run the process loop again",
                            self.resume)]
        queue_row: list[Any] = []
        if self.lower:
            queue_row = [widgets.HTML("&nbsp;&nbsp;<b>Workqueue</b>"),
                         control("process-next", "process next key", "cog",
                                 "get, process_item(key), forget or add_rate_limited, done",
                                 self.process_next)]
            if controller_of(workqueue) is not None:
                queue_row += [
                    control("workers-pause", "pause workers", "pause",
                            "hold the controller's workers before they take a key: keys "
                            "wait in the workqueue", self.pause_workers),
                    control("workers-step", "step worker", "step-forward",
                            "let one worker take the next key (Controller.step(1))",
                            self.step_worker),
                    control("workers-resume", "resume workers", "play",
                            "the controller's workers take every key again",
                            self.resume_workers)]
            fake = self._fake_clock()
            if fake is not None:
                queue_row.append(control("clock", f"clock +{clock_step:g}s", "clock-o",
                                         "step the workqueue's FakeClock: retries fall due",
                                         self.step_clock))
        self.status = widgets.HTML()
        self.status.add_class("kubenb-diagram-status")
        self.step_view = widgets.HTML(layout=widgets.Layout(display="none"))
        self.step_view.add_class("kubenb-diagram-step")
        # the inspector scrolls in a box of its own: re-drawn twice a second, it keeps
        # where the reader scrolled to; hidden while no box is selected
        self.detail = scrolling(widgets.HTML(), 260, "kubenb-diagram-inspector")
        self.detail.layout.display = "none"
        self.detail.add_class("kubenb-pipeline-activity")
        self.widget = widgets.VBox([
            self.svg,
            widgets.HBox([widgets.HTML("inspect:&nbsp;"), *inspect],
                         layout=widgets.Layout(flex_flow="row wrap")),
            widgets.HBox([*fifo_row, *queue_row], layout=widgets.Layout(flex_flow="row wrap")),
            self.status, self.step_view, self.detail])
        for css in ("kubenb-diagram", "kubenb-pipeline"):
            self.widget.add_class(css)
        self._start_feed(interval=interval, publisher=publisher, rate=rate, clock=clock,
                         name=name, poll=poll)
        self.widget.add_class(f"kubenb-diagram-{self.name}")
        self.svg.value = diagram_svg({}, selected=None, lower=self.lower, uid=self._uid())

    def picture(self) -> widgets.HTML:
        """A picture-only copy of this live diagram (no buttons, no inspector), kept
        current with it: display one in a chapter's own cell, next to what the chapter
        does, instead of scrolling back to the full widget."""
        copy = widgets.HTML(value=self._picture_svg())
        copy.add_class("kubenb-diagram-picture-copy")
        copy.add_class(f"kubenb-diagram-copy-{self._uid()}")
        self._pictures.append(copy)
        return copy

    def _picture_svg(self) -> str:
        return diagram_svg(self.last_sample, self.last_flows, heat=self.last_heat,
                           selected=None, lower=self.lower, uid=f"{self._uid()}-copy",
                           closed=self._closed_reason, clickable=False)

    def _uid(self) -> str:
        return "".join(ch if ch.isalnum() else "-" for ch in self.name)

    # -- sampling (poll thread) and rendering (publisher thread) ---------------------------

    def _sample(self) -> dict[str, Any]:
        detail = self.selected is not None
        sample: dict[str, Any] = informer_sample(self.informer, detail=detail)
        if self.workqueue is not None:
            sample["workqueue"], sample["process"] = self._lower_sample(detail)
            if self.last_outcome:
                sample["process"]["last"] = self.last_outcome
        sample["time"] = self.clock.now()
        sample["wall"] = time.time()
        if detail and self.selected == "store":
            sample["store_keys"] = sorted(self.informer.get_indexer().list_keys())[:MAX_LISTED]
        return sample

    def _lower_sample(self, detail: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        source = self.workqueue
        wq = workqueue_sample(source)
        metrics = wq.pop("metrics")
        queue = queue_of(source)
        wq["delayed"] = 0
        if queue is not None:  # bounded; also how finished keys are seen (_record_activity)
            wq["detail"] = queue_detail(queue)
            wq["delayed"] = wq["detail"]["waiting_count"]
        items = [str(i) for i in wq.pop("items")]
        controller = controller_of(source)
        own = dict(self._own)
        if controller is not None:
            m = controller.metrics()
            process = {"done": m.reconciles, "gets": m.reconciles + m.active_workers,
                       "errors": m.errors, "in_flight": items,
                       "recent_errors": controller.recent_errors()[-10:]}
        else:
            enabled = bool(getattr(metrics, "enabled", False))
            process = {"done": metrics.work_duration.count if enabled else own["done"],
                       "gets": metrics.latency.count if enabled else own["gets"],
                       "errors": own["errors"], "in_flight": items, "recent_errors": []}
        return wq, process

    def _render(self, sample: dict[str, Any]) -> None:
        previous = self._previous
        self._record_activity(sample, previous)
        self._previous = sample
        self.last_sample = sample
        self._light(flow_changes(sample, previous), float(sample.get("time", 0.0)))
        self._draw()

    def _light(self, changes: dict[str, int], now: float) -> None:
        """Light the arrows traffic crossed: each counts its traffic until it has been
        quiet for `fade` seconds, and dims as the quiet lasts, so what a cell did is
        still lit when the reader looks."""
        for arrow, count in changes.items():
            lit = self.traffic.get(arrow)
            if lit is not None and now - lit[1] <= self.fade:
                lit[0] += count
                lit[1] = now
            else:
                self.traffic[arrow] = [float(count), now]
        flows, heat = {}, {}
        for arrow, (total, last) in list(self.traffic.items()):
            quiet = now - last
            if quiet > self.fade:
                del self.traffic[arrow]
                continue
            flows[arrow] = int(total)
            heat[arrow] = 1.0 - quiet / self.fade if self.fade > 0 else 1.0
        self.last_flows, self.last_heat = flows, heat

    def _draw(self) -> None:
        sample = self.last_sample
        if not self._closed_reason and (sample.get("informer") or {}).get("state") == "stopped":
            self._closed_reason = "closed: the informer has stopped (cluster.close())"
        self.svg.value = diagram_svg(sample, self.last_flows, heat=self.last_heat,
                                     selected=self.selected, lower=self.lower,
                                     uid=self._uid(), closed=self._closed_reason)
        if self._pictures:
            copy = self._picture_svg()
            for picture in self._pictures:
                picture.value = copy
        for box, button in self.buttons.items():  # the pressed one shows it is pressed
            on = box == self.selected
            button.button_style = "info" if on else ""
            button.tooltip = (f"hide the {dict(BOXES)[box]}'s inspector" if on
                              else f"inspect the {dict(BOXES)[box]}")
        paused = (sample.get("informer") or {}).get("state") == "paused"
        if "pause" in self.controls:
            self.controls["pause"].button_style = "warning" if paused else ""
        if self.selected is not None:
            self.detail.value = inspector_html(
                self.selected, sample, list(self.activity[self.selected]),
                last_step=self.last_step, recent=list(self.recent)[::-1],
                store_keys=sample.get("store_keys"), lower=self.lower)
            self.detail.layout.display = ""
        else:
            self.detail.value = ""
            self.detail.layout.display = "none"

    def _record_activity(self, sample: dict[str, Any], previous: dict[str, Any] | None
                         ) -> None:
        stamp = wall_time(sample["wall"])
        own, self._own_keys = self._own_keys, set()
        if previous is None:
            return
        self._record_finished(stamp, previous, sample, own)
        for box, _ in BOXES:
            now = sample.get(box if box != "store" else "indexer") or {}
            before = previous.get(box if box != "store" else "indexer") or {}
            for field, label in ACTIVITY_LABELS[box]:
                old, new = before.get(field), now.get(field)
                if old == new:
                    continue
                if isinstance(new, int) and isinstance(old, int):
                    self.activity[box].append(f"{stamp} {label} {new - old:+d} (now {new})")
                else:
                    self.activity[box].append(f"{stamp} {label}: {old} -> {new}")
            if box == "reflector" and now.get("last_error") and \
                    now.get("last_error") != before.get("last_error"):
                self.activity[box].append(f"{stamp} error: {now['last_error']}")

    def _record_finished(self, stamp: str, previous: dict[str, Any], sample: dict[str, Any],
                         own: set[str]) -> None:
        """Keys a worker took and finished between two samples, as far as the samples
        show: a key processing before, or near the head of the ready list, that is
        neither ready nor processing now (keys this diagram processed itself are
        recorded when it does, with their outcome)."""
        before = ((previous.get("workqueue") or {}).get("detail")) or {}
        now = ((sample.get("workqueue") or {}).get("detail")) or {}
        if not before or not now:
            return
        ready_now, processing_now = set(now.get("ready") or []), set(now.get("processing") or [])
        waiting_now = {k for k, _ in now.get("waiting") or []}
        candidates = list(before.get("processing") or [])
        if before.get("ordered"):
            candidates += list(before.get("ready") or [])
        seen: set[Any] = set()
        for key in candidates:
            if key in seen or str(key) in own or key in ready_now or key in processing_now:
                continue
            seen.add(key)
            outcome = ("failed: waiting for a retry" if key in waiting_now
                       else "done (seen by sampling)")
            self.recent.append((stamp, str(key), outcome))

    def _redraw_now(self) -> None:
        """Sample and draw on the calling thread (after a click), if still open."""
        if not self.closed:
            self.refresh()
        else:
            with self._render_lock:
                self._draw()

    # -- interaction ---------------------------------------------------------------------

    def _click(self, action: Any) -> None:
        """A button press: never silent. What it did, or why it could not, is shown."""
        try:
            result = action()
            if isinstance(result, str):
                self._say(result)
        except KubenbError as err:
            self._say(str(err), warn=True)
        except Exception as err:  # a click must never lose the widget
            self._say(f"{type(err).__name__}: {err}", warn=True)

    def _say(self, text: str, warn: bool = False) -> None:
        colour = _WARN if warn else "#37474f"
        notice = " kubenb-notice" if warn else ""
        self.status.value = (f'<div class="kubenb-diagram-message{notice}" '
                             f'style="color:{colour}">{esc(text)}</div>')

    def select(self, box: str | None) -> None:
        """Show the inspector of `box` under the picture (None hides it): what a click on
        a box, or on its button, does."""
        if box is not None and box not in self.activity:
            raise KubenbError(f"{type(self).__name__}.select({box!r}): no such box; the "
                              f"boxes are {', '.join(self.activity)}")
        self.selected = box
        if box != "informer":
            self._fold_step()
        self._redraw_now()

    def _fold_step(self) -> None:
        """Hide the last step's panel (deltas, before / after, diff): it belongs to the
        Informer's inspector and to the moment of the step."""
        self.step_view.value = ""
        self.step_view.layout.display = "none"

    def close(self) -> None:
        """Stop sampling; the picture (and its copies) then says it is no longer live,
        and why, instead of showing the last states as if they were current."""
        if self.closed:
            return
        super().close()
        self._closed_reason = ("closed: the informer has stopped (cluster.close())"
                               if self.informer.is_stopped()
                               else "closed: diagram.close() stopped this picture")
        with self._render_lock:
            try:
                sample = self._sample()
            except Exception:  # a stopped informer may not answer: keep the last numbers
                sample = self.last_sample
            self.last_sample = sample
            self.traffic.clear()
            self.last_flows, self.last_heat = {}, {}
            self._draw()

    def _controller(self) -> Any:
        reason = gone_reason(self.informer)  # first: what a closed cluster did is the news
        if reason:
            raise KubenbError(reason)
        if self.closed:
            raise KubenbError("this diagram is closed (close() was called): its buttons do "
                              "nothing now; run its cell again for a live one")
        return self.informer.get_controller()

    def pause(self) -> str:
        """Pause the informer's process loop (the Reflector keeps filling the FIFO)."""
        self._controller().pause()
        self._redraw_now()
        return "paused: new deltas wait in the DeltaFIFO; step applies one key at a time"

    def resume(self) -> str:
        """Run the informer's process loop again."""
        self._controller().resume()
        self._fold_step()
        self._redraw_now()
        return "resumed: the process loop applies deltas as they come"

    def step(self) -> StepResult | None:
        """While paused, apply the next key's deltas; shows it in the Informer's inspector."""
        self._controller()
        result = apply_one(self.informer, self.step_timeout)
        if result is None:
            self._say("nothing queued: make a change (or wait for one) and step again")
        else:
            self.last_step = result
            self.selected = "informer"
            self.step_view.value = step_html(result, height=200)
            self.step_view.layout.display = ""
            calls = ", ".join(f"{c}" for c, _ in result.calls) or "no handler call"
            self._say(f"applied {result.key}: {', '.join(t for t, _ in result.deltas)} -> "
                      f"{calls}")
        self._redraw_now()
        return result

    def _attached_controller(self) -> Any:
        self._controller()  # a closed cluster or diagram says so first
        controller = controller_of(self.workqueue) if self.workqueue is not None else None
        if controller is None:
            raise KubenbError("no kubenb Controller attached: pausing workers needs "
                              "InformerDiagram(informer, controller)")
        return controller

    def pause_workers(self) -> str:
        """Hold the attached Controller's workers at its gate (`Controller.pause`)."""
        controller = self._attached_controller()
        controller.pause()
        self._redraw_now()
        return (f"controller {controller.name!r} paused: its workers wait before taking a "
                "key, so keys stay queued in the workqueue; step worker lets one through")

    def step_worker(self) -> str:
        """Let one worker of the paused, running Controller take the next key
        (`Controller.step(1)`); on a stopped Controller, process one key here instead."""
        controller = self._attached_controller()
        if not controller.is_running():
            return self.process_next()
        if not controller.paused:
            raise KubenbError(f"controller {controller.name!r} is running: its workers take "
                              "every key themselves; pause workers first, then step them")
        queued = len(controller.queue)
        controller.step(1)
        self.selected = self.selected or "process"
        self._redraw_now()
        if not queued:
            return (f"controller {controller.name!r}: no key is queued; one worker takes the "
                    "next key that comes")
        return f"controller {controller.name!r}: one worker takes the next key"

    def resume_workers(self) -> str:
        """Open the attached Controller's gate again (`Controller.resume`)."""
        controller = self._attached_controller()
        controller.resume()
        self._redraw_now()
        return f"controller {controller.name!r} resumed: its workers take every key again"

    def _fake_clock(self) -> FakeClock | None:
        queue = queue_of(self.workqueue) if self.workqueue is not None else None
        clock = getattr(queue, "clock", None) if queue is not None else None
        if clock is None and controller_of(self.workqueue) is not None:
            clock = self.workqueue.clock
        return clock if isinstance(clock, FakeClock) else None

    def step_clock(self) -> str:
        """Move the workqueue's FakeClock on by `clock_step` seconds."""
        if self.closed:
            raise KubenbError("this diagram is closed (close() was called)")
        fake = self._fake_clock()
        if fake is None:
            raise KubenbError("the workqueue runs on a real clock: nothing to step")
        fake.step(self.clock_step)
        self._redraw_now()
        return f"clock moved on {self.clock_step:g}s (now {fake.now():g}s): due retries are queued"

    def process_next(self) -> str:
        """One processNextWorkItem on the workqueue: get a key, process it (your
        `process_item`, or a stopped Controller's reconcile), then forget it or
        add_rate_limited it on error, and done. Returns what happened."""
        self._controller()
        source = self.workqueue
        if source is None:
            raise KubenbError("no workqueue attached: InformerDiagram(informer, workqueue=...)")
        controller = controller_of(source)
        if controller is not None:
            if controller.is_running():
                if controller.paused:
                    return self.step_worker()
                raise KubenbError(
                    f"controller {controller.name!r} is running: its workers take every key "
                    "themselves, so there is no key to process by hand; pause workers, then "
                    "step worker lets one worker take the next key")
            queue = controller.queue
        else:
            if self.process_item is None:
                raise KubenbError("give InformerDiagram(..., process_item=fn) to process keys "
                                  "from here: fn(key) is your reconcile; raise to retry")
            queue = source
        if queue.shutting_down():
            raise KubenbError("the workqueue is shut down: nothing more will be handed out")
        if not len(queue):
            look = queue_snapshot(queue, limit=0)
            waiting = look.waiting_count if look is not None else 0
            more = (f"; {waiting} key(s) wait for a retry: step the clock" if waiting else "")
            self._redraw_now()
            return f"no key is ready{more}"
        said = ""
        if controller is not None:
            key, outcome = self._reconcile_next(controller, queue)
        else:
            key, outcome, said = self._process_item_next(queue)
        self.recent.append((wall_time(time.time()), str(key), outcome))
        self.last_outcome = said or f"{key}: {outcome}"
        self._own_keys.add(str(key))
        self.selected = self.selected or "process"
        self._redraw_now()
        return f"processed {key}: {outcome}"

    @staticmethod
    def _reconcile_next(controller: Any, queue: RateLimitingInterface) -> tuple[Any, str]:
        """A stopped Controller's `process_next_work_item()`: reconcile, forget or
        requeue, done, counted as a worker's. No worker runs, so the key it takes is
        the head of its FIFO queue, named from a snapshot just before."""
        head = queue_snapshot(queue, limit=1)
        before = controller.metrics()
        if not controller.process_next_work_item():
            raise KubenbError("the workqueue is shut down: nothing more will be handed out")
        after = controller.metrics()
        outcome = ("error: requeued with backoff" if after.errors > before.errors
                   else "requeued" if after.requeues > before.requeues
                   else "requeued after a delay" if after.requeues_after >
                   before.requeues_after else "done; forgotten")
        return (head.queued[0] if head is not None and head.queued else "?"), outcome

    def _process_item_next(self, queue: Interface) -> tuple[Any, str, str]:
        """processNextWorkItem on a bare workqueue, with `process_item` as the reconcile:
        forget on success, add_rate_limited on error (where the queue can), done.
        Returns the key, the outcome, and what the reconcile said it did (its return
        value when that is a string, else "")."""
        said = ""
        key, shutdown = queue.get()
        if shutdown:
            raise KubenbError("the workqueue is shut down: nothing more will be handed out")
        self._own["gets"] += 1
        process = self.process_item
        try:
            if process is None:  # process_next checks first; a close() may have raced it
                raise KubenbError("no process_item to call")
            result = process(key)
        except Exception as err:
            self._own["errors"] += 1
            if isinstance(queue, RateLimitingInterface):
                queue.add_rate_limited(key)
                outcome = (f"error ({type(err).__name__}: {err}): add_rate_limited, "
                           f"requeue {queue.num_requeues(key)}")
            else:
                outcome = f"error ({type(err).__name__}: {err}): not requeued"
        else:
            if isinstance(queue, RateLimitingInterface):
                queue.forget(key)
            outcome = "done; forgotten (its backoff starts over)"
            if isinstance(result, str) and result:  # what the reconcile says it did
                said = result
                outcome = f"{said}; done, forgotten"
        finally:
            queue.done(key)
            self._own["done"] += 1
        return key, outcome, said

    def counters(self, box: str) -> dict[str, Any]:
        """The last drawn numbers of one box (`store` reads the Indexer's)."""
        return dict(self.last_sample.get(box if box != "store" else "indexer", {}))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.informer.name!r}, renders={self.renders})"
