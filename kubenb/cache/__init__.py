"""client-go's tools/cache: keys, stores, indexers, queues, selectors and informers."""

from kubenb.cache.controller import Controller, new_indexer_informer, new_informer, process_deltas
from kubenb.cache.delta_fifo import Delta, DeltaFIFO, Deltas, DeltaType
from kubenb.cache.factory import GenericInformer, SharedInformerFactory
from kubenb.cache.fifo import FIFO
from kubenb.cache.handlers import (
    FilteringResourceEventHandler,
    ResourceEventHandler,
    ResourceEventHandlerDetailedFuncs,
    ResourceEventHandlerFuncs,
)
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
from kubenb.cache.lister import Lister, NamespaceLister, list_all, list_all_by_namespace
from kubenb.cache.listwatch import ListerWatcher, ListWatch
from kubenb.cache.processor import (
    AddNotification,
    DeleteNotification,
    ProcessorListener,
    SharedProcessor,
    UpdateNotification,
)
from kubenb.cache.protocols import Queue, ReflectorStore, SharedInformer
from kubenb.cache.real_fifo import RealFIFO
from kubenb.cache.reflector import Reflector
from kubenb.cache.shared_informer import SharedIndexInformer
from kubenb.cache.store import Indexer, Store, ThreadSafeStore, new_indexer, new_store
from kubenb.cache.synctrack import AsyncTracker, SingleFileTracker
from kubenb.cache.transforms import transform_strip_managed_fields
from kubenb.cache.wait import wait_for_cache_sync, wait_for_named_cache_sync
from kubenb.fields import FieldSelector, parse_field_selector
from kubenb.labels import (
    LabelSelector,
    everything,
    label_selector_from_dict,
    parse_label_selector,
)

__all__ = [
    "FIFO",
    "NAMESPACE_INDEX",
    "AddNotification",
    "AsyncTracker",
    "Controller",
    "DeleteNotification",
    "DeletedFinalStateUnknown",
    "Delta",
    "DeltaFIFO",
    "DeltaType",
    "Deltas",
    "ExplicitKey",
    "FieldSelector",
    "FilteringResourceEventHandler",
    "GenericInformer",
    "IndexFunc",
    "Indexer",
    "KeyFunc",
    "LabelSelector",
    "ListWatch",
    "Lister",
    "ListerWatcher",
    "NamespaceLister",
    "ProcessorListener",
    "Queue",
    "RealFIFO",
    "Reflector",
    "ReflectorStore",
    "ResourceEventHandler",
    "ResourceEventHandlerDetailedFuncs",
    "ResourceEventHandlerFuncs",
    "SharedIndexInformer",
    "SharedInformer",
    "SharedInformerFactory",
    "SharedProcessor",
    "SingleFileTracker",
    "Store",
    "ThreadSafeStore",
    "UpdateNotification",
    "deletion_handling_meta_namespace_key_func",
    "everything",
    "index_func_to_key_func_adapter",
    "label_selector_from_dict",
    "list_all",
    "list_all_by_namespace",
    "meta_namespace_index_func",
    "meta_namespace_key_func",
    "new_indexer",
    "new_indexer_informer",
    "new_informer",
    "new_store",
    "parse_field_selector",
    "parse_label_selector",
    "process_deltas",
    "split_meta_namespace_key",
    "transform_strip_managed_fields",
    "wait_for_cache_sync",
    "wait_for_named_cache_sync",
]
