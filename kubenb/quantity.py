"""Resource quantities and int-or-string values as apimachinery prints them.

A ground-floor module (standard library only): the printers show capacities, requests
and limits with it, exactly as kube-apiserver's Tables do.

- `quantity_string(value)`: `resource.Quantity.String()`, the canonical form
  ("1.5Gi" -> "1536Mi", "1000" -> "1k", "0.5" -> "500m").
- `int_or_string(value)`: `intstr.IntOrString.String()`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["int_or_string", "quantity_string"]

_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12,
                     "P": 15, "E": 18}
_DECIMAL_NAMES = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES = {exp: suffix for suffix, exp in _BINARY_SUFFIXES.items()}
_QUANTITY = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(.*)")
_EXPONENT = re.compile(r"[eE]([+-]?\d+)")


def quantity_string(value: Any) -> str:
    """apimachinery's `resource.Quantity.String()` of a quantity ("1.5Gi" -> "1536Mi",
    "1000" -> "1k", "0.5" -> "500m"): what the apiserver's printers show. A value that
    is not a quantity is returned as its text."""
    if isinstance(value, bool) or value is None:
        return str(value)
    text = str(value).strip() if not isinstance(value, (int, float)) else repr(value)
    match = _QUANTITY.fullmatch(text)
    if match is None or not (match.group(2) or match.group(3)):
        return text
    sign, whole, fraction, suffix = match.groups()
    fraction = fraction or ""
    amount = Fraction(int((whole or "0") + fraction), 10 ** len(fraction))
    if suffix in _BINARY_SUFFIXES:
        amount *= 1024 ** _BINARY_SUFFIXES[suffix]
        form = "binary"
    elif suffix in _DECIMAL_SUFFIXES:
        amount *= Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
        form = "decimal"
    elif _EXPONENT.fullmatch(suffix):
        amount *= Fraction(10) ** int(suffix[1:])
        form = "exponent"
    else:
        return text
    if amount == 0:
        return "0"
    nanos = amount * 10 ** 9
    if nanos.denominator != 1:  # finer than nano: round up to the next nano, as Go does
        amount = Fraction(-(-nanos.numerator // nanos.denominator), 10 ** 9)
    if form == "binary" and (amount < 1024 or amount.denominator != 1):
        form = "decimal"  # small or fractional: no rounding, shown in decimal
    negative = sign == "-"
    if form == "binary":
        number, power = int(amount), 0
        while number % 1024 == 0 and power < 6:
            number //= 1024
            power += 1
        return f"{'-' if negative else ''}{number}{_BINARY_NAMES.get(power, '')}"
    # Decimal: the mantissa without trailing zeros, the exponent a multiple of 3.
    exponent = -9
    mantissa = int(amount * 10 ** 9)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10 ** shift
    exponent -= shift
    if form == "exponent":
        suffix_text = f"e{exponent}" if exponent else ""
    else:
        suffix_text = _DECIMAL_NAMES.get(exponent, f"e{exponent}")
    return f"{'-' if negative else ''}{mantissa}{suffix_text}"


def int_or_string(value: Any) -> str:
    """`intstr.IntOrString.String()`: an int as decimal digits, a string as it is."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(int(value))
    return "" if value is None else str(value)
