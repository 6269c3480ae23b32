"""`cpu_affinity`: one informer's threads on one CPU, over real HTTP.

The threads are looked at through the kernel (`sched_getaffinity` of each thread's
id), and the thread that called `run` must get its own CPUs back."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kubenb.cache import affinity
from kubenb.cache.factory import SharedInformerFactory
from kubenb.cache.handlers import ResourceEventHandlerFuncs
from kubenb.cache.listwatch import ListWatch
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.client.config import load_config
from kubenb.client.dynamic import DynamicClient
from kubenb.server import EmbeddedServer
from tests.helpers import wait_until

LINUX = hasattr(os, "sched_setaffinity")
CPUS = sorted(os.sched_getaffinity(0)) if LINUX else []
needs_two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs Linux and two usable CPUs")


@pytest.fixture
def dynamic(server: EmbeddedServer) -> DynamicClient:
    return DynamicClient(load_config(server.kubeconfig_path))


def informer_of(dynamic: DynamicClient, **options: Any) -> SharedIndexInformer:
    return SharedIndexInformer(ListWatch.from_client(
        dynamic.resource("v1", "configmaps"), namespace="default"), **options)


def cpus_of(thread: threading.Thread) -> set[int]:
    assert thread.native_id is not None
    return os.sched_getaffinity(thread.native_id)


def own_threads(informer: SharedIndexInformer) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if informer.name in t.name]


class HandlerCpus:
    """Records the CPUs of the thread each add arrives on."""

    def __init__(self) -> None:
        self.seen: list[set[int]] = []

    def handler(self) -> ResourceEventHandlerFuncs:
        return ResourceEventHandlerFuncs(
            on_add=lambda obj, is_in_initial_list=False: self.seen.append(
                os.sched_getaffinity(0)))


def test_the_default_leaves_the_threads_alone(dynamic: DynamicClient) -> None:
    informer = informer_of(dynamic)
    assert informer.cpu is None and informer.stats()["cpu"] is None
    assert affinity.choose_cpu(False) is None


@pytest.mark.parametrize("bad", ["0", 1.5, [0]])
def test_a_cpu_affinity_that_is_no_cpu_is_refused_by_name(bad: Any) -> None:
    with pytest.raises(TypeError, match="cpu_affinity must be None, True, False or a CPU"):
        affinity.choose_cpu(bad)


@pytest.mark.skipif(not LINUX, reason="CPU affinity is Linux only")
def test_a_cpu_the_process_may_not_use_is_refused_naming_the_allowed_ones(
        dynamic: DynamicClient) -> None:
    missing = max(CPUS) + 1
    with pytest.raises(ValueError, match=rf"cpu_affinity={missing}: .*CPUs \{CPUS}"):
        informer_of(dynamic, cpu_affinity=missing)


@needs_two_cpus
def test_true_spreads_informers_over_the_allowed_cpus() -> None:
    chosen = {affinity.choose_cpu(True) for _ in range(2 * len(CPUS))}
    assert chosen == set(CPUS)


@needs_two_cpus
def test_every_thread_of_a_pinned_informer_runs_on_its_cpu(
        dynamic: DynamicClient, server: EmbeddedServer) -> None:
    server.seed_objects(3, kind="configmaps", namespace="default")
    cpu = CPUS[-1]
    informer = informer_of(dynamic, cpu_affinity=cpu)
    first, late = HandlerCpus(), HandlerCpus()
    informer.add_event_handler(first.handler())
    caller_cpus = os.sched_getaffinity(0)
    stop = threading.Event()
    runner = threading.Thread(target=informer.run, args=(stop,), name="test-runner")
    runner.start()
    try:
        wait_until(lambda: len(first.seen) == 3, 10, "three adds")
        # A handler added while it runs starts from this (unpinned) thread: pinned anyway.
        informer.add_event_handler(late.handler())
        wait_until(lambda: len(late.seen) == 3, 10, "three adds to the late handler")
        threads = own_threads(informer)
        names = {t.name for t in threads}
        assert any("listener" in n for n in names)  # the Reflector runs on the runner
        assert {t.name: cpus_of(t) for t in threads} == {t.name: {cpu} for t in threads}
        assert cpus_of(runner) == {cpu}
        assert first.seen == late.seen == [{cpu}] * 3
        assert informer.stats()["cpu"] == cpu
        assert os.sched_getaffinity(0) == caller_cpus  # the test's thread was not moved
    finally:
        stop.set()
        runner.join(10)
    assert not runner.is_alive()


@needs_two_cpus
def test_run_gives_the_calling_thread_its_cpus_back(dynamic: DynamicClient) -> None:
    informer = informer_of(dynamic, cpu_affinity=CPUS[0])
    during: list[set[int]] = []
    stop = threading.Event()
    informer.add_event_handler(ResourceEventHandlerFuncs(
        on_add=lambda obj, is_in_initial_list=False: None))

    def run_then_report() -> None:
        during.append(os.sched_getaffinity(0))
        informer.run(stop)
        during.append(os.sched_getaffinity(0))

    thread = threading.Thread(target=run_then_report)
    thread.start()
    wait_until(informer.has_synced, 10, "the informer to sync")
    stop.set()
    thread.join(10)
    assert during == [set(CPUS), set(CPUS)]


@pytest.fixture
def pinned_factory(dynamic: DynamicClient) -> Iterator[SharedInformerFactory]:
    made = SharedInformerFactory(dynamic, cpu_affinity=True)
    try:
        yield made
    finally:
        made.shutdown()


@needs_two_cpus
def test_a_factory_passes_cpu_affinity_to_its_informers(
        pinned_factory: SharedInformerFactory) -> None:
    informers = [pinned_factory.for_resource("v1", resource).informer()
                 for resource in ("configmaps", "secrets")]
    assert all(i.cpu in CPUS for i in informers)
    assert informers[0].cpu != informers[1].cpu  # in turn over the allowed CPUs
    pinned_factory.start()
    assert all(pinned_factory.wait_for_cache_sync(timeout=10).values())
    for informer in informers:
        threads = own_threads(informer)  # the Reflector runs on the informer's thread
        assert threads and all(cpus_of(t) == {informer.cpu} for t in threads)


@needs_two_cpus
def test_for_resource_overrides_the_factorys_cpu_affinity(
        pinned_factory: SharedInformerFactory, dynamic: DynamicClient) -> None:
    assert pinned_factory.for_resource("v1", "configmaps", cpu_affinity=False
                                       ).informer().cpu is None
    plain = SharedInformerFactory(dynamic)
    try:
        assert plain.for_resource("v1", "secrets", cpu_affinity=CPUS[0]).informer().cpu \
            == CPUS[0]
        assert plain.for_resource("v1", "configmaps").informer().cpu is None
    finally:
        plain.shutdown()


@needs_two_cpus
def test_a_notebook_asks_the_cluster_for_a_pinned_informer() -> None:
    import kubenb

    with kubenb.embedded(controllers=False) as cluster:
        cluster.resource("configmaps").create({"metadata": {"name": "settings"}})
        informer = cluster.informer("configmaps", cpu_affinity=CPUS[-1])
        assert informer.get_indexer().list_keys() == ["default/settings"]
        threads = own_threads(informer)  # the Reflector runs on the informer's thread
        assert threads and all(cpus_of(t) == {CPUS[-1]} for t in threads)
