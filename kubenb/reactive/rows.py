"""The rows of a LiveFrame, stored column by column so updates stay incremental.

A pandas DataFrame is slow to change one row at a time (adding a row copies the
frame, `loc` assignment has a large fixed cost). So the live state is a set of numpy
arrays with spare capacity, one per column, plus a key -> position map: an update
writes one slot per column, an add appends, a delete clears a slot. Snapshots copy
the live slots into a new DataFrame, which costs a few milliseconds per 10k rows,
against recomputing every row from every object when rebuilding from scratch.

Rows keep their arrival order (the initial list comes in the server's key order);
deleted slots are compacted away once they outnumber the live ones.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["RowStore"]

_MIN_CAPACITY = 64
_MIN_COMPACT = 1024
_COW = int(pd.__version__.split(".")[0]) >= 3  # pandas 3: copy-on-write always on


class RowStore:
    """Rows by key, column-wise. Not thread-safe: the owner (LiveFrame) locks."""

    def __init__(self, names: Sequence[str], ages: Sequence[bool] | None = None,
                 index_name: str = "key") -> None:
        self.names = tuple(names)
        self.ages = tuple(ages) if ages is not None else (False,) * len(self.names)
        self.index_name = index_name
        self._capacity = _MIN_CAPACITY
        self._cols = [self._new_column(age, self._capacity) for age in self.ages]
        self._keys = np.empty(self._capacity, dtype=object)
        self._alive = np.zeros(self._capacity, dtype=bool)
        self._pos: dict[Hashable, int] = {}
        self._used = 0  # slots handed out, live or dead
        self.version = 0  # bumped on every change: snapshot caches compare it

    @staticmethod
    def _new_column(age: bool, size: int) -> np.ndarray:
        if age:
            return np.full(size, np.nan, dtype=float)
        return np.empty(size, dtype=object)

    def __len__(self) -> int:
        return len(self._pos)

    def __contains__(self, key: object) -> bool:
        return key in self._pos

    def keys(self) -> list[Hashable]:
        """Live keys in row order."""
        return list(self._pos)

    def get(self, key: Hashable) -> tuple[Any, ...] | None:
        """The stored row of `key` (ages as epoch seconds), or None."""
        slot = self._pos.get(key)
        if slot is None:
            return None
        return tuple(_cell(col[slot], age) for col, age in zip(self._cols, self.ages,
                                                                 strict=True))

    # -- changes -----------------------------------------------------------------------

    def upsert(self, key: Hashable, row: Sequence[Any]) -> bool:
        """Write `row` for `key`; True when the key is new."""
        slot = self._pos.get(key)
        added = slot is None
        if added:
            if self._used == self._capacity:
                self._make_room()
            slot = self._used
            self._used += 1
            self._pos[key] = slot
            self._keys[slot] = key
            self._alive[slot] = True
        for col, age, value in zip(self._cols, self.ages, row, strict=True):
            col[slot] = (np.nan if value is None else value) if age else value
        self.version += 1
        return added

    def delete(self, key: Hashable) -> bool:
        """Remove `key`'s row; False when there was none."""
        slot = self._pos.pop(key, None)
        if slot is None:
            return False
        self._alive[slot] = False
        self._keys[slot] = None
        for col, age in zip(self._cols, self.ages, strict=True):
            col[slot] = np.nan if age else None  # drop references to the old values
        self.version += 1
        dead = self._used - len(self._pos)
        if dead >= _MIN_COMPACT and dead > len(self._pos):
            self._compact(self._capacity)
        return True

    def _make_room(self) -> None:
        dead = self._used - len(self._pos)
        if dead * 4 >= self._used:  # a quarter is dead: compacting frees enough
            self._compact(self._capacity)
        else:
            self._compact(self._capacity * 2)

    def _compact(self, capacity: int) -> None:
        live = self._alive[:self._used]
        n = len(self._pos)
        capacity = max(capacity, _MIN_CAPACITY, n + 1)
        cols = []
        for col, age in zip(self._cols, self.ages, strict=True):
            fresh = self._new_column(age, capacity)
            fresh[:n] = col[:self._used][live]
            cols.append(fresh)
        keys = np.empty(capacity, dtype=object)
        keys[:n] = self._keys[:self._used][live]
        alive = np.zeros(capacity, dtype=bool)
        alive[:n] = True
        self._cols, self._keys, self._alive = cols, keys, alive
        self._pos = {key: i for i, key in enumerate(keys[:n])}
        self._used = n
        self._capacity = capacity

    # -- snapshots ---------------------------------------------------------------------

    def frame(self, now: float | None = None) -> pd.DataFrame:
        """A new DataFrame of the live rows, indexed by key. Age columns show the time
        since their timestamp at `now` (epoch seconds) as Timedelta, whole seconds."""
        used = self._used
        if used == len(self._pos):
            def take(arr: np.ndarray) -> np.ndarray:
                return arr[:used].copy()
        else:
            live = self._alive[:used]

            def take(arr: np.ndarray) -> np.ndarray:
                return arr[:used][live]
        data: dict[str, Any] = {}
        for name, col, age in zip(self.names, self._cols, self.ages, strict=True):
            if age:
                seconds = np.floor((0.0 if now is None else now) - take(col))
                data[name] = pd.to_timedelta(seconds, unit="s")
            else:
                data[name] = take(col)
        index = pd.Index(take(self._keys), name=self.index_name)
        if not data:
            return pd.DataFrame(index=index)
        return pd.DataFrame(data, index=index, copy=False)


def _cell(value: Any, age: bool) -> Any:
    if age and isinstance(value, float) and np.isnan(value):
        return None
    return value


def user_copy(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of a cached snapshot that the caller may change freely: a lazy one
    under pandas 3's copy-on-write, a deep one before."""
    return df.copy(deep=not _COW)
