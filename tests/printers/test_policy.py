"""kubenb.printers.policy: a PodDisruptionBudget's bounds, "N/A" where unset."""

from __future__ import annotations

from tests.printers.support import cells


def test_pod_disruption_budgets() -> None:
    assert cells("PodDisruptionBudget", "policy", {
        "spec": {"maxUnavailable": 1}, "status": {"disruptionsAllowed": 2}}) == [
        "x", "N/A", "1", 2, "10s"]
