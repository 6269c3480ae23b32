"""kubenb.printers.table: the Table object, and the cell and label helpers every printer uses."""

from __future__ import annotations

from typing import Any

import pytest

from kubenb.printers import (
    format_label_selector,
    format_labels,
    label_selector_string,
    printer_for,
    to_table,
)
from kubenb.printers.table import as_int, as_str, dicts, object_age, object_name, spec_replicas
from tests.printers.support import META, NOW, captured_at, exchange


@pytest.mark.parametrize("include,expected_kind", [
    ("Metadata", "PartialObjectMetadata"), ("Object", "ConfigMap"), ("None", None)])
def test_to_table_shapes_like_the_fixture(include: str, expected_kind: str | None) -> None:
    suffix = {"Metadata": "", "Object": "-include-object", "None": "-include-none"}[include]
    ex = exchange(f"table/configmaps{suffix}.json")
    real = ex["response"]["body"]
    objects = exchange("table/configmaps-include-object.json")["response"]["body"]["rows"]
    table = to_table(printer_for("ConfigMap"), [r["object"] for r in objects], captured_at(ex),
                     real["metadata"], include)
    assert table == real
    kinds = [(r["object"] or {}).get("kind") for r in table["rows"]]
    assert set(kinds) == {expected_kind}
    first_only = to_table(printer_for("ConfigMap"), [], 0, {}, with_columns=False)
    assert first_only["columnDefinitions"] is None and first_only["rows"] == []


def test_labels_and_selectors_print_as_kubectl_does() -> None:
    assert format_labels({"b": "2", "a": "1"}) == "a=1,b=2"
    assert format_labels({}) == format_labels(None) == "<none>"
    selector = {"matchLabels": {"app": "w"}, "matchExpressions": [
        {"key": "tier", "operator": "NotIn", "values": ["b", "a"]},
        {"key": "gone", "operator": "DoesNotExist"}, {"key": "env", "operator": "Exists"}]}
    assert label_selector_string(selector) == "app=w,env,!gone,tier notin (a,b)"
    assert label_selector_string(None) == "" and format_label_selector({}) == "<none>"


@pytest.mark.parametrize("value,number,text", [
    (3, 3, ""), (2.9, 2, ""), (True, 1, ""), ("7", 0, "7"), (None, 0, ""), ({}, 0, "")])
def test_cells_read_malformed_fields_as_go_zero_values(value: Any, number: int,
                                                       text: str) -> None:
    assert (as_int(value), as_str(value), dicts(value)) == (number, text, [])


def test_dicts_keeps_the_dict_items_of_a_list() -> None:
    assert dicts([{"a": 1}, 2, "x", None, {}]) == [{"a": 1}, {}]


def test_name_age_and_replicas_of_an_object() -> None:
    obj = {"metadata": dict(META), "spec": {"replicas": 0}}
    assert (object_name(obj), object_age(obj, NOW), spec_replicas(obj)) == ("x", "10s", 0)
    assert (object_name({}), object_age({}, NOW), spec_replicas({})) == ("", "<unknown>", 1)
