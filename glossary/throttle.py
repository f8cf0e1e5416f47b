"""Per-client limits on the public pages that cost the most: search and the JSON API.

A fixed window per client, counted in the default cache; the client is whoever
the trusted proxies say (RATELIMIT_IP_META_KEY). Over the limit a client gets 429
with `Retry-After`: JSON under /api/, a short page elsewhere. With the cache
unavailable the limit is not enforced rather than failing the page.

On the production cache (config.cache.ResilientRedisCache) a hit is one Redis round
trip (`count_in_window`). django-ratelimit's counting (add, then Django's incr,
which asks whether the key exists first) takes three, and measured in-process it
cost the API's entry answer 0.35–0.45 ms of its 0.6 ms; it still counts on any
other cache (the local-memory cache of `make run`).
"""

from __future__ import annotations

import functools
import ipaddress
import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
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


_RATE = re.compile(r"(\d+)/(\d*)([smhd])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """("60/m") -> (60 requests, 60 seconds); "100/5m" is 100 in five minutes."""
    match = _RATE.fullmatch(rate.strip())
    if match is None:
        raise ImproperlyConfigured(
            f"{rate!r} is not a rate; write requests/period, e.g. 60/m, 300/m or 100/5m "
            "(s, m, h or d), or leave it empty for no limit."
        )
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * _UNIT[unit]


def _over_limit(request: HttpRequest, group: str, rate: str) -> int:
    """Count this request against its client; the seconds to wait when it is over the
    limit, else 0."""
    count_in_window = getattr(cache, "count_in_window", None)
    if count_in_window is None:
        usage = get_usage(request, group=group, key=client_key, rate=rate, increment=True)
        if usage is None or not usage["should_limit"]:
            return 0
        return max(1, int(usage["time_left"]))
    limit, period = parse_rate(rate)
    now = time.time()
    window = int(now // period)
    key = f"limit:{group}:{client_key(group, request)}:{period}:{window}"
    count = count_in_window(key, period + 1)
    if count is None or count <= limit:
        return 0
    return max(1, math.ceil((window + 1) * period - now))


def limited(group: str, setting: str) -> Callable[[View], View]:
    """Limit a view per client to the rate `settings.<setting>` names ("60/m"; "" for none)."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            rate = getattr(settings, setting)
            if rate:
                retry_after = _over_limit(request, group, rate)
                if retry_after:
                    return too_many(request, retry_after)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
