"""The ported Foo controller (examples/foo-controller) run against an API server: it
reconciles as the Python sample does, and its deploy/rbac.yaml is exactly enough.

`python -m tests.port.foo_e2e` builds the Go binary inside a Kubernetes tree that vendors
client-go (KUBENB_K8S_SRC; KUBENB_FOO_CONTROLLER_BIN names a built one instead), then:

1. drives the same Foos (created, one scaled, one deleted) through the Go controller on
   the cluster of KUBENB_REALAPI_KUBECONFIG, through the Go controller on
   `python -m kubenb serve`, and through the Python sample controller on its own fresh
   server (`python -m kubenb.controller.samples.foo`), and compares the Deployments;
2. on the real cluster (RBAC on), runs the Go controller as the ServiceAccount of
   deploy/rbac.yaml with a `kubectl create token` token, once with every rule and once
   per verb taken away, and reports what each missing verb broke.

Everything it makes lives in namespace `default` (the one deploy/rbac.yaml names) under
`e2e-` names, and is deleted at the end, except the Foo CRD if it was there before.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kubenb.controller.samples.foo import write_manifests

__all__ = ["FOOS", "NOT_COMPARED", "Kubectl", "Outcome", "Report", "build_binary", "compare",
           "drive_foos", "go_controller", "kubenb_serve", "least_privilege", "main",
           "python_sample", "run"]

PROJECT = Path(__file__).resolve().parents[2] / "examples" / "foo-controller"
NAMESPACE = "default"  # where deploy/rbac.yaml puts the ServiceAccount and its Role
SERVICE_ACCOUNT = "foo-controller"

#: name -> (replicas at creation, replicas after the update or None, deleted at the end)
FOOS: dict[str, tuple[int, int | None, bool]] = {
    "e2e-foo-one": (1, None, False),
    "e2e-foo-two": (2, 3, False),
    "e2e-foo-gone": (1, None, True),
}


def wait_for(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll until `check` answers truthy (controllers run in real time)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.25)


class Kubectl:
    """The real kubectl with one kubeconfig."""

    def __init__(self, kubeconfig: Path | str, cache: Path) -> None:
        self.base = ["kubectl", "--kubeconfig", str(kubeconfig), "--cache-dir", str(cache)]

    def __call__(self, *args: str, check: bool = True, stdin: str | None = None) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True,
                              timeout=60, input=stdin)
        if check and done.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout if done.returncode == 0 else ""

    def json(self, *args: str) -> Any:
        out = self(*args, "-o", "json", check=False)
        return json.loads(out) if out else None


def _go_env() -> dict[str, str]:
    return {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": "-mod=vendor",
            "GOSUMDB": "off", "CGO_ENABLED": "0"}


def build_binary(k8s_src: Path, out: Path) -> Path:
    """Build examples/foo-controller as a command inside the Kubernetes tree (Go cannot
    fetch modules here; the tree vendors client-go 1.32), then remove it from the tree."""
    package = f"cmd/kubenb-foo-e2e-{uuid.uuid4().hex[:8]}"
    where = k8s_src / package
    where.mkdir(parents=True)
    try:
        for name in ("main.go", "controller.go"):
            shutil.copy(PROJECT / name, where / name)
        done = subprocess.run(["go", "build", "-trimpath", "-o", str(out), f"./{package}"],
                              cwd=k8s_src, env=_go_env(), capture_output=True, text=True,
                              timeout=1800)
        if done.returncode != 0:
            raise RuntimeError(f"go build failed:\n{done.stdout}\n{done.stderr}")
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return out


@contextmanager
def process(args: list[str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A child process writing to `log`, interrupted (then killed) on the way out."""
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        try:
            yield proc
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(15)


@contextmanager
def go_controller(binary: Path, kubeconfig: Path, log: Path) -> Iterator[Path]:
    with process([str(binary), "-kubeconfig", str(kubeconfig)], log):
        yield log


