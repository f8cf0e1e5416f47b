"""Long public lists come a page at a time, with addresses a crawler can follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest

# Parameters a paginated public page reads (glossary.cache keys pages on these only).
PAGE_PARAM = "page"


def paginate(
    request: HttpRequest, items: QuerySet[Any] | Sequence[Any], per_page: int
) -> Page[Any]:
    """The page `?page=` names (the first without one); 404 for one that does not exist."""
    paginator = Paginator(items, per_page)
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
