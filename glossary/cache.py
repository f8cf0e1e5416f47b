"""Caching for the public site: conditional GET and a page cache, dropped on every publish.

Every public page is a function of the published content and the shared
reference data (shows, episodes, people, organisations). Instead of tracking
which page depends on which row, the whole public site shares one
*generation*: a token stored in the cache and replaced whenever published
content changes (`publishing.live_content_changed`) or reference data is
saved. ETags include the generation and every stored page carries the one it
was rendered under, so replacing it makes every cached page and every
validator a browser holds stale at once, on every process that shares the
cache (Redis in production; local memory is per-process and suits one
process, tests and development). It is replaced twice per publish: at once, so
the rest of the transaction sees fresh pages, and after commit, so a request
that rendered the old content meanwhile cannot leave it in place.

Two levels. Each process keeps the pages it served last in memory (a small
LRU) and remembers the generation for PUBLIC_CACHE_SYNC_SECONDS before asking
the shared cache again, so a cached page costs no network round trip; behind
it, the shared cache (Redis) holds pages for every process. The process that
publishes sees the new generation at once; the others within
PUBLIC_CACHE_SYNC_SECONDS (0 asks the shared cache on every request).

Only views wrapped in `public_page` are cached. The workflow's preview pages
never are, and nothing here reads the session or the user, so a cached page is
the same for everyone.
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.template.response import TemplateResponse
from django.utils.http import http_date, parse_http_date_safe

from glossary import models
from glossary.signals import live_content_changed

GENERATION_KEY = "public:generation"
PAGE_KEY_PREFIX = "public:page"

View = Callable[..., HttpResponseBase]


def _new_generation() -> str:
    # Nanoseconds since the epoch: unique per change and doubles as Last-Modified.
    return f"{time.time_ns():x}"


class _Local:
    """This process's memory: the generation as last read, and the pages it served last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = ""
        self.read_at = 0.0
        self.pages: OrderedDict[str, tuple[str, bytes, str]] = OrderedDict()

    def remember(self, gen: str) -> None:
        with self.lock:
            if gen != self.generation:
                self.pages.clear()
            self.generation, self.read_at = gen, time.monotonic()

    def page(self, key: str, gen: str) -> tuple[str, bytes, str] | None:
        with self.lock:
            stored = self.pages.get(key)
            if stored is None or stored[0] != gen:
                return None
            self.pages.move_to_end(key)
            return stored

    def keep(self, key: str, stored: tuple[str, bytes, str]) -> None:
        with self.lock:
            self.pages[key] = stored
            self.pages.move_to_end(key)
            while len(self.pages) > settings.PUBLIC_CACHE_LOCAL_PAGES:
                self.pages.popitem(last=False)


_local = _Local()


def generation() -> str:
    """The current generation token, created on first use (e.g. after a cache flush)."""
    gen = cache.get(GENERATION_KEY)
    if gen is None:
        cache.add(GENERATION_KEY, _new_generation(), timeout=None)
        gen = cache.get(GENERATION_KEY) or _new_generation()
    _local.remember(str(gen))
    return str(gen)


def _current_generation() -> str:
    if _local.generation and time.monotonic() - _local.read_at < settings.PUBLIC_CACHE_SYNC_SECONDS:
        return _local.generation
    return generation()


def invalidate(**_: Any) -> None:
    """Make every cached public page and every ETag handed out so far stale."""
    gen = _new_generation()
    cache.set(GENERATION_KEY, gen, timeout=None)
    _local.remember(gen)


def _last_modified(gen: str) -> int:
    try:
        return int(gen, 16) // 1_000_000_000
    except ValueError:
        return int(time.time())


def _etag(gen: str, path: str) -> str:
    digest = hashlib.blake2b(f"{gen}\n{path}".encode(), digest_size=10).hexdigest()
    return f'"{digest}"'


def _not_modified(request: HttpRequest, etag: str, last_modified: int | None) -> bool:
    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:
        # RFC 9110: If-None-Match wins over If-Modified-Since; weak comparison.
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return etag in tags or "*" in tags
    since = request.headers.get("If-Modified-Since")
    if since and last_modified is not None:
        parsed = parse_http_date_safe(since)
        return parsed is not None and last_modified <= parsed
    return False


