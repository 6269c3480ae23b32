"""Field selectors with apimachinery's grammar and semantics (`k8s.io/apimachinery/pkg/fields`).

`parse_field_selector` is Go's `fields.ParseSelector`, `escape_value` its `EscapeValue`,
`one_term_equal_selector` its `OneTermEqualSelector`. Fields missing from an object read
as "" (as the API server's field-label conversion does), and a bad selector raises
`kubenb.errors.SelectorError` pointing at the offending character, as label selectors do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import NamedTuple

from kubenb.errors import SelectorError
from kubenb.labels import Operator, check_string_map, require_selector_text, selector_error

__all__ = [
    "FieldRequirement",
    "FieldSelector",
    "escape_value",
    "everything_fields",
    "field_selector_from_set",
    "nothing_fields",
    "one_term_equal_selector",
    "one_term_not_equal_selector",
    "parse_field_selector",
    "unescape_value",
]


class FieldRequirement(NamedTuple):
    """One `field=value` or `field!=value` term (Go's `fields.Requirement`)."""

    field: str
    operator: Operator  # Operator.EQUALS or Operator.NOT_EQUALS
    value: str

    def __str__(self) -> str:
        op = "!=" if self.operator is Operator.NOT_EQUALS else "="
        return f"{self.field}{op}{escape_value(self.value)}"


class FieldSelector:
    """An AND of field terms (Go's `fields.Selector`); fields missing from the dict are ""."""

    __slots__ = ("_str", "_terms", "_tests")

    def __init__(self, requirements: Iterable[FieldRequirement] = ()) -> None:
        terms = tuple(requirements)
        for term in terms:
            if not isinstance(term, FieldRequirement):
                raise SelectorError(f"not a FieldRequirement: {term!r}")
            if not isinstance(term.field, str) or not isinstance(term.value, str):
                raise SelectorError(
                    f"field selector term {term!r}: the field and value must be strings"
                )
            if term.operator not in (Operator.EQUALS, Operator.NOT_EQUALS):
                raise SelectorError(
                    f"field selector term {term!r}: the operator must be '=' or '!='"
                )
        self._terms = terms
        self._tests = tuple((t.field, t.value, t.operator is Operator.EQUALS) for t in terms)
        self._str = ",".join(str(term) for term in terms)

    def matches(self, fields: Mapping[str, str] | None) -> bool:
        """Whether every term holds; a field absent from `fields` has the value ""."""
        if fields is None:
            fields = {}
        for field, value, equal in self._tests:  # noqa: SIM110 - fastest form
            if (fields.get(field, "") == value) is not equal:
                return False
        return True

    def empty(self) -> bool:
        """True when the selector restricts nothing."""
        return not self._terms

    def requirements(self) -> tuple[FieldRequirement, ...]:
        """The terms, in the selector's canonical order."""
        return self._terms

    def requires_exact_match(self, field: str) -> str | None:
        """The value an `=` term demands for `field`, or None."""
        for term in self._terms:
            if term.field == field and term.operator is Operator.EQUALS:
                return term.value
        return None

    def transform(self, fn: Callable[[str, str], tuple[str, str]]) -> FieldSelector:
        """Rewrite each (field, value) with `fn`; a term mapped to ("", "") is dropped."""
        terms = []
        for term in self._terms:
            field, value = fn(term.field, term.value)
            if field or value:
                terms.append(FieldRequirement(field, term.operator, value))
        return FieldSelector(terms)

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._str!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldSelector):
            return NotImplemented
        return type(self) is type(other) and self._terms == other._terms

    def __hash__(self) -> int:
        return hash((type(self), self._terms))


class _NothingFieldSelector(FieldSelector):
    """Go's `fields.Nothing()`: matches nothing and is not empty."""

    __slots__ = ()

    def matches(self, fields: Mapping[str, str] | None) -> bool:
        return False

    def empty(self) -> bool:
        return False

    def requires_exact_match(self, field: str) -> str | None:
        return None

    def transform(self, fn: Callable[[str, str], tuple[str, str]]) -> FieldSelector:
        return self

    def __repr__(self) -> str:
        return "nothing_fields()"


_EVERYTHING_FIELDS = FieldSelector()
_NOTHING_FIELDS = _NothingFieldSelector()


def everything_fields() -> FieldSelector:
    """A field selector that matches everything (Go's `fields.Everything()`)."""
    return _EVERYTHING_FIELDS


