"""Translated expressions: a Go expression, its Go type, and what must run before it.

The reconcile translator (translate.py) turns each Python expression into a `Val`. Go
types are strings (`string`, `*int32`, `*appsv1.Deployment`, `map[string]string`);
a type starting with "@" is a prototype object that has no Go value of its own (a
clientset, a lister, a logger) and is resolved while the call chain is read. This
module also holds the type rules the translator applies: truthiness, coercion between
numeric and pointer types, and zero values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubenb.port.gofields import NAMED_STRINGS, struct_of

__all__ = [
    "INT_TYPES",
    "Untranslatable",
    "Val",
    "coerce",
    "deref",
    "go_string",
    "is_numeric",
    "truthy",
    "zero_value",
]

INT_TYPES = ("int", "int32", "int64")


class Untranslatable(Exception):
    """A construct outside the translated subset; the message says which."""


@dataclass
class Val:
    """A translated expression. `errcall`: `code` is a call returning (`type`, error), or
    only an error when `type` is ""; the statement that consumes it checks the error."""

    code: str
    type: str
    ref: Any = None
    pre: list[str] = field(default_factory=list)
    errcall: bool = False

    @property
    def pseudo(self) -> bool:
        return self.type.startswith("@")


def go_string(text: str) -> str:
    """A Go interpreted string literal."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def is_numeric(go_type: str) -> bool:
    return go_type in INT_TYPES or go_type == "float64"


def deref(val: Val) -> Val:
    """A pointer to a basic value read as the value (nil reads as zero, as Python's
    `or 0` / a missing key would)."""
    if val.type in ("*int32", "*int64", "*bool", "*string", "*float64"):
        zero = zero_value(val.type[1:])
        return Val(f"ptr.Deref({val.code}, {zero})", val.type[1:], val.ref, val.pre)
    return val


def zero_value(go_type: str) -> str:
    if go_type == "string" or go_type in NAMED_STRINGS:
        return '""'
    if is_numeric(go_type):
        return "0"
    if go_type == "bool":
        return "false"
    if go_type.startswith(("*", "[]", "map[")) or go_type in ("error", "interface{}"):
        return "nil"
    return f"{go_type}{{}}"


def truthy(val: Val) -> str:
    """Python's truth of a value, as a Go condition."""
    t = val.type
    if t == "bool":
        return val.code
    if t == "string" or t in NAMED_STRINGS:
        return f"{val.code} != \"\""
    if is_numeric(t):
        return f"{val.code} != 0"
    if t in ("*int32", "*int64", "*float64", "*string", "*bool"):
        d = deref(val)
        return truthy(d)
    if t.startswith(("[]", "map[")):
        return f"len({val.code}) != 0"
    if t.startswith("*") or t in ("interface{}", "error"):
        return f"{val.code} != nil"
    raise Untranslatable(f"the truth of a {t} value")


def coerce(val: Val, target: str, literal: Any = None) -> Val:
    """`val` as a `target` value, converting where Go needs it; raises if it cannot."""
    t = val.type
    if t == target or (target == "interface{}" and not val.pseudo):
        if target == "interface{}" and t in ("int", "int32"):
            return Val(f"int64({val.code})", "int64", val.ref, val.pre)
        return val
    if t == "@none":
        if target.startswith(("*", "[]", "map[")) or target in ("error", "interface{}"):
            return Val("nil", target, None, val.pre)
        raise Untranslatable(f"None where Go wants a {target}")
    if target in ("*int32", "*int64", "*float64") and (is_numeric(t) or t.startswith("*")):
        inner = coerce(deref(val), target[1:], literal)
        if isinstance(literal, int) and not isinstance(literal, bool):
            return Val(f"ptr.To[{target[1:]}]({literal})", target, None, val.pre)
        return Val(f"ptr.To({inner.code})", target, None, inner.pre)
    if target in ("*bool", "*string") and t == target[1:]:
        if literal is not None:
            return Val(f"ptr.To({val.code})", target, None, val.pre)
        return Val(f"ptr.To({val.code})", target, None, val.pre)
    if is_numeric(target) and (is_numeric(t) or t in ("*int32", "*int64", "*float64")):
        inner = deref(val)
        if isinstance(literal, (int, float)) and not isinstance(literal, bool):
            return Val(repr(literal), target, None, val.pre)
        return Val(f"{target}({inner.code})", target, None, inner.pre)
    if target in NAMED_STRINGS and t == "string":
        if literal is not None:
            return Val(val.code, target, None, val.pre)
        return Val(f"{target}({val.code})", target, None, val.pre)
    if target == "string" and t in NAMED_STRINGS:
        return Val(f"string({val.code})", "string", None, val.pre)
    if target == "string" and t == "*string":
        return deref(val)
    if target.startswith("*") and t == target[1:] and struct_of(t) is not None:
        return Val(f"&{val.code}", target, val.ref, val.pre)
    if t.startswith("*") and target == t[1:] and struct_of(target) is not None:
        return Val(f"*{val.code}", target, val.ref, val.pre)
    raise Untranslatable(f"a {t} where Go wants a {target}")
