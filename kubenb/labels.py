"""Label selectors with apimachinery's grammar and semantics (`k8s.io/apimachinery/pkg/labels`).

`parse_label_selector` is Go's `labels.Parse`; `Requirement`, `selector_from_set`, `Set`
and `format_labels` are their Go twins, and `label_selector_from_dict` is
`metav1.LabelSelectorAsSelector`. A selector a user writes here behaves the way the API
server treats the same string, so a notebook can filter a cache locally and get exactly
what a server-side `labelSelector=` would return. Field selectors live beside it, in
`kubenb.fields`; both are on the ground floor because the API server and the client
tower both use them.

Selectors are immutable and parsed once; `matches` runs per object per list, so
each requirement precomputes its test (a frozenset of values, a parsed integer).

Bad input raises `kubenb.errors.SelectorError`, whose message quotes the selector
and points at the offending character. One deliberate difference from Go: a NUL
character is an ordinary (and therefore invalid) character here, whereas Go's
lexer silently treats it as the end of the string.

The module is long because it is one concept: the grammar's validation, lexer, parser
and matcher read best together, as Go's `labels/selector.go` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

from kubenb.errors import SelectorError

__all__ = [
    "LabelSelector",
    "Operator",
    "Requirement",
    "Set",
    "check_string_map",
    "everything",
    "format_labels",
    "label_selector_from_dict",
    "new_requirement",
    "nothing",
    "parse_label_selector",
    "parse_to_requirements",
    "require_selector_text",
    "selector_error",
    "selector_from_set",
    "selector_string",
    "validated_selector_from_set",
]


class Operator(str, Enum):
    """apimachinery's `selection.Operator`; the values are Go's strings."""

    DOES_NOT_EXIST = "!"
    EQUALS = "="
    DOUBLE_EQUALS = "=="
    IN = "in"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    EXISTS = "exists"
    GREATER_THAN = "gt"
    LESS_THAN = "lt"

    def __str__(self) -> str:
        return self.value


# ---------------------------------------------------------------------------
# Errors: every message quotes the selector and, when known, points at the spot.
# ---------------------------------------------------------------------------

_SHOW_CONTROLS = str.maketrans("\t\r\n", "   ")


def selector_error(
    kind: str, text: str, problem: str, pos: int | None = None, width: int = 1
) -> SelectorError:
    """Build a SelectorError that names the selector, the problem and the position."""
    message = f"invalid {kind} selector {text!r}: {problem}"
    if pos is not None:
        shown = text.translate(_SHOW_CONTROLS)
        message += f" (at position {pos})\n    {shown}\n    {' ' * pos}{'^' * max(width, 1)}"
    err = SelectorError(message)
    err.selector = text  # type: ignore[attr-defined]
    err.position = pos  # type: ignore[attr-defined]
    err.problem = problem  # type: ignore[attr-defined]
    return err


# ---------------------------------------------------------------------------
# Validation of label keys and values (apimachinery pkg/api/validate/content).
# ---------------------------------------------------------------------------

_NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN_RE = re.compile(
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
)
_INT64_RE = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

_NAME_MAX = 63
_PREFIX_MAX = 253
_VALUE_MAX = 63
_NAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')"
)
_PREFIX_RULE = (
    "must be a lowercase RFC 1123 subdomain: lower case alphanumeric characters, '-' or "
    "'.', starting and ending with an alphanumeric character (e.g. 'example.com')"
)
_VALUE_RULE = (
    "a valid label value must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyValue', 'my_value' or '12345')"
)


def _byte_len(text: str) -> int:
    # Go measures lengths in bytes; only non-ASCII text differs, and it is invalid anyway.
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _key_problems(key: str) -> list[str]:
    """Why `key` is not a label key (IsQualifiedName); empty when it is one."""
    parts = key.split("/")
    if len(parts) > 2:
        return [
            "a label key is an optional DNS subdomain prefix and '/' followed by a name "
            "(e.g. 'example.com/MyName'); it has more than one '/'"
        ]
    problems: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            problems.append("prefix part must be non-empty")
        else:
            if _byte_len(prefix) > _PREFIX_MAX:
                problems.append(f"prefix part must be no more than {_PREFIX_MAX} bytes")
            if not _DNS1123_SUBDOMAIN_RE.fullmatch(prefix):
                problems.append(f"prefix part {_PREFIX_RULE}")
    if not name:
        problems.append("name part must be non-empty")
    elif _byte_len(name) > _NAME_MAX:
        problems.append(f"name part must be no more than {_NAME_MAX} bytes")
    if not _NAME_RE.fullmatch(name):
        problems.append(f"name part {_NAME_RULE}")
    return problems


def _value_problems(value: str) -> list[str]:
    """Why `value` is not a label value (IsValidLabelValue); empty when it is one."""
    problems: list[str] = []
    if _byte_len(value) > _VALUE_MAX:
        problems.append(f"must be no more than {_VALUE_MAX} bytes")
    if value and not _NAME_RE.fullmatch(value):
        problems.append(_VALUE_RULE)
    return problems


def _parse_int64(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 10, 64): the int, or None when it does not parse."""
    if not _INT64_RE.fullmatch(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _key_error_text(key: str, problems: list[str]) -> str:
    return f"invalid label key {key!r}: " + "; ".join(problems)


def _value_error_text(key: str, value: str, problems: list[str]) -> str:
    return f"invalid value {value!r} for label {key!r}: " + "; ".join(problems)


_NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer"


# ---------------------------------------------------------------------------
# Requirement
# ---------------------------------------------------------------------------

_MISSING = object()
_SET_OPERATORS = frozenset({Operator.IN, Operator.NOT_IN})
_EXACT_OPERATORS = frozenset({Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS})
_UNARY_OPERATORS = frozenset({Operator.EXISTS, Operator.DOES_NOT_EXIST})
_ORDER_OPERATORS = frozenset({Operator.GREATER_THAN, Operator.LESS_THAN})

_Matcher = Callable[[Mapping[str, str]], bool]


def _to_operator(operator: Operator | str) -> Operator | None:
    try:
        return Operator(operator)
    except ValueError:
        return None


def _count_problem(op: Operator, count: int) -> str | None:
    """NewRequirement's rules on how many values each operator takes."""
    if op in _SET_OPERATORS and count == 0:
        return "for 'in', 'notin' operators, values set can't be empty"
    if op in _EXACT_OPERATORS and count != 1:
        return "exact-match compatibility requires one single value"
    if op in _UNARY_OPERATORS and count != 0:
        return "values set must be empty for exists and does not exist"
    if op in _ORDER_OPERATORS and count != 1:
        return "for 'Gt', 'Lt' operators, exactly one value is required"
    return None


def _make_matcher(key: str, op: Operator, values: frozenset[str], bound: int | None) -> _Matcher:
    """One small closure per requirement, so matching does no dispatch per object."""
    if op in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
        return lambda labels: labels.get(key, _MISSING) in values
    if op in (Operator.NOT_IN, Operator.NOT_EQUALS):
        return lambda labels: labels.get(key, _MISSING) not in values
    if op is Operator.EXISTS:
        return lambda labels: key in labels
    if op is Operator.DOES_NOT_EXIST:
        return lambda labels: key not in labels
    if bound is None:  # Gt/Lt without a usable integer (only via unchecked construction)
        return lambda labels: False
    greater = op is Operator.GREATER_THAN

    def compare(labels: Mapping[str, str]) -> bool:
        value = labels.get(key)
        if value is None:
            return False
        number = _parse_int64(value)
        if number is None:
            return False
        return number > bound if greater else number < bound

    return compare


class Requirement:
    """One clause of a label selector: a key, an operator and a set of values.

    `Requirement(key, operator, values)` validates like Go's `NewRequirement` and
    raises SelectorError. `values` is kept as a sorted tuple (duplicates preserved,
    as Go keeps them), which is also how `str()` prints them.
    """

    __slots__ = ("_hash", "_key", "_match", "_operator", "_str", "_values")

    def __init__(self, key: str, operator: Operator | str, values: Iterable[str] = ()) -> None:
        if isinstance(values, str):
            raise SelectorError(
                f"invalid label requirement for key {key!r}: values must be a list of strings, "
                f"not the string {values!r}"
            )
        values = tuple(values)
        op = _validate_requirement(key, operator, values)
        self._init(key, op, values)

    @classmethod
    def _unchecked(cls, key: str, op: Operator, values: Iterable[str]) -> Requirement:
        """Build without validation, as Go's SelectorFromSet and the parser do."""
        req = cls.__new__(cls)
        req._init(key, op, tuple(values))
        return req

    def _init(self, key: str, op: Operator, values: tuple[str, ...]) -> None:
        self._key = key
        self._operator = op
        self._values = tuple(sorted(values))
        bound = _parse_int64(values[0]) if op in _ORDER_OPERATORS and len(values) == 1 else None
        self._match = _make_matcher(key, op, frozenset(values), bound)
        self._str = _requirement_string(key, op, self._values)
        self._hash = hash((key, op, self._values))

    @property
    def key(self) -> str:
        return self._key

    @property
    def operator(self) -> Operator:
        return self._operator

    @property
    def values(self) -> tuple[str, ...]:
        return self._values

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether `labels` satisfy this requirement (Go's `Requirement.Matches`)."""
        return self._match(labels if labels is not None else {})

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"Requirement({self._key!r}, {self._operator.value!r}, {list(self._values)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self._key, self._operator, self._values) == (
            other._key,
            other._operator,
            other._values,
        )

    def __hash__(self) -> int:
        return self._hash


def _validate_requirement(key: str, operator: Operator | str, values: tuple[str, ...]) -> Operator:
    """NewRequirement's checks; returns the operator or raises with every problem found."""
    problems: list[str] = []
    if not isinstance(key, str):
        raise SelectorError(f"invalid label requirement: key must be a string, got {key!r}")
    for value in values:
        if not isinstance(value, str):
            raise SelectorError(
                f"invalid label requirement for key {key!r}: values must be strings, got {value!r}"
            )
    if key_problems := _key_problems(key):
        problems.append(_key_error_text(key, key_problems))
    op = _to_operator(operator)
    if op is None:
        supported = ", ".join(repr(o.value) for o in Operator)
        problems.append(f"operator {operator!r} is not supported; use one of {supported}")
    else:
        if count_problem := _count_problem(op, len(values)):
            problems.append(f"{count_problem} (got {list(values)!r})")
        if op in _ORDER_OPERATORS:
            problems.extend(
                f"{_NOT_INTEGER}, got {value!r}" for value in values if _parse_int64(value) is None
            )
    for value in values:
        if value_problems := _value_problems(value):
            problems.append(_value_error_text(key, value, value_problems))
    if problems:
        shown = operator.value if isinstance(operator, Operator) else operator
        raise SelectorError(
            f"invalid label requirement ({key!r}, {shown!r}, {list(values)!r}): "
            + "; ".join(problems)
        )
    assert op is not None
    return op


_OPERATOR_TEXT = {
    Operator.EQUALS: "=",
    Operator.DOUBLE_EQUALS: "==",
    Operator.NOT_EQUALS: "!=",
    Operator.IN: " in ",
    Operator.NOT_IN: " notin ",
    Operator.GREATER_THAN: ">",
    Operator.LESS_THAN: "<",
}


def _requirement_string(key: str, op: Operator, values: tuple[str, ...]) -> str:
    """Go's Requirement.String: `!k`, `k`, `k=v`, `k in (a,b)`, `k>1`."""
    if op is Operator.DOES_NOT_EXIST:
        return "!" + key
    if op is Operator.EXISTS:
        return key
    joined = ",".join(values)
    if op in _SET_OPERATORS:
        return f"{key}{_OPERATOR_TEXT[op]}({joined})"
    return f"{key}{_OPERATOR_TEXT[op]}{joined}"


def new_requirement(key: str, operator: Operator | str, values: Iterable[str] = ()) -> Requirement:
    """Go's `labels.NewRequirement`: a validated Requirement, or SelectorError."""
    return Requirement(key, operator, values)


# ---------------------------------------------------------------------------
# LabelSelector
# ---------------------------------------------------------------------------


class LabelSelector:
    """An AND of requirements, sorted by key (Go's `labels.Selector`).

    Build one with `parse_label_selector`, `selector_from_set`,
    `label_selector_from_dict`, `everything()` or `LabelSelector(requirements)`.
    """

    __slots__ = ("_matchers", "_requirements", "_str")

    def __init__(self, requirements: Iterable[Requirement] = ()) -> None:
        given = tuple(requirements)
        for req in given:
            if not isinstance(req, Requirement):
                raise SelectorError(f"not a label Requirement: {req!r}")
        reqs = tuple(sorted(given, key=_by_key))
        self._requirements = reqs
        self._matchers = tuple(req._match for req in reqs)
        self._str = ",".join(str(req) for req in reqs)

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        """Whether every requirement holds for `labels` (None counts as no labels)."""
        if labels is None:
            labels = {}
        for match in self._matchers:  # noqa: SIM110 - a plain loop is the fastest form
            if not match(labels):
                return False
        return True

    def empty(self) -> bool:
        """True when the selector does not restrict anything (matches every label set)."""
        return not self._requirements

    def requirements(self) -> tuple[Requirement, ...] | None:
        """The requirements, sorted by key; None for `nothing()` (Go's selectable=false)."""
        return self._requirements

    def add(self, *requirements: Requirement) -> LabelSelector:
        """A new selector with `requirements` added (Go's `Selector.Add`)."""
        return LabelSelector(self._requirements + requirements)

    def requires_exact_match(self, label: str) -> str | None:
        """The single value `label` must have (`=`, `==`, or `in` with one value), or None."""
        for req in self._requirements:
            if req.key == label:
                exact = req.operator in (Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.IN)
                return req.values[0] if exact and len(req.values) == 1 else None
        return None

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._str!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LabelSelector):
            return NotImplemented
        return type(self) is type(other) and self._requirements == other._requirements

    def __hash__(self) -> int:
        return hash((type(self), self._requirements))


