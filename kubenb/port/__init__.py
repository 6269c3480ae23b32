"""`kubenb port`: a client-go controller project from a kubenb `Controller`.

`port(controller, out_dir, module=...)` writes main.go, controller.go, go.mod, deploy/
and PORTING.md, laid out like kubernetes/sample-controller: the prototype's informers,
indexers, event mappings, rate limiter, workers and leader election, its reconcile
translated statement by statement where the porting table reaches (TODOs in place where
it does not, still compiling), and RBAC from the requests it really made.
`permissions_frame(controller)` is that RBAC as a pandas table.
"""

from kubenb.port.project import DEFAULT_CLIENT_GO, PortReport, permissions_frame, port, render
from kubenb.port.rbac import Permission, permissions, permissions_table, rbac_documents
from kubenb.port.spec import ControllerSpec, describe

__all__ = [
    "DEFAULT_CLIENT_GO",
    "ControllerSpec",
    "Permission",
    "PortReport",
    "describe",
    "permissions",
    "permissions_frame",
    "permissions_table",
    "port",
    "rbac_documents",
    "render",
]
