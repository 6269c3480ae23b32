"""kubenb.printers.custom: a CRD version's additionalPrinterColumns, each cell as its type says."""

from __future__ import annotations

from kubenb.printers import CRD_COLUMN_DOC, custom_resource_printer, parse_time


def test_custom_resource_columns_types_and_defaults() -> None:
    now = parse_time("2026-01-01T00:01:00Z")
    assert now is not None
    printer = custom_resource_printer([
        {"name": "Ready", "type": "string",
         "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas", "priority": 1},
        {"name": "Ratio", "type": "number", "jsonPath": ".spec.ratio"},
        {"name": "Paused", "type": "boolean", "jsonPath": ".spec.paused"},
        {"name": "Size", "type": "string", "jsonPath": ".spec.size",
         "description": "how big", "format": "byte"},
        {"name": "Since", "type": "date", "jsonPath": ".status.since"},
    ])
    obj = {"metadata": {"name": "c"},
           "spec": {"replicas": 2.0, "ratio": 1, "paused": True, "size": 5},
           "status": {"conditions": [{"type": "Ready", "status": "True"}],
                      "since": "2026-01-01T00:00:00Z"}}
    assert printer.cells(obj, now) == ["c", "True", 2, 1.0, True, "5", "60s"]
    assert printer.cells({"metadata": {"name": "e"}}, now) == ["e", None, None, None, None,
                                                                None, None]
    assert printer.cells({"metadata": {"name": "d"}, "status": {"since": "soon"}},
                         now)[-1] == "<invalid>"
    cols = [c.to_dict() for c in printer.columns]
    assert cols[2]["priority"] == 1 and cols[5]["format"] == "byte"
    assert cols[5]["description"] == "how big"
    assert cols[1]["description"] == (CRD_COLUMN_DOC
                                      + '.status.conditions[?(@.type=="Ready")].status')
    default = custom_resource_printer(None)
    assert [c.name for c in default.columns] == ["Name", "Age"]
    assert default.cells({"metadata": {"name": "z", "creationTimestamp":
                                       "2026-01-01T00:00:30Z"}}, now) == ["z", "30s"]
