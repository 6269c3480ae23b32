"""The house's layers hold: the import-linter contract in pyproject.toml is kept, and no
module reaches into another package through a `_private` name (it uses a public seam).

docs/architecture.md draws the layers. A "package" here is a subpackage of kubenb
(kubenb.cache, kubenb.server, ...) or a module of the ground floor (kubenb.labels, ...).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import kubenb

ROOT = Path(kubenb.__file__).parent
REPO = ROOT.parent

# Private by name, public by design: the version module exists so that any layer can
# read `__version__` without importing the package root.
SEAMS = {"kubenb._version"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_of(module: str) -> str:
    """kubenb.cache.reflector -> kubenb.cache; kubenb.labels -> kubenb.labels."""
    return ".".join(module.split(".")[:2])


MODULES = sorted((_module_name(p), p) for p in ROOT.rglob("*.py"))


def _kubenb_imports(module: str, path: Path) -> list[tuple[str, str]]:
    """(module imported, name taken from it or "") for every kubenb import in `path`,
    the ones inside functions included; relative imports are resolved."""
    found: list[tuple[str, str]] = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, source] if source else base)
            if source.split(".")[0] == "kubenb":
                found += [(source, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names
                      if alias.name.split(".")[0] == "kubenb"]
    return found


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_no_module_imports_a_private_name_of_another_package(module: str, path: Path) -> None:
    own = _package_of(module)
    reach_ins = []
    for source, name in _kubenb_imports(module, path):
        if source in SEAMS:
            continue
        # `from kubenb.cache import _x` takes a private name; so does importing a
        # private module (`kubenb.client._y`) of another package.
        target = f"{source}.{name}" if name else source
        if _package_of(target if source == "kubenb" else source) == own:
            continue
        if (name and _is_private(name)) or any(_is_private(part) for part in source.split(".")):
            reach_ins.append(target)
    assert reach_ins == [], f"{module} reaches into another package: {reach_ins}"


def test_the_private_import_check_sees_a_reach_in(tmp_path: Path) -> None:
    """The check above is not vacuous: a module written like the reach-ins it forbids
    is flagged (a lazy one, in a function, too)."""
    fake = tmp_path / "fake.py"
    fake.write_text("def f():\n    from kubenb.client.dynamic import _selector\n")
    found = _kubenb_imports("kubenb.cache.fake", fake)
    assert found == [("kubenb.client.dynamic", "_selector")]
    assert _is_private("_selector") and not _is_private("__version__")


def test_the_import_layers_hold() -> None:
    """`lint-imports` (CI runs it too) with the contracts in pyproject.toml."""
    pytest.importorskip("importlinter")
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--no-cache", "--no-logo"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_every_module_stays_readable_in_size() -> None:
    """No module over about 600 lines unless its docstring says why it stays one (one
    concept, one API group, or table data)."""
    long = []
    for module, path in MODULES:
        lines = path.read_text().count("\n")
        if lines <= 650:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if not any(reason in doc.lower() for reason in ("one concept", "one module", "table data")):
            long.append(f"{module} ({lines} lines)")
    assert long == []
