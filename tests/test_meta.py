"""kubenb.meta: reading fields of plain object dicts that may be missing or malformed."""

from __future__ import annotations

import pytest

from kubenb import meta


def test_reads_metadata_of_a_plain_object() -> None:
    pod = {"metadata": {"name": "web", "namespace": "default", "resourceVersion": "7",
                        "uid": "u-1", "labels": {"app": "web"}}}
    assert meta.has_meta(pod)
    assert (meta.name(pod), meta.namespace(pod), meta.resource_version(pod),
            meta.uid(pod), meta.labels(pod)) == ("web", "default", "7", "u-1", {"app": "web"})


def test_dict_field_returns_the_field_itself_so_writes_reach_the_object() -> None:
    body = {"spec": {"replicas": 1}}
    spec = meta.dict_field(body, "spec")
    spec["paused"] = True
    assert body["spec"] == {"replicas": 1, "paused": True}


@pytest.mark.parametrize("value", [None, "spec", 3, ["a"], True])
def test_dict_field_of_a_missing_or_malformed_field_is_a_fresh_empty_dict(value: object) -> None:
    body = {} if value is None else {"spec": value}
    first, second = meta.dict_field(body, "spec"), meta.dict_field(body, "spec")
    assert first == {} and first is not second  # never a shared default to corrupt
    assert body == ({} if value is None else {"spec": value})  # and nothing written back


def test_an_object_without_metadata_is_a_type_error_naming_what_it_got() -> None:
    with pytest.raises(TypeError, match="object has no meta: list"):
        meta.name(["not", "an", "object"])
