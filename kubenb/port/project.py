"""`port(controller, out_dir)`: the whole Go project, written to a directory.

main.go, controller.go, go.mod, deploy/ (rbac.yaml, deployment.yaml, Dockerfile) and
PORTING.md (what was translated, every TODO with its line, how to build). The files
depend only on the controller and what it did, never on the time or the machine, so
a committed example can be kept in step by a golden test.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from kubenb.errors import PortError
from kubenb.port.context import GoFunction, PortContext, Reach, Todo
from kubenb.port.controller_file import controller_go
from kubenb.port.go_test_file import controller_test_go
from kubenb.port.main_file import main_go
from kubenb.port.rbac import permissions_table, rbac_documents, rbac_yaml
from kubenb.port.spec import ControllerSpec, describe
from kubenb.port.translate import translate_function
from kubenb.port.values import Untranslatable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_CLIENT_GO", "PortReport", "permissions_frame", "port", "render"]

#: The client-go the project pins by default: the 1.32 line, as the API server kubenb
#: is checked against (a Kubernetes 1.32 kube-apiserver).
DEFAULT_CLIENT_GO = "v0.32.1"

# What Kubernetes 1.32's own go.mod pins beside client-go.
_KLOG = "v2.130.1"
_UTILS = "v0.0.0-20241104100929-3ea5e8cea738"
_XTIME = "v0.7.0"


@dataclass
class PortReport:
    """What `port` wrote and how far the translation reached."""

    out_dir: str
    files: dict[str, str]
    reach: Reach
    todos: list[Todo]
    functions: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"PortReport({self.out_dir!r}: {len(self.files)} files, "
                f"{self.reach.translated}/{self.reach.total} statements translated, "
                f"{len(self.todos)} TODO(s))")


def _module_check(module: str) -> None:
    if not re.fullmatch(r"[A-Za-z0-9.\-_~/]+", module) or module.startswith("/"):
        raise PortError(f"port: {module!r} is not a Go module path (e.g. example.com/foo)")


def _client_go_check(version: str) -> None:
    if not re.fullmatch(r"v0\.\d+\.\d+", version):
        raise PortError(f"port: client_go must be a version like v0.32.1, got {version!r}")


def _go_mod(module: str, client_go: str) -> str:
    return (f"module {module}\n\ngo 1.23\n\nrequire (\n"
            f"\tgolang.org/x/time {_XTIME}\n"
            f"\tk8s.io/api {client_go}\n"
            f"\tk8s.io/apimachinery {client_go}\n"
            f"\tk8s.io/client-go {client_go}\n"
            f"\tk8s.io/klog/v2 {_KLOG}\n"
            f"\tk8s.io/utils {_UTILS}\n"
            ")\n")


def _binary_name(spec: ControllerSpec) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", spec.name.lower()).strip("-") or "controller"


def _deployment(spec: ControllerSpec, name: str, namespace: str) -> str:
    replicas = 2 if spec.leader_election is not None else 1
    doc = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"serviceAccountName": name,
                                          "containers": [{"name": name,
                                                          "image": f"{name}:latest",
                                                          "imagePullPolicy": "IfNotPresent"}]}}}}
    return yaml.safe_dump(doc, sort_keys=False)


def _dockerfile(name: str) -> str:
    return ("# Build from the project's root: docker build -f deploy/Dockerfile .\n"
            "FROM golang:1.23 AS build\n"
            "WORKDIR /src\n"
            "COPY . .\n"
            f"RUN go mod tidy && CGO_ENABLED=0 go build -o /{name} .\n\n"
            "FROM gcr.io/distroless/static:nonroot\n"
            f"COPY --from=build /{name} /{name}\n"
            "USER 65532:65532\n"
            f'ENTRYPOINT ["/{name}"]\n')


def _locate_todos(text: str, todos: list[Todo]) -> None:
    lines = text.splitlines()
    for todo in todos:
        needle = (f'notPorted("line {todo.line}: ' if todo.line
                  else f"func {todo.function}(" if todo.function[:1].islower()
                  else todo.function)
        for i, line in enumerate(lines, 1):
            if needle in line or (not todo.line and f") {todo.function}(" in line):
                todo.go_line = i
                break


def _porting_md(spec: ControllerSpec, ctx: PortContext, functions: list[GoFunction],
                todos: list[Todo], reach: Reach, name: str, namespace: str) -> str:
    election = spec.leader_election
    rows = []
    for w in spec.watched:
        go_type = (f"typed: `{w.resource.go_type}`" if w.resource.typed
                   else "dynamic: `*unstructured.Unstructured`")
        maps_to = {"own": "own key", "owner": f"owner {w.mapping.owner_kind}"}.get(
            w.mapping.how, f"custom: {w.mapping.name}")
        rows.append(f"| `{w.resource.key}` | {go_type} | {w.namespace or 'all namespaces'} | "
                    f"{maps_to} | {', '.join(w.indexers) or '-'} |")
    watched = "\n".join(rows)
    rbac_from = (f"deploy/rbac.yaml, from {len(spec.requests)} distinct request(s) the "
                 f"reconciles made, the informers"
                 f"{' and leader election' if election else ''}")
    rl = spec.rate_limiter
    limiter = (f"per key {rl.base_delay}s doubling to {rl.max_delay}s"
               + (f", overall {rl.qps} qps with a burst of {rl.burst}" if rl.qps else ""))
    le_text = (f"Lease `{election.namespace}/{election.name}` (lease {election.lease_duration}s, "
               f"renew {election.renew_deadline}s, retry {election.retry_period}s)"
               if election else "none (the prototype ran without it)")
    fn_rows = "\n".join(f"| `{f.python_name}` | `{f.name}` | {f.reach.translated}/"
                        f"{f.reach.total} | {len(f.todos)} |" for f in functions)
    todo_rows = "\n".join(
        f"| controller.go:{t.go_line} | {(t.file + ':' + str(t.line)) if t.line else '-'} "
        f"| `{t.python.replace('|', '¦')}` | {t.reason.replace('|', '¦')} |" for t in todos) \
        or "| - | - | - | none |"
    return f"""# {spec.name}: the Go port

