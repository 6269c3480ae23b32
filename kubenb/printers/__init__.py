"""The columns `kubectl get` shows for each kind, as pure functions over object dicts.

This is kube-apiserver 1.32's table printing (`pkg/printers/internalversion` and the CRD
table convertor), so the embedded server's `as=Table` answers, a notebook's LiveFrame
default columns and anything else that wants "what kubectl would show" agree cell for
cell. Nothing here imports the server: give it a dict and a `now` (epoch seconds, so
tests and notebooks can pin time) and get cells back.

- `printer_for(kind, group)`: the `TablePrinter` of a built-in kind (pods, deployments,
  ...), or the generic Name / Created At table every other type gets.
- `custom_resource_printer(additional_printer_columns)`: a CRD's columns.
- `to_table(printer, objects, now, ...)`: a `meta.k8s.io/v1` Table dict.

The package: `table` holds the machinery (`Column`, `TablePrinter`, the cell helpers,
`to_table`); one module per API group (`core`, `apps`, `batch`, `networking`, ...)
holds its kinds' printers, each kind's cells beside its printer; `custom` the CRD
columns; `registry` which printer a kind or resource gets. The time, quantity and
JSONPath helpers the printers use live on the ground floor (`kubenb.timeutil`,
`kubenb.quantity`, `kubenb.jsonpath`); they are re-exported here too, so
`from kubenb.printers import parse_time` works as well.
"""

from __future__ import annotations

from kubenb.jsonpath import JSONPath, parse_jsonpath
from kubenb.printers.admission import (
    MUTATINGWEBHOOK_PRINTER,
    VALIDATINGADMISSIONPOLICY_PRINTER,
    VALIDATINGADMISSIONPOLICYBINDING_PRINTER,
    VALIDATINGWEBHOOK_PRINTER,
)
from kubenb.printers.apiregistration import APISERVICE_PRINTER
from kubenb.printers.apps import (
    CONTROLLERREVISION_PRINTER,
    DAEMONSET_PRINTER,
    DEPLOYMENT_PRINTER,
    REPLICASET_PRINTER,
    STATEFULSET_PRINTER,
)
from kubenb.printers.autoscaling import HPA_PRINTER
from kubenb.printers.batch import CRONJOB_PRINTER, JOB_PRINTER
from kubenb.printers.certificates import CSR_PRINTER
from kubenb.printers.coordination import LEASE_PRINTER
from kubenb.printers.core import (
    COMPONENTSTATUS_PRINTER,
    CONFIGMAP_PRINTER,
    ENDPOINTS_PRINTER,
    EVENT_PRINTER,
    NAMESPACE_PRINTER,
    NODE_PRINTER,
    PERSISTENTVOLUME_PRINTER,
    PERSISTENTVOLUMECLAIM_PRINTER,
    POD_PRINTER,
    PODTEMPLATE_PRINTER,
    REPLICATIONCONTROLLER_PRINTER,
    RESOURCEQUOTA_PRINTER,
    SECRET_PRINTER,
    SERVICE_PRINTER,
    SERVICEACCOUNT_PRINTER,
)
from kubenb.printers.custom import CRD_COLUMN_DOC, DEFAULT_CR_COLUMNS, custom_resource_printer
from kubenb.printers.flowcontrol import FLOWSCHEMA_PRINTER, PRIORITYLEVEL_PRINTER
from kubenb.printers.networking import (
    ENDPOINTSLICE_PRINTER,
    INGRESS_PRINTER,
    INGRESSCLASS_PRINTER,
    NETWORKPOLICY_PRINTER,
)
from kubenb.printers.node import RUNTIMECLASS_PRINTER
from kubenb.printers.policy import PDB_PRINTER
from kubenb.printers.rbac import CLUSTERROLEBINDING_PRINTER, ROLEBINDING_PRINTER
from kubenb.printers.registry import (
    BUILTIN_RESOURCES,
    DEFAULT_PRINTER,
    kind_for_resource,
    printer_for,
)
from kubenb.printers.scheduling import PRIORITYCLASS_PRINTER
from kubenb.printers.storage import (
    CSIDRIVER_PRINTER,
    CSINODE_PRINTER,
    CSISTORAGECAPACITY_PRINTER,
    STORAGECLASS_PRINTER,
    VOLUMEATTACHMENT_PRINTER,
)
from kubenb.printers.table import (
    NONE,
    UNKNOWN,
    Cells,
    Column,
    Conditions,
    Obj,
    TablePrinter,
    format_label_selector,
    format_labels,
    label_selector_string,
    partial_object_metadata,
    table_row,
    to_table,
)
from kubenb.quantity import int_or_string, quantity_string
from kubenb.timeutil import age, human_duration, parse_time

__all__ = [
    "APISERVICE_PRINTER",
    "BUILTIN_RESOURCES",
    "CLUSTERROLEBINDING_PRINTER",
    "COMPONENTSTATUS_PRINTER",
    "CONFIGMAP_PRINTER",
    "CONTROLLERREVISION_PRINTER",
    "CRD_COLUMN_DOC",
    "CRONJOB_PRINTER",
    "CSIDRIVER_PRINTER",
    "CSINODE_PRINTER",
    "CSISTORAGECAPACITY_PRINTER",
    "CSR_PRINTER",
    "DAEMONSET_PRINTER",
    "DEFAULT_CR_COLUMNS",
    "DEFAULT_PRINTER",
    "DEPLOYMENT_PRINTER",
    "ENDPOINTSLICE_PRINTER",
    "ENDPOINTS_PRINTER",
    "EVENT_PRINTER",
    "FLOWSCHEMA_PRINTER",
    "HPA_PRINTER",
    "INGRESSCLASS_PRINTER",
    "INGRESS_PRINTER",
    "JOB_PRINTER",
    "LEASE_PRINTER",
    "MUTATINGWEBHOOK_PRINTER",
    "NAMESPACE_PRINTER",
    "NETWORKPOLICY_PRINTER",
    "NODE_PRINTER",
    "NONE",
    "PDB_PRINTER",
    "PERSISTENTVOLUMECLAIM_PRINTER",
    "PERSISTENTVOLUME_PRINTER",
    "PODTEMPLATE_PRINTER",
    "POD_PRINTER",
    "PRIORITYCLASS_PRINTER",
    "PRIORITYLEVEL_PRINTER",
    "REPLICASET_PRINTER",
    "REPLICATIONCONTROLLER_PRINTER",
    "RESOURCEQUOTA_PRINTER",
    "ROLEBINDING_PRINTER",
    "RUNTIMECLASS_PRINTER",
    "SECRET_PRINTER",
    "SERVICEACCOUNT_PRINTER",
    "SERVICE_PRINTER",
    "STATEFULSET_PRINTER",
    "STORAGECLASS_PRINTER",
    "UNKNOWN",
    "VALIDATINGADMISSIONPOLICYBINDING_PRINTER",
    "VALIDATINGADMISSIONPOLICY_PRINTER",
    "VALIDATINGWEBHOOK_PRINTER",
    "VOLUMEATTACHMENT_PRINTER",
    "Cells",
    "Column",
    "Conditions",
    "JSONPath",
    "Obj",
    "TablePrinter",
    "age",
    "custom_resource_printer",
    "format_label_selector",
    "format_labels",
    "human_duration",
    "int_or_string",
    "kind_for_resource",
    "label_selector_string",
    "parse_jsonpath",
    "parse_time",
    "partial_object_metadata",
    "printer_for",
    "quantity_string",
    "table_row",
    "to_table",
]