def _by_key(req: Requirement) -> str:
    return req.key


class _NothingSelector(LabelSelector):
    """Go's `labels.Nothing()`: matches no label set and is not empty."""

    __slots__ = ()

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        return False

    def empty(self) -> bool:
        return False

    def requirements(self) -> tuple[Requirement, ...] | None:
        return None

    def add(self, *requirements: Requirement) -> LabelSelector:
        return self

    def requires_exact_match(self, label: str) -> str | None:
        return None

    def __repr__(self) -> str:
        return "nothing()"


_EVERYTHING = LabelSelector()
_NOTHING = _NothingSelector()


def everything() -> LabelSelector:
    """A selector that matches every label set (Go's `labels.Everything()`)."""
    return _EVERYTHING


def nothing() -> LabelSelector:
    """A selector that matches no label set (Go's `labels.Nothing()`)."""
    return _NOTHING


# ---------------------------------------------------------------------------
# Lexer
# ---------------------------------------------------------------------------


class _Tok(Enum):
    END = "end of string"
    CLOSE = ")"
    COMMA = ","
    NOT = "!"
    DOUBLE_EQUALS = "=="
    EQUALS = "="
    GREATER = ">"
    IDENT = "identifier"
    IN = "in"
    LESS = "<"
    NOT_EQUALS = "!="
    NOT_IN = "notin"
    OPEN = "("


