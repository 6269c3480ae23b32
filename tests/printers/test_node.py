"""kubenb.printers.node: RuntimeClasses."""

from __future__ import annotations

from tests.printers.support import cells


def test_runtime_classes() -> None:
    assert cells("RuntimeClass", "node.k8s.io", {"handler": "runsc"}) == ["x", "runsc", "10s"]
