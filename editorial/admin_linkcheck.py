"""Link health in the Source admin: history, citing entries, filters and actions.

`SourceLinkHealthMixin` is mixed into `SourceAdmin` (editorial/admin.py). It
adds to whatever the admin declares rather than replacing it.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from editorial.permissions import Action, can
from editorial.tasks import queue_check_now
from glossary.models import Citation, Source

HISTORY_ROWS = 20

LINK_HEALTH_FIELDS = [
    "health",
    "health_changed_at",
    "changed_since_confirmed_display",
    "last_checked_at",
    "last_outcome",
    "last_status_code",
    "failure_streak",
    "first_failure_at",
    "suggested_url",
    "next_check_at",
    "confirmed_at",
    "citing_entries",
    "check_history",
]


class ChangedSinceConfirmedFilter(admin.SimpleListFilter):
    title = "page text since confirmed"
    parameter_name = "changed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Changed since confirmed"), ("no", "Unchanged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Source]) -> QuerySet[Source]:
        changed = (
            ~Q(confirmed_fingerprint="")
            & ~Q(last_fingerprint="")
            & ~Q(last_fingerprint=F("confirmed_fingerprint"))
        )
        if self.value() == "yes":
            return queryset.filter(changed)
        if self.value() == "no":
            return queryset.exclude(changed)
        return queryset


class SourceLinkHealthMixin:
    """Adds link health to a Source ModelAdmin; put it before admin.ModelAdmin."""

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        filters = list(super().get_list_filter(request))  # type: ignore[misc]
        if "health" not in filters:
            filters.insert(0, "health")
        return [*filters, ChangedSinceConfirmedFilter]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        return fields + [f for f in LINK_HEALTH_FIELDS if f not in fields]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fieldsets = [
            fs
            for fs in super().get_fieldsets(request, obj)  # type: ignore[misc]
            if not set(fs[1].get("fields", [])) & {"health", "last_checked_at"}
        ]
        if obj is None:
            return fieldsets
        for fieldset in fieldsets:  # the automatic fields are shown once, below
            fieldset[1]["fields"] = [
                f for f in fieldset[1]["fields"] if f not in LINK_HEALTH_FIELDS
            ]
        return [
            *fieldsets,
            (
                "Link health (automatic; never an editorial confirmation)",
                {"fields": LINK_HEALTH_FIELDS},
            ),
        ]

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)  # type: ignore[misc]
        for name in ("check_now", "mark_confirmed_today"):
            func = getattr(type(self), name)
            actions[name] = (func, name, func.short_description)
        if not can(request.user, Action.CONFIRM_CITATION):
            actions.pop("mark_confirmed_today", None)
        return actions

    @admin.display(description="page text changed since confirmed", boolean=True)
    def changed_since_confirmed_display(self, obj: Source) -> bool:
        return obj.changed_since_confirmed

    @admin.display(description="cited by")
    def citing_entries(self, obj: Source) -> SafeString | str:
        citations = Citation.objects.filter(source=obj).select_related("entry")
        if not citations:
            return "No entry cites this source."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a> ({}){}</li>',
                (
                    (
                        reverse("admin:glossary_entry_change", args=[c.entry_id]),
                        c.entry.term,
                        c.entry.get_status_display(),
                        f" — checked {c.checked_on:%B %-d, %Y}" if c.checked_on else "",
                    )
                    for c in citations
                ),
            ),
        )

    @admin.display(description=f"last {HISTORY_ROWS} checks")
    def check_history(self, obj: Source) -> SafeString | str:
        checks = list(obj.checks.order_by("-checked_at")[:HISTORY_ROWS])
        if not checks:
            return "Not checked yet."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    timezone.localtime(c.checked_at).strftime("%Y-%m-%d %H:%M"),
                    c.outcome,
                    c.status_code or "",
                    c.elapsed_ms if c.elapsed_ms is not None else "",
                    c.final_url if c.final_url != c.url else "",
                    c.error,
                )
                for c in checks
            ),
        )
        return format_html(
            "<table><thead><tr><th>when</th><th>outcome</th><th>status</th><th>ms</th>"
            "<th>ended at</th><th>error</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.action(description="Check now (queued; results appear in the history)")
    def check_now(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        queued = queue_check_now(list(queryset.values_list("pk", flat=True)))
        self.message_user(  # type: ignore[attr-defined]
            request,
            f"Queued a link check for {queued} source(s). This page shows the result once "
            "the check has run.",
            messages.SUCCESS,
        )

    @admin.action(description="Mark confirmed today (the source still supports its entries)")
    def mark_confirmed_today(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        if not can(request.user, Action.CONFIRM_CITATION):
            self.message_user(  # type: ignore[attr-defined]
                request, "Only fact-checkers can confirm sources.", messages.ERROR
            )
            return
        now = timezone.now()
        with transaction.atomic():
            sources = list(queryset.select_for_update())
            for source in sources:
                source.confirmed_fingerprint = source.last_fingerprint
                source.confirmed_at = now
            Source.objects.bulk_update(sources, ["confirmed_fingerprint", "confirmed_at"])
            cited = Citation.objects.filter(source__in=sources).update(
                checked_on=timezone.localdate(now), checked_by=request.user
            )
        self.message_user(  # type: ignore[attr-defined]
            request,
            f"Confirmed {len(sources)} source(s) today; {cited} citation(s) now show "
            f"“checked {timezone.localdate(now):%B %-d, %Y}”. Future text changes are "
            "measured from now.",
            messages.SUCCESS,
        )
