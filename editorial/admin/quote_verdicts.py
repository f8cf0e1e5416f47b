"""Quotes against the transcript on the entry page: the verdict beside each quote, the
one-click fix for a quote found at another time, and a timestamp suggested for a quote
pasted without one.

Verdicts are computed when the page is drawn, from the stored segments of the entry's
episodes (glossary.episode_transcripts.check_entries, a fixed number of queries), so
they follow every change to a quote or a transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import site
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from editorial import quote_verification_runs
from editorial.admin.base import DeskModelAdmin
from editorial.models import QuoteCheckRun
from editorial.permissions import Action, acting_user, can, require
from editorial.tasks import verify_all_quotes
from glossary import publishing
from glossary.episode_transcripts import (
    QuoteCheck,
    check_entries,
    load_transcripts,
    tolerance,
)
from glossary.models import Appearance, Entry, Episode, Person, Quote
from glossary.timestamps import format_timestamp
from glossary.transcripts.quote_verification import Outcome, speaker_agrees, suggest

# The entry page checks its quotes against the transcripts for two things: the verdict
# beside each quote and the publish checks' panel. Within one page they share one check.
_shared_checks: ContextVar[dict[int, list[QuoteCheck]] | None] = ContextVar(
    "shared_quote_checks", default=None
)


@contextmanager
def quote_checks_shared() -> Iterator[None]:
    """Within this block an entry's quotes are checked once (`entry_quote_checks`)."""
    token = _shared_checks.set({})
    try:
        yield
    finally:
        _shared_checks.reset(token)


def entry_quote_checks(entry_id: int) -> list[QuoteCheck]:
    """The quotes and quoting references of the entry's working copy, checked against their
    transcripts (`check_entries`); once per `quote_checks_shared` block."""
    shared = _shared_checks.get()
    if shared is not None and entry_id in shared:
        return shared[entry_id]
    checks = check_entries(Entry.objects.filter(pk=entry_id))
    if shared is not None:
        shared[entry_id] = checks
    return checks


def checks_by_quote(entry_id: int) -> dict[int, QuoteCheck]:
    """Each quote of the entry's working copy, checked, by quote id."""
    return {
        check.quote.pk: check for check in entry_quote_checks(entry_id) if check.quote is not None
    }


def verdict_html(check: QuoteCheck | None) -> SafeString | str:
    """The verdict as the inline shows it beside the quote, with the fix when there is one."""
    if check is None or check.quote is None:
        return "Save the quote to check it against the transcript."
    verdict = check.verdict
    labels = {
        Outcome.MATCH: "✔ Matches the transcript",
        Outcome.ELSEWHERE: "⚠ Said at another time",
        Outcome.NOT_FOUND: "✖ Not found in the transcript",
        Outcome.NO_TRANSCRIPT: "No transcript",
    }
    fix: SafeString | str = ""
    if verdict.verdict is Outcome.ELSEWHERE and verdict.found_at is not None:
        fix = format_html(
            ' <a href="{}">Move the quote to {}</a>',
            reverse("desk:quote-move", args=[check.quote.pk]),
            format_timestamp(verdict.found_at),
        )
    return format_html(
        '<span class="quote-verdict" data-verdict="{}"><strong>{}</strong>: {}</span>{}',
        verdict.verdict,
        labels[verdict.verdict],
        verdict.message,
        fix,
    )


class QuoteForm(forms.ModelForm[Quote]):
    """A quote whose start may be left empty: the transcript then suggests it (and the
    speaker), filled into the form for the editor to confirm by saving again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["start"].required = False
        self.fields["start"].help_text = (
            "Where the quote starts, e.g. 25:38. Leave it empty to have it suggested from the "
            "episode's transcript."
        )
        self.fields["speaker"].required = False

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors or data.get("DELETE"):
            return data
        if data.get("start") is not None and data.get("speaker") is not None:
            return data
        episode, text = data.get("episode"), (data.get("text") or "").strip()
        if episode is None or not text:
            self._require_missing(data)
            return data
        found = suggest(text, load_transcripts([episode.pk]).get(episode.pk))
        if found.at is None:
            self._require_missing(data, episode)
            return data
        filled = self.data.copy()  # type: ignore[attr-defined]  # a QueryDict when bound
        suggested: list[str] = []
        if data.get("start") is None:
            filled[self.add_prefix("start")] = format_timestamp(found.at)
            suggested.append(format_timestamp(found.at))
        person = None if data.get("speaker") else _person_named(episode, found.speaker)
        if person is not None:
            filled[self.add_prefix("speaker")] = str(person.pk)
            suggested.append(f"said by {person.name}")
            # The autocomplete labels only the people the formset preloaded.
            known = getattr(getattr(self.fields["speaker"].widget, "widget", None), "known", None)
            if known is not None:
                known[str(person.pk)] = str(person)
        if not suggested:
            # Only the speaker is missing and nobody on the episode has the transcript's label.
            self._require_missing(data)
            return data
        self.data = filled
        raise forms.ValidationError(
            f"Suggested from the transcript: {', '.join(suggested)} "
            f"(score {found.score:.0f}). Check it and save again."
        )

    def _require_missing(self, data: dict[str, Any], episode: Episode | None = None) -> None:
        why = (
            " The episode's transcript does not have it, so nothing can be suggested."
            if episode is not None
            else ""
        )
        if data.get("start") is None:
            self.add_error("start", "Enter where the quote starts, e.g. 25:38." + why)
        if data.get("speaker") is None:
            self.add_error("speaker", "Choose who said it.")


def _person_named(episode: Episode, label: str | None) -> Person | None:
    """The person on the episode whom the transcript's speaker label names."""
    if not label:
        return None
    for appearance in Appearance.objects.filter(episode=episode).select_related("person"):
        if speaker_agrees(label, appearance.person.name):
            return appearance.person
    return Person.objects.filter(name__iexact=label.strip()).first()


