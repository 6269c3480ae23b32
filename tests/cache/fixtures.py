"""Objects and known-object stores shared by the FIFO, DeltaFIFO and RealFIFO tests."""

from __future__ import annotations

from typing import Any

from kubenb.cache.delta_fifo import Delta
from kubenb.cache.keys import DeletedFinalStateUnknown, meta_namespace_key_func


def o(name: str, val: Any = None) -> dict[str, Any]:
    """client-go's testFifoObject: a name and a payload."""
    return {"metadata": {"name": name}, "val": val}


class Known:
    """A fixed set of known objects (client-go's literalListerGetter)."""

    def __init__(self, *objs: dict[str, Any]) -> None:
        self.objs = {meta_namespace_key_func(x): x for x in objs}

    def list_keys(self) -> list[str]:
        return list(self.objs)

    def get_by_key(self, key: str) -> Any:
        return self.objs.get(key)


class BrokenKnown(Known):
    """Known objects whose lookups fail."""

    def get_by_key(self, key: str) -> Any:
        raise RuntimeError(f"lookup of {key} failed")


class KnownStore(Known):
    """known_objects kept up to date from popped deltas, as an informer's Indexer is."""

    def apply(self, deltas: list[Delta]) -> None:
        for d in deltas:
            obj = d.object
            key = (obj.key if isinstance(obj, DeletedFinalStateUnknown)
                   else meta_namespace_key_func(obj))
            if d.type == "Deleted":
                self.objs.pop(key, None)
            else:
                self.objs[key] = obj
