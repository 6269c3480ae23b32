"""`ClusterPool`: one cluster per distinct controller set, started on first use,
replaced when a test closed it, all stopped by `close()`."""

from __future__ import annotations

import pytest

from kubenb.errors import KubenbError
from kubenb.testing import ClusterPool, controller_set


def test_equal_sets_written_differently_are_one_key() -> None:
    assert controller_set("*,-job") == controller_set(["*", "-job"])
    assert controller_set(True) == controller_set("*")
    assert controller_set("") == controller_set(False) == ()


def test_one_cluster_per_set_until_closed() -> None:
    with ClusterPool(False) as pool:
        bare = pool.get()
        assert bare.controllers is None and pool.get(()) is bare
        kubelet = pool.get("kubelet")
        assert kubelet is pool.get(["kubelet"]) and kubelet is not bare
        assert kubelet.server is not None and bare.server is not None
        assert kubelet.server.url != bare.server.url
        assert set(pool.running()) == {(), ("kubelet",)}
        bare.close()                                 # a test stopped it: the next is new
        again = pool.get()
        assert again is not bare and again.server is not None and again.server.running
        servers = [c.server for c in pool.running().values()]
    assert not any(server.running for server in servers if server is not None)
    with pytest.raises(RuntimeError, match="closed"):
        pool.get()


def test_an_unknown_controller_is_named() -> None:
    with pytest.raises(KubenbError, match="unknown controller 'jobs'"):
        ClusterPool("*,-jobs")
