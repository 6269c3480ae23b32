"""The embedded Kubernetes API server: in-memory, real HTTP on loopback.

`EmbeddedServer` serves discovery, CRUD, lists with selectors and paging, and watches
with the Kubernetes wire semantics, so kubectl, the official client and kubenb's own
Reflector all talk to it exactly as they would to a cluster.

Re-exported here: the server, what its methods hand back (`faults` and its rules,
`churn()`, `replay()`), and the errors its arguments can raise. The modules beside
them are the server's machinery; their `__all__` names what the others use.
"""

from kubenb.server.churn import Churn, ChurnConfigError, ChurnOp
from kubenb.server.faults import FailRule, FaultConfigError, Faults
from kubenb.server.replay import Replay
from kubenb.server.server import EmbeddedServer, ServerConfigError
from kubenb.server.tls import TLSSetupError

__all__ = [
    "Churn",
    "ChurnConfigError",
    "ChurnOp",
    "EmbeddedServer",
    "FailRule",
    "FaultConfigError",
    "Faults",
    "Replay",
    "ServerConfigError",
    "TLSSetupError",
]
