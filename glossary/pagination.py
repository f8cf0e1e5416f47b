"""Long public lists come a page at a time, with addresses a crawler can follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.http import Http404, HttpRequest
from django.utils.html import escape

# Parameters a paginated public page reads (glossary.cache keys pages on these only).
PAGE_PARAM = "page"
# The highest page number any list here may have. Past it no list reaches (a billion pages
# of the sitemap's 500 rows), and its rows' offset could overflow the database's 64-bit
# integers: such a page is answered as missing before it reaches a statement.
MAX_PAGE = 10**9


def page_in_range(raw: str) -> int:
    """`raw` as a page number from 1 to MAX_PAGE, or 0 for anything else."""
    if not raw.isdecimal() or len(raw) > len(str(MAX_PAGE)):
        return 0
    number = int(raw)
    return number if 1 <= number <= MAX_PAGE else 0


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
    if not keep:
        # The common case, without urlencode: the index links every letter's page.
        return request.path if number <= 1 else f"{request.path}?{PAGE_PARAM}={number}"
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


def page_number(request: HttpRequest, num_pages: int | None = None) -> int:
    """The page `?page=` names (1 without one); 404 for one that is not a page here.

    With `num_pages` unknown (a list counted only so far), any page from 1 is one;
    the caller answers 404 for a page past the end it finds empty.
    """
    raw = request.GET.get(PAGE_PARAM, "1")
    number = page_in_range(raw)
    if number < 1 or (num_pages is not None and number > max(1, num_pages)):
        last = f"1 to {max(1, num_pages)}" if num_pages is not None else "from 1"
        raise Http404(f"There is no page {raw!r} here; pages run {last}.")
    return number


def num_pages(count: int, per_page: int) -> int:
    """How many pages `count` items fill (one, empty, for none: Django's Paginator's rule)."""
    return max(1, -(-count // per_page))


def pager_html(
    request: HttpRequest,
    number: int,
    pages: int | None,
    keep: Sequence[str] = (),
    *,
    has_next: bool | None = None,
) -> str:
    """templates/glossary/_pager.html's markup, without the template engine.

    `pages` None: the count is not known to the end (search past COUNT_LIMIT); the pager
    then says "Page N" and `has_next` decides the next link.
    """
    following = number < pages if pages is not None else bool(has_next)
    if pages is not None and pages <= 1:
        return ""
    previous = page_link(request, number - 1, keep) if number > 1 else ""
    after = page_link(request, number + 1, keep) if following else ""
    of = f" of {pages}" if pages is not None else ""
    links = []
    if previous:
        links.append(f'<a href="{escape(previous)}" rel="prev">Previous page</a>')
    if after:
        links.append(f'<a href="{escape(after)}" rel="next">Next page</a>')
    colon = ":" if links else ""
    return (
        '<nav class="pager" aria-label="Pages">\n'
        f"  <p>Page {number}{of}{colon}\n  {' · '.join(links)}</p>\n</nav>"
    )
