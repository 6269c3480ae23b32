"""Section A of the client-go behaviour spec: keys, names and tombstones."""

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubenb.cache.keys import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    ExplicitKey,
    deletion_handling_meta_namespace_key_func,
    index_func_to_key_func_adapter,
    meta_namespace_index_func,
    meta_namespace_key_func,
    split_meta_namespace_key,
)
from kubenb.cache.store import new_store
from kubenb.errors import KeyFuncError


def pod(name, namespace=None):
    meta = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    return {"kind": "Pod", "metadata": meta}


def test_a001_namespaced_and_cluster_scoped_keys():
    assert meta_namespace_key_func(pod("pod-1", "namespace")) == "namespace/pod-1"
    assert meta_namespace_key_func(pod("node-1")) == "node-1"
    assert meta_namespace_key_func(pod("node-1", "")) == "node-1"
    store = new_store()
    for i in range(3):
        store.add(pod(f"pod-{i}", "namespace"))
    assert store.get_by_key("namespace/pod-1")["metadata"]["name"] == "pod-1"


def test_a002_explicit_key_passes_and_no_meta_is_an_error():
    assert meta_namespace_key_func(ExplicitKey("x")) == "x"
    with pytest.raises(KeyFuncError, match="object has no meta"):
        meta_namespace_key_func("just a string")
    with pytest.raises(KeyFuncError, match="object has no meta"):
        meta_namespace_key_func({"kind": "Pod"})
    with pytest.raises(KeyFuncError, match=r"no metadata\.name"):
        meta_namespace_key_func({"metadata": {"namespace": "ns"}})
    # Store operations wrap other key-function errors as KeyFuncError.
    store = new_store(key_func=lambda obj: obj["id"])
    with pytest.raises(KeyFuncError, match="couldn't create key for object") as info:
        store.add({"no": "id"})
    assert isinstance(info.value.__cause__, KeyError)


def test_a002_error_message_names_the_object():
    with pytest.raises(KeyFuncError) as info:
        new_store().add({"metadata": {"labels": {"app": "web"}}})
    text = str(info.value)
    assert "couldn't create key for object" in text
    assert "object with no name" in text  # named, never printed
    assert "web" not in text
    assert "metadata.name" in text
    assert isinstance(info.value, KeyError)  # catchable as the builtin


def test_a003_key_error_unwraps_when_nested():
    cause = ValueError("boom")
    inner = KeyFuncError(100, cause)
    inner.__cause__ = cause
    nested = KeyFuncError(100, inner)
    nested.__cause__ = inner
    assert inner.err is cause
    chain = []
    err = nested
    while err is not None:
        chain.append(err)
        err = err.__cause__
    assert chain == [nested, inner, cause]


def test_a004_split_meta_namespace_key():
    assert split_meta_namespace_key("name") == ("", "name")
    assert split_meta_namespace_key("ns/name") == ("ns", "name")
    assert split_meta_namespace_key("/x") == ("", "x")
    with pytest.raises(ValueError, match='unexpected key format: "a/b/c"'):
        split_meta_namespace_key("a/b/c")


@given(st.text(alphabet="abcdefghi/", max_size=12))
def test_a004_split_fails_iff_more_than_two_parts(key):
    parts = key.split("/")
    if len(parts) > 2:
        with pytest.raises(ValueError):
            split_meta_namespace_key(key)
        return
    ns, name = split_meta_namespace_key(key)
    rebuilt = f"{ns}/{name}" if ns else name
    # Round trip holds except that a leading "/" (empty namespace) is lost.
    assert rebuilt == (key[1:] if key.startswith("/") else key)


def test_a005_deletion_handling_key_reads_tombstone_key():
    cm = {"kind": "ConfigMap", "metadata": {"name": "testname", "namespace": "testnamespace"}}
    tombstone = DeletedFinalStateUnknown("testnamespace/testname", cm)
    assert deletion_handling_meta_namespace_key_func(tombstone) == meta_namespace_key_func(cm)
    # The tombstone's object is not looked at.
    assert deletion_handling_meta_namespace_key_func(DeletedFinalStateUnknown("k", None)) == "k"
    assert deletion_handling_meta_namespace_key_func(cm) == "testnamespace/testname"


def test_a005_tombstone_is_frozen():
    tombstone = DeletedFinalStateUnknown("a", None)
    with pytest.raises(AttributeError):
        tombstone.key = "b"


def test_a007_index_func_to_key_func_adapter():
    key_func = index_func_to_key_func_adapter(lambda obj: obj["keys"])
    assert key_func({"keys": ["only"]}) == "only"
    with pytest.raises(KeyFuncError, match=r"too many keys: \['a', 'b'\]"):
        key_func({"keys": ["a", "b"]})
    with pytest.raises(KeyFuncError, match="unexpected empty indexKeys"):
        key_func({"keys": []})


def test_a007_namespace_index_func():
    assert NAMESPACE_INDEX == "namespace"
    assert meta_namespace_index_func(pod("a", "ns1")) == ["ns1"]
    assert meta_namespace_index_func(pod("node")) == [""]
    with pytest.raises(KeyFuncError, match="object has no meta"):
        meta_namespace_index_func(42)


# -- key errors name the object, never its contents ------------------------------------------------

SECRET = "s3cr3t-pw"
SECRET_B64 = base64.b64encode(SECRET.encode()).decode()


@pytest.mark.parametrize(("obj", "named"), [
    ({"kind": "Secret", "metadata": {"namespace": "prod"}, "data": {"password": SECRET_B64}},
     'Secret with no name in namespace "prod"'),
    ({"kind": "Secret", "metadata": {"name": 7, "namespace": "prod"}, "data": {"k": SECRET}},
     'Secret with no name in namespace "prod"'),
    ({"kind": "Secret", "data": {"password": SECRET_B64}}, "a Secret with no metadata"),
    ({"stringData": {"password": SECRET}}, "a dict with no metadata"),
    (f"password={SECRET}", "a str"),
    ([SECRET], "a list"),
])
def test_key_error_names_the_object_and_never_prints_it(obj: Any, named: str) -> None:
    with pytest.raises(KeyFuncError) as info:
        meta_namespace_key_func(obj)
    err = info.value
    assert f"couldn't create key for object {named}: " in str(err)
    assert err.obj is obj  # still there for code that wants it
    for text in (str(err), repr(err), str(err.args)):
        assert SECRET not in text and SECRET_B64 not in text, text


def test_key_error_from_a_custom_key_function_names_the_object() -> None:
    store = new_store(key_func=lambda obj: obj["id"])
    secret = {"kind": "Secret", "metadata": {"name": "db", "namespace": "prod"},
              "data": {"password": SECRET_B64}}
    with pytest.raises(KeyFuncError) as info:
        store.add(secret)
    assert str(info.value) == "couldn't create key for object Secret \"prod/db\": 'id'"
    assert isinstance(info.value.__cause__, KeyError)
