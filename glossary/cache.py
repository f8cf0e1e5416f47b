"""Caching for the public site: conditional GET and a page cache, dropped on every publish.

Every public page is a function of the published content and the shared
reference data (shows, episodes, people, organisations). Instead of tracking
which page depends on which row, the whole public site shares one
*generation*: a token stored in the cache and replaced whenever published
content changes (`publishing.live_content_changed`) or reference data is
saved. Page keys and ETags include the generation, so replacing it makes every
cached page and every validator a browser holds stale at once, on every
process that shares the cache (Redis in production; local memory is
per-process and suits one process, tests and development).

Only views wrapped in `public_page` are cached. The workflow's preview pages
never are, and nothing here reads the session or the user, so a cached page is
the same for everyone.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.utils.http import http_date, parse_http_date_safe

GENERATION_KEY = "public:generation"
PAGE_KEY_PREFIX = "public:page"

View = Callable[..., HttpResponseBase]


def _new_generation() -> str:
    # Nanoseconds since the epoch: unique per change and doubles as Last-Modified.
    return f"{time.time_ns():x}"


def generation() -> str:
    """The current generation token, created on first use (e.g. after a cache flush)."""
    gen = cache.get(GENERATION_KEY)
    if gen is None:
        cache.add(GENERATION_KEY, _new_generation(), timeout=None)
        gen = cache.get(GENERATION_KEY) or _new_generation()
    return str(gen)


def invalidate(**_: Any) -> None:
    """Make every cached public page and every ETag handed out so far stale."""
    cache.set(GENERATION_KEY, _new_generation(), timeout=None)


def _last_modified(gen: str) -> int:
    try:
        return int(gen, 16) // 1_000_000_000
    except ValueError:
        return int(time.time())


def _etag(gen: str, request: HttpRequest) -> str:
    digest = hashlib.blake2b(
        f"{gen}\n{request.get_full_path()}".encode(), digest_size=10
    ).hexdigest()
    return f'"{digest}"'


def _not_modified(request: HttpRequest, etag: str, last_modified: int) -> bool:
    if_none_match = request.headers.get("If-None-Match")
    if if_none_match is not None:
        # RFC 9110: If-None-Match wins over If-Modified-Since; weak comparison.
        tags = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
        return etag in tags or "*" in tags
    since = request.headers.get("If-Modified-Since")
    if since:
        parsed = parse_http_date_safe(since)
        return parsed is not None and last_modified <= parsed
    return False


def _add_validators(response: HttpResponseBase, etag: str, last_modified: int) -> None:
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(last_modified)
    max_age = settings.PUBLIC_CACHE_MAX_AGE
    if max_age:
        patch_cache_control(response, public=True, max_age=max_age)
    else:
        # Shared caches may store the page but must ask again; a 304 makes that cheap.
        patch_cache_control(response, public=True, max_age=0, must_revalidate=True)


def public_page(view: View) -> View:
    """Serve `view` with ETag/Last-Modified/Cache-Control, 304s and the page cache.

    Only successful GET/HEAD responses are stored; anything else (404, redirects,
    other methods) passes through untouched and uncached.
    """

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        gen = generation()
        etag = _etag(gen, request)
        last_modified = _last_modified(gen)
        if _not_modified(request, etag, last_modified):
            response: HttpResponseBase = HttpResponseNotModified()
            _add_validators(response, etag, last_modified)
            return response

        use_cache = settings.PUBLIC_PAGE_CACHE
        key = f"{PAGE_KEY_PREFIX}:{gen}:{etag.strip(chr(34))}"
        if use_cache:
            stored = cache.get(key)
            if stored is not None:
                content, content_type = stored
                response = HttpResponse(content, content_type=content_type)
                _add_validators(response, etag, last_modified)
                return response

        response = view(request, *args, **kwargs)
        if response.status_code != 200 or getattr(response, "streaming", False):
            return response
        if hasattr(response, "render") and callable(response.render):
            response = response.render()
        _add_validators(response, etag, last_modified)
        if use_cache and not response.cookies:
            cache.set(key, (response.content, response["Content-Type"]))
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
    from glossary import models
    from glossary.publishing import live_content_changed

    live_content_changed.connect(invalidate, dispatch_uid="glossary.cache.invalidate")
    post_save.connect(_entry_saved, sender=models.Entry, dispatch_uid="glossary.cache.entry")
    post_delete.connect(_changed, sender=models.Entry, dispatch_uid="glossary.cache.entry.del")
    post_save.connect(_changed, sender=models.EntryVersion, dispatch_uid="glossary.cache.version")
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