@contextmanager
def kubenb_serve(work: Path) -> Iterator[Path]:
    """`python -m kubenb serve` (HTTPS, its controllers and kubelet); yields its kubeconfig."""
    kubeconfig = work / "kubenb-serve.kubeconfig"
    with process([sys.executable, "-m", "kubenb", "serve", "--kubeconfig-out", str(kubeconfig)],
                 work / "kubenb-serve.log"):
        wait_for(kubeconfig.exists, "kubenb serve's kubeconfig")
        yield kubeconfig


@contextmanager
def python_sample(work: Path) -> Iterator[Path]:
    """The Python Foo controller on a fresh embedded server of its own; yields the
    server's kubeconfig once the controller runs."""
    kubeconfig = work / "python-sample.kubeconfig"
    log = work / "python-sample.log"
    with process([sys.executable, "-m", "kubenb.controller.samples.foo", "--install-crd",
                  "--kubeconfig-out", str(kubeconfig), "--kubelet-delay", "0.2"], log):
        wait_for(lambda: "controller running" in log.read_text(), "the Python Foo controller")
        yield kubeconfig


def install_crd(kubectl: Kubectl, work: Path) -> bool:
    """Apply sample-controller's Foo CRD; True if it was not there before."""
    existed = bool(kubectl("get", "crd", "foos.samplecontroller.k8s.io", check=False))
    crd_path, _ = write_manifests(str(work / "manifests"))
    kubectl("apply", "-f", crd_path)
    kubectl("wait", "--for=condition=Established", "crd/foos.samplecontroller.k8s.io",
            "--timeout=60s")
    wait_for(lambda: "foos" in kubectl("api-resources", "--api-group=samplecontroller.k8s.io",
                                       check=False), "foos to be served")
    return not existed


def foo_manifest(name: str, replicas: int) -> str:
    return json.dumps({"apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                       "metadata": {"name": name, "namespace": NAMESPACE},
                       "spec": {"deploymentName": name, "replicas": replicas}})


def delete_foos(kubectl: Kubectl, names: list[str]) -> None:
    """Delete Foos and their Deployments and wait until both are gone."""
    for name in names:
        kubectl("delete", "foo", name, "-n", NAMESPACE, "--ignore-not-found", "--wait=false",
                check=False)
        kubectl("delete", "deployment", name, "-n", NAMESPACE, "--ignore-not-found",
                "--wait=false")
    for name in names:
        wait_for(lambda n=name: not kubectl("get", "foo,deployment", "-n", NAMESPACE,
                                            "--field-selector", f"metadata.name={n}",
                                            "-o", "name", check=False).strip(),
                 f"{name} to be deleted")


def deployment_summary(kubectl: Kubectl, name: str) -> dict[str, Any] | None:
    """What a Foo's Deployment and status look like, uids compared rather than shown."""
    dep = kubectl.json("get", "deployment", name, "-n", NAMESPACE)
    foo = kubectl.json("get", "foo", name, "-n", NAMESPACE)
    if dep is None:
        return None
    owners = [{k: v for k, v in ref.items() if k != "uid"}
              | {"uid_is_foo": foo is not None and ref["uid"] == foo["metadata"]["uid"]}
              for ref in dep["metadata"].get("ownerReferences", [])]
    template = dep["spec"]["template"]
    uid = foo and foo["metadata"]["uid"]
    events = [e for e in (kubectl.json("get", "events", "-n", NAMESPACE) or {"items": []})["items"]
              if e["involvedObject"].get("uid") == uid]
    return {"replicas": dep["spec"].get("replicas"),
            "ownerReferences": owners,
            "labels": dep["spec"]["selector"]["matchLabels"],
            "template_labels": template["metadata"]["labels"],
            "containers": [(c["name"], c["image"]) for c in template["spec"]["containers"]],
            "deployment_available": (dep.get("status") or {}).get("availableReplicas", 0),
            "foo_available": None if foo is None
            else (foo.get("status") or {}).get("availableReplicas"),
            "events": sorted({(e["type"], e["reason"], e["message"]) for e in events}),
            "event_source": sorted({e["source"].get("component", "") for e in events})}


