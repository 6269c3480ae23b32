"""A real admission webhook server for tests: HTTPS on loopback with a certificate from its
own CA (trustme), answering AdmissionReviews with a function of the request. It records
every review it receives; `hold()` makes it accept a review and answer nothing until
released (a webhook that times out)."""

from __future__ import annotations

import base64
import json
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import trustme

Review = dict[str, Any]
Answer = Callable[[Review], dict[str, Any]]


def allow(review: Review) -> dict[str, Any]:
    return {"allowed": True}


def json_patch(*operations: dict[str, Any]) -> dict[str, Any]:
    """A mutating webhook's response fields for `operations`."""
    return {"allowed": True, "patchType": "JSONPatch",
            "patch": base64.b64encode(json.dumps(list(operations)).encode()).decode()}


class WebhookServer:
    def __init__(self, answer: Answer = allow, names: tuple[str, ...] = ()) -> None:
        self.answer = answer
        self.reviews: list[Review] = []
        self.paths: list[str] = []
        self._held = threading.Event()
        self._holding = False
        self.ca = trustme.CA()
        cert = self.ca.issue_cert("127.0.0.1", "localhost", *names)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        cert.configure_cert(context)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.reviews.append(review)
                outer.paths.append(self.path)
                if outer._holding:
                    outer._held.wait(30)
                    return
                response = {"uid": review["request"]["uid"], **outer.answer(review)}
                body = json.dumps({"apiVersion": "admission.k8s.io/v1",
                                   "kind": "AdmissionReview", "response": response}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="test-webhook-server")

    @property
    def ca_bundle(self) -> str:
        """caBundle for a webhook configuration: the CA's PEM, base64."""
        return base64.b64encode(self.ca.cert_pem.bytes()).decode()

    def url(self, path: str = "/validate") -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def hold(self) -> None:
        """From now on, take reviews and answer none until stop()."""
        self._holding = True

    def start(self) -> WebhookServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._held.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(10)


@contextmanager
def webhook_server(answer: Answer = allow, names: tuple[str, ...] = ()
                   ) -> Iterator[WebhookServer]:
    server = WebhookServer(answer, names).start()
    try:
        yield server
    finally:
        server.stop()


def configuration(kind: str, name: str, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    """A Validating- or MutatingWebhookConfiguration (`kind`) holding `hooks`."""
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": name}, "webhooks": hooks}


def hook(name: str, client: dict[str, Any], resources: list[str] | None = None,
         **extra: Any) -> dict[str, Any]:
    """One webhook on creates and updates of `resources` (default configmaps)."""
    return {"name": name, "clientConfig": client,
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                       "operations": ["CREATE", "UPDATE"],
                       "resources": resources or ["configmaps"]}],
            "sideEffects": "None", "admissionReviewVersions": ["v1"], **extra}
