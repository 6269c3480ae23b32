"""Finding the Controller to port: in a Python file, a module, or a notebook.

`kubenb port prototype.py:controller` imports the file (as a script would run) and takes
the named attribute; `package.module:name` imports a module; `notebook.ipynb --name
controller` runs the notebook's code cells headless, in order, in one namespace, and
takes the name from it. The attribute may be a `Controller`, an object holding one as
`.controller` (like the Foo sample), or a function of no arguments returning either.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import linecache
import sys
from pathlib import Path
from typing import Any

from kubenb.controller.runner import Controller
from kubenb.errors import KubenbError

__all__ = ["load_controller"]


def _resolve(value: Any, where: str) -> Controller:
    if callable(value) and not isinstance(value, Controller) \
            and not isinstance(getattr(value, "controller", None), Controller):
        value = value()
    if isinstance(value, Controller):
        return value
    inner = getattr(value, "controller", None)
    if isinstance(inner, Controller):
        return inner
    raise KubenbError(f"{where} is a {type(value).__name__}, not a kubenb Controller "
                      "(nor an object with one as .controller)")


def _notebook_namespace(path: Path) -> dict[str, Any]:
    """Run a notebook's code cells in order (IPython magics and shell lines skipped)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    namespace: dict[str, Any] = {"__name__": "__kubenb_port__", "__file__": str(path)}
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        lines = ["" if line.lstrip().startswith(("%", "!")) else line
                 for line in text.splitlines()]
        filename = f"{path}[cell {i}]"
        source = "\n".join(lines) + "\n"
        # as IPython does: the cell's text in linecache, so inspect finds the reconcile's
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)  # the user's own prototype
    return namespace


def load_controller(target: str, name: str | None = None) -> Controller:
    """The Controller `target` names: "file.py:attr", "package.module:attr", or a
    notebook path with `name` (default "controller")."""
    if target.endswith(".ipynb"):
        path = Path(target)
        if not path.is_file():
            raise KubenbError(f"kubenb port: no notebook at {target}")
        attr = name or "controller"
        namespace = _notebook_namespace(path)
        if attr not in namespace:
            raise KubenbError(f"kubenb port: the notebook {target} defines no {attr!r} "
                              "(pass --name)")
        return _resolve(namespace[attr], f"{target}: {attr}")
    module_part, sep, attr = target.rpartition(":")
    if not sep:
        module_part, attr = target, name or "controller"
    if module_part.endswith(".py"):
        path = Path(module_part).resolve()
        if not path.is_file():
            raise KubenbError(f"kubenb port: no Python file at {module_part}")
        spec = importlib.util.spec_from_file_location(f"kubenb_port_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise KubenbError(f"kubenb port: cannot import {module_part}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # so the prototype's functions find their source
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_part)
    if not hasattr(module, attr):
        raise KubenbError(f"kubenb port: {module_part} defines no {attr!r}")
    return _resolve(getattr(module, attr), f"{module_part}:{attr}")