def cache_control() -> str:
    max_age = settings.PUBLIC_CACHE_MAX_AGE
    if max_age:
        return f"public, max-age={max_age}"
    # Shared caches may store the page but must ask again; a 304 makes that cheap.
    return "public, max-age=0, must-revalidate"


def _add_validators(response: HttpResponseBase, etag: str, last_modified: int) -> None:
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(last_modified)
    response.headers["Cache-Control"] = cache_control()


def _uncached(view: View, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
    """Without the page cache: render every time, with an ETag made from the content."""
    response = view(request, *args, **kwargs)
    if response.status_code != 200 or getattr(response, "streaming", False):
        return response
    if isinstance(response, TemplateResponse):
        response = response.render()
    assert isinstance(response, HttpResponse)  # noqa: S101 - not streaming, checked above
    etag = f'"{hashlib.blake2b(response.content, digest_size=10).hexdigest()}"'
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = cache_control()
    if _not_modified(request, etag, None):
        not_modified = HttpResponseNotModified()
        not_modified.headers["ETag"] = etag
        not_modified.headers["Cache-Control"] = response.headers["Cache-Control"]
        return not_modified
    return response


def public_page(view: View) -> View:
    """Serve `view` with ETag/Last-Modified/Cache-Control, 304s and the page cache.

    Only successful GET/HEAD responses are stored; anything else (404, redirects,
    other methods) passes through untouched and uncached.
    """

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        if not settings.PUBLIC_PAGE_CACHE:
            return _uncached(view, request, *args, **kwargs)
        path = request.get_full_path()
        key = f"{PAGE_KEY_PREFIX}:{hashlib.blake2b(path.encode(), digest_size=16).hexdigest()}"
        gen = _current_generation()
        etag = _etag(gen, path)
        last_modified = _last_modified(gen)
        if _not_modified(request, etag, last_modified):
            response: HttpResponseBase = HttpResponseNotModified()
            _add_validators(response, etag, last_modified)
            return response

        stored = _local.page(key, gen)
        if stored is None:
            shared = cache.get(key)
            # A page stored under an older generation is simply ignored.
            if shared is not None and shared[0] == gen:
                stored = shared
                _local.keep(key, stored)
        if stored is not None:
            response = HttpResponse(stored[1], content_type=stored[2])
            _add_validators(response, etag, last_modified)
            return response

        response = view(request, *args, **kwargs)
        if response.status_code != 200 or getattr(response, "streaming", False):
            return response
        if isinstance(response, TemplateResponse):
            response = response.render()
        assert isinstance(response, HttpResponse)  # noqa: S101 - not streaming, checked above
        _add_validators(response, etag, last_modified)
        if not response.cookies:
            stored = (gen, response.content, response["Content-Type"])
            cache.set(key, stored)
            _local.keep(key, stored)
        return response

    return wrapper


def _invalidate_now_and_after_commit() -> None:
    # Now, so the rest of this transaction (and tests, whose transactions never
    # commit) see fresh pages; after commit, so a request that cached the old page
    # while the transaction was open cannot leave it in place.
    invalidate()
    transaction.on_commit(invalidate)


def _entry_saved(update_fields: frozenset[str] | None = None, **_: Any) -> None:
    # Editors save the working copy all day; only a change of live version is public.
    if update_fields and "live_version" in update_fields:
        _invalidate_now_and_after_commit()


def _changed(**_: Any) -> None:
    _invalidate_now_and_after_commit()


def connect_signals() -> None:
    """Drop the page cache when published content or the reference data it shows changes."""
    live_content_changed.connect(invalidate, dispatch_uid="glossary.cache.invalidate")
    post_save.connect(_entry_saved, sender=models.Entry, dispatch_uid="glossary.cache.entry")
    post_delete.connect(_changed, sender=models.Entry, dispatch_uid="glossary.cache.entry.del")
    for model in (
        models.Show,
        models.Episode,
        models.Sponsorship,
        models.Appearance,
        models.Person,
        models.Organisation,
    ):
        uid = f"glossary.cache.invalidate.{model.__name__}"
        post_save.connect(_changed, sender=model, dispatch_uid=uid + ".save")
        post_delete.connect(_changed, sender=model, dispatch_uid=uid + ".delete")
