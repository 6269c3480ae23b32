"""Event handler adapters (spec item 80, client-go `controller.go`)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from kubenb.cache.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandler,
    ResourceEventHandlerDetailedFuncs,
    ResourceEventHandlerFuncs,
)
from kubenb.cache.keys import DeletedFinalStateUnknown
from kubenb.errors import KubenbError


def pod(name: str, env: str = "prod", rv: str = "1") -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"env": env}, "resourceVersion": rv}}


class Recorder:
    """A full ResourceEventHandler that records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None:
        self.calls.append(("add", obj["metadata"]["name"], is_in_initial_list))

    def on_update(self, old: Any, new: Any) -> None:
        self.calls.append(("update", old["metadata"]["name"], new["metadata"]["name"]))

    def on_delete(self, obj: Any) -> None:
        if isinstance(obj, DeletedFinalStateUnknown):
            self.calls.append(("delete-tombstone", obj.key))
            return
        self.calls.append(("delete", obj["metadata"]["name"]))


def test_recorder_and_funcs_satisfy_the_protocol():
    assert isinstance(Recorder(), ResourceEventHandler)
    assert isinstance(ResourceEventHandlerFuncs(), ResourceEventHandler)
    assert isinstance(FilteringResourceEventHandler(bool, Recorder()), ResourceEventHandler)


# ---------------------------------------------------------------------- H.80


def test_h080_funcs_missing_functions_are_noops():
    h = ResourceEventHandlerFuncs()
    h.on_add(pod("a"), True)
    h.on_update(pod("a"), pod("a"))
    h.on_delete(pod("a"))
    assert repr(h) == "ResourceEventHandlerFuncs()"


def test_h080_funcs_on_add_with_one_parameter_does_not_receive_initial_flag():
    got: list[Any] = []
    h = ResourceEventHandlerFuncs(on_add=lambda obj: got.append(obj["metadata"]["name"]))
    h.on_add(pod("a"), True)
    assert got == ["a"]


def test_h080_funcs_on_add_with_two_parameters_receives_initial_flag():
    got: list[Any] = []
    h = ResourceEventHandlerFuncs(on_add=lambda obj, initial: got.append(initial))
    h.on_add(pod("a"), True)
    h.on_add(pod("b"), False)
    assert got == [True, False]


@pytest.mark.parametrize(
    ("fn_factory", "expect_args"),
    [
        (lambda got: (lambda obj, initial=False: got.append((obj, initial))), 2),
        (lambda got: (lambda *args: got.append(args)), 2),
        (lambda got: (lambda obj, *, extra=1: got.append((obj,))), 1),
        (lambda got: got.append, 1),  # builtin bound method: (object, /)
        (lambda got: functools.partial(lambda tag, obj: got.append((tag, obj)), "t"), 1),
    ],
    ids=["default-second", "varargs", "kwonly", "builtin", "partial"],
)
def test_h080_funcs_signature_decides_once_how_on_add_is_called(fn_factory, expect_args):
    got: list[Any] = []
    fn = fn_factory(got)
    h = ResourceEventHandlerFuncs(on_add=fn)
    h.on_add("obj", True)
    assert len(got) == 1
    entry = got[0]
    if fn is got.append:
        assert entry == "obj"
    elif expect_args == 2:
        assert tuple(entry)[-1] is True
    else:
        assert True not in tuple(entry)


def test_h080_funcs_bound_method_with_one_parameter():
    class Controller:
        def __init__(self) -> None:
            self.seen: list[str] = []

        def enqueue(self, obj: Any) -> None:
            self.seen.append(obj["metadata"]["name"])

    c = Controller()
    h = ResourceEventHandlerFuncs(on_add=c.enqueue, on_update=lambda o, n: c.enqueue(n),
                                  on_delete=c.enqueue)
    h.on_add(pod("a"), False)
    h.on_update(pod("a"), pod("b"))
    h.on_delete(pod("c"))
    assert c.seen == ["a", "b", "c"]
    assert "on_add=" in repr(h) and "enqueue" in repr(h)


