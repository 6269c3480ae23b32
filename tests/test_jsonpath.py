"""kubenb.jsonpath: the JSONPath subset CRD printer columns and LiveFrame columns use."""

from __future__ import annotations

import pytest

from kubenb.jsonpath import parse_jsonpath


def test_jsonpath_subset() -> None:
    obj = {"spec": {"replicas": 2, "a.b": "dotted"},
           "status": {"conditions": [{"type": "Synced", "status": "False"},
                                     {"type": "Ready", "status": "True"}]},
           "items": [1, 2, 3]}
    assert parse_jsonpath(".spec.replicas").find(obj) == [2]
    assert parse_jsonpath("{.spec.replicas}").find(obj) == [2]
    assert parse_jsonpath(".spec['a.b']").find(obj) == ["dotted"]
    assert parse_jsonpath(r".spec.a\.b").find(obj) == ["dotted"]
    assert parse_jsonpath('.status.conditions[?(@.type=="Ready")].status').find(obj) == ["True"]
    assert parse_jsonpath('.status.conditions[?(@.type!="Ready")].type').find(obj) == [
        "Synced"]
    assert parse_jsonpath(".items[1]").find(obj) == [2]
    assert parse_jsonpath(".items[-1]").find(obj) == [3]
    assert parse_jsonpath(".items[*]").find(obj) == [1, 2, 3]
    assert parse_jsonpath(".spec.missing").find(obj) == []
    for bad in ("spec.replicas", ".spec..x", ".items[", ".items[?(@.a ~ 1)]"):
        with pytest.raises(ValueError, match="JSONPath"):
            parse_jsonpath(bad)
