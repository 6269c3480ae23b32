"""kubenb.printers.scheduling: PriorityClasses."""

from __future__ import annotations

from tests.printers.support import cells


def test_priority_classes() -> None:
    assert cells("PriorityClass", "scheduling.k8s.io", {
        "value": 1000, "globalDefault": True, "preemptionPolicy": "Never"}) == [
        "x", 1000, True, "10s", "Never"]