class _Token(NamedTuple):
    kind: _Tok
    text: str
    pos: int


_WHITESPACE = frozenset(" \t\r\n")
_SPECIAL = frozenset("=!(),><")
_SYMBOLS = {
    tok.value: tok
    for tok in (
        _Tok.CLOSE, _Tok.COMMA, _Tok.NOT, _Tok.DOUBLE_EQUALS, _Tok.EQUALS,
        _Tok.GREATER, _Tok.LESS, _Tok.NOT_EQUALS, _Tok.OPEN,
    )
}
_KEYWORDS = {"in": _Tok.IN, "notin": _Tok.NOT_IN}


def _scan_symbol(text: str, start: int) -> _Token:
    """The longest operator starting at `start` ("!=" over "!", "==" over "=")."""
    best: _Tok | None = None
    end = start
    pos = start
    while pos < len(text) and text[pos] in _SPECIAL:
        kind = _SYMBOLS.get(text[start : pos + 1])
        if kind is not None:
            best, end = kind, pos + 1
        elif best is not None:
            break
        pos += 1
    assert best is not None  # every special character is a token on its own
    return _Token(best, text[start:end], start)


def _scan_word(text: str, start: int) -> _Token:
    """An identifier or keyword: everything up to whitespace or a special character."""
    pos = start
    while pos < len(text) and text[pos] not in _SPECIAL and text[pos] not in _WHITESPACE:
        pos += 1
    word = text[start:pos]
    return _Token(_KEYWORDS.get(word, _Tok.IDENT), word, start)


