"""Query parameters decoded the way the apiserver decodes them into its options structs.

Every handler reads the same few kinds of value (integers, resourceVersions, booleans),
and each kind has one apimachinery rule for what is accepted and what is a 400; they
live here so that the list, watch, delete and fault paths all answer alike.
"""

from __future__ import annotations

from collections.abc import Mapping

from kubenb.server import errors

__all__ = ["bool_param", "go_parse_bool", "int_param", "parse_rv"]

_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def int_param(params: Mapping[str, str], name: str, default: int) -> int:
    """An integer query parameter (`limit`, `timeoutSeconds`): `default` when absent or
    empty, 400 BadRequest when it is not an integer."""
    text = params.get(name, "")
    if text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise errors.bad_request(f'invalid value "{text}" for query parameter {name}: '
                                 "expected an integer") from None


def parse_rv(text: str) -> int:
    """A resourceVersion query value as an int (400 if it is not a non-negative one)."""
    try:
        value = int(text)
        if value < 0:
            raise ValueError
        return value
    except ValueError:
        raise errors.bad_request(f'invalid resource version "{text}"') from None


def bool_param(params: Mapping[str, str], name: str) -> bool | None:
    """A boolean query parameter (`watch`, `allowWatchBookmarks`, `sendInitialEvents`,
    `force`) the way the apiserver decodes query parameters into its options
    (apimachinery's `Convert_Slice_string_To_bool`): None when absent; False for "0" and
    "false" in any case; True for anything else, an empty value included. So "True" (what
    the official Python client 36 sends) and "1" are true, and no value is an error."""
    value = params.get(name)
    if value is None:
        return None
    return not (value == "0" or value.casefold() == "false")


def go_parse_bool(text: str) -> bool | None:
    """Go's `strconv.ParseBool`: True or False for its twelve spellings, else None.
    The apiserver reads `?pretty=` with it and treats anything else as false."""
    if text in _GO_TRUE:
        return True
    if text in _GO_FALSE:
        return False
    return None
