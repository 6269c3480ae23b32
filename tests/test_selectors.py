"""Label and field selectors against apimachinery's behaviour (spec section K, 100-108).

Scenarios come from apimachinery's pkg/labels/selector_test.go, labels_test.go and
pkg/fields/selector_test.go; each K item has a test named after its number.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubenb import labels as selectors
from kubenb.errors import SelectorError
from kubenb.fields import (
    FieldRequirement,
    FieldSelector,
    escape_value,
    everything_fields,
    field_selector_from_set,
    nothing_fields,
    one_term_equal_selector,
    one_term_not_equal_selector,
    parse_field_selector,
    unescape_value,
)
from kubenb.labels import (
    LabelSelector,
    Operator,
    Requirement,
    Set,
    everything,
    format_labels,
    label_selector_from_dict,
    new_requirement,
    nothing,
    parse_label_selector,
    parse_to_requirements,
    selector_from_set,
    validated_selector_from_set,
)

IN, NOT_IN = Operator.IN, Operator.NOT_IN
EQ, DEQ, NEQ = Operator.EQUALS, Operator.DOUBLE_EQUALS, Operator.NOT_EQUALS
EXISTS, DNE = Operator.EXISTS, Operator.DOES_NOT_EXIST
GT, LT = Operator.GREATER_THAN, Operator.LESS_THAN


def req(key: str, op: Operator, *values: str) -> Requirement:
    return Requirement(key, op, values)


def sel(*reqs: Requirement) -> LabelSelector:
    return LabelSelector(reqs)


# --- K100 -------------------------------------------------------------------------------

K100_GOOD = [
    "x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5",
]
K100_BAD = ["x=a||y=b", "x==a==b", "!x=a", "x<a"]


@pytest.mark.parametrize("text", K100_GOOD)
def test_k100_round_trip_and_rejection(text: str) -> None:
    assert str(parse_label_selector(text)) == text.replace(" ", "")


@pytest.mark.parametrize("text", K100_BAD)
def test_k100_rejects_bad_selectors(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(text)


# --- K101 -------------------------------------------------------------------------------


def test_k101_requirements_sorted_by_key() -> None:
    one, two = parse_label_selector("x=a,a=x"), parse_label_selector("a=x,x=a")
    assert str(one) == str(two) == "a=x,x=a"
    assert one == two
    assert [r.key for r in one.requirements()] == ["a", "x"]
    assert str(sel(req("z", EXISTS), req("b", EQ, "1"), req("m", IN, "q"))) == "b=1,m in (q),z"


# --- K102 -------------------------------------------------------------------------------

K102_MATCHES = [
    ("", {"x": "y"}),
    ("x=y", {"x": "y"}),
    ("x=y,z=w", {"x": "y", "z": "w"}),
    ("x!=y,z!=w", {"x": "z", "z": "a"}),
    ("notin=in", {"notin": "in"}),
    ("x", {"x": "z"}),
    ("!x", {"y": "z"}),
    ("x>1", {"x": "2"}),
    ("x<1", {"x": "0"}),
    ("foo=bar", {"foo": "bar", "baz": "blah"}),
    ("baz=blah", {"foo": "bar", "baz": "blah"}),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}),
]
K102_NO_MATCH = [
    ("x=z", {}),
    ("x=y", {"x": "z"}),
    ("x=y,z=w", {"x": "w", "z": "w"}),
    ("x!=y,z!=w", {"x": "z", "z": "w"}),
    ("x", {"y": "z"}),
    ("!x", {"x": "z"}),
    ("x>1", {"x": "0"}),
    ("x<1", {"x": "2"}),
    ("foo=blah", {"foo": "bar", "baz": "blah"}),
    ("baz=bar", {"foo": "bar", "baz": "blah"}),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}),
]


@pytest.mark.parametrize(("text", "labels"), K102_MATCHES)
def test_k102_match_semantics(text: str, labels: dict[str, str]) -> None:
    assert parse_label_selector(text).matches(labels)


@pytest.mark.parametrize(("text", "labels"), K102_NO_MATCH)
def test_k102_no_match_semantics(text: str, labels: dict[str, str]) -> None:
    assert not parse_label_selector(text).matches(labels)


def test_k102_everything_and_none_labels() -> None:
    assert everything().matches({"x": "y"})
    assert everything().empty()
    assert everything().matches(None)
    assert parse_label_selector("!x").matches(None)
    assert not parse_label_selector("x").matches(None)


# --- K103 -------------------------------------------------------------------------------

K103_TABLE = [
    ({"x": "foo", "y": "baz"}, sel(req("x", IN, "foo"), req("y", NOT_IN, "alpha")), True),
    ({"x": "foo", "y": "baz"}, sel(req("x", IN, "foo"), req("y", IN, "alpha")), False),
    ({"y": ""}, sel(req("x", NOT_IN, ""), req("y", EXISTS)), True),
    ({"y": ""}, sel(req("x", DNE), req("y", EXISTS)), True),
    ({"y": ""}, sel(req("x", NOT_IN, ""), req("y", DNE)), False),
    ({"y": "baz"}, sel(req("x", IN, "")), False),
    ({"z": "2"}, sel(req("z", GT, "1")), True),
    ({"z": "v2"}, sel(req("z", GT, "1")), False),
]


@pytest.mark.parametrize(("labels", "selector", "want"), K103_TABLE)
def test_k103_missing_key_semantics(
    labels: dict[str, str], selector: LabelSelector, want: bool
) -> None:
    assert selector.matches(labels) is want


@pytest.mark.parametrize(
    ("text", "when_absent"),
    [
        ("k in (a)", False),
        ("k=a", False),
        ("k==a", False),
        ("k notin (a)", True),
        ("k!=a", True),
        ("k", False),
        ("!k", True),
        ("k>1", False),
        ("k<1", False),
    ],
)
def test_k103_each_operator_with_absent_key(text: str, when_absent: bool) -> None:
    assert parse_label_selector(text).matches({"other": "a"}) is when_absent


@pytest.mark.parametrize(
    ("text", "labels", "want"),
    [
        ("x", {"x": ""}, True),  # an empty value still exists
        ("x in (a,b)", {"x": "b"}, True),
        ("x notin (a,b)", {"x": "b"}, False),
        ("x notin (a,b)", {"x": "c"}, True),
        ("x>1", {"x": "v2"}, False),
        ("x<1", {"x": ""}, False),
        ("x<5", {"x": " 1"}, False),  # ParseInt takes no whitespace
        ("x<5", {"x": "1_0"}, False),  # nor underscores
        ("x<5", {"x": "-3"}, True),  # a signed label value still parses
        ("x>5", {"x": "+9"}, True),
        ("x>1", {"x": "9223372036854775807"}, True),
        ("x>1", {"x": "9223372036854775808"}, False),  # overflows int64: no match
        ("x<1", {"x": "-9223372036854775808"}, True),
        ("x>1", {"x": "٣"}, False),  # non-ASCII digits are not Go digits
    ],
)
def test_k103_integer_and_empty_values(text: str, labels: dict[str, str], want: bool) -> None:
    assert parse_label_selector(text).matches(labels) is want


# --- K104 -------------------------------------------------------------------------------

K104_VALID = [
    ("", sel()),
    ("\rx", sel(req("x", EXISTS))),
    (
        "this-is-a-dns.domain.com/key-with-dash",
        sel(req("this-is-a-dns.domain.com/key-with-dash", EXISTS)),
    ),
    (
        "this-is-another-dns.domain.com/key-with-dash in (so,what)",
        sel(req("this-is-another-dns.domain.com/key-with-dash", IN, "so", "what")),
    ),
    (
        "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
        sel(req("0.1.2.domain/99", NOT_IN, "10.10.100.1", "tick.tack.clock")),
    ),
    ("foo  in\t (abc)", sel(req("foo", IN, "abc"))),
    ("x notin\n (abc)", sel(req("x", NOT_IN, "abc"))),
    ("x  notin\t\t\t(abc,def)", sel(req("x", NOT_IN, "abc", "def"))),
    ("x in (abc,def)", sel(req("x", IN, "abc", "def"))),
    ("x in (abc,)", sel(req("x", IN, "abc", ""))),
    ("x in (abc,abc)", sel(req("x", IN, "abc"))),
    ("x in ()", sel(req("x", IN, ""))),
    ("x in (a,,)", sel(req("x", IN, "a", ""))),
    ("x in (a,,,)", sel(req("x", IN, "a", ""))),
    ("x in (a,,,,,,)", sel(req("x", IN, "a", ""))),
    ("x in (a,,a,,a,,a,,)", sel(req("x", IN, "a", ""))),
    (
        "x notin (abc,,def),bar,z in (),w",
        sel(req("bar", EXISTS), req("w", EXISTS), req("x", NOT_IN, "abc", "", "def"),
            req("z", IN, "")),
    ),
    ("x,y in (a)", sel(req("x", EXISTS), req("y", IN, "a"))),
    ("x=a", sel(req("x", EQ, "a"))),
    ("x>1", sel(req("x", GT, "1"))),
    ("x<7", sel(req("x", LT, "7"))),
    ("x=a,y!=b", sel(req("x", EQ, "a"), req("y", NEQ, "b"))),
    (
        "x=a,y!=b,z in (h,i,j)",
        sel(req("x", EQ, "a"), req("y", NEQ, "b"), req("z", IN, "h", "i", "j")),
    ),
    ("x notin ( )", sel(req("x", NOT_IN, ""))),
    ("x notin (, a)", sel(req("x", NOT_IN, "", "a"))),
    ("a ", sel(req("a", EXISTS))),
    ("a in (x,y,notin, z,in)", sel(req("a", IN, "in", "notin", "x", "y", "z"))),
]
K104_INVALID = [
    "x=a||y=b",
    "x,,y",
    ",x,y",
    "x nott in (y)",
    "a in (xyz),",
    "a in (xyz)b notin ()",
    "a in (xyz abc)",
    "a notin(",
    "a (",
    "(",
]


@pytest.mark.parametrize(("text", "want"), K104_VALID)
def test_k104_set_based_parsing(text: str, want: LabelSelector) -> None:
    assert parse_label_selector(text) == want


def test_k104_values_are_sets_stored_sorted() -> None:
    assert parse_label_selector("x in (abc,)").requirements()[0].values == ("", "abc")
    assert parse_label_selector("x in ()").requirements()[0].values == ("",)
    assert parse_label_selector("x notin ( )").requirements()[0].values == ("",)
    assert parse_label_selector("x in (a,,,,,,)").requirements()[0].values == ("", "a")
    assert parse_label_selector("x in (c,b,a,b)").requirements()[0].values == ("a", "b", "c")
    got = parse_label_selector("a in (x,y,notin, z,in)").requirements()[0].values
    assert got == ("in", "notin", "x", "y", "z")


def test_k104_whitespace_kinds() -> None:
    for space in (" ", "\t", "\n", "\r"):
        text = f"{space}x{space}in{space}({space}a{space},{space}b{space}){space},{space}!y{space}"
        assert str(parse_label_selector(text)) == "x in (a,b),!y"
    with pytest.raises(SelectorError):
        parse_label_selector("x\u00a0in (a)")  # only space, \t, \n and \r separate tokens


@pytest.mark.parametrize("text", K104_INVALID)
def test_k104_set_based_parse_errors(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(text)


# --- K105 -------------------------------------------------------------------------------

Tok = selectors._Tok


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", Tok.END),
        (",", Tok.COMMA),
        ("notin", Tok.NOT_IN),
        ("in", Tok.IN),
        ("=", Tok.EQUALS),
        ("==", Tok.DOUBLE_EQUALS),
        (">", Tok.GREATER),
        ("<", Tok.LESS),
        ("!", Tok.NOT),
        ("!=", Tok.NOT_EQUALS),
        ("(", Tok.OPEN),
        (")", Tok.CLOSE),
        ("~", Tok.IDENT),
        ("||", Tok.IDENT),
    ],
)
def test_k105_lexer_takes_longest_operator(text: str, kind: selectors._Tok) -> None:
    first = selectors._lex(text)[0]
    assert first.kind is kind
    assert first.text == text


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("key in ( value )", [Tok.IDENT, Tok.IN, Tok.OPEN, Tok.IDENT, Tok.CLOSE]),
        ("key notin ( value )", [Tok.IDENT, Tok.NOT_IN, Tok.OPEN, Tok.IDENT, Tok.CLOSE]),
        (
            "key in ( value1, value2 )",
            [Tok.IDENT, Tok.IN, Tok.OPEN, Tok.IDENT, Tok.COMMA, Tok.IDENT, Tok.CLOSE],
        ),
        ("key", [Tok.IDENT]),
        ("!key", [Tok.NOT, Tok.IDENT]),
        ("()", [Tok.OPEN, Tok.CLOSE]),
        ("x in (),y", [Tok.IDENT, Tok.IN, Tok.OPEN, Tok.CLOSE, Tok.COMMA, Tok.IDENT]),
        (
            "== != (), = notin",
            [Tok.DOUBLE_EQUALS, Tok.NOT_EQUALS, Tok.OPEN, Tok.CLOSE, Tok.COMMA, Tok.EQUALS,
             Tok.NOT_IN],
        ),
        ("key>2", [Tok.IDENT, Tok.GREATER, Tok.IDENT]),
        ("key<1", [Tok.IDENT, Tok.LESS, Tok.IDENT]),
        ("!!=", [Tok.NOT, Tok.NOT_EQUALS]),
        ("===", [Tok.DOUBLE_EQUALS, Tok.EQUALS]),
        (">=", [Tok.GREATER, Tok.EQUALS]),
        ("!==", [Tok.NOT_EQUALS, Tok.EQUALS]),
    ],
)
def test_k105_lexer_sequences(text: str, kinds: list[selectors._Tok]) -> None:
    tokens = selectors._lex(text)
    assert [t.kind for t in tokens] == [*kinds, Tok.END]


def test_k105_lexing_seen_through_parse() -> None:
    # `!=` is one operator, not "!" then "="; `in`/`notin` are keys and values too.
    assert parse_label_selector("x!=a").requirements()[0].operator is NEQ
    assert parse_label_selector("x==a").requirements()[0].operator is DEQ
    assert str(parse_label_selector("in in (notin)")) == "in in (notin)"
    assert str(parse_label_selector("!notin")) == "!notin"
    with pytest.raises(SelectorError, match="'='"):
        parse_label_selector("x===a")  # "==" then "=": a value cannot be "="
    with pytest.raises(SelectorError, match="'~'"):
        parse_label_selector("x=~")  # ~ is an identifier, then an invalid value


# --- K106 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "op", "values"),
    [
        ("x3", IN, ["foo"]),
        ("x4", NOT_IN, ["foo"]),
        ("x6", EXISTS, []),
        ("x7", DNE, []),
        ("x9", IN, ["bar"]),
        ("x11", GT, ["1"]),
        ("x12", LT, ["6"]),
        ("x", EQ, [""]),
        ("x", EQ, ["a" * 63]),
        ("n" * 63, EXISTS, []),
        ("p" * 253 + "/n", EXISTS, []),
        ("example.com/My_Name.1", EXISTS, []),
        ("x", GT, ["05"]),
    ],
)
def test_k106_new_requirement_accepts(key: str, op: Operator, values: list[str]) -> None:
    r = new_requirement(key, op, values)
    assert (r.key, r.operator, r.values) == (key, op, tuple(sorted(values)))


@pytest.mark.parametrize(
    ("key", "op", "values", "why"),
    [
        ("x1", IN, [], "can't be empty"),
        ("x2", NOT_IN, [], "can't be empty"),
        ("x5", EQ, ["foo", "bar"], "one single value"),
        ("x5", DEQ, [], "one single value"),
        ("x5", NEQ, ["a", "b"], "one single value"),
        ("x8", EXISTS, ["foo"], "must be empty"),
        ("x8", DNE, ["foo"], "must be empty"),
        ("x13", GT, [], "exactly one value"),
        ("x13", LT, ["1", "2"], "exactly one value"),
        ("x14", GT, ["bar"], "must be an integer"),
        ("x15", LT, ["bar"], "must be an integer"),
        ("x15", LT, ["99999999999999999999"], "must be an integer"),
        ("a" * 254, EXISTS, [], "no more than 63"),
        ("n" * 64, EXISTS, [], "no more than 63"),
        ("p" * 254 + "/n", EXISTS, [], "no more than 253"),
        ("Upper.com/n", EXISTS, [], "prefix part"),
        ("/n", EXISTS, [], "prefix part must be non-empty"),
        ("p/", EXISTS, [], "name part must be non-empty"),
        ("", EXISTS, [], "name part must be non-empty"),
        ("a/b/c", EXISTS, [], "more than one '/'"),
        ("-x", EXISTS, [], "start and end with an alphanumeric"),
        ("x16", EQ, ["a" * 254], "no more than 63"),
        ("x16", EQ, ["a" * 64], "no more than 63"),
        ("x17", EQ, ["a b"], "valid label value"),
        ("x17", IN, ["ok", "-bad"], "valid label value"),
        ("x18", "unsupportedOp", [], "not supported"),
    ],
)
def test_k106_new_requirement_rejects(
    key: str, op: Operator | str, values: list[str], why: str
) -> None:
    with pytest.raises(SelectorError, match=why):
        new_requirement(key, op, values)


def test_k106_operator_strings_and_reports_every_problem() -> None:
    assert Requirement("x", "notin", ["a"]).operator is NOT_IN
    assert Requirement("x", "!", []).operator is DNE
    with pytest.raises(SelectorError) as info:
        Requirement("-bad", GT, ["x y"])
    message = str(info.value)
    assert "'-bad'" in message and "must be an integer" in message and "'x y'" in message
    with pytest.raises(SelectorError, match="not the string"):
        Requirement("x", IN, "abc")  # a bare string is not a list of values
    with pytest.raises(SelectorError, match="must be strings"):
        Requirement("x", EQ, [1])  # type: ignore[list-item]


def test_k106_parser_validates_keys_and_values() -> None:
    with pytest.raises(SelectorError, match="no more than 63"):
        parse_label_selector("a" * 254)
    with pytest.raises(SelectorError, match="no more than 63"):
        parse_label_selector("x=" + "v" * 64)
    assert parse_label_selector("x=" + "v" * 63).matches({"x": "v" * 63})
    with pytest.raises(SelectorError, match="valid label value"):
        parse_label_selector("x>-1")  # Gt values are label values too, so no sign


# --- K107 -------------------------------------------------------------------------------

K107_CASES = [
    (sel(req("x", IN, "abc", "def"), req("y", NOT_IN, "jkl"), req("z", EXISTS)),
     "x in (abc,def),y notin (jkl),z"),
    (sel(req("x", NOT_IN, "abc", "def"), req("y", NEQ, "jkl"), req("z", DNE)),
     "x notin (abc,def),y!=jkl,!z"),
    (sel(req("x", NOT_IN, "abc"), req("y", IN, "jkl", "mno"), req("z", NOT_IN, "")),
     "x notin (abc),y in (jkl,mno),z notin ()"),
    (sel(req("x", EQ, "abc"), req("y", DEQ, "jkl"), req("z", NEQ, "a"), req("z", EXISTS)),
     "x=abc,y==jkl,z!=a,z"),
    (sel(req("x", GT, "2"), req("y", LT, "8"), req("z", EXISTS)), "x>2,y<8,z"),
]


@pytest.mark.parametrize(("selector", "text"), K107_CASES)
def test_k107_string_formatting(selector: LabelSelector, text: str) -> None:
    assert str(selector) == text
    assert parse_label_selector(text) == selector


def test_k107_multiple_values_print_sorted() -> None:
    assert str(req("x", IN, "def", "abc", "b")) == "x in (abc,b,def)"
    assert str(parse_label_selector("x notin (z,y,x)")) == "x notin (x,y,z)"


# --- K108 -------------------------------------------------------------------------------


def test_k108_selector_from_set() -> None:
    assert selector_from_set(None).empty()
    assert selector_from_set({}).empty()
    assert selector_from_set(None) == everything()
    assert Set().as_selector().empty()
    assert str(Set({"foo": "bar", "baz": "qup"})) == "baz=qup,foo=bar"

    labelset = {"foo": "bar", "baz": "blah"}
    for wanted in ({}, {"foo": "bar"}, {"baz": "blah"}, {"foo": "bar", "baz": "blah"}):
        assert selector_from_set(wanted).matches(labelset)
    for unwanted in ({"foo": "=blah"}, {"baz": "=bar"}, {"foo": "=bar", "foobar": "bar"}):
        assert not selector_from_set(unwanted).matches(labelset)  # not validated, like Go
    assert str(selector_from_set({"b": "2", "a": "1"})) == "a=1,b=2"


def test_k108_set_string_and_format_labels() -> None:
    assert str(Set()) == ""
    assert str(Set({"app": "foo", "a": "b"})) == "a=b,app=foo"
    assert str(Set({"a": "1", "a-b": "2"})) == "a-b=2,a=1"  # Go sorts "k=v" strings
    assert format_labels({}) == "<none>"
    assert format_labels(None) == "<none>"
    assert format_labels({"foo": "bar", "baz": "qup"}) == "baz=qup,foo=bar"


def test_k108_validated_selector_from_set() -> None:
    assert str(validated_selector_from_set({"key": "val"})) == "key=val"
    long_value = "axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui"
    with pytest.raises(SelectorError, match="no more than 63"):
        validated_selector_from_set({"Key": long_value})
    with pytest.raises(SelectorError):
        Set({"foo": "=blah"}).as_validated_selector()
    assert validated_selector_from_set(None) == everything()


@pytest.mark.parametrize(
    ("selector", "label", "want"),
    [
        (sel(req("key", IN, "value")), "key", "value"),
        (sel(req("key", IN, "value", "value2")), "key", None),
        (sel(req("key", IN, "value", "value1"), req("key2", IN, "value2")), "key2", "value2"),
        (sel(req("key", EQ, "value")), "key", "value"),
        (sel(req("key", DEQ, "value")), "key", "value"),
        (sel(req("key", NEQ, "value")), "key", None),
        (sel(req("key", IN, "value"), req("key2", IN, "value2")), "key", "value"),
        (sel(req("key", EXISTS)), "key", None),
        (sel(), "key", None),
        (nothing(), "key", None),
    ],
)
def test_k108_requires_exact_match(selector: LabelSelector, label: str, want: str | None) -> None:
    assert selector.requires_exact_match(label) == want


# --- LabelSelector API beyond section K ---------------------------------------------------


def test_nothing_selector() -> None:
    assert not nothing().matches({})
    assert not nothing().matches({"a": "b"})
    assert not nothing().empty()
    assert str(nothing()) == ""
    assert nothing().requirements() is None
    assert nothing().add(req("a", EXISTS)) is nothing()
    assert nothing() != everything()
    for text in ["", "a", "!a", "a=b", "a!=b", "a in (b)", "a notin (b)", "a,!a", "a=b,a!=b"]:
        assert parse_label_selector(text) != nothing()


def test_add_requirements_and_equality() -> None:
    base = parse_label_selector("key in (value)")
    added = base.add(req("aaa", EQ, "1"))
    assert str(added) == "aaa=1,key in (value)"
    assert str(base) == "key in (value)"  # immutable
    assert added == parse_label_selector("key in (value),aaa=1")
    assert hash(added) == hash(parse_label_selector("aaa=1,key in (value)"))
    assert req("k", EQ, "a") != req("k", DEQ, "a")
    assert req("k", IN, "a", "b") == req("k", IN, "b", "a")
    assert repr(req("k", IN, "b", "a")) == "Requirement('k', 'in', ['a', 'b'])"
    assert repr(parse_label_selector("a=b")) == "LabelSelector('a=b')"
    assert parse_to_requirements("b,a=1") == [req("a", EQ, "1"), req("b", EXISTS)]
    assert parse_to_requirements("") == []
    with pytest.raises(SelectorError):
        LabelSelector(["a=b"])  # type: ignore[list-item]


def test_requirement_matches_directly() -> None:
    assert req("x", IN, "a", "b").matches({"x": "b"})
    assert not req("x", IN, "a", "b").matches(None)
    assert req("x", DNE).matches(None)


# --- label_selector_from_dict (metav1.LabelSelectorAsSelector) ----------------------------


def test_label_selector_from_dict_none_and_empty() -> None:
    assert label_selector_from_dict(None) is nothing()
    assert label_selector_from_dict({}) is everything()
    assert label_selector_from_dict({"matchLabels": {}, "matchExpressions": []}).empty()
    assert label_selector_from_dict({"matchLabels": None, "matchExpressions": None}).empty()


def test_label_selector_from_dict_builds_sorted_requirements() -> None:
    selector = label_selector_from_dict(
        {
            "matchLabels": {"tier": "web", "app": "nginx"},
            "matchExpressions": [
                {"key": "env", "operator": "In", "values": ["prod", "canary"]},
                {"key": "zone", "operator": "NotIn", "values": ["a"]},
                {"key": "gpu", "operator": "Exists"},
                {"key": "legacy", "operator": "DoesNotExist", "values": []},
            ],
        }
    )
    assert str(selector) == "app=nginx,env in (canary,prod),gpu,!legacy,tier=web,zone notin (a)"
    good = {"app": "nginx", "tier": "web", "env": "prod", "gpu": "1"}
    assert selector.matches(good)
    assert not selector.matches({**good, "legacy": "yes"})
    assert not selector.matches({**good, "zone": "a"})
    assert not selector.matches({**good, "env": "dev"})


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({"matchExpressions": [{"key": "a", "operator": "In"}]}, "can't be empty"),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]}, "can't be empty"),
        (
            {"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
            "must be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "DoesNotExist", "values": ["x"]}]},
            "must be empty",
        ),
        ({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}, "'Gt' is not"),
        ({"matchExpressions": [{"key": "a", "operator": "in", "values": ["1"]}]}, "'in' is not"),
        ({"matchExpressions": [{"key": "a"}]}, "None is not a valid"),
        ({"matchExpressions": [{"key": "a b", "operator": "Exists"}]}, r"matchExpressions\[0\]"),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}, "list of strings"),
        ({"matchExpressions": [{"operator": "Exists"}]}, "name part must be non-empty"),
        ({"matchExpressions": ["a"]}, "must be a mapping"),
        ({"matchExpressions": {"key": "a"}}, "must be a list"),
        ({"matchLabels": {"a": "b c"}}, r"matchLabels\['a'\]"),
        ({"matchLabels": {"-a": "b"}}, "invalid label key"),
        ({"matchLabels": {"a": 1}}, "must be a string"),
        ({"matchLabels": ["a"]}, "must be a mapping"),
        ({"matchlabels": {"a": "b"}}, "unknown field"),
        ({"matchExpressions": [{"key": "a", "operator": "Exists", "value": "b"}]}, "unknown field"),
        ("app=web", "expected a mapping"),
    ],
)
def test_label_selector_from_dict_errors(spec: object, why: str) -> None:
    with pytest.raises(SelectorError, match=why):
        label_selector_from_dict(spec)  # type: ignore[arg-type]


# --- error messages --------------------------------------------------------------------


def error_of(text: str) -> SelectorError:
    with pytest.raises(SelectorError) as info:
        parse_label_selector(text)
    return info.value


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("x==a==b", 4, "found '==', expected: ',' or end of string"),
        ("!x=a", 2, "found '='"),
        ("x<a", 2, "must be an integer, got 'a'"),
        ("x=a||y=b", 2, "invalid value 'a||y' for label 'x'"),
        ("x,,y", 2, "found ','"),
        (",x,y", 0, "found ','"),
        ("x nott in (y)", 2, "found 'nott', expected: an operator"),
        ("a in (xyz),", 11, "found end of string"),
        ("a in (xyz)b notin ()", 10, "found 'b'"),
        ("a in (xyz abc)", 10, "found 'abc', expected: ',' or ')'"),
        ("a notin(", 8, "found end of string"),
        ("a (", 2, "found '('"),
        ("(", 0, "found '('"),
        ("app=web,bad~key!=x", 8, "invalid label key 'bad~key'"),
        ("env in (prod, -dev)", 14, "invalid value '-dev' for label 'env'"),
        ("example.COM/x", 0, "prefix part"),
    ],
)
def test_error_messages_name_the_problem_and_position(
    text: str, position: int, fragment: str
) -> None:
    err = error_of(text)
    message = str(err)
    assert repr(text) in message.splitlines()[0]
    assert fragment in message
    assert err.position == position  # type: ignore[attr-defined]
    assert err.selector == text  # type: ignore[attr-defined]
    assert f"(at position {position})" in message
    caret_line = message.splitlines()[-1]
    assert caret_line.index("^") - 4 == position
    assert isinstance(err, ValueError)


def test_error_message_caret_layout() -> None:
    message = str(error_of("app=web,tier in (a b)"))
    assert message.splitlines()[1:] == ["    app=web,tier in (a b)", " " * (4 + 19) + "^"]


def test_non_string_selector_is_a_selector_error() -> None:
    with pytest.raises(SelectorError, match="must be a string, got NoneType"):
        parse_label_selector(None)  # type: ignore[arg-type]
    with pytest.raises(SelectorError, match="must be a string"):
        parse_field_selector(b"a=b")  # type: ignore[arg-type]


def test_non_string_sets_are_selector_errors() -> None:
    with pytest.raises(SelectorError, match="strings to strings"):
        selector_from_set({"a": 1})  # type: ignore[dict-item]
    with pytest.raises(SelectorError, match="strings to strings"):
        validated_selector_from_set({2: "b"})  # type: ignore[dict-item]
    with pytest.raises(SelectorError, match="must be a mapping"):
        selector_from_set([("a", "b")])  # type: ignore[arg-type]
    with pytest.raises(SelectorError, match="strings to strings"):
        field_selector_from_set({"a": None, 1: "b"})  # type: ignore[dict-item]
    with pytest.raises(SelectorError, match="must be strings"):
        one_term_equal_selector("a", 3)  # type: ignore[arg-type]
    with pytest.raises(SelectorError, match="not a FieldRequirement"):
        FieldSelector([("a", EQ, "b")])  # type: ignore[list-item]


def test_nul_character_is_rejected_not_truncated() -> None:
    with pytest.raises(SelectorError):
        parse_label_selector("x=a \x00 junk")


# --- field selectors -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["x=a,y=b,z=c", "", "x!=a,y=b", r"x=a||y\=b", r"x=a\=\=b"])
def test_field_selector_round_trip(text: str) -> None:
    assert str(parse_field_selector(text)) == text


@pytest.mark.parametrize("text", ["x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"])
def test_field_selector_rejects(text: str) -> None:
    with pytest.raises(SelectorError):
        parse_field_selector(text)


def test_field_selector_parsing_details() -> None:
    assert str(parse_field_selector("x=a,a=x")) == str(parse_field_selector("a=x,x=a")) == "a=x,x=a"
    assert str(parse_field_selector("b==1")) == "b=1"  # == is =
    assert parse_field_selector("a=b,,c=d,") == parse_field_selector("a=b,c=d")  # empty terms
    assert parse_field_selector(",") == everything_fields()
    assert parse_field_selector("=").empty()  # empty field and value: dropped, as in Go
    assert str(parse_field_selector("a=b,=")) == "a=b"
    assert parse_field_selector("a = b").requirements() == (
        FieldRequirement("a ", EQ, " b"),  # whitespace is significant
    )
    assert parse_field_selector("a!b=c").requirements() == (FieldRequirement("a!b", EQ, "c"),)
    assert parse_field_selector("=x").requirements() == (FieldRequirement("", EQ, "x"),)
    assert parse_field_selector("metadata.name!=").requirements() == (
        FieldRequirement("metadata.name", NEQ, ""),
    )
    assert parse_field_selector("함=수,목=록").matches({"함": "수", "목": "록"})


def test_field_selector_escaping() -> None:
    cases = {"": "", "a": "a", "=": r"\=", ",": r"\,", "\\": "\\\\", r"\=\,\ ": r"\\\=\\\,\\ "}
    for raw, escaped in cases.items():
        assert escape_value(raw) == escaped
        assert unescape_value(escaped) == raw
    for bad in ["\\", "\\\\\\", r"\a"]:
        with pytest.raises(SelectorError, match="invalid escape sequence"):
            unescape_value(bad)
    with pytest.raises(SelectorError, match="unescaped ','"):
        unescape_value("a,b")
    # Go sorts the raw terms, so "k2=v2" comes before "k=..." ('2' < '=').
    selector = parse_field_selector(r"k=\,,k2=v2")
    assert selector.requirements() == (
        FieldRequirement("k2", EQ, "v2"),
        FieldRequirement("k", EQ, ","),
    )
    assert str(selector) == r"k2=v2,k=\,"
    assert parse_field_selector(r"k=\\,k2=v2").requires_exact_match("k") == "\\"
    assert parse_field_selector(r"k=\\\,,k2=v2").requires_exact_match("k") == "\\,"


def test_field_selector_matching() -> None:
    fieldset = {"foo": "bar", "baz": "blah", "complex": "=value\\,\\"}
    complex_term = r"complex=\=value\\\,\\"
    for text in ["", "foo=bar", "baz=blah", "foo=bar,baz=blah", "foo=bar,baz=blah," + complex_term]:
        assert parse_field_selector(text).matches(fieldset), text
    for text in ["foo=blah", "baz=bar", "foo=bar,foobar=bar,baz=blah", "foo!=bar"]:
        assert not parse_field_selector(text).matches(fieldset), text
    assert parse_field_selector("x!=y,z!=w").matches({"x": "z", "z": "a"})
    assert not parse_field_selector("x!=y,z!=w").matches({"x": "z", "z": "w"})
    assert parse_field_selector("notin=in").matches({"notin": "in"})
    # A missing field reads as "" (Go's Fields.Get).
    assert parse_field_selector("spec.nodeName=").matches({})
    assert not parse_field_selector("spec.nodeName!=").matches({})
    assert parse_field_selector("spec.nodeName!=node-1").matches(None)


def test_field_selector_constructors_and_introspection() -> None:
    assert one_term_equal_selector("x", "y").matches({"x": "y"})
    assert not one_term_equal_selector("x", "y").matches({"x": "z"})
    assert one_term_not_equal_selector("x", "y").matches({"x": "z"})
    assert str(one_term_equal_selector("metadata.name", "a,b")) == r"metadata.name=a\,b"
    assert field_selector_from_set(None).empty() and field_selector_from_set({}).empty()
    from_set = field_selector_from_set({"b": "2", "a": "1"})
    assert str(from_set) == "a=1,b=2"
    assert not field_selector_from_set({"foo": "=blah"}).matches({"foo": "bar"})
    assert everything_fields().matches({"a": "b"}) and everything_fields().empty()
    assert not nothing_fields().matches({}) and not nothing_fields().empty()
    assert str(nothing_fields()) == "" and nothing_fields() != everything_fields()
    selector = parse_field_selector("a!=b,test=b,test=c")
    assert selector.requires_exact_match("test") == "b"
    assert selector.requires_exact_match("a") is None
    assert parse_field_selector("test=").requires_exact_match("test") == ""
    assert everything_fields().requires_exact_match("test") is None
    assert nothing_fields().requires_exact_match("test") is None
    assert [r.operator for r in selector.requirements()] == [NEQ, EQ, EQ]
    assert repr(parse_field_selector("a=b")) == "FieldSelector('a=b')"
    with pytest.raises(SelectorError, match="must be '=' or '!='"):
        FieldSelector([FieldRequirement("a", IN, "b")])


def test_field_selector_transform() -> None:
    selector = parse_field_selector("a=b,c!=d")

    def rename(field: str, value: str) -> tuple[str, str]:
        return ("", "") if field == "a" else ("spec." + field, value.upper())

    assert str(selector.transform(rename)) == "spec.c!=D"
    assert nothing_fields().transform(rename) is nothing_fields()


def test_field_selector_error_messages() -> None:
    with pytest.raises(SelectorError) as info:
        parse_field_selector("status.phase=Running,spec.nodeName")
    err = info.value
    assert "can't understand 'spec.nodeName'" in str(err)
    assert repr("status.phase=Running,spec.nodeName") in str(err)
    assert err.position == 21  # type: ignore[attr-defined]
    with pytest.raises(SelectorError) as info:
        parse_field_selector(r"a=x\y")
    assert "invalid escape sequence '\\y'" in str(info.value)
    assert info.value.position == 3  # type: ignore[attr-defined]
    with pytest.raises(SelectorError) as info:
        parse_field_selector("a==b==c")
    assert "unescaped '='" in str(info.value)
    assert info.value.position == 4  # type: ignore[attr-defined]
    with pytest.raises(SelectorError, match="ends with a single"):
        parse_field_selector("a=b\\")


# --- property tests --------------------------------------------------------------------

NAME = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,6}[A-Za-z0-9])?", fullmatch=True)
PREFIX = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,4}[a-z0-9])?(\.[a-z0-9]{1,4}){0,2}", fullmatch=True)
KEY = st.one_of(
    NAME, st.sampled_from(["in", "notin", "x", "y"]), st.builds("{}/{}".format, PREFIX, NAME)
)
VALUE = st.one_of(st.just(""), NAME, st.sampled_from(["in", "notin", "1", "7"]))
NUMBER = st.integers(min_value=0, max_value=99).map(str)
WS = st.text(alphabet=" \t\r\n", max_size=2)
WS1 = st.text(alphabet=" \t\r\n", min_size=1, max_size=2)


@st.composite
def requirement_models(draw: st.DrawFn) -> tuple[str, str, frozenset[str]]:
    key = draw(KEY)
    op = draw(st.sampled_from(["in", "notin", "=", "==", "!=", "exists", "!", ">", "<"]))
    if op in ("in", "notin"):
        values = frozenset(draw(st.lists(VALUE, min_size=1, max_size=3)))
    elif op in ("exists", "!"):
        values = frozenset()
    elif op in (">", "<"):
        values = frozenset([draw(NUMBER)])
    else:
        values = frozenset([draw(VALUE)])
    return key, op, values


def render(draw: st.DrawFn, model: tuple[str, str, frozenset[str]]) -> str:
    key, op, values = model
    if op == "exists":
        return key
    if op == "!":
        return "!" + draw(WS) + key
    if op in ("in", "notin"):
        items = sorted(values)
        draw(st.randoms()).shuffle(items)
        inner = draw(WS).join(f"{item}{draw(WS)}," for item in items)[:-1]
        return f"{key}{draw(WS1)}{op}{draw(WS)}({draw(WS)}{inner}{draw(WS)})"
    return f"{key}{draw(WS)}{op}{draw(WS)}{next(iter(values))}"


@st.composite
def selector_texts(draw: st.DrawFn) -> tuple[str, list[tuple[str, str, frozenset[str]]]]:
    models = draw(st.lists(requirement_models(), max_size=4))
    parts = [render(draw, model) for model in models]
    text = draw(WS) + "".join(f"{part}{draw(WS)},{draw(WS)}" for part in parts)
    text = text[: text.rfind(",")] if parts else text
    return text, models


Model = tuple[str, str, frozenset[str]]


def reference_matches(models: list[Model], labels: dict[str, str]) -> bool:
    """apimachinery's Requirement.Matches, written out plainly."""
    for key, op, values in models:
        present = key in labels
        value = labels.get(key)
        if op in ("in", "=", "=="):
            ok = present and value in values
        elif op in ("notin", "!="):
            ok = not present or value not in values
        elif op == "exists":
            ok = present
        elif op == "!":
            ok = not present
        else:
            ok = present and re.fullmatch("[+-]?[0-9]+", value) is not None
            if ok:
                bound = int(next(iter(values)))
                ok = int(value) > bound if op == ">" else int(value) < bound
        if not ok:
            return False
    return True