def move_quote(request: HttpRequest, quote_id: int) -> HttpResponse:
    """Set a quote's start to where the transcript has it (an `elsewhere` verdict's fix)."""
    if not can(request.user, Action.EDIT):
        raise PermissionDenied("You do not have permission to edit entries.")
    quote = get_object_or_404(Quote.objects.select_related("entry", "episode"), pk=quote_id)
    entry = quote.entry
    require(request.user, Action.EDIT, entry)
    back = reverse("admin:glossary_entry_change", args=[entry.pk]) + "#quotes-group"
    check = checks_by_quote(entry.pk).get(quote.pk)
    verdict = check.verdict if check else None
    if verdict is None or verdict.verdict is not Outcome.ELSEWHERE or verdict.found_at is None:
        messages.info(request, "The transcript no longer places this quote at another time.")
        return HttpResponseRedirect(back)
    found_at = verdict.found_at
    if request.method == "POST":
        with transaction.atomic():
            moved = Quote.objects.select_for_update().get(pk=quote.pk)
            if moved.start != quote.start:
                messages.info(request, "Someone changed the quote's time since; nothing moved.")
                return HttpResponseRedirect(back)
            shift = found_at - moved.start
            moved.start = found_at
            if moved.end is not None:
                moved.end = max(found_at, moved.end + shift)
            moved.save(update_fields=["start", "end"])
            # A change to what the entry says: a version credited to who clicked, so
            # they cannot approve it themselves.
            publishing.record_edit(
                entry,
                user=acting_user(request),
                comment=f"Moved a quote from {format_timestamp(quote.start)} to "
                f"{format_timestamp(found_at)}, where the transcript has it.",
            )
        messages.success(
            request,
            f"Moved the quote to {format_timestamp(found_at)}. It is published with the next "
            "version.",
        )
        return HttpResponseRedirect(back)
    return TemplateResponse(
        request,
        "editorial/gates_confirm.html",
        {
            **site.each_context(request),
            "title": "Move the quote to where it was said",
            "entry": entry,
            "question": f"Move this quote from {format_timestamp(quote.start)} to "
            f"{format_timestamp(found_at)}?",
            "quoted": quote.text,
            "explanation": f"The episode's transcript has it at {format_timestamp(found_at)} "
            f"(more than {tolerance()} seconds from where it is placed). {verdict.message}",
            "button": f"Move to {format_timestamp(found_at)}",
            "cancel_url": back,
        },
    )


class QuoteCheckRunAdmin(DeskModelAdmin[QuoteCheckRun]):
    """Runs of the bulk check, with their progress; anyone who edits entries may start one."""

    list_display = ["created_at", "state", "progress", "started_by", "finished_at"]
    readonly_fields = [
        "state",
        "progress",
        "started_by",
        "created_at",
        "started_at",
        "finished_at",
        "counts",
        "problems_table",
        "error",
    ]
    fields = [*readonly_fields]

    @admin.display(description="progress")
    def progress(self, obj: QuoteCheckRun) -> str:
        return f"{obj.done:,} of {obj.total:,} checked ({obj.percent}%)"

    @admin.display(description="problems found")
    def problems_table(self, obj: QuoteCheckRun) -> SafeString | str:
        if not obj.problems:
            return "None so far."
        return format_html_join(
            "",
            "<p>{} · {} · {} at {}: {} (found at {}) “{}”</p>",
            (
                (
                    p["entry"],
                    p["kind"],
                    p["episode"],
                    p["stored_at"],
                    p["verdict"],
                    p["found_at"],
                    p["text"],
                )
                for p in obj.problems
            ),
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return can(request.user, Action.EDIT)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.EDIT)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return can(request.user, Action.EDIT)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """Start a run (POST), after saying what it does (GET)."""
        if not self.has_add_permission(request):
            raise PermissionDenied("You do not have permission to edit entries.")
        listing = reverse("admin:editorial_quotecheckrun_changelist")
        if request.method == "POST":
            started = quote_verification_runs.start(
                acting_user(request), enqueue=verify_all_quotes.delay
            )
            messages.success(
                request, "Queued: every quote is being checked against the transcripts."
            )
            return HttpResponseRedirect(
                reverse("admin:editorial_quotecheckrun_change", args=[started.pk])
            )
        return TemplateResponse(
            request,
            "editorial/gates_confirm.html",
            {
                **site.each_context(request),
                "title": "Check every quote against the transcripts",
                "question": "Check every quote and quoted phrase on the desk against its "
                "episode's transcript?",
                "explanation": "A background worker does it; this page's list shows how far "
                "it has got and what it found.",
                "button": "Start",
                "cancel_url": listing,
            },
        )
