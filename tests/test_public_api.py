"""kubenb's public surface, pinned: every module says what it exports, every package
exports exactly its public names, and the packages' `__all__` match tests/public_api.txt.

A change to the surface is a decision, made in review: when a name is added or removed
on purpose, rewrite the file with `python -m tests.test_public_api` and commit it with
the change (docs/porting.md maps each name to client-go).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

import kubenb

PINNED = Path(__file__).with_name("public_api.txt")

# The packages a user imports from, and the ground floor's modules.
PACKAGES = ["kubenb", "kubenb.cache", "kubenb.client", "kubenb.client.typed",
            "kubenb.controller", "kubenb.controllermanager", "kubenb.printers",
            "kubenb.port", "kubenb.reactive", "kubenb.recording", "kubenb.server", "kubenb.testing",
            "kubenb.widgets", "kubenb.workqueue", "kubenb.clock", "kubenb.errors", "kubenb.fields",
            "kubenb.jsondecode", "kubenb.jsonpath", "kubenb.labels", "kubenb.meta",
            "kubenb.quantity", "kubenb.timeutil"]


def _all_modules() -> list[str]:
    with warnings.catch_warnings():  # walking imports each package, the deprecated alias too
        warnings.simplefilter("ignore", DeprecationWarning)
        infos = list(pkgutil.walk_packages(kubenb.__path__, "kubenb."))
    # not `python -m kubenb` (importing it runs it), nor the deprecated alias
    modules = sorted(i.name for i in infos
                     if i.name.split(".")[1] not in ("__main__", "controllers"))
    return ["kubenb", *modules]


def surface() -> str:
    """The pinned text: one `package: name` line per exported name."""
    lines = []
    for package in PACKAGES:
        module = importlib.import_module(package)
        lines += [f"{package}: {name}" for name in sorted(module.__all__)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", _all_modules())
def test_every_module_declares_what_it_exports(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, (list, tuple)), f"{name} has no __all__"
    missing = [item for item in exported if not hasattr(module, item)]
    private = [item for item in exported if item.startswith("_") and item != "__version__"]
    assert (missing, private) == ([], [])
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"


def _public_names(module: ModuleType) -> set[str]:
    """What a package's namespace offers: its public names, less its submodules and the
    typing names its annotations need."""
    return {name for name, value in vars(module).items()
            if not name.startswith("_") and not inspect.ismodule(value)
            and name not in ("annotations", "TYPE_CHECKING")
            and getattr(value, "__module__", None) != "typing"}


@pytest.mark.parametrize("package", [p for p in PACKAGES
                                     if hasattr(importlib.import_module(p), "__path__")])
def test_a_package_exports_every_public_name_it_binds(package: str) -> None:
    module = importlib.import_module(package)
    names = _public_names(module)
    if package == "kubenb.recording":  # the recorder's names load on first use
        names |= {"Recorder", "RecordingListerWatcher", "RecordingWatch"}
    if package == "kubenb":  # Cluster, connect and embedded load on first use
        names |= {"__version__", "Cluster", "connect", "embedded"}
        assert all(callable(getattr(module, n)) for n in ("Cluster", "connect", "embedded"))
    assert sorted(names - set(module.__all__)) == [], "bound but not in __all__"
    assert sorted(set(module.__all__) - names - {"__version__"}) == [], "in __all__, not bound"


def test_the_surface_is_the_pinned_one() -> None:
    assert surface() == PINNED.read_text(), (
        "the public surface changed; if on purpose, run `python -m tests.test_public_api` "
        "and commit tests/public_api.txt")


if __name__ == "__main__":
    PINNED.write_text(surface())
    sys.stdout.write(f"wrote {PINNED}\n")
