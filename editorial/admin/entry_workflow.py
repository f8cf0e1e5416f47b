"""The entry's workflow pages: buttons, review pages, history, compare, rollback, share.

`EntryWorkflowPages` serves them under the entry admin's URLs
(editorial.admin.entries.EntryAdmin.get_urls).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.admin import ModelAdmin, helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html

from editorial import newsroom, preview, versions, workflow
from editorial.admin.gates import fix_html
from editorial.gates import run_gates
from editorial.models import ShareLink, WorkflowEvent
from editorial.permissions import Action, acting_user, can, require
from glossary import document
from glossary.models import Entry, EntryVersion


def entry_id(object_id: str) -> int | None:
    """The entry id an admin address names, or None when the text cannot be one
    ("abc", "1.5", "²"): such an address names no entry, it is not an error."""
    try:
        return int(unquote(object_id))
    except ValueError:
        return None


class EntryWorkflowPages:
    """The entry's workflow pages, served under the entry admin's URLs.

    Each page asks editorial.permissions or calls an editorial.workflow
    function that does, so a URL typed by hand is refused exactly like a hidden
    button.
    """

    def __init__(self, model_admin: ModelAdmin[Entry]) -> None:
        self.model_admin = model_admin
        self.admin_site = model_admin.admin_site

    def context(self, request: HttpRequest, entry: Entry) -> dict[str, Any]:
        user = request.user
        status = Entry.Status(entry.status)
        latest = workflow.latest_version_number(entry)
        author = workflow.authorship(entry, user)
        self_blocked = bool(author) and not _allow_self_approval()
        dates_pair = (
            workflow.check_dates_only_versions(entry)
            if can(user, Action.PUBLISH, entry) and status != Entry.Status.ARCHIVED
            else None
        )
        dates_only = dates_pair is not None
        return {
            "status": status,
            "status_label": entry.status_label(),
            "review_comment": workflow.open_review_comment(entry),
            "latest_version": latest,
            "live_version": entry.live_version.number if entry.live_version else None,
            "can_submit": can(user, Action.SUBMIT, entry) and status in workflow.SUBMIT_FROM,
            "can_request_changes": can(user, Action.REQUEST_CHANGES, entry)
            and status in workflow.REVIEW_FROM,
            "can_publish": can(user, Action.PUBLISH, entry)
            and status in workflow.PUBLISH_FROM
            and not self_blocked,
            "self_approval_blocked": can(user, Action.PUBLISH, entry)
            and status in workflow.PUBLISH_FROM
            and self_blocked,
            "self_approval_reason": author,
            "can_publish_check_dates": dates_only and not self_blocked,
            "check_dates_self_blocked": dates_only and self_blocked,
            # What the one-step publish puts before readers, shown before the button.
            "check_dates_version": dates_pair[1].number if dates_pair else None,
            "reconfirmations": workflow.reconfirmations(*dates_pair) if dates_pair else [],
            "can_unpublish": can(user, Action.UNPUBLISH, entry) and entry.is_live,
            "can_archive": can(user, Action.ARCHIVE, entry) and status in workflow.ARCHIVE_FROM,
            "can_restore": can(user, Action.ARCHIVE, entry) and status == Entry.Status.ARCHIVED,
            "can_share": can(user, Action.SHARE_PREVIEW, entry),
            "share_links": [
                {
                    "link": link,
                    "revoke": reverse(
                        "admin:glossary_entry_revoke_share", args=[entry.pk, link.pk]
                    ),
                }
                for link in ShareLink.objects.filter(
                    entry=entry, revoked_at__isnull=True, expires_at__gt=timezone.now()
                ).select_related("created_by", "version")
            ],
            "urls": self._entry_urls(entry),
        }

    @staticmethod
    def _entry_urls(entry: Entry) -> dict[str, str]:
        def url(name: str) -> str:
            return reverse(f"admin:glossary_entry_{name}", args=[entry.pk])

        return {
            name: url(name)
            for name in [
                "change",
                "submit",
                "request_changes",
                "publish",
                "publish_check_dates",
                "unpublish",
                "archive",
                "restore",
                "share",
                "history",
                "compare",
            ]
        } | {
            "preview": reverse("preview:working_copy", args=[entry.pk]),
            "compare_live": reverse("admin:glossary_entry_compare", args=[entry.pk])
            + "?a=live&b=working",
        }

    def urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        own = [
            ("submit", self.submit_view),
            ("request-changes", self.request_changes_view),
            ("publish", self.publish_view),
            ("publish-check-dates", self.publish_check_dates_view),
            ("unpublish", self.unpublish_view),
            ("archive", self.archive_view),
            ("restore", self.restore_view),
            ("share", self.share_view),
            ("compare", self.compare_view),
        ]
        urls = [
            path(
                f"<int:object_id>/{name}/",
                wrap(view),
                name=f"glossary_entry_{name.replace('-', '_')}",
            )
            for name, view in own
        ]
        urls.append(
            path(
                "<int:object_id>/rollback/<int:number>/",
                wrap(self.rollback_view),
                name="glossary_entry_rollback",
            )
        )
        urls.append(
            path(
                "<int:object_id>/share/<int:link_id>/revoke/",
                wrap(self.revoke_share_view),
                name="glossary_entry_revoke_share",
            )
        )
        return urls

    # --- transition views -------------------------------------------------------------

    def _entry(self, request: HttpRequest, object_id: int) -> Entry:
        """The entry a workflow page is about; 403 for an entry outside the user's shows."""
        entry = get_object_or_404(Entry.objects.select_related("live_version"), pk=object_id)
        require(request.user, Action.VIEW, entry)
        return entry

    def _back(self, entry: Entry) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:glossary_entry_change", args=[entry.pk]))

    def _transition(
        self, request: HttpRequest, object_id: int, func: Any, done: str, **kwargs: Any
    ) -> HttpResponse:
        entry = self._entry(request, object_id)
        comment = request.POST.get("comment", "")
        try:
            func(entry, user=request.user, comment=comment, **kwargs)
        except workflow.WorkflowError as exc:
            messages.error(request, str(exc))
            return self._back(entry)
        messages.success(request, done.format(term=entry.term))
        return self._back(entry)

    @staticmethod
    def _post_only(request: HttpRequest) -> None:
        if request.method != "POST":
            raise PermissionDenied("Workflow changes are made with the buttons on the entry page.")

    def submit_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        return self._transition(
            request,
            object_id,
            workflow.submit_for_review,
            "“{term}” is in review. An editor can now publish it or ask for changes.",
        )

    def request_changes_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        return self._transition(
            request,
            object_id,
            workflow.request_changes,
            "Changes requested on “{term}”; the writer sees your comment on the entry.",
        )

    def publish_check_dates_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        entry = self._entry(request, object_id)
        shown = request.POST.get("shown_version", "").strip()
        try:
            workflow.publish_check_dates(
                entry, user=request.user, shown_version=_version_number(shown)
            )
        except (workflow.WorkflowError, workflow.SelfApprovalRefused) as exc:
            messages.error(request, str(exc))
            return self._back(entry)
        messages.success(
            request,
            f"Readers now see the new check dates and excerpts of “{entry.term}” you were "
            "shown; nothing else changed.",
        )
        return self._back(entry)

    def unpublish_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """GET: what unpublishing does, and a box for why. POST: unpublish, with that reason
        in the history (offered as the correction note when the entry is published again)."""
        require(request.user, Action.UNPUBLISH)
        entry = self._entry(request, object_id)
        require(request.user, Action.UNPUBLISH, entry)
        if not entry.is_live:
            messages.error(
                request, f"“{entry.term}” is not published, so it cannot be unpublished."
            )
            return self._back(entry)
        reason = request.POST.get("reason", "") if request.method == "POST" else ""
        error = ""
        if request.method == "POST":
            if not reason.strip():
                error = (
                    "Write why the entry is coming down: the reason is kept in its history. "
                    "Nothing was unpublished."
                )
            else:
                try:
                    workflow.unpublish_entry(entry, user=request.user, comment=reason.strip())
                except workflow.WorkflowError as exc:
                    messages.error(request, str(exc))
                    return self._back(entry)
                messages.success(
                    request,
                    f"“{entry.term}” is unpublished: readers no longer see it. Its versions "
                    "are kept, and your reason is in its history.",
                )
                return self._back(entry)
        return unpublish_confirmation(
            request, self.admin_site, [entry], reason=reason, error=error, bulk=False
        )

    def archive_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        return self._transition(
            request,
            object_id,
            workflow.archive_entry,
            "“{term}” is archived and off the public site. Restore it to work on it again.",
        )

    def restore_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        return self._transition(
            request, object_id, workflow.restore_entry, "“{term}” is back as a draft."
        )

    def publish_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        """Every check in plain words, then publish (or override a failing one with a reason)."""
        require(request.user, Action.PUBLISH)
        entry = self._entry(request, object_id)
        require(request.user, Action.PUBLISH, entry)
        typed: dict[str, Any] = {
            "override_reason": request.POST.get("override_reason", ""),
            # Coming back after an unpublish: why it came down is offered as the note.
            "correction_note": request.POST.get("correction_note", "")
            if request.method == "POST"
            else workflow.withdrawal_reason(entry),
            "comment": request.POST.get("comment", ""),
            "material": request.method != "POST" or bool(request.POST.get("material")),
        }
        error = ""
        if request.method == "POST":
            version, error = self._publish_posted(request, entry, typed)
            if version is not None:
                messages.success(
                    request,
                    format_html(
                        'Published version {} of “{}”. Readers now see it at <a href="{}">{}</a>.',
                        version.number,
                        entry.term,
                        reverse("glossary:entry", args=[version.slug]),
                        reverse("glossary:entry", args=[version.slug]),
                    ),
                )
                return self._back(entry)
        entry.refresh_from_db()
        return TemplateResponse(
            request,
            "admin/glossary/entry/publish.html",
            self._publish_page(request, entry, typed, error),
            status=400 if error else 200,
        )

    def _publish_posted(
        self, request: HttpRequest, entry: Entry, typed: dict[str, Any]
    ) -> tuple[EntryVersion | None, str]:
        """Publish what the form says was reviewed: the version, or why nothing was."""
        expected = request.POST.get("expected_version", "").strip()
        try:
            if not expected.isdecimal() and entry.versions.exists():
                # Without it, a version saved after the editor read this page
                # could go out unread.
                raise workflow.WorkflowError(
                    "This form did not say which version you reviewed, so nothing was "
                    "published. Reload the page, check the latest version and publish again."
                )
            version = workflow.publish_entry(
                entry,
                user=request.user,
                override_reason=typed["override_reason"],
                correction_note=typed["correction_note"],
                material=typed["material"],
                comment=typed["comment"],
                expected_version=int(expected) if expected.isdecimal() else None,
                seen_event=workflow.seen_on_form(
                    entry, request.POST.get("seen_event", "").strip(), expected
                ),
            )
        except workflow.GateFailed as exc:
            return None, (
                f"Not published: {len(exc.blocking)} blocking check(s) failed. Fix them, "
                "or write why publishing anyway is right."
                if exc.overridable
                else f"Not published: {len(exc.blocking)} blocking check(s) failed, and "
                "the body is empty: no reason publishes an entry with nothing to read. "
                "Write it first (docs/assignments.md)."
            )
        except (workflow.WorkflowError, PermissionDenied) as exc:
            return None, str(exc)
        return version, ""

    def _publish_page(
        self, request: HttpRequest, entry: Entry, typed: dict[str, Any], error: str
    ) -> dict[str, Any]:
        """The publish page: every check in plain words, and what the form will carry."""
        latest, seen = workflow.latest_version_number(entry), workflow.last_event_id(entry)
        authorship = workflow.authorship(entry, request.user)
        results = run_gates(entry)
        blocking = [r for r in results if r.blocking and not r.passed]
        return {
            **self.admin_site.each_context(request),
            "opts": Entry._meta,
            "original": entry,
            "title": f"Publish “{entry.term}”",
            "results": results,
            "rows": [(r, fix_html(r, request.user, "Fix it")) for r in results],
            "blocking": blocking,
            "warnings": [r for r in results if not r.blocking and not r.passed],
            "typed": typed,
            "note_offered": request.method != "POST" and bool(typed["correction_note"]),
            "error": error,
            "can_override": can(request.user, Action.OVERRIDE_GATES, entry),
            "in_review": entry.status in workflow.PUBLISH_FROM,
            "self_approval_blocked": bool(authorship) and not _allow_self_approval(),
            "self_approval_reason": authorship,
            "republish": entry.first_published_at is not None,
            "latest_version": latest,
            "seen_event": seen,
            # A schedule of this version, which keeps to it (ScheduledActionForm).
            "schedule_url": (
                reverse("admin:editorial_scheduledaction_add")
                + f"?entry={entry.pk}&action=publish&shown_version={latest}&seen_through={seen}"
                if latest and can(request.user, Action.SCHEDULE, entry)
                else ""
            ),
            "urls": self._entry_urls(entry),
        }

    def share_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        self._post_only(request)
        require(request.user, Action.SHARE_PREVIEW)
        entry = self._entry(request, object_id)
        try:
            link = preview.create_share_link(entry, user=acting_user(request))
        except preview.NotShareable as refused:
            messages.error(request, str(refused))
            return self._back(entry)
        context = {
            **self.admin_site.each_context(request),
            "opts": Entry._meta,
            "original": entry,
            "title": f"Share a preview of “{entry.term}”",
            "version": link.version,
            "link": request.build_absolute_uri(preview.share_url(link)),
            "expires": link.expires_at,
            "urls": self._entry_urls(entry),
        }
        return TemplateResponse(request, "admin/glossary/entry/share.html", context)

    def revoke_share_view(self, request: HttpRequest, object_id: int, link_id: int) -> HttpResponse:
        """Stop one share link (POST, from the entry's page)."""
        self._post_only(request)
        entry = self._entry(request, object_id)
        link = get_object_or_404(ShareLink, pk=link_id, entry=entry)
        if preview.revoke_link(link, user=acting_user(request)):
            messages.success(request, "The preview link no longer works.")
        else:
            messages.info(request, "That preview link was already withdrawn.")
        return self._back(entry)

    # --- history, compare, rollback ---------------------------------------------------

    def history(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Every version and every workflow event of the entry, newest first."""
        require(request.user, Action.VIEW)
        pk = entry_id(object_id)
        entry = Entry.objects.select_related("live_version").filter(pk=pk).first() if pk else None
        if entry is None:
            # As Django's own history page answers: back to the admin, with its message.
            self.model_admin.message_user(
                request,
                f"Entry with ID “{object_id}” doesn’t exist. Perhaps it was deleted?",
                messages.WARNING,
            )
            return HttpResponseRedirect(reverse("admin:index", current_app=self.admin_site.name))
        require(request.user, Action.VIEW, entry)
        version_rows: QuerySet[EntryVersion] = (
            entry.versions.select_related("created_by", "published_by")
            .only(
                "number",
                "created_at",
                "created_by__username",
                "created_by__first_name",
                "created_by__last_name",
                "published_at",
                "published_by__username",
                "comment",
                "correction_note",
                "entry_id",
            )
            .order_by("-number")
        )
        events = WorkflowEvent.objects.filter(entry=entry).select_related("actor", "version")
        context = {
            **self.admin_site.each_context(request),
            "opts": Entry._meta,
            "original": entry,
            "title": f"History of “{entry.term}”",
            "versions": list(version_rows),
            "events": list(events),
            "can_rollback": can(request.user, Action.ROLLBACK, entry)
            and entry.status in workflow.ROLLBACK_FROM,
            "urls": self._entry_urls(entry),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/glossary/entry/history.html", context)

    def _side(self, entry: Entry, which: str) -> tuple[str, document.EntryDocument]:
        """A version by number, or "live" / "working", as (label, document)."""
        if which == "working":
            return "Working copy (as saved now)", document.build(entry)
        if which == "live":
            if entry.live_version is None:
                raise Http404("This entry has no live version to compare with.")
            return f"Live version {entry.live_version.number}", document.load(
                entry.live_version.data
            )
        if not which.isdecimal():
            raise Http404("Choose two versions to compare.")
        version = get_object_or_404(EntryVersion, entry=entry, number=int(which))
        published = (
            f", published {date_format(newsroom.to_local(version.published_at), 'DATE_FORMAT')}"
            if version.published_at
            else ""
        )
        return f"Version {version.number}{published}", document.load(version.data)

    def compare_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        require(request.user, Action.VIEW)
        entry = self._entry(request, object_id)
        latest = workflow.latest_version_number(entry)
        default_a = "live" if entry.live_version else str(max(latest - 1, 1))
        a = request.GET.get("a", default_a)
        b = request.GET.get("b", "working")
        a_label, a_data = self._side(entry, a)
        b_label, b_data = self._side(entry, b)
        sections = versions.compare(a_data, b_data)
        context = {
            **self.admin_site.each_context(request),
            "opts": Entry._meta,
            "original": entry,
            "title": f"Compare versions of “{entry.term}”",
            "a_label": a_label,
            "b_label": b_label,
            "sections": sections,
            "identical": not any(s.changed for s in sections),
            "urls": self._entry_urls(entry),
        }
        return TemplateResponse(request, "admin/glossary/entry/compare.html", context)

    def rollback_view(self, request: HttpRequest, object_id: int, number: int) -> HttpResponse:
        """GET: what rolling back would change. POST: do it (a new draft version)."""
        require(request.user, Action.ROLLBACK)
        entry = self._entry(request, object_id)
        require(request.user, Action.ROLLBACK, entry)
        version = get_object_or_404(EntryVersion, entry=entry, number=number)
        if request.method == "POST":
            try:
                with transaction.atomic():
                    new = workflow.rollback_to(
                        entry, version, user=request.user, comment=request.POST.get("comment", "")
                    )
            except workflow.WorkflowError as exc:
                messages.error(request, str(exc))
                return self._back(entry)
            live = entry.live_version
            tail = f" Readers still see version {live.number}." if live else ""
            messages.success(
                request,
                f"Rolled back: version {new.number} is a copy of version {version.number} "
                f"and is now the draft.{tail}",
            )
            for warning in getattr(new, "rollback_warnings", []):
                messages.warning(request, warning)
            return self._back(entry)
        sections = versions.compare(document.build(entry), document.load(version.data))
        context = {
            **self.admin_site.each_context(request),
            "opts": Entry._meta,
            "original": entry,
            "title": f"Roll “{entry.term}” back to version {version.number}?",
            "version": version,
            "a_label": "Working copy now",
            "b_label": f"Version {version.number}",
            "sections": sections,
            "identical": not any(s.changed for s in sections),
            "urls": self._entry_urls(entry),
        }
        return TemplateResponse(request, "admin/glossary/entry/rollback.html", context)


def unpublish_confirmation(
    request: HttpRequest,
    admin_site: Any,
    entries: list[Entry],
    *,
    reason: str,
    error: str,
    bulk: bool,
) -> TemplateResponse:
    """The page that asks before entries leave the public site, and why (required)."""
    context = {
        **admin_site.each_context(request),
        "opts": Entry._meta,
        "title": (
            f"Unpublish “{entries[0].term}”?"
            if len(entries) == 1
            else f"Unpublish these {len(entries)} entries?"
        ),
        "entries": entries,
        "reason": reason,
        "error": error,
        "bulk": bulk,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(
        request, "admin/glossary/entry/unpublish.html", context, status=400 if error else 200
    )


def _allow_self_approval() -> bool:
    return bool(settings.WORKFLOW_ALLOW_SELF_APPROVAL)


def _version_number(text: str) -> int | None:
    """A posted version number, or None for anything that is not one (too long for a
    version, non-ASCII digits): the publish then refuses as for a missing number."""
    if not (text.isascii() and text.isdigit()) or len(text) > 18:
        return None
    return int(text)
