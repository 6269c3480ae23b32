"""The embedded Kubernetes API server: in-memory, real HTTP on loopback.

`EmbeddedServer` serves discovery, CRUD, lists with selectors and paging, and watches
with the Kubernetes wire semantics, so kubectl, the official client and kubenb's own
Reflector all talk to it exactly as they would to a cluster.
"""

from kubenb.server.server import EmbeddedServer

__all__ = ["EmbeddedServer"]
