"""kubenb.quantity: resource quantities and int-or-string values as apimachinery prints them."""

from __future__ import annotations

from typing import Any

import pytest

from kubenb.quantity import int_or_string, quantity_string


@pytest.mark.parametrize("text,expected", [
    ("1Gi", "1Gi"), ("1024Mi", "1Gi"), ("1.5Gi", "1536Mi"), ("0.5Ki", "512"), ("1536", "1536"),
    ("1000", "1k"), ("1024", "1024"), ("100", "100"), ("0.5", "500m"), ("2000m", "2"),
    ("1500m", "1500m"), ("100M", "100M"), ("1e3", "1e3"), ("12e6", "12e6"), ("0", "0"),
    ("0.1m", "100u"), ("0.0000000001", "1n"), ("-1", "-1"), ("1E", "1E"), (2, "2"),
    ("1.0001Gi", "1073849198182400u"), ("not a quantity", "not a quantity"),
])
def test_quantity_string_is_apimachinerys_canonical_form(text: Any, expected: str) -> None:
    assert quantity_string(text) == expected


@pytest.mark.parametrize("value,expected", [
    (1, "1"), (2.0, "2"), ("25%", "25%"), (None, ""), (True, "true")])
def test_int_or_string_prints_as_intstr_does(value: Any, expected: str) -> None:
    assert int_or_string(value) == expected