def _lex(text: str) -> list[_Token]:
    """All tokens of `text`, ending with an END token (Go's Lexer run to the end)."""
    tokens: list[_Token] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= len(text):
            tokens.append(_Token(_Tok.END, "", pos))
            return tokens
        token = _scan_symbol(text, pos) if text[pos] in _SPECIAL else _scan_word(text, pos)
        tokens.append(token)
        pos += len(token.text)


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------

_BINARY_OPERATORS = {
    _Tok.IN: Operator.IN,
    _Tok.NOT_IN: Operator.NOT_IN,
    _Tok.EQUALS: Operator.EQUALS,
    _Tok.DOUBLE_EQUALS: Operator.DOUBLE_EQUALS,
    _Tok.NOT_EQUALS: Operator.NOT_EQUALS,
    _Tok.GREATER: Operator.GREATER_THAN,
    _Tok.LESS: Operator.LESS_THAN,
}
_KEY_START = (_Tok.IDENT, _Tok.NOT)


def _describe(token: _Token) -> str:
    return "end of string" if token.kind is _Tok.END else repr(token.text)


class _Parser:
    """Recursive descent over the token list, following apimachinery's parser.

    Inside a requirement's values (and wherever a key may appear) the keywords
    `in` and `notin` are plain identifiers; only in operator position are they
    operators. That is Go's "Values" versus "KeyAndOperator" parsing context.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _lex(text)
        self.index = 0

    def error(self, problem: str, token: _Token) -> SelectorError:
        return selector_error("label", self.text, problem, token.pos, len(token.text))

    def peek(self, operator_position: bool = False) -> _Token:
        return self._as_context(self.tokens[self.index], operator_position)

    def take(self, operator_position: bool = False) -> _Token:
        token = self.tokens[self.index]
        if token.kind is not _Tok.END:
            self.index += 1
        return self._as_context(token, operator_position)

    @staticmethod
    def _as_context(token: _Token, operator_position: bool) -> _Token:
        if not operator_position and token.kind in (_Tok.IN, _Tok.NOT_IN):
            return token._replace(kind=_Tok.IDENT)
        return token

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        first = self.peek()
        if first.kind is _Tok.END:
            return requirements
        if first.kind not in _KEY_START:
            raise self.error(
                f"found {_describe(first)}, expected: '!', a key, or end of string", first
            )
        while True:
            requirements.append(self.parse_requirement())
            after = self.take()
            if after.kind is _Tok.END:
                return requirements
            if after.kind is not _Tok.COMMA:
                raise self.error(f"found {_describe(after)}, expected: ',' or end of string", after)
            following = self.peek()
            if following.kind not in _KEY_START:
                raise self.error(
                    f"found {_describe(following)}, expected: '!' or a key after ','", following
                )

    def parse_requirement(self) -> Requirement:
        key, op = self.parse_key_and_infer_operator()
        if op is not None:
            return Requirement._unchecked(key, op, ())
        op_token = self.take(operator_position=True)
        op = _BINARY_OPERATORS.get(op_token.kind)
        if op is None:
            raise self.error(
                f"found {_describe(op_token)}, expected: an operator "
                "(in, notin, =, ==, !=, >, <), ',' or end of string",
                op_token,
            )
        values = self.parse_value_set() if op in _SET_OPERATORS else [self.parse_exact_value()]
        self.check_values(key, op, values)
        return Requirement._unchecked(key, op, sorted({token.text for token in values}))

    def parse_key_and_infer_operator(self) -> tuple[str, Operator | None]:
        """The key, and EXISTS / DOES_NOT_EXIST when no binary operator follows."""
        token = self.take()
        negated = token.kind is _Tok.NOT
        if negated:
            token = self.take()
        if token.kind is not _Tok.IDENT:
            raise self.error(f"found {_describe(token)}, expected: a key", token)
        if problems := _key_problems(token.text):
            raise self.error(_key_error_text(token.text, problems), token)
        if negated:
            return token.text, Operator.DOES_NOT_EXIST
        if self.peek().kind in (_Tok.END, _Tok.COMMA):
            return token.text, Operator.EXISTS
        return token.text, None

    def parse_value_set(self) -> list[_Token]:
        """`( v1, v2, ... )`; empty entries, as in `(a,,)` or `()`, mean the value ""."""
        opening = self.take()
        if opening.kind is not _Tok.OPEN:
            raise self.error(f"found {_describe(opening)}, expected: '('", opening)
        first = self.peek()
        if first.kind is _Tok.CLOSE:
            self.take()
            return [first._replace(text="")]
        if first.kind not in (_Tok.IDENT, _Tok.COMMA):
            raise self.error(f"found {_describe(first)}, expected: ',', ')' or a value", first)
        values = self.parse_value_list()
        self.take()  # the ')' the list stopped in front of
        return values

    def parse_value_list(self) -> list[_Token]:
        values: list[_Token] = []
        while True:
            token = self.take()
            if token.kind is _Tok.IDENT:
                values.append(token)
                following = self.peek()
                if following.kind is _Tok.CLOSE:
                    return values
                if following.kind is not _Tok.COMMA:
                    raise self.error(
                        f"found {_describe(following)}, expected: ',' or ')'", following
                    )
            elif token.kind is _Tok.COMMA:
                empty = token._replace(text="")
                if not values:
                    values.append(empty)  # "(,"
                following = self.peek()
                if following.kind is _Tok.CLOSE:
                    values.append(empty)  # ",)"
                    return values
                if following.kind is _Tok.COMMA:
                    values.append(empty)  # ",,"
            else:
                raise self.error(f"found {_describe(token)}, expected: ',' or a value", token)

    def parse_exact_value(self) -> _Token:
        """The one value after =, ==, !=, >, <; nothing before ',' or the end means ""."""
        token = self.peek()
        if token.kind in (_Tok.END, _Tok.COMMA):
            return token._replace(text="")
        token = self.take()
        if token.kind is not _Tok.IDENT:
            raise self.error(f"found {_describe(token)}, expected: a value", token)
        return token

    def check_values(self, key: str, op: Operator, values: list[_Token]) -> None:
        """NewRequirement's value checks, reported at the offending value."""
        for token in values:
            if op in _ORDER_OPERATORS and _parse_int64(token.text) is None:
                raise self.error(f"{_NOT_INTEGER}, got {token.text!r}", token)
            if problems := _value_problems(token.text):
                raise self.error(_value_error_text(key, token.text, problems), token)


