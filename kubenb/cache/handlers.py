"""Event handlers: what an informer calls when an object is added, updated or deleted
(client-go `controller.go`: `ResourceEventHandler` and its adapters).

A handler is any object with `on_add(obj, is_in_initial_list)`, `on_update(old, new)`
and `on_delete(obj)`. `on_delete` may receive a `DeletedFinalStateUnknown` tombstone
when the deletion was missed while the watch was down. Handlers must treat the objects
as read-only: they are the cache's own dicts.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from kubenb.errors import KubenbError

__all__ = [
    "FilteringResourceEventHandler",
    "ResourceEventHandler",
    "ResourceEventHandlerDetailedFuncs",
    "ResourceEventHandlerFuncs",
]


@runtime_checkable
class ResourceEventHandler(Protocol):
    """What an informer delivers notifications to (client-go `ResourceEventHandler`)."""

    def on_add(self, obj: Any, is_in_initial_list: bool) -> None: ...

    def on_update(self, old_obj: Any, new_obj: Any) -> None: ...

    def on_delete(self, obj: Any) -> None: ...


def _describe(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _function_name(*fns: Any) -> str:
    """The first real function name among `fns` ("" when all are lambdas or None)."""
    for fn in fns:
        name = getattr(fn, "__name__", "")
        if fn is not None and isinstance(name, str) and name and name != "<lambda>":
            return name
    return ""


def _check_callable(owner: str, role: str, fn: Any, *arities: int) -> int:
    """Validate `fn` for `role` and return how many positional args to call it with:
    the first of `arities` its signature accepts. A signature that cannot be read
    (some builtins) is trusted with the first arity."""
    if not callable(fn):
        raise KubenbError(f"{owner}: {role} must be callable or None, got {type(fn).__name__}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return arities[0]
    for n in arities:
        try:
            sig.bind(*([None] * n))
        except TypeError:
            continue
        return n
    wanted = " or ".join(str(n) for n in arities)
    raise KubenbError(
        f"{owner}: {role}={_describe(fn)}{sig} cannot be called with {wanted} positional "
        "argument(s)"
    )


def _takes_one_positional(fn: Callable[..., Any]) -> bool:
    """True when `fn` declares exactly one positional parameter and no *args, so it
    wants `on_add(obj)` rather than `on_add(obj, is_in_initial_list)`."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = 0
    for param in sig.parameters.values():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            return False
        if param.kind in kinds:
            positional += 1
    return positional == 1


class ResourceEventHandlerFuncs:
    """A handler from up to three functions; a missing one is a no-op
    (client-go `ResourceEventHandlerFuncs`).

    `on_add` is called as `on_add(obj, is_in_initial_list)`, or as `on_add(obj)` when
    it declares exactly one positional parameter (Go's `AddFunc`, and what a notebook
    lambda usually looks like). That choice is made once, here.

    `name` says what the handler is for where it is shown (the informer diagram's
    Handlers box); without one, it is the name of its first function that has one
    (lambdas have none), else "".
    """

    __slots__ = ("_add_one_arg", "name", "on_add_func", "on_delete_func", "on_update_func")

    def __init__(
        self,
        on_add: Callable[..., Any] | None = None,
        on_update: Callable[[Any, Any], Any] | None = None,
        on_delete: Callable[[Any], Any] | None = None,
        *,
        name: str = "",
    ) -> None:
        owner = type(self).__name__
        self.name = name or _function_name(on_add, on_update, on_delete)
        self._add_one_arg = False
        if on_add is not None:
            self._add_one_arg = _takes_one_positional(on_add)
            if not self._add_one_arg:
                _check_callable(owner, "on_add", on_add, 2)
        if on_update is not None:
            _check_callable(owner, "on_update", on_update, 2)
        if on_delete is not None:
            _check_callable(owner, "on_delete", on_delete, 1)
        self.on_add_func = on_add
        self.on_update_func = on_update
        self.on_delete_func = on_delete

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        """Call the add function, if any."""
        fn = self.on_add_func
        if fn is None:
            return
        if self._add_one_arg:
            fn(obj)
        else:
            fn(obj, is_in_initial_list)

    def on_update(self, old_obj: Any, new_obj: Any) -> None:
        """Call the update function, if any."""
        if self.on_update_func is not None:
            self.on_update_func(old_obj, new_obj)

    def on_delete(self, obj: Any) -> None:
        """Call the delete function, if any."""
        if self.on_delete_func is not None:
            self.on_delete_func(obj)

    def __repr__(self) -> str:
        parts = [
            f"{role}={_describe(fn)}"
            for role, fn in (
                ("on_add", self.on_add_func),
                ("on_update", self.on_update_func),
                ("on_delete", self.on_delete_func),
            )
            if fn is not None
        ]
        if self.name and self.name != _function_name(self.on_add_func, self.on_update_func,
                                                      self.on_delete_func):
            parts.append(f"name={self.name!r}")  # given, not a function's own
        return f"{type(self).__name__}({', '.join(parts)})"


class ResourceEventHandlerDetailedFuncs(ResourceEventHandlerFuncs):
    """Like `ResourceEventHandlerFuncs`, but `on_add` always receives
    `is_in_initial_list` (client-go `ResourceEventHandlerDetailedFuncs`)."""

    __slots__ = ()

    def __init__(
        self,
        on_add: Callable[[Any, bool], Any] | None = None,
        on_update: Callable[[Any, Any], Any] | None = None,
        on_delete: Callable[[Any], Any] | None = None,
        *,
        name: str = "",
    ) -> None:
        if on_add is not None:
            _check_callable(type(self).__name__, "on_add", on_add, 2)
        super().__init__(None, on_update, on_delete,
                         name=name or _function_name(on_add, on_update, on_delete))
        self.on_add_func = on_add


class FilteringResourceEventHandler:
    """Passes on only what `filter_func` accepts (client-go
    `FilteringResourceEventHandler`).

    An update whose object starts passing the filter becomes an add (with
    `is_in_initial_list=False`), one that stops passing becomes a delete of the old
    object, and one that never passes is dropped. Like a handler, the filter must
    not modify the objects it is given.
    """

    __slots__ = ("filter_func", "handler")

    def __init__(self, filter_func: Callable[[Any], bool], handler: ResourceEventHandler) -> None:
        owner = type(self).__name__
        _check_callable(owner, "filter_func", filter_func, 1)
        for method in ("on_add", "on_update", "on_delete"):
            if not callable(getattr(handler, method, None)):
                raise KubenbError(
                    f"{owner}: handler {type(handler).__name__} has no {method}() method; "
                    "wrap plain functions in ResourceEventHandlerFuncs"
                )
        self.filter_func = filter_func
        self.handler = handler

    def on_add(self, obj: Any, is_in_initial_list: bool = False) -> None:
        """Forward the add iff the object passes the filter."""
        if self.filter_func(obj):
            self.handler.on_add(obj, is_in_initial_list)

    def on_update(self, old_obj: Any, new_obj: Any) -> None:
        """Forward as update, add, delete or nothing, by which side passes."""
        newer = self.filter_func(new_obj)
        older = self.filter_func(old_obj)
        if newer and older:
            self.handler.on_update(old_obj, new_obj)
        elif newer:
            self.handler.on_add(new_obj, False)
        elif older:
            self.handler.on_delete(old_obj)

    def on_delete(self, obj: Any) -> None:
        """Forward the delete iff the object passes the filter."""
        if self.filter_func(obj):
            self.handler.on_delete(obj)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_describe(self.filter_func)}, {self.handler!r})"
