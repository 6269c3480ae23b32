"""Where the tests find the real kube-apiserver v1.32 responses (tests/fixtures/realapi/).

The fixtures live in the repository, so a bare clone runs every test; see their README for
how they were captured. `files()` refuses an empty match: a test parametrized over nothing
must fail, not pass by collecting zero cases.
"""

from __future__ import annotations

from pathlib import Path

REALAPI = Path(__file__).resolve().parent / "fixtures" / "realapi"


def files(pattern: str, *, recursive: bool = False) -> list[Path]:
    """The fixture files under REALAPI matching `pattern`, sorted; raises when there are none."""
    found = sorted(p for p in (REALAPI.rglob(pattern) if recursive else REALAPI.glob(pattern))
                   if p.is_file())
    if not found:
        raise FileNotFoundError(f"no real-API fixture matches {pattern!r} under {REALAPI}")
    return found
