from django.contrib import admin
from django.urls import include, path

from editorial.calendar_views import calendar_feed
from editorial.notify_views import unsubscribe

urlpatterns = [
    # The editors' dashboard and publish-gate fixes (editorial.admin.urls); before the
    # admin site so /admin/dashboard/ is not taken for an app label.
    path("admin/", include("editorial.admin.urls")),
    path("admin/", admin.site.urls),
    # The opt-out link in every desk email: works without signing in (editorial.notify_views).
    path("notifications/unsubscribe/<str:token>/", unsubscribe, name="notify-unsubscribe"),
    # A person's desk calendar for their calendar app: a signed address, no sign-in
    # (editorial.desk_calendar; docs/assignments.md).
    path("calendar/<str:token>.ics", calendar_feed, name="calendar-feed"),
    # Drafts and shared previews; never public pages, never cached (editorial.preview).
    path("preview/", include("editorial.preview")),
    path("", include("glossary.urls")),
    # The benchmarks' trivial view, routed only when BENCH_TRIVIAL_VIEW (demo.urls).
    path("", include("demo.urls")),
]

# A lost database met in a middleware (before any view) answers 503, as in a view.
handler500 = "config.outage.server_error"
