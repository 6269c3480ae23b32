"""PipelineView: another name of `InformerDiagram`, kept for code that uses it.

`PipelineView(informer, workqueue=None, ...)` is `InformerDiagram` (kubenb.widgets.
diagram): client-go's controller picture, live. The sample functions it is built on
live in `_samples.py` and are re-exported here for code that imports them from here.
"""

from __future__ import annotations

from kubenb.widgets._samples import (
    informer_sample,
    processing_items,
    queue_detail,
    workqueue_sample,
)
from kubenb.widgets.diagram import InformerDiagram

__all__ = ["STAGES", "PipelineView", "informer_sample", "processing_items", "queue_detail",
           "workqueue_sample"]

#: The five stages of the data path, in order: (stage id, title). The diagram draws
#: these and more (see `kubenb.widgets.diagram_svg.BOXES`).
STAGES = (("reflector", "Reflector"), ("fifo", "DeltaFIFO"), ("indexer", "Indexer"),
          ("handlers", "Handlers"), ("workqueue", "Workqueue"))

PipelineView = InformerDiagram
