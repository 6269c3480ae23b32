"""flowcontrol.apiserver.k8s.io's printers: FlowSchemas and PriorityLevelConfigurations."""

from __future__ import annotations

from typing import Any

from kubenb.meta import dict_field, nested_field
from kubenb.printers.table import (
    AGE_COLUMN,
    NONE,
    Column,
    Obj,
    TablePrinter,
    as_int,
    as_str,
    dicts,
    name_column,
    object_age,
    object_name,
)

__all__ = ["FLOWSCHEMA_PRINTER", "PRIORITYLEVEL_PRINTER"]


def _flow_schema_cells(schema: Obj, now: float) -> list[Any]:
    spec = dict_field(schema, "spec")
    method = spec.get("distinguisherMethod")
    missing = "?"
    for cond in dicts(nested_field(schema, "status", "conditions")):
        if cond.get("type") == "Dangling":
            missing = as_str(cond.get("status"))
            break
    return [object_name(schema), as_str(nested_field(spec, "priorityLevelConfiguration", "name")),
            as_int(spec.get("matchingPrecedence")),
            as_str(method.get("type")) if isinstance(method, dict) else NONE,
            object_age(schema, now), missing]


def _flow_schema_order(schema: Obj) -> tuple[int, str]:
    """FlowSchemaSequence: the lowest matchingPrecedence first, then by name."""
    return as_int(nested_field(schema, "spec", "matchingPrecedence")), object_name(schema)


FLOWSCHEMA_PRINTER = TablePrinter((
    name_column(),
    Column("PriorityLevel", description=(
        "`name` is the name of the priority level configuration being referenced Required.")),
    Column("MatchingPrecedence", description=(
        "`matchingPrecedence` is used to choose among the FlowSchemas that match a given "
        "request. The chosen FlowSchema is among those with the numerically lowest (which we "
        "take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must "
        "be ranged in [1,10000]. Note that if the precedence is not specified, it will be set "
        "to 1000 as default.")),
    Column("DistinguisherMethod", description=(
        "`distinguisherMethod` defines how to compute the flow distinguisher for requests that "
        "match this schema. `nil` specifies that the distinguisher is disabled and thus will "
        "always be the empty string.")),
    AGE_COLUMN,
    Column("MissingPL", description=(
        "references a broken or non-existent PriorityLevelConfiguration")),
), _flow_schema_cells, order=_flow_schema_order)


def _priority_level_cells(level: Obj, now: float) -> list[Any]:
    spec = dict_field(level, "spec")
    shares: Any = NONE
    queues: Any = NONE
    hand_size: Any = NONE
    queue_length: Any = NONE
    limited = spec.get("limited")
    if isinstance(limited, dict):
        value = limited.get("nominalConcurrencyShares")
        shares = 30 if value is None else as_int(value)  # v1's default
        queuing = nested_field(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues = as_int(queuing.get("queues") or 64)
            hand_size = as_int(queuing.get("handSize") or 8)
            queue_length = as_int(queuing.get("queueLengthLimit") or 50)
    return [object_name(level), as_str(spec.get("type")), shares, queues, hand_size, queue_length,
            object_age(level, now)]


PRIORITYLEVEL_PRINTER = TablePrinter((
    name_column(),
    Column("Type", description=(
        "`type` indicates whether this priority level is subject to limitation on request "
        "execution.  A value of `\"Exempt\"` means that requests of this priority level are "
        "not subject to a limit (and thus are never queued) and do not detract from the "
        "capacity made available to other priority levels.  A value of `\"Limited\"` means "
        "that (a) requests of this priority level _are_ subject to limits and (b) some of the "
        "server's limited capacity is made available exclusively to this priority level. "
        "Required.")),
    Column("NominalConcurrencyShares", description=(
        "`nominalConcurrencyShares` (NCS) contributes to the computation of the "
        "NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution "
        "seats available at this priority level. This is used both for requests dispatched "
        "from this priority level as well as requests dispatched from other priority levels "
        "borrowing seats from this level. The server's concurrency limit (ServerCL) is divided "
        "among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  "
        "= ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] "
        "NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of "
        "every other priority level.\n\nIf not specified, this field defaults to a value of "
        "30.\n\nSetting this field to zero supports the construction of a \"jail\" for this "
        "priority level that is used to hold some request(s)")),
    Column("Queues", description=(
        "`queues` is the number of queues for this priority level. The queues exist "
        "independently at each apiserver. The value must be positive.  Setting it to 1 "
        "effectively precludes shufflesharding and thus makes the distinguisher method of "
        "associated flow schemas irrelevant.  This field has a default value of 64.")),
    Column("HandSize", description=(
        "`handSize` is a small positive number that configures the shuffle sharding of "
        "requests into queues.  When enqueuing a request at this priority level the request's "
        "flow identifier (a string pair) is hashed and the hash value is used to shuffle the "
        "list of queues and deal a hand of the size specified here.  The request is put into "
        "one of the shortest queues in that hand. `handSize` must be no larger than `queues`, "
        "and should be significantly smaller (so that a few heavy flows do not saturate most "
        "of the queues).  See the user-facing documentation for more extensive guidance on "
        "setting this field.  This field has a default value of 8.")),
    Column("QueueLengthLimit", description=(
        "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given "
        "queue of this priority level at a time; excess requests are rejected.  This value "
        "must be positive.  If not specified, it will be defaulted to 50.")),
    AGE_COLUMN,
), _priority_level_cells)