def drive_foos(kubectl: Kubectl) -> dict[str, dict[str, Any] | None]:
    """Create the FOOS, scale and delete as FOOS says, wait for the controller to converge
    (Deployments as the Foos want, every Foo's status equal to its Deployment's
    availableReplicas), and return each Foo's Deployment summary (None: deleted)."""
    names = list(FOOS)
    delete_foos(kubectl, names)
    for name, (replicas, _, _) in FOOS.items():
        kubectl("apply", "-f", "-", stdin=foo_manifest(name, replicas))
    for name, (replicas, _, _) in FOOS.items():
        wait_for(lambda n=name, r=replicas: (deployment_summary(kubectl, n) or {})
                 .get("replicas") == r, f"Deployment {name} with {replicas} replicas")
    for name, (_, scaled, deleted) in FOOS.items():
        if scaled is not None:
            kubectl("patch", "foo", name, "-n", NAMESPACE, "--type=merge",
                    "-p", json.dumps({"spec": {"replicas": scaled}}))
        if deleted:
            kubectl("delete", "foo", name, "-n", NAMESPACE, "--wait=false")

    def converged() -> dict[str, dict[str, Any] | None] | None:
        out = {name: deployment_summary(kubectl, name) for name in names}
        for name, (replicas, scaled, deleted) in FOOS.items():
            got = out[name]
            if deleted:
                if got is not None:
                    return None
            elif (got is None or got["replicas"] != (scaled or replicas)
                  or got["foo_available"] != got["deployment_available"]
                  or not got["events"]):
                return None
        return out

    return wait_for(converged, "the Foos and Deployments to converge", timeout=120)


#: Fields that differ by design: availability is the cluster's (kube-apiserver here runs
#: no scheduler or kubelet), and an Event's source is the controller's name.
NOT_COMPARED = ("deployment_available", "foo_available", "event_source")


def compare(runs: dict[str, dict[str, dict[str, Any] | None]]) -> list[str]:
    """Differences between runs, field by field, but for NOT_COMPARED."""
    diffs = []
    first, *rest = runs
    for other in rest:
        for name in FOOS:
            a, b = runs[first][name], runs[other][name]
            if (a is None) != (b is None):
                diffs.append(f"{name}: {first} {a} vs {other} {b}")
                continue
            if a is None or b is None:
                continue
            for key in a:
                if key in NOT_COMPARED:
                    continue
                if a[key] != b[key]:
                    diffs.append(f"{name}.{key}: {first} {a[key]} vs {other} {b[key]}")
    return diffs


# -- least privilege ----------------------------------------------------------------------


@dataclass
class Outcome:
    """What one run of the controller under a given RBAC did."""

    removed: str
    forbidden: list[str] = field(default_factory=list)  # "list deployments.apps", ...
    created: bool = False
    scaled: bool = False
    status: bool = False
    events_created: bool = False
    events_patched: bool = False

    def broke(self) -> str:
        misses = [what for what, ok in (("Deployment not created", self.created),
                                        ("not scaled", self.scaled),
                                        ("Foo status not written", self.status),
                                        ("no Event", self.events_created),
                                        ("Event count not patched", self.events_patched))
                  if not ok]
        said = "; ".join(f"403 {f}" for f in self.forbidden) or "no 403"
        return f"{said}: {', '.join(misses) or 'all reconciled'}"


_FORBIDDEN = re.compile(r'cannot (\w+) resource \\*"([^"\\]+)\\*" in API group \\*"([^"\\]*)\\*"')


