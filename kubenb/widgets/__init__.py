"""ipywidgets views of kubenb's machinery, updated through kubenb.reactive's publisher.

`InformerDiagram` (client-go's controller picture, live; `PipelineView` is the same
class under its first name), `ResourceTable` (a LiveFrame as a live table, kubectl's
columns, with `ObjectView`), `WorkqueueView`, `EventLog`, `DeltaStepper` and
`ServerControls` (the embedded server's fault switches as buttons). No widget code runs on an
informer thread: see kubenb/reactive/publisher.py. CSS classes: docs/widgets.md.
"""

from kubenb.widgets.diagram import InformerDiagram
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
    "InformerDiagram",
    "LogEntry",
    "ObjectView",
    "PipelineView",
    "ResourceTable",
    "ServerControls",
    "StepResult",
    "WorkqueueView",
    "to_yaml",
]
