"""The source library in the admin: what a source is, its link health, and who cites it.

Link health is automatic (editorial.linkcheck) and shown read-only; confirming a
source is editorial ("Mark confirmed today", fact-checkers only).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from editorial import newsroom, workflow
from editorial.admin.base import DeskModelAdmin
from editorial.admin.reference import ReferenceAdmin
from editorial.models import ArchiveRequest, SourceHealthChange
from editorial.permissions import Action, acting_user, can, shows_where
from editorial.sourcetext import report
from editorial.sourcetext import service as sourcetext
from editorial.tasks import QueueUnavailable, queue_check_now
from glossary import publishing
from glossary.fields import WebURLValidator
from glossary.models import (
    CHANGED_SINCE_CONFIRMED,
    Citation,
    Entry,
    LinkCheck,
    PublicRecord,
    Source,
    normalise_url,
)

HISTORY_ROWS = 20
ARCHIVE_ROWS = 5


def _capture_line(row: ArchiveRequest) -> SafeString:
    """One capture as editors read it: when, for whom, and what came of it."""
    asked = format_html(
        "asked {}{}",
        newsroom.format_instant(row.requested_at),
        f" by {row.requested_by.get_username()}" if row.requested_by else "",
    )
    State = ArchiveRequest.State
    if row.state == State.SAVED:
        return format_html(
            '{}: <a href="{}" rel="noopener">saved {}</a>',
            asked,
            row.archive_url,
            newsroom.format_instant(row.captured_at),
        )
    if row.state == State.FAILED:
        return format_html("{}: failed — {}", asked, row.error)
    waiting = "capturing" if row.state == State.CAPTURING and row.job_id else "queued"
    retry = f"; last try: {row.error}" if row.error else ""
    return format_html(
        "{}: {}, next step after {}{}",
        asked,
        waiting,
        newsroom.format_instant(row.next_attempt_at),
        retry,
    )


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
    "health_changes",
    "check_history",
]


class ChangedSinceConfirmedFilter(admin.SimpleListFilter):
    title = "page text since confirmed"
    parameter_name = "changed"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Changed since confirmed"), ("no", "Unchanged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Source]) -> QuerySet[Source]:
        if self.value() == "yes":
            return queryset.filter(CHANGED_SINCE_CONFIRMED)
        if self.value() == "no":
            return queryset.exclude(CHANGED_SINCE_CONFIRMED)
        return queryset


class SourceAdmin(ReferenceAdmin):
    kind = PublicRecord.Kind.SOURCE
    list_display = [
        "display_title",
        "url",
        "health",
        "last_checked_at",
        "citation_status",
        "archived",
    ]
    list_filter = ["health", "kind", "citation_status", ChangedSinceConfirmedFilter]
    search_fields = ["title", "publisher", "url"]
    readonly_fields = [*LINK_HEALTH_FIELDS, "what_changed", "archive_requests"]
    actions = ["check_now", "mark_confirmed_today"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        fieldsets: list[Any] = [
            (None, {"fields": ["url", "title", "publisher", "kind", "readers_see"]}),
            ("Archive", {"fields": ["citation_status", "archive_url", "archive_date"]}),
        ]
        if obj is not None:
            fieldsets[1][1]["fields"].append("archive_requests")
            fieldsets.append(
                (
                    "Link health (automatic; never an editorial confirmation)",
                    {"fields": LINK_HEALTH_FIELDS},
                )
            )
            fieldsets.append(
                (
                    "What changed since confirmed",
                    {"fields": ["what_changed"], "classes": ["what-changed"]},
                )
            )
        return fieldsets

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        if not can(request.user, Action.CONFIRM_CITATION):
            actions.pop("mark_confirmed_today", None)
        return actions

    @admin.display(description="source", ordering="title")
    def display_title(self, obj: Source) -> str:
        return obj.display_title

    @admin.display(description="archived copy", boolean=True, ordering="archive_date")
    def archived(self, obj: Source) -> bool:
        return bool(obj.archive_url)

    @admin.display(description="Wayback Machine captures")
    def archive_requests(self, obj: Source) -> SafeString | str:
        """What the captures asked for on confirmation did (editorial.archive)."""
        rows = list(obj.archive_requests.select_related("requested_by")[:ARCHIVE_ROWS])
        if not rows:
            return (
                "None asked for. Confirming the source asks the Wayback Machine to save it "
                "(with ARCHIVE_ON_CONFIRM); the archive URL lands here and reaches readers "
                "when an editor publishes an entry citing it."
            )
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li>{}</li>", ((_capture_line(r),) for r in rows)),
        )

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
                        c.entry.status_label(),
                        f" — checked {newsroom.format_date(c.checked_on)}" if c.checked_on else "",
                    )
                    for c in citations
                ),
            ),
        )

    @admin.display(description="page text")
    def what_changed(self, obj: Source) -> SafeString | str:
        """Figures gone first, then claims that no longer hold, the relevant sentences, the diff."""
        change = report.source_change(obj)
        if change is None:
            if obj.changed_since_confirmed:
                return (
                    "The page changed since it was confirmed, but the two texts to compare "
                    "were not both stored (it was confirmed before texts were kept, or the "
                    "page could not be read then). Re-confirming stores the page as it is now."
                )
            return "The page says what it said when it was confirmed."

        def items(values: list[str], css: str = "") -> SafeString:
            return format_html_join("", '<li class="{}">{}</li>', ((css, v) for v in values))

        parts = [
            format_html(
                '<p id="what-changed">Confirmed {}; this is the page as checked {}.</p>',
                newsroom.format_date(change.confirmed_on),
                newsroom.format_instant(change.checked_at) if change.checked_at else "since",
            )
        ]
        if change.figures_gone:
            parts.append(
                format_html(
                    "<p><strong>Figures gone:</strong> {}</p>", ", ".join(change.figures_gone)
                )
            )
        if change.claims:
            parts.append(
                format_html(
                    "<p><strong>Claims no longer supported:</strong></p><ul>{}</ul>",
                    items([f"{c.entry_term}: {c.message}" for c in change.claims]),
                )
            )
        if change.relevant:
            parts.append(
                format_html(
                    "<p><strong>Sentences that matter to the citing entries:</strong></p>"
                    "<ul>{}</ul>",
                    items(change.relevant),
                )
            )
        parts.append(
            format_html(
                "<p><strong>Removed</strong></p><ul>{}</ul><p><strong>Added</strong></p><ul>{}</ul>",
                items(change.diff.removed, "removed") or "—",
                items(change.diff.added, "added") or "—",
            )
        )
        return SafeString("".join(parts))

    @admin.display(description=f"last {HISTORY_ROWS} health changes")
    def health_changes(self, obj: Source) -> SafeString | str:
        changes = list(
            SourceHealthChange.objects.filter(source=obj).order_by("-at", "-pk")[:HISTORY_ROWS]
        )
        if not changes:
            return "No change yet."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    newsroom.format_instant(c.at),
                    c.from_health,
                    c.to_health,
                    c.outcome,
                    c.status_code or "",
                    c.error,
                )
                for c in changes
            ),
        )
        return format_html(
            "<table><thead><tr><th>when</th><th>health</th><th>outcome</th><th>status</th>"
            "<th>error</th></tr></thead><tbody>{}</tbody></table>",
            rows,
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
                    newsroom.format_instant(c.checked_at),
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
        try:
            queued = queue_check_now(list(queryset.values_list("pk", flat=True)))
        except QueueUnavailable as exc:
            self.message_user(
                request,
                f"{exc} The sources keep their schedule; try “Check now” again once the "
                "queue (Redis) is back, or wait for the next scheduled check.",
                messages.ERROR,
            )
            return
        self.message_user(
            request,
            f"Queued a link check for {queued} source(s). This page shows the result once "
            "the check has run.",
            messages.SUCCESS,
        )

    @admin.action(description="Mark confirmed today (the source still supports its entries)")
    def mark_confirmed_today(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        if not can(request.user, Action.CONFIRM_CITATION):
            self.message_user(request, "Only fact-checkers can confirm sources.", messages.ERROR)
            return
        shows = shows_where(request.user, Action.CONFIRM_CITATION)
        if shows is not None:
            # Confirming a source confirms every citation of it: a show's fact-checker may
            # do that only when every citing entry is on a show where they confirm sources.
            elsewhere = sorted(
                Entry.objects.filter(citations__source__in=queryset)
                .exclude(show__in=shows)
                .values_list("term", flat=True)
                .distinct()
            )
            if elsewhere:
                self.message_user(
                    request,
                    "Nothing was confirmed: these sources are also cited by entries outside "
                    "your shows ("
                    + ", ".join(f"“{term}”" for term in elsewhere[:10])
                    + "). Confirm the citations on your entries' pages instead.",
                    messages.ERROR,
                )
                return
        now = timezone.now()
        today = newsroom.today(now)
        # Pages with no stored text are fetched before the transaction opens: a slow
        # site must not hold row locks for the length of its timeout.
        fetched = sourcetext.fetch_texts(
            s.url for s in sourcetext.sources_needing_fetch(queryset.order_by())
        )
        with transaction.atomic():
            sources = list(queryset.select_for_update())
            user = acting_user(request)
            cited = Citation.objects.filter(source__in=sources).update(
                checked_on=today, checked_by=user
            )
            # The one confirmation rule (the entry's "checked on" date uses it too).
            done = sourcetext.confirm_citations(
                list(Citation.objects.filter(source__in=sources).select_related("source", "entry")),
                user=user,
                now=now,
                fetched=fetched,
            )
            # New check dates are a change to each citing entry: recorded as its version,
            # published by someone other than the fact-checker.
            versions = publishing.record_reference_change(
                PublicRecord.Kind.SOURCE,
                [s.pk for s in sources],
                user=user,
                what=f"Citations confirmed on {newsroom.format_date(today)}.",
            )
            confirmed: dict[int, list[Citation]] = {}
            for citation in (
                Citation.objects.filter(source__in=sources)
                .select_related("source")
                .order_by("entry", "order", "pk")
            ):
                confirmed.setdefault(citation.entry_id, []).append(citation)
            workflow.record_fact_checks(
                confirmed, user=user, versions={v.entry_id: v for v in versions}, on=today
            )
        entries = len({v.entry_id for v in versions})
        self.message_user(
            request,
            f"Confirmed {len(sources)} source(s) today; {cited} citation(s) now say "
            f"“checked {newsroom.format_date(today)}”, saved as a new version of "
            f"{entries} entr{'y' if entries == 1 else 'ies'}; readers see the new date once "
            "an editor publishes them. Future text changes are measured from now.",
            messages.SUCCESS,
        )
        for source in done.empty:
            self.message_user(request, sourcetext.empty_page_warning(source), messages.WARNING)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        # A URL already in the library resolves to its source instead of failing. Only a
        # valid one is looked up: the form names what is wrong with any other (normalising
        # "http://[" raises, and PostgreSQL cannot even compare a NUL).
        url = request.POST.get("url", "") if request.method == "POST" else ""
        if url and _is_web_url(url):
            existing = Source.objects.filter(url=normalise_url(url)).first()
            if existing is not None:
                self.message_user(
                    request,
                    f"{existing.url} is already in the library as “{existing}”; here it is.",
                    messages.INFO,
                )
                return HttpResponseRedirect(
                    reverse("admin:glossary_source_change", args=[existing.pk])
                )
        return super().add_view(request, form_url, extra_context)


def _is_web_url(url: str) -> bool:
    try:
        WebURLValidator()(url)
    except ValidationError:
        return False
    return True


class LinkCheckAdmin(DeskModelAdmin[LinkCheck]):
    list_display = ["url", "checked_at", "outcome", "status_code", "elapsed_ms"]
    list_filter = ["outcome"]
    search_fields = ["url"]
    date_hierarchy = "checked_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
