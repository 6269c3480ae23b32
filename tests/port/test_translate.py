"""The translation, construct by construct, on a prototype that never ran: what each
Python statement becomes in Go, how a statement outside the subset stays in place as a
TODO that still compiles, and how the queue, informers and leader election carry over."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import kubenb
from kubenb.cache import split_meta_namespace_key
from kubenb.cluster import Cluster
from kubenb.controller import Controller, LeaseLock, Result
from kubenb.errors import Conflict, NotFound
from kubenb.port import describe, render
from kubenb.workqueue import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    MaxOfRateLimiter,
)
from tests.port.test_go_build import K8S_SRC, build

pytestmark = pytest.mark.xdist_group("port")

GREETING = "hello"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with kubenb.embedded(controllers=False) as c:
        yield c


def _shout(cluster: Cluster) -> Controller:
    """A prototype with one of most things: its informers are made, never started."""
    clientset = cluster.clientset
    cms = cluster.factory.for_resource("v1", "configmaps", namespace="demo", resync=30.0,
                                       label_selector="app=demo")
    config_maps = cms.lister()

    def reconcile(key: str) -> Result | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            cm = config_maps.get(key)
        except (NotFound, Conflict):
            return None
        loud = {k: v.upper() for k, v in (cm.get("data") or {}).items()}
        if not loud:
            return Result(requeue=True)
        with open("/dev/null") as sink:  # outside the subset: stays Python, in place
            sink.read()
        labels = dict(cm["metadata"].get("labels") or {})
        labels["loud"] = GREETING
        labels["size"] = "many" if len(loud) > 3 else "few"
        clientset.core_v1().config_maps(namespace).create(
            {"metadata": {"name": f"{name}-loud", "labels": labels}, "data": loud})
        return None

    limiter = MaxOfRateLimiter(ItemExponentialFailureRateLimiter(0.01, 60.0),
                               BucketRateLimiter(5.0, 20))
    return (Controller("shout", reconcile, workers=3, rate_limiter=limiter, max_retries=4)
            .watch(cms.informer(), predicate=lambda obj: True))


@pytest.fixture(scope="module")
def shout(cluster: Cluster) -> dict[str, Any]:
    controller = _shout(cluster)
    files, reach, todos, *_ = render(
        describe(controller, leader_election=LeaseLock(cluster, "demo", "shout", "me")),
        module="example.com/shout")
    return {"files": files, "reach": reach, "todos": todos}


def test_the_reconcile_reads_as_go(shout: dict[str, Any]) -> None:
    go = shout["files"]["controller.go"]
    assert "namespace, name, err = cache.SplitMetaNamespaceKey(key)" in go
    # a generic lister's get(key): the informer's cache by key, NotFound when absent
    assert "cm, err = c.getConfigMapByKey(key)" in go
    assert "apierrors.NewNotFound(schema.GroupResource" in go
    assert "apierrors.IsNotFound(err) || apierrors.IsConflict(err)" in go
    assert "func() map[string]string {" in go and "out[k] = strings.ToUpper(v)" in go
    assert "return errRequeue" in go and "errors.Is(err, errRequeue)" in go
    assert 'labelsValue["loud"] = Greeting' in go  # a local named like a Go package
    assert "if labelsValue == nil {" in go  # Python's dict is never None; Go's map may be
    assert 'Greeting = "hello" // GREETING' in go
    assert 'labelsValue["size"] = func() string {\n\t\tif int64(len(loud)) > 3 {' in go
    assert ("c.kubeclientset.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{"
            "ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf(\"%s-loud\", name), "
            "Labels: labelsValue}, Data: loud}, metav1.CreateOptions{})") in go


def test_a_statement_outside_the_subset_stays_in_place_and_fails_loudly(
        shout: dict[str, Any]) -> None:
    go = shout["files"]["controller.go"]
    assert '// TODO(port): with open("/dev/null") as sink:' in go
    assert 'if err := notPorted("line ' in go
    [todo] = [t for t in shout["todos"] if t.line]
    assert todo.python.startswith("with open(") and "With" in todo.reason
    assert todo.file == "test_translate.py"
    assert f"controller.go:{todo.go_line}" in shout["files"]["PORTING.md"]
    reach = shout["reach"]
    assert (reach.translated, reach.total) == (reach.total - 2, reach.total)  # with + read


def test_queue_informers_and_leader_election_carry_over(shout: dict[str, Any]) -> None:
    go, main = shout["files"]["controller.go"], shout["files"]["main.go"]
    assert ("workqueue.NewTypedItemExponentialFailureRateLimiter[string](10*time.Millisecond, "
            "60*time.Second)") in go
    assert "rate.NewLimiter(rate.Limit(5), 20)" in go
    assert "if c.workqueue.NumRequeues(key) >= 4 {" in go
    assert "FilterFunc: configMapsPredicate," in go  # the predicate is a stub
    assert ('kubeinformers.NewSharedInformerFactoryWithOptions(kubeClient, 30*time.Second, '
            'kubeinformers.WithNamespace("demo"), kubeinformers.WithTweakListOptions('
            'func(options *metav1.ListOptions) { options.LabelSelector = "app=demo" }))') in main
    assert "const workers = 3" in main
    assert 'LeaseMeta:  metav1.ObjectMeta{Name: "shout", Namespace: "demo"},' in main
    assert "leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{" in main
    assert "replicas: 2" in shout["files"]["deploy/deployment.yaml"]


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_gofmt_has_nothing_to_change(shout: dict[str, Any], tmp_path: Path) -> None:
    for path in ("controller.go", "main.go"):
        (tmp_path / path).write_text(shout["files"][path])
    result = subprocess.run(["gofmt", "-l", "."], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert result.stdout == ""


@pytest.mark.slow
@pytest.mark.skipif(not K8S_SRC or shutil.which("go") is None,
                    reason="needs KUBENB_K8S_SRC (a Kubernetes tree) and go")
def test_the_project_builds_and_vets_with_its_todo(shout: dict[str, Any]) -> None:
    assert set(build("shout", shout["files"], run_test=False)) == {"build", "vet"}