def require_selector_text(kind: str, text: Any) -> str:
    if not isinstance(text, str):
        raise SelectorError(f"a {kind} selector must be a string, got {type(text).__name__}")
    return text


@lru_cache(maxsize=512)
def _parse_label_selector_cached(text: str) -> LabelSelector:
    return LabelSelector(_Parser(text).parse())


def parse_label_selector(text: str) -> LabelSelector:
    """Parse a label selector string (Go's `labels.Parse`).

    Grammar: comma-separated requirements, each `key`, `!key`, `key=v`, `key==v`,
    `key!=v`, `key in (v1,v2)`, `key notin (v1,v2)`, `key>n` or `key<n`. Keys and
    values are validated as the API server validates them. Selectors are immutable,
    so results are cached by text.
    """
    return _parse_label_selector_cached(require_selector_text("label", text))


def parse_to_requirements(text: str) -> list[Requirement]:
    """The requirements of a label selector string, sorted by key (`ParseToRequirements`)."""
    return list(parse_label_selector(text).requirements() or ())


# ---------------------------------------------------------------------------
# Label sets
# ---------------------------------------------------------------------------


class Set(dict[str, str]):
    """A map of label to value (Go's `labels.Set`); `str()` is the `k=v,...` form."""

    def __str__(self) -> str:
        return _set_string(self)

    def as_selector(self) -> LabelSelector:
        """`selector_from_set(self)`: exact match of every label, no validation."""
        return selector_from_set(self)

    def as_validated_selector(self) -> LabelSelector:
        """`validated_selector_from_set(self)`: the same, with keys and values validated."""
        return validated_selector_from_set(self)


