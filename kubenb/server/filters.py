"""labelSelector / fieldSelector query parameters turned into one object predicate.

Parsing is kubenb.labels and kubenb.fields (apimachinery's grammar), so the server and
a notebook's local cache agree on what a selector means. Bad selectors become the
same 400 Status the real apiserver sends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubenb.errors import SelectorError
from kubenb.fields import parse_field_selector
from kubenb.labels import parse_label_selector
from kubenb.server.errors import bad_request
from kubenb.server.resources import ResourceType

__all__ = ["Predicate", "make_predicate"]

Predicate = Callable[[dict[str, Any]], bool]


def _problem(err: SelectorError) -> str:
    problem = getattr(err, "problem", None) or str(err)
    return problem.replace("found end of string", "found ''")


def make_predicate(rtype: ResourceType, label_selector: str, field_selector: str
                   ) -> Predicate | None:
    """A predicate for both selectors, or None when they select everything."""
    labels = None
    fields = None
    if label_selector:
        try:
            labels = parse_label_selector(label_selector)
        except SelectorError as err:
            raise bad_request(f"unable to parse requirement: {_problem(err)}") from None
        if labels.empty():
            labels = None
    if field_selector:
        try:
            fields = parse_field_selector(field_selector)
        except SelectorError as err:
            raise bad_request(f"invalid selector: {_problem(err)}") from None
        known = set(rtype.selectable_fields())
        for req in fields.requirements():
            if req.field not in known:
                only = ", ".join(f'"{name}"' for name in rtype.selectable_fields())
                raise bad_request(f'"{req.field}" is not a known field selector: only {only}')
        if fields.empty():
            fields = None
    if labels is None and fields is None:
        return None

    def predicate(obj: dict[str, Any]) -> bool:
        if labels is not None and not labels.matches(
                (obj.get("metadata") or {}).get("labels") or {}):
            return False
        return fields is None or fields.matches(rtype.field_set(obj))

    return predicate
