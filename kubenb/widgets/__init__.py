"""ipywidgets views of kubenb's machinery, updated through kubenb.reactive's publisher.

`ResourceTable` (a LiveFrame as a live table, with `ObjectView`), `PipelineView`
(the informer diagram, live), `WorkqueueView`, `EventLog` and `ServerControls`
(the embedded server's fault switches as buttons). No widget code runs on an
informer thread: see kubenb/reactive/publisher.py. CSS classes: docs/widgets.md.
"""

from kubenb.widgets.event_log import EventLog, LogEntry
from kubenb.widgets.pipeline import STAGES, PipelineView
from kubenb.widgets.server_controls import ServerControls
from kubenb.widgets.stepper import DeltaStepper, StepResult
from kubenb.widgets.table import ObjectView, ResourceTable, to_yaml
from kubenb.widgets.workqueue_view import WorkqueueView

__all__ = [
    "STAGES",
    "DeltaStepper",
    "EventLog",
    "LogEntry",
    "ObjectView",
    "PipelineView",
    "ResourceTable",
    "ServerControls",
    "StepResult",
    "WorkqueueView",
    "to_yaml",
]
