"""kubectl's imperative commands send protobuf: every built-in kind decodes into the JSON
kubectl would have sent (kubenb.server.protobuf over the v1.32 struct tags)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from kubenb.server import EmbeddedServer
from kubenb.server.protobuf import ProtobufError, UnsupportedKind, decode, frame, go_duration
from tests.helpers import Kubectl, needs_kubectl
from tests.server.conftest import Api

pytestmark = [needs_kubectl, pytest.mark.slow]  # a kubectl process per call

IMPERATIVE = [
    ("deployment", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3",
                    "--port=8080"]),
    ("deployment-zero", ["create", "deployment", "idle", "--image=nginx", "--replicas=0"]),
    ("service-clusterip", ["create", "service", "clusterip", "web", "--tcp=80:8080"]),
    ("service-nodeport", ["create", "service", "nodeport", "np", "--tcp=80:8080"]),
    ("service-lb", ["create", "service", "loadbalancer", "lb", "--tcp=443:8443"]),
    ("service-external", ["create", "service", "externalname", "ext",
                          "--external-name=example.com"]),
    ("job", ["create", "job", "once", "--image=busybox", "--", "echo", "hi"]),
    ("cronjob", ["create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"]),
    ("role", ["create", "role", "reader", "--verb=get,list", "--resource=pods,configmaps"]),
    ("rolebinding", ["create", "rolebinding", "rb", "--role=reader", "--user=bob",
                     "--serviceaccount=default:robot"]),
    ("clusterrole", ["create", "clusterrole", "nodes", "--verb=get", "--resource=nodes",
                     "--non-resource-url=/healthz"]),
    ("clusterrolebinding", ["create", "clusterrolebinding", "crb", "--clusterrole=nodes",
                            "--group=devs"]),
    ("ingress", ["create", "ingress", "ing", "--rule=foo.com/bar*=svc:8080,tls=cert",
                 "--class=nginx"]),
    ("pdb", ["create", "pdb", "budget", "--selector=app=web", "--min-available=50%"]),
    ("priorityclass", ["create", "priorityclass", "high", "--value=1000",
                       "--description=important"]),
    ("quota", ["create", "quota", "q", "--hard=pods=10,requests.cpu=2,requests.memory=1Gi"]),
    ("configmap", ["create", "configmap", "cfg", "--from-literal=a=1"]),
    ("secret", ["create", "secret", "generic", "pw", "--from-literal=pw=hunter2"]),
    ("docker-secret", ["create", "secret", "docker-registry", "reg", "--docker-username=u",
                       "--docker-password=p", "--docker-server=r.example.com"]),
    ("serviceaccount", ["create", "serviceaccount", "robot"]),
    ("namespace", ["create", "namespace", "team"]),
    ("pod", ["run", "one", "--image=busybox:1.36", "--restart=Never", "--labels=a=b",
             "--env=MODE=fast", "--port=8080", "--", "sleep", "60"]),
]
VOLATILE = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "time",
            "batch.kubernetes.io/controller-uid", "controller-uid")


@pytest.fixture
def kubectl(server: EmbeddedServer, tmp_path: Path) -> Kubectl:
    return Kubectl(server.kubeconfig_path, tmp_path / "cache")


def stable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: stable(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [stable(v) for v in obj]
    return obj


@pytest.mark.parametrize("args", [a for _, a in IMPERATIVE], ids=[n for n, _ in IMPERATIVE])
def test_protobuf_and_json_bodies_make_the_same_object(kubectl: Kubectl,
                                                       args: list[str]) -> None:
    """The same command sent as protobuf (kubectl's own body) and as JSON (its
    --dry-run=client output fed back with -f) is answered with the same object."""
    def with_flags(*flags: str) -> list[str]:  # before a "--" that starts the command
        cut = args.index("--") if "--" in args else len(args)
        return [*args[:cut], *flags, *args[cut:]]

    as_json = kubectl(*with_flags("--dry-run=client", "-o", "json")).stdout
    via_json = json.loads(kubectl("create", "--dry-run=server", "-f", "-", "-o", "json",
                                  stdin=as_json).stdout)
    via_protobuf = json.loads(kubectl(*with_flags("--dry-run=server", "-o", "json")).stdout)
    assert stable(via_protobuf) == stable(via_json)


def test_imperative_creates_store_what_was_asked(kubectl: Kubectl, api: Api) -> None:
    for _, args in IMPERATIVE:
        kubectl(*args)
    base = "/apis/apps/v1/namespaces/default/deployments"
    web = api.get(f"{base}/web").json()
    assert web["spec"]["replicas"] == 3
    container = web["spec"]["template"]["spec"]["containers"][0]
    assert container["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    assert container["resources"] == {} and container["imagePullPolicy"] == "IfNotPresent"
    assert api.get(f"{base}/idle").json()["spec"]["replicas"] == 0  # a set pointer is kept
    svc = api.get("/api/v1/namespaces/default/services/web").json()
    assert svc["spec"]["ports"] == [{"name": "80-8080", "protocol": "TCP", "port": 80,
                                     "targetPort": 8080}]
    assert svc["spec"]["selector"] == {"app": "web"}
    job = api.get("/apis/batch/v1/namespaces/default/jobs/once").json()
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["echo", "hi"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    ing = api.get("/apis/networking.k8s.io/v1/namespaces/default/ingresses/ing").json()
    rule = ing["spec"]["rules"][0]
    assert rule["host"] == "foo.com" and ing["spec"]["ingressClassName"] == "nginx"
    assert rule["http"]["paths"][0]["backend"]["service"] == {"name": "svc",
                                                              "port": {"number": 8080}}
    pdb = api.get("/apis/policy/v1/namespaces/default/poddisruptionbudgets/budget").json()
    assert pdb["spec"]["minAvailable"] == "50%"  # an IntOrString string
    quota = api.get("/api/v1/namespaces/default/resourcequotas/q").json()
    assert quota["spec"]["hard"] == {"pods": "10", "requests.cpu": "2",
                                     "requests.memory": "1Gi"}  # Quantities
    role = api.get("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/reader").json()
    assert role["rules"] == [{"verbs": ["get", "list"], "apiGroups": [""],
                              "resources": ["pods", "configmaps"]}]
    secret = api.get("/api/v1/namespaces/default/secrets/reg").json()
    config = json.loads(base64.b64decode(secret["data"][".dockerconfigjson"]))
    assert config["auths"]["r.example.com"]["username"] == "u"
    pod = api.get("/api/v1/namespaces/default/pods/one").json()
    assert pod["spec"]["containers"][0]["env"] == [{"name": "MODE", "value": "fast"}]
    assert pod["metadata"]["labels"] == {"a": "b"}


def test_auth_reviews_arrive_as_protobuf(kubectl: Kubectl) -> None:
    assert "kubenb-admin" in kubectl("auth", "whoami").stdout
    assert kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"
    assert kubectl("auth", "can-i", "get", "/healthz").stdout.strip() == "yes"


# -- the decoder, byte by byte ------------------------------------------------------------------


def test_pointers_intorstrings_quantities_times_and_inline_structs() -> None:
    meta = [(1, "web"), (8, [(1, 1_700_000_000)])]
    container = [(1, "app"), (2, "nginx"),
                 (8, [(1, [(1, "cpu"), (2, [(1, "250m")])])]),  # resources.limits
                 (6, [(3, 8080), (4, "TCP")])]
    template = [(1, [(11, [(1, "app"), (2, "web")])]),
                (2, [(2, container), (1, [(1, "cfg"), (2, [(19, [(1, [(1, "cfg")])])])])])]
    spec = [(1, 0), (2, [(1, [(1, "app"), (2, "web")])]), (3, template),
            (4, [(1, "RollingUpdate"), (2, [(1, [(1, 1), (3, "30%")]), (2, [(2, 2)])])])]
    obj = decode(frame("apps/v1", "Deployment", [(1, meta), (2, spec), (999, "unknown")]))
    assert obj["metadata"] == {"name": "web", "creationTimestamp": "2023-11-14T22:13:20Z"}
    assert obj["spec"]["replicas"] == 0  # a pointer: kept though zero
    assert obj["spec"]["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {
        "maxUnavailable": "30%", "maxSurge": 2}}
    tspec = obj["spec"]["template"]["spec"]
    assert tspec["volumes"] == [{"name": "cfg", "configMap": {"name": "cfg"}}]  # inline
    assert tspec["containers"][0]["resources"] == {"limits": {"cpu": "250m"}}
    assert tspec["containers"][0]["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]
    assert tspec["containers"][0]["name"] == "app"
    assert obj["spec"]["template"]["metadata"] == {"creationTimestamp": None,
                                                   "labels": {"app": "web"}}
    assert tspec["containers"] == [{"name": "app", "image": "nginx", "ports": [
        {"containerPort": 8080, "protocol": "TCP"}], "resources": {"limits": {"cpu": "250m"}}}]
    assert obj["status"] == {}
    assert list(obj) == ["kind", "apiVersion", "metadata", "spec", "status"]


def test_non_omitempty_fields_are_written_and_lists_nil_as_null() -> None:
    role = decode(frame("rbac.authorization.k8s.io/v1", "ClusterRole", [(1, [(1, "r")])]))
    assert role["rules"] is None  # `json:"rules"`: a nil slice is null, as Go writes it
    binding = decode(frame("rbac.authorization.k8s.io/v1", "RoleBinding", [
        (1, [(1, "b")]), (3, [(1, "rbac.authorization.k8s.io"), (2, "Role"), (3, "r")])]))
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                  "name": "r"}
    assert "subjects" not in binding  # omitempty


def test_packed_repeated_and_negative_varints() -> None:
    packed = bytes([0x03, 0x05])  # varints 3, 5
    status = decode(frame("batch/v1", "Job", [(1, [(1, "j")]), (3, [(4, 2)])]))
    assert status["status"]["active"] == 2
    policy = decode(frame("batch/v1", "Job", [(1, [(1, "j")]), (2, [
        (11, [(1, [(1, "FailJob"), (2, [(2, "In"), (3, packed)])])])])]))
    rule = policy["spec"]["podFailurePolicy"]["rules"][0]
    assert rule["onExitCodes"]["values"] == [3, 5]
    negative = decode(frame("v1", "Event", [(1, [(1, "e")]), (8, (1 << 64) - 1)]))
    assert negative["count"] == -1


def test_micro_times_durations_and_bytes() -> None:
    lease = decode(frame("coordination.k8s.io/v1", "Lease", [
        (1, [(1, "l")]), (2, [(3, [(1, 1_700_000_000), (2, 858_098_000)])])]))
    assert lease["spec"]["acquireTime"] == "2023-11-14T22:13:20.858098Z"
    secret = decode(frame("v1", "Secret", [(1, [(1, "s")]), (2, [(1, "k"), (2, b"\x00\xff")])]))
    assert secret["data"] == {"k": "AP8="}
    assert [go_duration(n) for n in (0, 1_500_000_000, 3_600_000_000_000, 90_000_000_000,
                                     2_000_000)] == ["0s", "1.5s", "1h0m0s", "1m30s", "2ms"]


def test_custom_and_unknown_kinds_and_broken_bytes() -> None:
    with pytest.raises(UnsupportedKind):
        decode(frame("samplecontroller.k8s.io/v1alpha1", "Foo", [(1, [(1, "f")])]))
    for bad in (b"not protobuf", b"k8s\x00\x0a\xff", frame("v1", "ConfigMap", [(1, 7)])):
        with pytest.raises(ProtobufError):
            decode(bad)
