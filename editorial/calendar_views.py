"""The calendar feed's address: a calendar app reads it without signing in.

The signed token names the person (editorial.desk_calendar.user_for_token); a bad
or revoked one, or a deactivated account, answers 404 and says nothing more.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from editorial import desk_calendar


@never_cache
@require_GET
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    user = desk_calendar.user_for_token(token)
    if user is None:
        raise Http404("No such calendar.")
    response = HttpResponse(
        desk_calendar.ical_for(user), content_type="text/calendar; charset=utf-8"
    )
    response["Content-Disposition"] = 'inline; filename="glossary-desk.ics"'
    # The address is the secret: keep it out of other sites' logs.
    response["Referrer-Policy"] = "no-referrer"
    return response