def test_h080_funcs_reject_wrong_signatures_with_a_clear_message():
    with pytest.raises(KubenbError, match=r"on_update=.*cannot be called with 2"):
        ResourceEventHandlerFuncs(on_update=lambda new: None)
    with pytest.raises(KubenbError, match=r"on_delete=.*cannot be called with 1"):
        ResourceEventHandlerFuncs(on_delete=lambda: None)
    with pytest.raises(KubenbError, match=r"on_add=.*cannot be called with 2"):
        ResourceEventHandlerFuncs(on_add=lambda: None)
    with pytest.raises(KubenbError, match="on_add must be callable or None, got str"):
        ResourceEventHandlerFuncs(on_add="print")


def test_h080_detailed_funcs_always_pass_the_initial_flag():
    got: list[Any] = []
    h = ResourceEventHandlerDetailedFuncs(
        on_add=lambda obj, initial: got.append(("add", initial)),
        on_update=lambda old, new: got.append(("update",)),
        on_delete=lambda obj: got.append(("delete",)),
    )
    h.on_add(pod("a"), True)
    h.on_update(pod("a"), pod("a"))
    h.on_delete(pod("a"))
    assert got == [("add", True), ("update",), ("delete",)]
    with pytest.raises(KubenbError, match="cannot be called with 2"):
        ResourceEventHandlerDetailedFuncs(on_add=lambda obj: None)


def is_prod(obj: Any) -> bool:
    if isinstance(obj, DeletedFinalStateUnknown):
        obj = obj.obj
    return obj["metadata"]["labels"].get("env") == "prod"


@pytest.mark.parametrize("initial", [True, False])
def test_h080_filtering_add_forwarded_iff_filter_passes(initial):
    rec = Recorder()
    h = FilteringResourceEventHandler(is_prod, rec)
    h.on_add(pod("a", "prod"), initial)
    h.on_add(pod("b", "dev"), initial)
    assert rec.calls == [("add", "a", initial)]


def test_h080_filtering_delete_forwarded_iff_filter_passes():
    rec = Recorder()
    h = FilteringResourceEventHandler(is_prod, rec)
    h.on_delete(pod("a", "prod"))
    h.on_delete(pod("b", "dev"))
    tomb = DeletedFinalStateUnknown("c", pod("c", "prod"))
    h.on_delete(tomb)
    h.on_delete(DeletedFinalStateUnknown("d", pod("d", "dev")))
    assert rec.calls == [("delete", "a"), ("delete-tombstone", "c")]


@pytest.mark.parametrize(
    ("old_env", "new_env", "expected"),
    [
        ("prod", "prod", [("update", "old", "new")]),
        ("dev", "prod", [("add", "new", False)]),
        ("prod", "dev", [("delete", "old")]),
        ("dev", "dev", []),
    ],
    ids=["yes-yes", "no-yes", "yes-no", "no-no"],
)
def test_h080_filtering_update_truth_table(old_env, new_env, expected):
    rec = Recorder()
    h = FilteringResourceEventHandler(is_prod, rec)
    h.on_update(pod("old", old_env), pod("new", new_env))
    assert rec.calls == expected


def test_h080_filtering_wraps_funcs_and_nests():
    got: list[Any] = []
    inner = ResourceEventHandlerFuncs(on_add=lambda obj: got.append(obj["metadata"]["name"]))
    named_a = FilteringResourceEventHandler(lambda o: o["metadata"]["name"].startswith("a"), inner)
    h = FilteringResourceEventHandler(is_prod, named_a)
    for p in (pod("a1", "prod"), pod("a2", "dev"), pod("b1", "prod")):
        h.on_add(p, False)
    assert got == ["a1"]
    assert "FilteringResourceEventHandler(is_prod" in repr(h)


def test_h080_filtering_requires_a_handler_with_the_three_methods():
    with pytest.raises(KubenbError, match="has no on_add"):
        FilteringResourceEventHandler(is_prod, lambda obj: None)  # type: ignore[arg-type]
    with pytest.raises(KubenbError, match="filter_func"):
        FilteringResourceEventHandler(lambda a, b: True, Recorder())