def _set_string(labels: Mapping[str, str]) -> str:
    # Go sorts the "k=v" strings, not the keys; the two differ for keys like "a" and "a-b".
    return ",".join(sorted(f"{key}={value}" for key, value in labels.items()))


def format_labels(labels: Mapping[str, str] | None) -> str:
    """Labels as `k=v,...` sorted, or `<none>` when there are none (Go's `FormatLabels`)."""
    return _set_string(labels or {}) or "<none>"


def check_string_map(kind: str, pairs: Mapping[str, str]) -> None:
    """Go's map[string]string is typed; here a non-string is reported, not crashed on."""
    if not isinstance(pairs, Mapping):
        raise SelectorError(f"{kind} must be a mapping of strings, got {type(pairs).__name__}")
    for key, value in pairs.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise SelectorError(f"{kind} must map strings to strings, got {key!r}: {value!r}")


def selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """A selector requiring each label to equal its value; None or {} give everything().

    Like Go's `SelectorFromSet`, keys and values are not validated; use
    `validated_selector_from_set` to catch mistakes before the server does.
    """
    if not labels:
        return _EVERYTHING
    check_string_map("a label set", labels)
    return LabelSelector(
        Requirement._unchecked(key, Operator.EQUALS, (value,)) for key, value in labels.items()
    )


