"""What kubenb.server is made of: modules that say what they export, no reach-ins between
them, and imports from nothing above the ground floor and the recording file format."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import kubenb.errors
import kubenb.server

SERVER = Path(kubenb.server.__file__).parent
MODULES = sorted(p.stem for p in SERVER.glob("*.py") if p.stem != "__init__")

# What the API server may import besides itself (DESIGN.md: it stands beside the client
# tower on the ground floor).
GROUND_FLOOR = {
    "kubenb._version", "kubenb.clock", "kubenb.errors", "kubenb.fields", "kubenb.jsoncopy",
    "kubenb.jsondecode",
    "kubenb.jsonpath", "kubenb.labels", "kubenb.meta", "kubenb.nodeinfo", "kubenb.printers",
    "kubenb.quantity", "kubenb.recording.format", "kubenb.redact", "kubenb.timeutil",
}


def _imports(module: str) -> list[tuple[str, str]]:
    """(module imported, name taken from it) for every kubenb import, lazy ones included."""
    tree = ast.parse((SERVER / f"{module}.py").read_text())
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubenb"):
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names if alias.name.startswith("kubenb")]
    return found


@pytest.mark.parametrize("module", MODULES)
def test_every_module_declares_what_it_exports(module: str) -> None:
    mod = importlib.import_module(f"kubenb.server.{module}")
    exported = getattr(mod, "__all__", None)
    assert exported is not None, f"kubenb.server.{module} has no __all__"
    assert all(hasattr(mod, name) for name in exported)
    assert not [name for name in exported if name.startswith("_")]


@pytest.mark.parametrize("module", MODULES)
def test_no_private_name_is_imported_from_another_module(module: str) -> None:
    private = [f"{source}.{name}" for source, name in _imports(module)
               if name.startswith("_") and name != "__version__"]
    assert private == []


@pytest.mark.parametrize("module", MODULES)
def test_the_server_imports_only_the_ground_floor(module: str) -> None:
    above = []
    for source, name in _imports(module):
        target = f"{source}.{name}" if source == "kubenb" else source
        if not target.startswith("kubenb.server") and not any(
                target == allowed or target.startswith(allowed + ".")
                for allowed in GROUND_FLOOR):
            above.append(target)
    assert above == []


def test_the_package_re_exports_what_users_meet() -> None:
    for name in kubenb.server.__all__:
        # the server's classes, and the errors its arguments raise (kubenb/errors.py's tree)
        assert getattr(kubenb.server, name).__module__.startswith(("kubenb.server.",
                                                                  "kubenb.errors"))
    errors = [getattr(kubenb.server, name) for name in kubenb.server.__all__
              if name.endswith("Error")]
    assert errors and all(issubclass(err, kubenb.errors.KubenbError) for err in errors)