OP_NAMES = {
    "in": IN, "notin": NOT_IN, "=": EQ, "==": DEQ, "!=": NEQ, "exists": EXISTS, "!": DNE,
    ">": GT, "<": LT,
}


@settings(max_examples=200, deadline=None)
@given(selector_texts())
def test_property_parse_and_string_round_trip(case: tuple[str, list]) -> None:
    text, models = case
    parsed = parse_label_selector(text)
    expected = sorted(
        (Requirement(key, OP_NAMES[op], sorted(values)) for key, op, values in models),
        key=lambda r: r.key,
    )
    assert list(parsed.requirements()) == expected
    assert parse_label_selector(str(parsed)) == parsed
    assert str(parse_label_selector(str(parsed))) == str(parsed)


@settings(max_examples=200, deadline=None)
@given(
    selector_texts(),
    st.dictionaries(
        st.one_of(KEY, st.sampled_from(["x", "y", "in"])),
        st.one_of(VALUE, NUMBER, st.sampled_from(["-1", "v2", ""])),
        max_size=5,
    ),
)
def test_property_matches_agrees_with_reference(case: tuple[str, list], labels: dict) -> None:
    text, models = case
    # Bias labels towards the selector's own keys and values so matches happen.
    for key, _op, values in models[:2]:
        labels.setdefault(key, min(values) if values else "")
    assert parse_label_selector(text).matches(labels) == reference_matches(models, labels)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet="xyab=!(),<> \t\n1-./_in\\", max_size=20)))
def test_property_any_text_parses_or_raises_selector_error(text: str) -> None:
    for parse in (parse_label_selector, parse_field_selector):
        try:
            result = parse(text)
        except SelectorError as err:
            assert repr(text) in str(err)
        else:
            assert parse(str(result)) == result


FIELD = st.text(
    alphabet=st.characters(exclude_characters="=!,\\", exclude_categories=["Cs"]), min_size=1
)


@settings(max_examples=200, deadline=None)
@given(FIELD, st.text(), st.booleans())
def test_property_field_values_escape_round_trip(field: str, value: str, equal: bool) -> None:
    assert unescape_value(escape_value(value)) == value
    op = "=" if equal else "!="
    selector = parse_field_selector(f"{field}{op}{escape_value(value)}")
    assert selector.requirements() == (FieldRequirement(field, EQ if equal else NEQ, value),)
    assert selector.matches({field: value}) is equal
    assert parse_field_selector(str(selector)) == selector


def test_kubenb_cache_selectors_keeps_offering_every_selector_name() -> None:
    from kubenb import fields, labels
    from kubenb.cache import selectors as old

    for name in old.__all__:
        assert getattr(old, name) is getattr(labels, name, None) or \
            getattr(old, name) is getattr(fields, name, None), name
