"""The port tests share one embedded cluster and one run of each scenario (the runs are
the slow part; every test reads what they left)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import kubenb
from kubenb.controller import Controller
from kubenb.port import describe, render
from tests.port.scenarios import SCENARIOS


@pytest.fixture(scope="module")
def controllers() -> Iterator[dict[str, Controller]]:
    """Each scenario's controller, after it ran (stopped; its cluster still up)."""
    with kubenb.embedded() as cluster:
        yield {name: scenario(cluster) for name, (scenario, _, _) in SCENARIOS.items()}


@pytest.fixture(scope="module")
def projects(controllers: dict[str, Controller]) -> dict[str, dict[str, str]]:
    """Each scenario's Go project as {relative path: text}."""
    out: dict[str, dict[str, str]] = {}
    for name, (_, module, _) in SCENARIOS.items():
        files, *_rest = render(describe(controllers[name]), module=module)
        out[name] = files
    return out


def rbac(project: dict[str, str]) -> list[dict[str, Any]]:
    import yaml

    return list(yaml.safe_load_all(project["deploy/rbac.yaml"]))
