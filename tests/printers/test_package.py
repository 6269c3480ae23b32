"""kubenb.printers, the package: one import reaches every printer and the helpers they use."""

from __future__ import annotations

import importlib
import pkgutil

import kubenb.printers as printers
from kubenb import jsonpath, quantity, timeutil


def test_the_ground_floor_helpers_are_the_same_objects_here() -> None:
    for module in (jsonpath, quantity, timeutil):
        for name in module.__all__:
            if name in printers.__all__:
                assert getattr(printers, name) is getattr(module, name), name
    assert {"parse_time", "human_duration", "age", "quantity_string", "int_or_string",
            "parse_jsonpath", "JSONPath"} <= set(printers.__all__)


def test_every_printer_of_every_module_is_exported_from_the_package() -> None:
    assert all(hasattr(printers, name) for name in printers.__all__)
    for info in pkgutil.iter_modules(printers.__path__):
        module = importlib.import_module(f"kubenb.printers.{info.name}")
        for name in module.__all__:
            if name.endswith("_PRINTER"):
                assert name in printers.__all__, (info.name, name)
