"""The page a client sees once django-axes locks it out (settings.AXES_LOCKOUT_CALLABLE).

Axes' own answer is one line, "Account locked: too many login attempts", with no time
and no way forward. This one says until when (in the newsroom's zone, named), that a
wrong password meanwhile starts the wait again, and who can help.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone

from editorial import newsroom


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    # Each failure while locked out starts the wait again
    # (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT): it runs from this attempt.
    attempted = getattr(request, "axes_attempt_time", None) or timezone.now()
    cool_off = get_cool_off(request) or datetime.timedelta(0)
    context = {
        **admin.site.each_context(request),
        "title": "Too many failed sign-ins",
        "username": get_client_username(request, credentials) or "",
        "failure_limit": get_failure_limit(request, credentials),
        "minutes": math.ceil(cool_off.total_seconds() / 60),
        "until": newsroom.format_instant(attempted + cool_off),
        "zone": settings.NEWSROOM_TIME_ZONE,
    }
    # 429 Too Many Requests, as axes answers (AXES_HTTP_RESPONSE_CODE, not set here).
    response = TemplateResponse(request, "admin/lockout.html", context, status=429)
    return response.render()
