"""Long public lists come a page at a time, with addresses a crawler can follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.http import Http404, HttpRequest

# Parameters a paginated public page reads (glossary.cache keys pages on these only).
PAGE_PARAM = "page"


def paginate(
    request: HttpRequest, items: Any, per_page: int, *, count: int | None = None
) -> Page[Any]:
    """The page `?page=` names (the first without one); 404 for one that does not exist.

    `items` is a queryset, a sequence or anything with `count()` and slices
    (glossary.search.Results); `count`, when the caller knows it, saves counting.
    """
    paginator = Paginator(items, per_page)
    if count is not None:
        paginator.__dict__["count"] = count  # Paginator.count is a cached_property
    raw = request.GET.get(PAGE_PARAM, "1")
    try:
        return paginator.page(raw)
    except (EmptyPage, PageNotAnInteger):
        raise Http404(
            f"There is no page {raw!r} here; pages run from 1 to {paginator.num_pages}."
        ) from None


def page_link(request: HttpRequest, number: int, keep: Sequence[str] = ()) -> str:
    """This page's address at another page number (page 1 has no parameter).

    Only the parameters in `keep` carry over: a cached page must not hand every
    reader the junk one request added to its address.
    """
    query = [(name, request.GET[name]) for name in keep if name in request.GET]
    if number > 1:
        query.append((PAGE_PARAM, str(number)))
    return request.path + ("?" + urlencode(query) if query else "")


def pager(request: HttpRequest, page: Page[Any], keep: Sequence[str] = ()) -> dict[str, Any]:
    """What templates/glossary/_pager.html shows."""
    return {
        "page": page,
        "previous": page_link(request, page.number - 1, keep) if page.has_previous() else "",
        "next": page_link(request, page.number + 1, keep) if page.has_next() else "",
    }
