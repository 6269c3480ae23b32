"""kubenb.jsoncopy.json_copy: a deep copy of any JSON document, equal to the original,
sharing no container with it; other values are still copied deeply."""

from __future__ import annotations

import copy
from collections import OrderedDict

from hypothesis import given
from hypothesis import strategies as st

from kubenb.jsoncopy import json_copy

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40)


def _containers(value: object) -> list[object]:
    found: list[object] = []
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            found.extend(_containers(item))
    elif isinstance(value, list):
        found.append(value)
        for item in value:
            found.extend(_containers(item))
    return found


@given(JSON)
def test_a_copy_equals_its_original_and_shares_no_container(doc: object) -> None:
    copied = json_copy(doc)
    assert copied == doc
    assert copied == copy.deepcopy(doc)
    originals = {id(c) for c in _containers(doc)}
    assert not originals & {id(c) for c in _containers(copied)}


def test_values_that_are_not_plain_json_are_still_copied_deeply() -> None:
    inner = [1, 2]
    doc = {"ordered": OrderedDict(a=inner), "pair": (inner, 3), "items": [{"x": inner}]}
    copied = json_copy(doc)
    assert copied == doc
    assert type(copied["ordered"]) is OrderedDict
    copied["ordered"]["a"].append(9)
    copied["pair"][0].append(9)
    copied["items"][0]["x"].append(9)
    assert inner == [1, 2]
