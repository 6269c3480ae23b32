"""JSONPath, the subset CRD printer columns and LiveFrame columns use.

A ground-floor module (the standard library and kubenb.errors). kube-apiserver evaluates
a CRD's additionalPrinterColumns with client-go's `util/jsonpath`; the columns people
write use a small part of it, and that part is what is here: `.a.b`, `[0]`, `[*]`,
`['k.e.y']` and `[?(@.type=="Ready")]`. Anything else is a `JSONPathError` (a
ValueError) saying where, so the API server can reject such a column as kube-apiserver
does.

- `parse_jsonpath(text)`: a `JSONPath`, whose `find(obj)` gives every value it reaches.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from kubenb.errors import JSONPathError

__all__ = ["JSONPath", "JSONPathError", "parse_jsonpath"]

_NAME_CHARS = re.compile(r"(?:\\.|[^.\[\]\\])+")
_FILTER = re.compile(r"\?\(\s*@((?:\.[\w\-/]+)*)\s*(==|!=)\s*(.+?)\s*\)$")


@dataclass(frozen=True)
class JSONPath:
    """A parsed simple JSONPath: `.a.b`, `[0]`, `[*]`, `['k.e.y']`, `[?(@.type=="Ready")]`."""

    text: str
    steps: tuple[tuple[str, Any], ...]

    def find(self, obj: Any) -> list[Any]:
        """Every value the path reaches in `obj` (empty when nothing matches)."""
        current = [obj]
        for op, arg in self.steps:
            nxt: list[Any] = []
            for value in current:
                if op == "key":
                    if isinstance(value, dict) and arg in value:
                        nxt.append(value[arg])
                elif op == "index":
                    if isinstance(value, list) and -len(value) <= arg < len(value):
                        nxt.append(value[arg])
                elif op == "all":
                    if isinstance(value, list):
                        nxt.extend(value)
                    elif isinstance(value, dict):
                        nxt.extend(value.values())
                elif op == "filter" and isinstance(value, list):
                    path, negate, want = arg
                    for item in value:
                        got = JSONPath("", path).find(item)
                        hit = bool(got) and got[0] == want
                        if hit != negate:
                            nxt.append(item)
            current = nxt
        return current


def parse_jsonpath(text: str) -> JSONPath:
    """Parse a simple JSONPath; ValueError (saying where) for anything outside the subset."""
    src = text.strip()
    if src.startswith("{") and src.endswith("}"):
        src = src[1:-1].strip()
    if not src.startswith(".") and not src.startswith("["):
        raise JSONPathError(f"JSONPath {text!r} must start with '.'")
    steps: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(src):
        char = src[pos]
        if char == ".":
            if src.startswith("..", pos):
                raise JSONPathError(f"JSONPath {text!r}: recursive descent '..' is not supported")
            match = _NAME_CHARS.match(src, pos + 1)
            if match is None:
                raise JSONPathError(f"JSONPath {text!r}: expected a field name at {pos + 1}")
            steps.append(("key", re.sub(r"\\(.)", r"\1", match.group(0))))
            pos = match.end()
        elif char == "[":
            end = _closing_bracket(src, pos, text)
            steps.append(_bracket_step(src[pos + 1:end].strip(), text))
            pos = end + 1
        else:
            raise JSONPathError(f"JSONPath {text!r}: unexpected {char!r} at {pos}")
    return JSONPath(text, tuple(steps))


def _closing_bracket(src: str, start: int, text: str) -> int:
    depth = 0
    quote = ""
    for index in range(start, len(src)):
        char = src[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
    raise JSONPathError(f"JSONPath {text!r}: unclosed '['")


def _bracket_step(inner: str, text: str) -> tuple[str, Any]:
    if inner == "*":
        return ("all", None)
    if re.fullmatch(r"-?\d+", inner):
        return ("index", int(inner))
    if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
        return ("key", inner[1:-1])
    match = _FILTER.match(inner)
    if match:
        path = parse_jsonpath(match.group(1) or ".").steps if match.group(1) else ()
        raw = match.group(3)
        if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            want: Any = raw[1:-1]
        else:
            try:
                want = json.loads(raw)
            except ValueError:
                raise JSONPathError(f"JSONPath {text!r}: cannot compare with {raw!r}") from None
        return ("filter", (path, match.group(2) == "!=", want))
    raise JSONPathError(f"JSONPath {text!r}: unsupported expression [{inner}]")
