"""Admin pages of the editorial desk outside any ModelAdmin: the dashboard and gate fixes.

Included under /admin/ before the admin site, each wrapped in admin_view (staff
only, login redirect); each view checks its own permission too.
"""

from django.contrib.admin import site
from django.urls import path

from editorial.admin.assignments import (
    assign_view,
    calendar_view,
    done_view,
    my_work_view,
    plan_view,
)
from editorial.admin.dashboard import dashboard_view
from editorial.admin.gates import generate_sponsorship, interest_not_needed
from editorial.admin.presence import (
    discard_view,
    heartbeat_view,
    leave_view,
    refused_list_view,
    refused_view,
)
from editorial.admin.quote_verdicts import move_quote
from editorial.admin.twofactor import overview_view, setup_view, verify_view
from editorial.notify_views import preferences

app_name = "desk"

urlpatterns = [
    path("dashboard/", site.admin_view(dashboard_view), name="dashboard"),
    # Assignments and the calendar (editorial.assignments, editorial.desk_calendar).
    path("my-work/", site.admin_view(my_work_view), name="my-work"),
    path(
        "assignments/<int:assignment_id>/done/", site.admin_view(done_view), name="assignment-done"
    ),
    path("assign/<int:entry_id>/", site.admin_view(assign_view), name="assign"),
    path("plan/", site.admin_view(plan_view), name="plan-entry"),
    path("calendar/", site.admin_view(calendar_view), name="calendar"),
    path("notifications/", site.admin_view(preferences), name="notifications"),
    # Two-factor sign-in (editorial.twofactor): the person's page, enrolment, the code step.
    path("2fa/", site.admin_view(overview_view), name="2fa"),
    path("2fa/setup/", site.admin_view(setup_view), name="2fa-setup"),
    path("2fa/verify/", site.admin_view(verify_view), name="2fa-verify"),
    path(
        "gates/<int:entry_id>/sponsorship/<int:episode_id>/",
        site.admin_view(generate_sponsorship),
        name="gates-generate-sponsorship",
    ),
    path(
        "gates/<int:entry_id>/interest/<int:organisation_id>/not-needed/",
        site.admin_view(interest_not_needed),
        name="gates-interest-not-needed",
    ),
    path("quotes/<int:quote_id>/move/", site.admin_view(move_quote), name="quote-move"),
    # Who is editing (docs/who-is-editing.md): the entry page's heartbeat and leaving.
    path(
        "presence/<int:entry_id>/heartbeat/",
        site.admin_view(heartbeat_view),
        name="presence-heartbeat",
    ),
    path("presence/<int:entry_id>/leave/", site.admin_view(leave_view), name="presence-leave"),
    path("refused/", site.admin_view(refused_list_view), name="refused-list"),
    path("refused/<int:refused_id>/", site.admin_view(refused_view), name="refused"),
    path(
        "refused/<int:refused_id>/discard/", site.admin_view(discard_view), name="refused-discard"
    ),
]
