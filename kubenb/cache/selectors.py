"""Label and field selectors, where `kubenb.cache` has always offered them.

apimachinery's selectors live on kubenb's ground floor, in `kubenb.labels` and
`kubenb.fields`, so the API server can use them without importing the cache; this
module keeps `kubenb.cache.selectors` working for code that imports it.
"""

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

__all__ = [
    "FieldRequirement",
    "FieldSelector",
    "LabelSelector",
    "Operator",
    "Requirement",
    "Set",
    "escape_value",
    "everything",
    "everything_fields",
    "field_selector_from_set",
    "format_labels",
    "label_selector_from_dict",
    "new_requirement",
    "nothing",
    "nothing_fields",
    "one_term_equal_selector",
    "one_term_not_equal_selector",
    "parse_field_selector",
    "parse_label_selector",
    "parse_to_requirements",
    "selector_from_set",
    "unescape_value",
    "validated_selector_from_set",
]