Written by `kubenb port` from the Python controller `{spec.name}`, laid out like
kubernetes/sample-controller. Read it, finish the TODOs, and own it.

## What was translated

| piece | from the prototype |
|---|---|
| informers | {len(spec.watched)} (table below), resync as the prototype's informers |
| workqueue | rate limiter: {limiter}{(' (' + rl.note + ')') if rl.note else ''} |
| workers | {spec.workers} |
| retries | {spec.max_retries if spec.max_retries is not None else 'forever, with backoff'} |
| leader election | {le_text} |
| events | {'recorded (record.EventRecorder)' if ctx.uses_recorder else 'none'} |
| RBAC | {rbac_from} |

| resource | Go type | namespace | events map to | indexers |
|---|---|---|---|---|
{watched}

The reconcile and the helpers it calls, statement by statement:

| Python | Go | statements translated | TODOs |
|---|---|---|---|
{fn_rows}

In all: **{reach.translated} of {reach.total} statements** translated
({reach.share:.0%}).

## TODO(port)

Each untranslated statement is quoted in place as `// TODO(port): <the Python>` and
returns an error saying what is missing, so the project builds and fails loudly at
that step. Stubs (event mappings, index functions, predicates) quote the Python above
them.

| where | Python | what | why |
|---|---|---|---|
{todo_rows}

## Build, test and run

controller_test.go (when written) seeds fake clients and informers with the objects the
prototype's caches held and checks, key by key, that `syncHandler` asks for what the
prototype's last reconcile of that key asked for.

```sh
go mod tidy                   # resolves client-go and its dependencies, writes go.sum
go build ./... && go vet ./... && go test ./...
./{name} -kubeconfig ~/.kube/config
```

## Deploy

```sh
docker build -f deploy/Dockerfile -t {name}:latest .
kubectl create namespace {namespace} --dry-run=client -o yaml | kubectl apply -f -
kubectl apply -f deploy/rbac.yaml -f deploy/deployment.yaml
```

deploy/rbac.yaml grants exactly what the prototype used: a verb on a resource whose
every use stayed in one namespace by a Role there, anything else by the ClusterRole.
"""


def render(spec: ControllerSpec, *, module: str = "example.com/controller",
           client_go: str = DEFAULT_CLIENT_GO,
           namespace: str | None = None) -> tuple[dict[str, str], Reach, list[Todo],
                                                  list[GoFunction], PortContext]:
    """Every file of the project as {relative path: text}, without writing them."""
    _module_check(module)
    _client_go_check(client_go)
    ctx = PortContext(spec)
    try:
        sync = translate_function(ctx, spec.reconcile)
    except Untranslatable as why:
        raise PortError(f"port: cannot read the reconcile: {why}") from why
    extra: list[Todo] = []
    controller = controller_go(ctx, sync, extra)
    functions = [sync, *ctx.helpers.values()]
    todos = [t for f in functions for t in f.todos] + extra
    _locate_todos(controller, todos)
    reach = Reach(sum(f.reach.translated for f in functions),
                  sum(f.reach.total for f in functions))
    name = _binary_name(spec)
    deploy_ns = namespace or (spec.leader_election.namespace if spec.leader_election
                              else "default")
    files = {
        "go.mod": _go_mod(module, client_go),
        "main.go": main_go(ctx),
        "controller.go": controller,
        "deploy/rbac.yaml": rbac_yaml(rbac_documents(spec, name, deploy_ns,
                                                     events=ctx.uses_recorder)),
        "deploy/deployment.yaml": _deployment(spec, name, deploy_ns),
        "deploy/Dockerfile": _dockerfile(name),
    }
    test = controller_test_go(ctx)
    if test is not None:
        files["controller_test.go"] = test
    files["PORTING.md"] = _porting_md(spec, ctx, functions, todos, reach, name, deploy_ns)
    return files, reach, todos, functions, ctx


def port(controller: Any, out_dir: str, *, module: str = "example.com/controller",
         client_go: str = DEFAULT_CLIENT_GO, leader_election: Any = None,
         namespace: str | None = None) -> PortReport:
    """Write the client-go project of `controller` (a kubenb `Controller`, running or
    not, or an object holding one as `.controller`) into `out_dir`.

    `module` is the Go module path, `client_go` the k8s.io/client-go version go.mod
    pins, `leader_election` a `LeaseLock` or `LeaderElectionConfig` to port when the
    controller has not run with one, `namespace` where deploy/ puts the controller
    (default: the Lease's namespace, else "default").
    """
    spec = describe(controller, leader_election=leader_election)
    files, reach, todos, functions, _ = render(spec, module=module, client_go=client_go,
                                               namespace=namespace)
    for rel, text in files.items():
        path = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return PortReport(out_dir, files, reach, todos, [f.name for f in functions])


def permissions_frame(controller: Any, *, leader_election: Any = None) -> pd.DataFrame:
    """The RBAC the controller needs, one row per resource and scope (a DataFrame)."""
    spec = describe(controller, leader_election=leader_election)
    _, _, _, _, ctx = render(spec)
    return permissions_table(spec, events=ctx.uses_recorder)
