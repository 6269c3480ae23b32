"""ListPager: a list in pages of `limit` items, stitched back into one List.

client-go's `tools/pager` (G54, G55). Page requests after the first carry `continue`
and drop `resourceVersion`/`resourceVersionMatch` (the server refuses both together).
When a continue token expires mid-list (410 Expired on page two or later) the pager
falls back to one unpaginated list at the original resourceVersion, so a slow reader
of a huge collection still gets a complete, consistent answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from kubenb.client.options import ListOptions
from kubenb.errors import Gone

ListFunc = Callable[[ListOptions], dict[str, Any]]


class PageInfo(NamedTuple):
    """What `on_page` is told after each page: for progress bars."""

    number: int  # 1-based; the fallback full list is reported as page 1 again
    items: int  # items in this page
    total: int  # items so far
    remaining: int | None  # the server's remainingItemCount, when it says
    fallback: bool  # True for the full list after an expired continue token


class ListPager:
    """Pages through `list_func`; `list()` returns `(list_object, paginated)`."""

    def __init__(self, list_func: ListFunc, page_size: int = 500,
                 full_list_if_expired: bool = True) -> None:
        self.list_func = list_func
        self.page_size = page_size
        self.full_list_if_expired = full_list_if_expired

    def list(self, options: ListOptions | None = None,
             on_page: Callable[[PageInfo], None] | None = None) -> tuple[dict[str, Any], bool]:
        """Every page merged into the first page's List (its resourceVersion included).

        `paginated` is True when more than one page was fetched (or the list fell
        back after an expired token); a Reflector uses it to choose later page sizes.
        """
        options = options or ListOptions()
        if not options.limit:
            options = dataclasses.replace(options, limit=self.page_size)
        original = options
        first: dict[str, Any] | None = None
        items: list[Any] = []
        number = 0
        while True:
            try:
                page = self.list_func(options)
            except Gone:
                if first is None or not self.full_list_if_expired:
                    raise
                return self._full_list(original, on_page), True
            number += 1
            page_items = page.get("items") or []
            if first is None:
                first = page
                items = list(page_items)
            else:
                items.extend(page_items)
            meta = page.get("metadata") or {}
            token = meta.get("continue") or ""
            if on_page is not None:
                on_page(PageInfo(number, len(page_items), len(items),
                                 meta.get("remainingItemCount"), False))
            if not token:
                break
            options = dataclasses.replace(options, continue_=token, resource_version="",
                                          resource_version_match="")
        first["items"] = items
        first_meta = first.setdefault("metadata", {})
        first_meta.pop("continue", None)
        first_meta.pop("remainingItemCount", None)
        return first, number > 1

    def _full_list(self, original: ListOptions,
                   on_page: Callable[[PageInfo], None] | None) -> dict[str, Any]:
        """One unpaginated list with the first request's resourceVersion (G55)."""
        full = self.list_func(dataclasses.replace(original, limit=0, continue_=""))
        if on_page is not None:
            count = len(full.get("items") or [])
            on_page(PageInfo(1, count, count, None, True))
        return full

    def pages(self, options: ListOptions | None = None) -> Iterator[dict[str, Any]]:
        """Each page as it arrives (no expired-token fallback: the caller has the items)."""
        options = options or ListOptions()
        if not options.limit:
            options = dataclasses.replace(options, limit=self.page_size)
        while True:
            page = self.list_func(options)
            yield page
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return
            options = dataclasses.replace(options, continue_=token, resource_version="",
                                          resource_version_match="")

    def items(self, options: ListOptions | None = None) -> Iterator[Any]:
        """Each item, page by page, as the pages arrive."""
        for page in self.pages(options):
            yield from page.get("items") or []