def validated_selector_from_set(labels: Mapping[str, str] | None) -> LabelSelector:
    """`selector_from_set` with every key and value validated (`ValidatedSelectorFromSet`)."""
    if not labels:
        return _EVERYTHING
    check_string_map("a label set", labels)
    return LabelSelector(
        Requirement(key, Operator.EQUALS, (value,)) for key, value in labels.items()
    )


# ---------------------------------------------------------------------------
# metav1.LabelSelector
# ---------------------------------------------------------------------------

_EXPRESSION_OPERATORS = {
    "In": Operator.IN,
    "NotIn": Operator.NOT_IN,
    "Exists": Operator.EXISTS,
    "DoesNotExist": Operator.DOES_NOT_EXIST,
}
_SELECTOR_FIELDS = frozenset({"matchLabels", "matchExpressions"})
_EXPRESSION_FIELDS = frozenset({"key", "operator", "values"})


def _dict_error(problem: str) -> SelectorError:
    return SelectorError(f"invalid metav1.LabelSelector: {problem}")


def _match_labels_requirements(match_labels: Any) -> list[Requirement]:
    if not isinstance(match_labels, Mapping):
        raise _dict_error(f"matchLabels must be a mapping, got {type(match_labels).__name__}")
    reqs = []
    for key, value in match_labels.items():
        if not isinstance(value, str):
            raise _dict_error(f"matchLabels[{key!r}] must be a string, got {value!r}")
        try:
            reqs.append(Requirement(key, Operator.EQUALS, (value,)))
        except SelectorError as err:
            raise _dict_error(f"matchLabels[{key!r}]: {err}") from None
    return reqs


def _expression_requirement(index: int, expression: Any) -> Requirement:
    where = f"matchExpressions[{index}]"
    if not isinstance(expression, Mapping):
        raise _dict_error(f"{where} must be a mapping, got {type(expression).__name__}")
    if unknown := set(expression) - _EXPRESSION_FIELDS:
        raise _dict_error(f"{where} has unknown field(s) {sorted(map(str, unknown))}")
    operator = expression.get("operator")
    op = _EXPRESSION_OPERATORS.get(operator) if isinstance(operator, str) else None
    if op is None:
        raise _dict_error(
            f"{where}: {operator!r} is not a valid label selector operator "
            "(use In, NotIn, Exists or DoesNotExist)"
        )
    values = expression.get("values") or []
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise _dict_error(f"{where}.values must be a list of strings, got {values!r}")
    try:
        return Requirement(expression.get("key", ""), op, values)
    except SelectorError as err:
        raise _dict_error(f"{where}: {err}") from None


def label_selector_from_dict(selector: Mapping[str, Any] | None) -> LabelSelector:
    """A metav1.LabelSelector dict as a selector (Go's `metav1.LabelSelectorAsSelector`).

    None gives `nothing()` and {} gives `everything()`, as in Go. `matchLabels` become
    `=` requirements; `matchExpressions` take In / NotIn (with values) and Exists /
    DoesNotExist (without). Unlike Go's JSON decoding, unknown fields are an error,
    so a typo such as `matchlabels` cannot silently select everything.
    """
    if selector is None:
        return _NOTHING
    if not isinstance(selector, Mapping):
        raise _dict_error(f"expected a mapping, got {type(selector).__name__}")
    if unknown := set(selector) - _SELECTOR_FIELDS:
        raise _dict_error(
            f"unknown field(s) {sorted(map(str, unknown))}; expected matchLabels, matchExpressions"
        )
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or []
    if isinstance(expressions, (str, Mapping)) or not isinstance(expressions, Iterable):
        raise _dict_error(f"matchExpressions must be a list, got {type(expressions).__name__}")
    expressions = list(expressions)
    requirements = _match_labels_requirements(match_labels)
    requirements += [_expression_requirement(i, expr) for i, expr in enumerate(expressions)]
    return LabelSelector(requirements) if requirements else _EVERYTHING


def selector_string(value: Any) -> str:
    """A selector as a request carries it: `value` may be its text, a parsed label or
    field selector, a {"key": "value"} dict (in its own order, not sorted), or empty."""
    if not value:
        return ""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    return str(value)
