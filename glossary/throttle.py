"""Per-client limits on the public pages that cost the most: search and the JSON API.

Counting is django-ratelimit's (a fixed window per client in the default cache);
the client is whoever the trusted proxies say (RATELIMIT_IP_META_KEY). Over the
limit a client gets 429 with `Retry-After`: JSON under /api/, a short page
elsewhere. With the cache unavailable the limit is not enforced rather than
failing the page.
"""

from __future__ import annotations

import functools
import ipaddress
import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.module_loading import import_string
from django_ratelimit.core import get_usage

View = Callable[..., HttpResponseBase]


def too_many(request: HttpRequest, retry_after: int) -> HttpResponse:
    message = f"Too many requests from your address; try again in {retry_after} seconds."
    if request.path.startswith("/api/"):
        response = HttpResponse(
            json.dumps({"error": message}), status=429, content_type="application/json"
        )
    else:
        response = HttpResponse(
            f"<!doctype html><title>Too many requests</title><h1>Too many requests</h1>"
            f"<p>{message}</p>",
            status=429,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(retry_after)
    response["Cache-Control"] = "no-store"
    return response


def client_key(group: str, request: HttpRequest) -> str:
    """Whom a request counts against: its client's address as RATELIMIT_IP_META_KEY reads it,
    an IPv6 client by its /64 (one host has them all). A request that names no address
    (a WSGI server on a Unix socket leaves REMOTE_ADDR empty) counts against one shared
    "unknown" client rather than failing the page."""
    address = import_string(settings.RATELIMIT_IP_META_KEY)(request)
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return "unknown"
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False).network_address)
    return str(ip)


def limited(group: str, setting: str) -> Callable[[View], View]:
    """Limit a view per client to the rate `settings.<setting>` names ("60/m"; "" for none)."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            rate = getattr(settings, setting)
            if rate:
                usage = get_usage(request, group=group, key=client_key, rate=rate, increment=True)
                if usage is not None and usage["should_limit"]:
                    return too_many(request, max(1, int(usage["time_left"])))
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