def forbidden(log: str) -> list[str]:
    """The distinct 403s a controller's log reports, as "verb resource.group"."""
    seen = {f"{verb} {resource}{'.' + group if group else ''}"
            for verb, resource, group in _FORBIDDEN.findall(log)}
    return sorted(seen)


def token_kubeconfig(admin: Kubectl, path: Path) -> Path:
    """A kubeconfig for the ServiceAccount: the admin's server and CA, a fresh token."""
    raw = yaml.safe_load(admin("config", "view", "--raw", "--minify", "-o", "yaml"))
    token = admin("create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE,
                  "--duration=2h").strip()
    raw["users"] = [{"name": SERVICE_ACCOUNT, "user": {"token": token}}]
    raw["contexts"][0]["context"]["user"] = SERVICE_ACCOUNT
    raw["contexts"][0]["context"]["namespace"] = NAMESPACE
    path.write_text(yaml.safe_dump(raw))
    return path


def rbac_variants(docs: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every rule as is ("nothing"), then with one verb of one rule taken away (the rule
    goes when it was its only verb)."""
    yield "nothing", docs
    for i, doc in enumerate(docs):
        for j, rule in enumerate(doc.get("rules") or []):
            for verb in rule["verbs"]:
                changed = copy.deepcopy(docs)
                rules = changed[i]["rules"]
                rules[j]["verbs"] = [v for v in rule["verbs"] if v != verb]
                if not rules[j]["verbs"]:
                    del rules[j]
                group = rule["apiGroups"][0]
                where = doc["kind"] + (f" {NAMESPACE}" if doc["kind"] == "Role" else "")
                yield (f"{where}: {verb} {rule['resources'][0]}"
                       f"{'.' + group if group else ''}", changed)


def run_with_rbac(admin: Kubectl, binary: Path, kubeconfig: Path, work: Path,
                  removed: str, settle: float = 8.0) -> Outcome:
    """A fresh controller process as the ServiceAccount: a Foo made, then scaled; what
    it managed and the 403s it logged."""
    name = "e2e-foo-rbac"
    delete_foos(admin, [name])
    log = work / f"rbac-{re.sub(r'[^a-z0-9]+', '-', removed.lower())}.log"
    outcome = Outcome(removed)
    with go_controller(binary, kubeconfig, log):
        admin("apply", "-f", "-", stdin=foo_manifest(name, 1))
        try:
            wait_for(lambda: (deployment_summary(admin, name) or {}).get("replicas") == 1,
                     "the Deployment", timeout=settle)
            outcome.created = True
        except TimeoutError:
            pass
        admin("patch", "foo", name, "-n", NAMESPACE, "--type=merge",
              "-p", '{"spec":{"replicas":2}}')
        try:
            wait_for(lambda: (deployment_summary(admin, name) or {}).get("replicas") == 2,
                     "the Deployment scaled", timeout=settle)
            outcome.scaled = True
        except TimeoutError:
            pass
        time.sleep(3)  # Events and status writes come after the Deployment's
    foo = admin.json("get", "foo", name, "-n", NAMESPACE) or {}
    outcome.status = "availableReplicas" in (foo.get("status") or {})
    uid = foo.get("metadata", {}).get("uid")
    events = [e for e in (admin.json("get", "events", "-n", NAMESPACE) or {"items": []})["items"]
              if e["involvedObject"].get("uid") == uid
              and e.get("source", {}).get("component") == "foo-controller"]
    outcome.events_created = bool(events)
    outcome.events_patched = any((e.get("count") or 1) > 1 for e in events)
    outcome.forbidden = forbidden(log.read_text(errors="replace"))
    delete_foos(admin, [name])
    return outcome


def least_privilege(admin: Kubectl, binary: Path, work: Path,
                    rbac_path: Path = PROJECT / "deploy" / "rbac.yaml") -> list[Outcome]:
    """deploy/rbac.yaml applied as written, then each verb taken away in turn."""
    docs = [d for d in yaml.safe_load_all(rbac_path.read_text()) if d]
    admin("apply", "-f", str(rbac_path))
    kubeconfig = token_kubeconfig(admin, work / "serviceaccount.kubeconfig")
    roles_path = work / "roles.yaml"
    outcomes = []
    try:
        for removed, variant in rbac_variants(docs):
            roles = [d for d in variant if d["kind"] in ("Role", "ClusterRole")]
            roles_path.write_text("---\n".join(yaml.safe_dump(d) for d in roles))
            admin("replace", "-f", str(roles_path))
            time.sleep(2)  # the authorizer's informers see the change
            outcomes.append(run_with_rbac(admin, binary, kubeconfig, work, removed))
            print(f"  {removed:45} -> {outcomes[-1].broke()}", flush=True)
    finally:
        admin("delete", "-f", str(rbac_path), "--ignore-not-found", check=False)
    return outcomes


@dataclass
class Report:
    """What a run found: each server's Deployments, their differences, and per verb
    taken away what broke (the first outcome has every verb)."""

    runs: dict[str, dict[str, dict[str, Any] | None]]
    differences: list[str]
    outcomes: list[Outcome]
    logs: Path

    @property
    def ok(self) -> bool:
        baseline, *ablated = self.outcomes
        return (not self.differences and not baseline.forbidden
                and baseline.broke() == "no 403: all reconciled"
                and all(o.forbidden for o in ablated))


def run(realapi: Path, binary: Path | None = None, k8s_src: Path | None = None,
        work: Path | None = None) -> Report:
    """Everything, against the cluster of kubeconfig `realapi` (RBAC on, an admin's
    credentials): `binary` or one built from `k8s_src`; logs kept in `work`."""
    work = work or Path(tempfile.mkdtemp(prefix="kubenb-foo-e2e-"))
    if binary is None:
        assert k8s_src is not None, "a built binary or a Kubernetes tree to build it in"
        print("building examples/foo-controller ...", flush=True)
        binary = build_binary(k8s_src, work / "foo-controller")
    admin = Kubectl(realapi, work / "cache-realapi")
    created_crd = install_crd(admin, work)
    runs: dict[str, dict[str, dict[str, Any] | None]] = {}
    try:
        with go_controller(binary, realapi, work / "go-realapi.log"):
            runs["go/kube-apiserver"] = drive_foos(admin)
        delete_foos(admin, list(FOOS))
        with kubenb_serve(work) as kubeconfig:
            kubectl = Kubectl(kubeconfig, work / "cache-serve")
            install_crd(kubectl, work)
            with go_controller(binary, kubeconfig, work / "go-kubenb.log"):
                runs["go/kubenb serve"] = drive_foos(kubectl)
        with python_sample(work) as kubeconfig:
            runs["python/kubenb"] = drive_foos(Kubectl(kubeconfig, work / "cache-sample"))
        for name, result in runs.items():
            print(f"{name}: {json.dumps(result, sort_keys=True)}", flush=True)
        diffs = compare(runs)
        print("differences:", *(diffs or ["none"]), sep="\n  ", flush=True)
        print("least privilege (verb removed -> what broke):", flush=True)
        outcomes = least_privilege(admin, binary, work)
    finally:
        delete_foos(admin, list(FOOS))
        if created_crd:
            admin("delete", "crd", "foos.samplecontroller.k8s.io", check=False)
    return Report(runs, diffs, outcomes, work)


def main() -> int:
    binary = os.environ.get("KUBENB_FOO_CONTROLLER_BIN")
    k8s_src = os.environ.get("KUBENB_K8S_SRC")
    report = run(Path(os.environ["KUBENB_REALAPI_KUBECONFIG"]),
                 Path(binary) if binary else None, Path(k8s_src) if k8s_src else None)
    print(f"logs in {report.logs}; {'OK' if report.ok else 'FAILED'}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
