"""A show's own public site, from the one installation: at /shows/<slug>/, or at the root
of the show's own host (`Show.public_host`).

`ShowSiteMiddleware` finds the show a request is for and serves it through
`glossary.show_urls` (the public site's own views), with the show named for the
request (`glossary.paths.current_show`): every list the views read is then narrowed to
the listings of that show (glossary.selectors), and addresses are written on its site.
Which show an entry is on is read from its live version's listing (`Listing.show`,
written when the version went live), never from the working copy: moving a draft to
another show moves nothing readers see until a version saved after the move is
published.

Only a host listed in SHOW_PUBLIC_HOSTS can be a show's, so a request to the network's
own hosts never asks which show it is for. The shows' slugs and hosts are read once and
kept for SHOW_SITES_SYNC_SECONDS (and forgotten at once in the process that saves or
deletes a show), so a show's page costs no query to know which show it is.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest, HttpResponseBase, HttpResponsePermanentRedirect
from django.http.request import validate_host
from django.urls import get_script_prefix, set_script_prefix, set_urlconf

from glossary.models import Show
from glossary.paths import ShowSite, end_serving, serve_as

SHOWS_PREFIX = "/shows/"
URLCONF = "glossary.show_urls"


class _Known:
    """The shows' slugs and hosts as last read, in this process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.read_at = -1.0
        self.by_slug: dict[str, tuple[int, str, str | None]] = {}
        self.by_host: dict[str, tuple[int, str, str]] = {}

    def forget(self, **_: Any) -> None:
        with self.lock:
            self.read_at = -1.0

    def fresh(self) -> _Known:
        with self.lock:
            if self.read_at >= 0 and time.monotonic() - self.read_at < _sync_seconds():
                return self
        rows = list(Show.objects.values_list("pk", "slug", "name", "public_host"))
        with self.lock:
            self.by_slug = {slug: (pk, name, host) for pk, slug, name, host in rows}
            self.by_host = {host: (pk, slug, name) for pk, slug, name, host in rows if host}
            self.read_at = time.monotonic()
        return self


def _sync_seconds() -> float:
    return float(settings.SHOW_SITES_SYNC_SECONDS)


_known = _Known()


def _network_host() -> str:
    return (urlsplit(settings.SITE_URL).hostname or "").lower()


def _scheme() -> str:
    return urlsplit(settings.SITE_URL).scheme or "https"


def host_origin(host: str) -> str:
    """The origin of a show's own host, on SITE_URL's scheme."""
    return f"{_scheme()}://{host}"


def site_for(request: HttpRequest) -> ShowSite | None:
    """The show site `request` is for, or None for the network's site. Raises DisallowedHost
    (answered 400) for a host ALLOWED_HOSTS refuses, as Django would."""
    host = request.get_host().rsplit(":", 1)[0].lower()
    path = request.path_info
    # Only the hosts listed for shows are looked up: a request to the network's own hosts
    # costs nothing to tell apart.
    if host != _network_host() and validate_host(host, settings.SHOW_PUBLIC_HOSTS):
        known = _known.fresh()
        by_host = known.by_host.get(host)
        if by_host is not None:
            pk, slug, name = by_host
            return ShowSite(pk, slug, name, prefix="/", origin=host_origin(host))
    if path.startswith(SHOWS_PREFIX):
        slug = path[len(SHOWS_PREFIX) :].split("/", 1)[0]
        found = _known.fresh().by_slug.get(slug)
        if found is not None:
            pk, name, _ = found
            return ShowSite(
                pk, slug, name, prefix=f"{SHOWS_PREFIX}{slug}/", origin=settings.SITE_URL
            )
    return None


class ShowSiteMiddleware:
    """Serve a show's site for its path or host; the network's site otherwise, untouched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        site = site_for(request)
        if site is None:
            return self.get_response(request)
        if site.prefix != "/":
            rest = request.path_info[len(site.prefix) - 1 :]
            if not rest:
                # /shows/<slug> without its slash: its home.
                return HttpResponsePermanentRedirect(site.prefix)
            request.path_info = rest
        request.urlconf = URLCONF
        prefix = get_script_prefix()
        set_script_prefix(site.prefix if site.prefix != "/" else prefix)
        token = serve_as(site)
        try:
            return self.get_response(request)
        finally:
            end_serving(token)
            set_script_prefix(prefix)
            set_urlconf(None)


def connect_signals() -> None:
    """A show saved or deleted in this process is seen at once on its next request."""
    post_save.connect(_known.forget, sender=Show, dispatch_uid="glossary.show_site.saved")
    post_delete.connect(_known.forget, sender=Show, dispatch_uid="glossary.show_site.deleted")
