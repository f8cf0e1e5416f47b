"""503 with Retry-After, not a 500, while the database cannot be reached.

A database that is down, restarting or refusing connections is an outage the
reader can wait out, not a bug: every view that needs the database answers
503 Service Unavailable with ``Retry-After``, a small page in the site's
design for pages (rendered from the template and settings alone, never the
database) and ``{"error": ...}`` for the JSON API. Nothing is cached.

A middleware that reads the database before any view (the session behind
``request.user``, the two-factor step) meets the outage outside the view, where
Django answers with its 500 handler: ``server_error`` is that handler, and gives
the same 503 when the exception being handled is one of these.

The next request tries the database again (Django drops a connection that
failed; ``CONN_HEALTH_CHECKS`` tests a kept one before use), so the site
recovers by itself when the database returns.

Django raises ``OperationalError`` when it cannot connect or the server goes
away, and ``InterfaceError`` when a connection it held was closed under it.
``OperationalError`` also covers a lock timeout or a deadlock, which are just
as transient. Each is logged at ERROR with its traceback for the operators.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable

from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.views import defaults

from glossary.context_processors import site

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30
API_PREFIX = "/api/"
MESSAGE = f"The glossary cannot reach its database; try again in {RETRY_AFTER_SECONDS} seconds."


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 answer: JSON under /api/, the site's small HTML page everywhere else."""
    if request.path_info.startswith(API_PREFIX):
        response = HttpResponse(
            json.dumps({"error": MESSAGE}), status=503, content_type="application/json"
        )
    else:
        html = render_to_string("503.html", {**site(None), "retry_after": RETRY_AFTER_SECONDS})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    add_never_cache_headers(response)
    return response


class DatabaseUnavailableMiddleware:
    """Turn a view's lost database into a 503 (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error(
            "database unavailable: %s",
            type(exception).__name__,
            exc_info=exception,
            extra={"path": request.path},
        )
        return unavailable(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler (config.urls.handler500): the outage's 503 when the error
    being handled is a lost database (raised in a middleware, before any view), else
    Django's own 500 page. Django has already logged the traceback."""
    if isinstance(sys.exc_info()[1], OperationalError | InterfaceError):
        return unavailable(request)
    return defaults.server_error(request)
