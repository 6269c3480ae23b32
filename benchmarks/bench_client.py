"""Listing and reading pods: kubenb against the raw minimum and the official typed client.

One embedded server holds N realistic pods (2 containers, probes, env, volumes,
managedFields; about 5 KB of JSON each). In the same run, interleaved, best of rounds:

- kubenb: `DynamicClient...list_all()` through `ListPager` (500 per page, as
  client-go), objects decoded to plain dicts;
- raw minimum: one `requests.get` of the whole list + `json.loads` of the same bytes;
- official: `kubernetes` `CoreV1Api.list_pod_for_all_namespaces()` (typed models).

Then the same N pods read one at a time (a small request: what a controller's client
does most), kubenb's `get` against `requests.Session.get` + `json.loads` and the
official `read_namespaced_pod`.
"""

from __future__ import annotations

import json

import requests

from benchmarks.harness import Result, compare
from benchmarks.server_process import server_process
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient


def run(scale: float = 1.0, rounds: int = 3) -> list[Result]:
    import kubernetes

    n = max(100, int(10_000 * scale))
    with server_process(n) as server:
        config = load_config(server.kubeconfig)
        pods = DynamicClient(config).resource("v1", "pods")
        session = requests.Session()
        url = server.url + "/api/v1/pods"
        api = kubernetes.client.CoreV1Api(
            kubernetes.config.new_client_from_config(server.kubeconfig))

        def kubenb_list() -> None:
            assert len(pods.list_all()["items"]) == n

        def raw_list() -> None:
            assert len(json.loads(session.get(url).content)["items"]) == n

        def official_list() -> None:
            assert len(api.list_pod_for_all_namespaces().items) == n

        label = f"list {n} pods (pager, 500/page)"
        results = [
            compare(label, n, kubenb_list, "requests+json.loads", raw_list, rounds,
                    target_ratio=1 / 1.3),
            compare(label, n, kubenb_list, "official typed client", official_list,
                    max(1, rounds - 1), target_ratio=3.0),
        ]
        names = [(p["metadata"]["namespace"], p["metadata"]["name"])
                 for p in pods.list_all()["items"]][:max(100, int(1_000 * scale))]

        def kubenb_gets() -> None:
            for namespace, name in names:
                pods.namespace(namespace).get(name)

        def raw_gets() -> None:
            for namespace, name in names:
                json.loads(session.get(f"{server.url}/api/v1/namespaces/{namespace}/pods/"
                                       f"{name}").content)

        def official_gets() -> None:
            for namespace, name in names:
                api.read_namespaced_pod(name, namespace)

        label = f"get {len(names)} pods one by one"
        results += [
            compare(label, len(names), kubenb_gets, "requests+json.loads", raw_gets, rounds,
                    target_ratio=1.0),
            compare(label, len(names), kubenb_gets, "official typed client", official_gets,
                    rounds, target_ratio=1.0),
        ]
        session.close()
        api.api_client.close()
        pods.rest.close()
        return results
