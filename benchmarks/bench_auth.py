"""What RBAC costs a request: the same GETs as a ServiceAccount (bearer token checked,
RBAC asked) and as the administrator (system:masters: no RBAC), side by side, interleaved.

- over HTTP: `requests` with keep-alive, as any client (the answer is a 404 of a missing
  ConfigMap and a list of 50, so the server's own work is small and the difference shows);
- in process: `ApiHandler.handle` on the same requests, without sockets.

`python -m benchmarks.bench_auth [--quick]`.
"""

from __future__ import annotations

import sys
import threading

import requests

from benchmarks.harness import Result, compare, format_table
from kubenb.server import EmbeddedServer
from kubenb.server.handlers import ApiHandler, Request

NS = "bench"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def _setup(server: EmbeddedServer, admin: requests.Session) -> str:
    admin.post(server.url + "/api/v1/namespaces", json={"metadata": {"name": NS}})
    base = f"{server.url}/api/v1/namespaces/{NS}"
    admin.post(base + "/serviceaccounts", json={"metadata": {"name": "robot"}})
    admin.post(f"{server.url}{RBAC}/namespaces/{NS}/rolebindings", json={
        "metadata": {"name": "robot-view"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": NS}]})
    for i in range(50):
        admin.post(base + "/configmaps", json={"metadata": {"name": f"cm-{i}"}})
    token = admin.post(base + "/serviceaccounts/robot/token", json={"spec": {}}).json()
    return str(token["status"]["token"])


def run(scale: float = 1.0, rounds: int = 5) -> list[Result]:
    n = max(200, int(2000 * scale))
    results = []
    with EmbeddedServer(token="bench-admin") as server:
        admin = requests.Session()
        admin.headers["Authorization"] = "Bearer bench-admin"
        token = _setup(server, admin)
        robot = requests.Session()
        robot.headers["Authorization"] = f"Bearer {token}"
        # The server's request handler, without its sockets (same storage and token keys).
        app = ApiHandler(server.storage, server.types, server.registry, threading.Event(),
                         token="bench-admin", tokens=server.tokens)
        for what, path in (("get (404)", f"/api/v1/namespaces/{NS}/configmaps/missing"),
                           ("list 50", f"/api/v1/namespaces/{NS}/configmaps")):
            url = server.url + path
            assert robot.get(url).status_code in (200, 404)

            def as_robot(session: requests.Session = robot, url: str = url) -> None:
                for _ in range(n // 10):
                    session.get(url)

            def as_admin(session: requests.Session = admin, url: str = url) -> None:
                for _ in range(n // 10):
                    session.get(url)

            results.append(compare(f"HTTP {what}, ServiceAccount vs admin", n // 10, as_robot,
                                   "admin (system:masters)", as_admin, rounds))

            def handle(auth: str, path: str = path) -> None:
                headers = {"Authorization": auth, "Accept": "application/json"}
                for _ in range(n):
                    app.handle(Request("GET", path, {}, headers))

            results.append(compare(
                f"handler {what}, ServiceAccount vs admin", n,
                lambda: handle(f"Bearer {token}"), "admin (system:masters)",
                lambda: handle("Bearer bench-admin"), rounds))
        robot.close()
        admin.close()
    return results


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    print(format_table(run(0.2 if quick else 1.0, 3 if quick else 5)))