def nothing_fields() -> FieldSelector:
    """A field selector that matches nothing (Go's `fields.Nothing()`)."""
    return _NOTHING_FIELDS


def one_term_equal_selector(field: str, value: str) -> FieldSelector:
    """`field=value` without parsing (Go's `fields.OneTermEqualSelector`)."""
    return FieldSelector([FieldRequirement(field, Operator.EQUALS, value)])


def one_term_not_equal_selector(field: str, value: str) -> FieldSelector:
    """`field!=value` without parsing (Go's `fields.OneTermNotEqualSelector`)."""
    return FieldSelector([FieldRequirement(field, Operator.NOT_EQUALS, value)])


def field_selector_from_set(fields: Mapping[str, str] | None) -> FieldSelector:
    """`field=value` for each entry, sorted by field; None or {} give everything."""
    if not fields:
        return _EVERYTHING_FIELDS
    check_string_map("a field set", fields)
    return FieldSelector(
        FieldRequirement(field, Operator.EQUALS, fields[field]) for field in sorted(fields)
    )


_ESCAPES = str.maketrans({"\\": "\\\\", ",": "\\,", "=": "\\="})


def escape_value(value: str) -> str:
    r"""Escape `\`, `,` and `=` so any string can be a field selector value."""
    return value.translate(_ESCAPES)


def _unescape(text: str, value: str, offset: int) -> str:
    """Undo escape_value; `offset` is where `value` starts in `text`, for errors."""
    if "\\" not in value and "," not in value and "=" not in value:
        return value
    out: list[str] = []
    escaped = False
    for i, char in enumerate(value):
        if escaped:
            if char not in "\\,=":
                raise selector_error(
                    "field", text, f"invalid escape sequence '\\{char}' in value", offset + i - 1, 2
                )
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            raise selector_error(
                "field", text, f"unescaped {char!r} in value (write '\\{char}')", offset + i
            )
        else:
            out.append(char)
    if escaped:
        raise selector_error(
            "field", text, "invalid escape sequence: value ends with a single '\\'",
            offset + len(value) - 1,
        )
    return "".join(out)


def unescape_value(value: str) -> str:
    r"""Undo `escape_value` (Go's `fields.UnescapeValue`); bad escapes raise SelectorError."""
    return _unescape(value, value, 0)


def _split_terms(text: str) -> list[tuple[str, int]]:
    """The comma-separated terms with their start offsets; `\\,` does not split."""
    if not text:
        return []
    terms: list[tuple[str, int]] = []
    start = 0
    escaped = False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            terms.append((text[start:i], start))
            start = i + 1
    terms.append((text[start:], start))
    return terms


_TERM_OPERATORS = ("!=", "==", "=")


def _split_term(term: str) -> tuple[str, str, str, int] | None:
    """(field, operator, raw value, value offset) at the first operator, or None."""
    for i in range(len(term)):
        for op in _TERM_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :], i + len(op)
    return None


@lru_cache(maxsize=512)
def _parse_field_selector_cached(text: str) -> FieldSelector:
    terms: list[FieldRequirement] = []
    # Go sorts the raw terms, which fixes both the canonical order and which error wins.
    for part, start in sorted(_split_terms(text)):
        if not part:
            continue
        split = _split_term(part)
        if split is None:
            raise selector_error(
                "field", text,
                f"can't understand {part!r}: expected field=value, field==value or field!=value",
                start, len(part),
            )
        field, op, raw, value_offset = split
        value = _unescape(text, raw, start + value_offset)
        if field or value:  # Go drops a term whose field and value are both empty
            operator = Operator.NOT_EQUALS if op == "!=" else Operator.EQUALS
            terms.append(FieldRequirement(field, operator, value))
    return FieldSelector(terms) if terms else _EVERYTHING_FIELDS


def parse_field_selector(text: str) -> FieldSelector:
    r"""Parse a field selector string (Go's `fields.ParseSelector`).

    Terms are `field=value`, `field==value` or `field!=value`, separated by commas;
    in values, `\,`, `\=` and `\\` stand for `,`, `=` and `\`. Fields and values are
    not otherwise validated (the server decides which fields it supports), and
    whitespace is significant, as in Go.
    """
    return _parse_field_selector_cached(require_selector_text("field", text))
