"""`python -m tests.port.regenerate`: run the scenarios and rewrite the committed projects
(examples/foo-controller, tests/port/golden/*) that the golden tests compare against."""

from __future__ import annotations

import shutil

import kubenb
from kubenb.port import port
from tests.port.scenarios import SCENARIOS


def main() -> None:
    for name, (scenario, module, where) in SCENARIOS.items():
        with kubenb.embedded() as cluster:  # one each, as tests/port/conftest.py runs them
            controller = scenario(cluster)
        if where.exists():
            shutil.rmtree(where)
        report = port(controller, str(where), module=module)
        print(f"{name}: {report}")


if __name__ == "__main__":
    main()
