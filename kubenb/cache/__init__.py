"""client-go's tools/cache: keys, stores, indexers, queues and selectors."""

from kubenb.cache.delta_fifo import Delta, DeltaFIFO, Deltas, DeltaType
from kubenb.cache.fifo import FIFO
from kubenb.cache.keys import (
    NAMESPACE_INDEX,
    DeletedFinalStateUnknown,
    ExplicitKey,
    IndexFunc,
    KeyFunc,
    deletion_handling_meta_namespace_key_func,
    index_func_to_key_func_adapter,
    meta_namespace_index_func,
    meta_namespace_key_func,
    split_meta_namespace_key,
)
from kubenb.cache.selectors import (
    FieldSelector,
    LabelSelector,
    everything,
    label_selector_from_dict,
    parse_field_selector,
    parse_label_selector,
)
from kubenb.cache.store import Indexer, Store, ThreadSafeStore, new_indexer, new_store

__all__ = [
    "FIFO",
    "NAMESPACE_INDEX",
    "DeletedFinalStateUnknown",
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "Deltas",
    "ExplicitKey",
    "FieldSelector",
    "IndexFunc",
    "Indexer",
    "KeyFunc",
    "LabelSelector",
    "Store",
    "ThreadSafeStore",
    "deletion_handling_meta_namespace_key_func",
    "everything",
    "index_func_to_key_func_adapter",
    "label_selector_from_dict",
    "meta_namespace_index_func",
    "meta_namespace_key_func",
    "new_indexer",
    "new_store",
    "parse_field_selector",
    "parse_label_selector",
    "split_meta_namespace_key",
]
