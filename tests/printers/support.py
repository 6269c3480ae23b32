"""Helpers for the printer tests: the real kube-apiserver 1.32 exchanges the cells are
checked against, and a bare object of any built-in kind printed at a pinned time."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any

from kubenb.printers import TablePrinter, custom_resource_printer, printer_for
from tests.realapi import REALAPI

NOW = 1767225610.0  # 2026-01-01T00:00:10Z
META = {"name": "x", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"}


def exchange(name: str) -> dict[str, Any]:
    return json.loads((REALAPI / name).read_text())


def captured_at(ex: dict[str, Any]) -> float:
    """The server's Date header: the `now` its AGE cells were computed against."""
    return parsedate_to_datetime(ex["response"]["headers"]["Date"]).timestamp()


FOO_COLUMNS = exchange("objects/crd-create.json")["request"]["body"]["spec"]["versions"][0][
    "additionalPrinterColumns"]


def printer_of(obj: dict[str, Any]) -> TablePrinter:
    """The printer the real server used for `obj` (its Foo CRD's columns for a Foo)."""
    if obj["kind"] == "Foo":
        return custom_resource_printer(FOO_COLUMNS)
    group = obj["apiVersion"].split("/")[0] if "/" in obj["apiVersion"] else ""
    return printer_for(obj["kind"], group)


def cells(kind: str, group: str, obj: dict[str, Any]) -> list[Any]:
    """The cells of `obj` (given META, created ten seconds before NOW) as kind/group."""
    return printer_for(kind, group).cells({"metadata": dict(META), **obj}, NOW)
