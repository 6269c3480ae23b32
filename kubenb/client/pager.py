"""ListPager: a list in pages of `limit` items, stitched back into one List.

client-go's `tools/pager` (G54, G55). Page requests after the first carry `continue`
and drop `resourceVersion`/`resourceVersionMatch` (the server refuses both together).
When a continue token expires mid-list (410 Expired on page two or later) the pager
falls back to one unpaginated list at the original resourceVersion, so a slow reader
of a huge collection still gets a complete, consistent answer. Every page must be a
List (`check_list`): anything else raises `InvalidResponseError` instead of being
merged, so an informer never replaces its cache with the wrong thing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from kubenb.client.options import ListOptions
from kubenb.errors import Gone, InvalidResponseError, RequestInfo
from kubenb.redact import describe_body, json_type

__all__ = [
    "ListFunc",
    "ListPager",
    "PageInfo",
    "check_list",
]

ListFunc = Callable[[ListOptions], dict[str, Any]]


def check_list(body: Any, request: RequestInfo | str | Callable[[], str] = "list",
               content_type: str = "") -> dict[str, Any]:
    """`body` if it is a List (an object whose `items` is an array of objects and whose
    `metadata`, if any, is an object); else `InvalidResponseError` saying what came.
    `request` names the request in the message (a callable is asked only on failure).

    A proxy's HTML page, a JSON scalar or a List with `items` as a string would
    otherwise be returned as a str or iterated character by character. The message
    describes the answer without quoting any value of a JSON object."""
    problem = ""
    if not isinstance(body, dict):
        problem = f"{describe_body(body, content_type)}, not a List"
    elif "items" not in body:
        problem = f"{describe_body(body, content_type)}, not a List (no items)"
    else:
        items = body["items"]
        meta = body.get("metadata")
        if items is not None and not isinstance(items, list):
            problem = f"a List whose items is {json_type(items)}, not an array"
        elif meta is not None and not isinstance(meta, dict):
            problem = f"a List whose metadata is {json_type(meta)}, not an object"
        elif items and not set(map(type, items)) <= {dict}:  # the fast test: ~4 ms per 100k
            bad = next(((i, x) for i, x in enumerate(items) if not isinstance(x, dict)), None)
            if bad is not None:  # (else only dict subclasses, which are fine)
                problem = f"a List whose items[{bad[0]}] is {json_type(bad[1])}, not an object"
    if not problem:
        return body
    info = request if isinstance(request, RequestInfo) else None
    what = request() if callable(request) else request
    raise InvalidResponseError(f"{what}: the server answered with {problem}", info)


def _describe(list_func: Callable[..., Any], which: str) -> Callable[[], str]:
    def describe() -> str:
        owner = getattr(list_func, "__self__", None)
        return (f"list through {owner!r}" if owner is not None else "list") + f" ({which})"
    return describe


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
            check_list(page, _describe(self.list_func, f"page {number}"))
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
        full = check_list(self.list_func(dataclasses.replace(original, limit=0, continue_="")),
                          _describe(self.list_func, "full list after an expired token"))
        if on_page is not None:
            count = len(full.get("items") or [])
            on_page(PageInfo(1, count, count, None, True))
        return full

    def pages(self, options: ListOptions | None = None) -> Iterator[dict[str, Any]]:
        """Each page as it arrives (no expired-token fallback: the caller has the items)."""
        options = options or ListOptions()
        if not options.limit:
            options = dataclasses.replace(options, limit=self.page_size)
        number = 0
        while True:
            page = self.list_func(options)
            number += 1
            yield check_list(page, _describe(self.list_func, f"page {number}"))
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return
            options = dataclasses.replace(options, continue_=token, resource_version="",
                                          resource_version_match="")

    def items(self, options: ListOptions | None = None) -> Iterator[Any]:
        """Each item, page by page, as the pages arrive."""
        for page in self.pages(options):
            yield from page.get("items") or []
