"""The publish checks on the entry page, and the pages that fix what they found in one click.

- *The checks panel* (`gate_panel`): every result of editorial.gates.run_gates,
  blocking failures first, with the entry's waiting or failed schedule.

- *Generate the sponsorship disclosure*: adds a sponsorship Disclosure with empty
  text for the episode; the page then shows the sentence made from the episode's
  data ("Episode 28 is a Season 2 episode sponsored by Galileo (intro at 0:05).").
- *Mark an interest disclosure not needed*: an editor records (with an optional
  reason) that a quoted guest's organisation needs no disclosure on this entry.

Both show what they will do on GET and act only on POST; both check permissions
on the server (editorial.permissions).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.contrib import messages
from django.contrib.admin import site
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from editorial import newsroom
from editorial.admin.quote_verdicts import entry_quote_checks
from editorial.gates import GateResult, blocking_failures, run_gates, warnings
from editorial.models import InterestDisclosureWaiver, ScheduledAction
from editorial.permissions import Action, Role, acting_user, can, require
from glossary import publishing
from glossary.entry_page import sponsorship_sentence
from glossary.models import Disclosure, Entry, Episode, Organisation


def _entry_change_url(entry: Entry, anchor: str = "") -> str:
    url = reverse("admin:glossary_entry_change", args=[entry.pk])
    return f"{url}#{anchor}" if anchor else url


def generate_sponsorship(request: HttpRequest, entry_id: int, episode_id: int) -> HttpResponse:
    """Add the generated sponsorship disclosure for `episode` to `entry`."""
    if not can(request.user, Action.EDIT):
        raise PermissionDenied("You do not have permission to edit entries.")
    entry = get_object_or_404(Entry, pk=entry_id)
    require(request.user, Action.EDIT, entry)
    episode = get_object_or_404(
        Episode.objects.select_related("show").prefetch_related("sponsorships__organisation"),
        pk=episode_id,
    )
    sentence = sponsorship_sentence(
        episode.number,
        episode.season,
        [(s.organisation.name, s.read_at) for s in episode.sponsorships.all()],
    )
    if not sentence:
        messages.error(
            request, f"Episode {episode.number} has no sponsor recorded; nothing to add."
        )
        return HttpResponseRedirect(_entry_change_url(entry))
    if request.method == "POST":
        with transaction.atomic():
            exists = Disclosure.objects.filter(
                entry=entry, kind=Disclosure.Kind.SPONSORSHIP, episode=episode
            ).exists()
            if not exists:
                order = (entry.disclosures.aggregate(n=Max("order"))["n"] or 0) + 1
                sponsors = list(episode.sponsorships.all())
                Disclosure.objects.create(
                    entry=entry,
                    kind=Disclosure.Kind.SPONSORSHIP,
                    episode=episode,
                    organisation=sponsors[0].organisation if len(sponsors) == 1 else None,
                    order=order,
                    text="",
                )
                # A change to what the entry says: a version credited to who clicked,
                # so they cannot approve it themselves.
                publishing.record_edit(
                    entry,
                    user=acting_user(request),
                    comment=f"Added the sponsorship disclosure for episode {episode.number}.",
                )
        if exists:
            messages.info(request, f"“{entry.term}” already discloses episode {episode.number}.")
        else:
            messages.success(
                request,
                f"Added the sponsorship disclosure to “{entry.term}”: “{sentence}” "
                "It is published with the next version.",
            )
        return HttpResponseRedirect(_entry_change_url(entry, "disclosures-group"))
    return TemplateResponse(
        request,
        "editorial/gates_confirm.html",
        {
            **site.each_context(request),
            "title": "Add a sponsorship disclosure",
            "entry": entry,
            "question": f"Add this sponsorship disclosure to “{entry.term}”?",
            "quoted": sentence,
            "explanation": "The sentence is made from the episode's sponsor records, so it "
            "stays right if they are corrected. You can edit or remove it under “Disclosures”.",
            "button": "Add the disclosure",
            "cancel_url": _entry_change_url(entry),
        },
    )


def interest_not_needed(request: HttpRequest, entry_id: int, organisation_id: int) -> HttpResponse:
    """Record that `organisation` needs no interest disclosure on `entry`."""
    if not can(request.user, Action.PUBLISH):
        raise PermissionDenied("Only editors can decide that a disclosure is not needed.")
    entry = get_object_or_404(Entry, pk=entry_id)
    require(request.user, Action.PUBLISH, entry)
    organisation = get_object_or_404(Organisation, pk=organisation_id)
    reason = request.POST.get("reason", "").strip() if request.method == "POST" else ""
    if request.method == "POST":
        try:
            with transaction.atomic():
                InterestDisclosureWaiver.objects.create(
                    entry=entry,
                    organisation=organisation,
                    decided_by=acting_user(request),
                    reason=reason,
                )
        except IntegrityError:
            messages.info(request, f"{organisation.name} was already marked not needed here.")
        else:
            messages.success(
                request,
                f"Marked: “{entry.term}” needs no disclosure of {organisation.name}'s interest. "
                "The publish checks no longer warn about it.",
            )
        return HttpResponseRedirect(_entry_change_url(entry))
    return TemplateResponse(
        request,
        "editorial/gates_confirm.html",
        {
            **site.each_context(request),
            "title": "Interest disclosure not needed",
            "entry": entry,
            "question": f"Mark that “{entry.term}” needs no disclosure of "
            f"{organisation.name}'s interest?",
            "explanation": "Do this when the organisation has no stake in what the entry "
            "quotes. The decision is recorded with your name.",
            "reason_field": True,
            "button": "Mark not needed",
            "cancel_url": _entry_change_url(entry, "disclosures-group"),
        },
    )


# Who does what a check asks, when not everyone may (GateResult.fixed_by).
WHO_ACTS: dict[Action, tuple[tuple[Role, ...], str]] = {
    Action.CONFIRM_CITATION: ((Role.FACT_CHECKER,), "A fact-checker confirms this"),
    Action.PUBLISH: ((Role.EDITOR,), "An editor decides this"),
    Action.EDIT: ((Role.WRITER, Role.EDITOR), "A writer or editor makes this change"),
}

_viewer: ContextVar[Any] = ContextVar("gate_viewer", default=None)


@contextmanager
def viewed_by(user: Any) -> Iterator[None]:
    """Within this block the checks panel offers its fixes to `user` (the change page's
    reader; a readonly field is rendered without the request)."""
    token = _viewer.set(user)
    try:
        yield
    finally:
        _viewer.reset(token)


def viewer() -> Any:
    """Who reads the change page being rendered (`viewed_by`), or None outside it."""
    return _viewer.get()


def fix_html(result: GateResult, user: Any, label: str = "Fix this") -> SafeString:
    """Where `user` fixes what `result` found: a link, or, when the fix is someone else's
    to make (a writer cannot set a citation's check date), who must act, by name."""
    if result.passed or not result.fix_url:
        return SafeString("")
    if result.fixed_by is None or (user is not None and can(user, result.fixed_by)):
        return format_html('<a href="{}">{}</a>', result.fix_url, label)
    if result.fallback_url:
        return format_html('<a href="{}">{}</a>', result.fallback_url, label)
    roles, doing = WHO_ACTS[result.fixed_by]
    people = [
        person.get_full_name() or person.get_username()
        for person in User.objects.filter(groups__name__in=[r.value for r in roles], is_active=True)
        .distinct()
        .order_by("first_name", "last_name", "username")[:3]
    ]
    ask = (
        f"ask {' or '.join(people)}"
        if people
        else "nobody has that role yet: an admin gives it to someone"
    )
    return format_html('<span class="gate-who">{}: {}.</span>', doing, ask)


def gate_panel(
    entry: Entry | None, *, now: datetime.datetime | None = None, user: Any = None
) -> SafeString:
    """The gate results as HTML for the entry's change page (a readonly field).

    Blocking failures first, then warnings, then what passed, each failure with the fix
    its reader (`user`, else the one `viewed_by` names) can make.
    """
    if entry is None or entry.pk is None:
        return render_to_string("editorial/gates_panel.html", {"unsaved": True})
    user = user if user is not None else _viewer.get()
    results = run_gates(entry, now=now, quote_checks=entry_quote_checks(entry.pk))
    # The entry's waiting schedule, or its last scheduled action if that failed:
    # the editor who scheduled it learns here (and on the dashboard) why it did not run.
    schedule = (
        ScheduledAction.objects.filter(entry=entry)
        .exclude(state=ScheduledAction.State.CANCELLED)
        .order_by("-created_at", "-pk")
        .first()
    )
    if schedule is not None and schedule.state == ScheduledAction.State.DONE:
        schedule = None
    return render_to_string(
        "editorial/gates_panel.html",
        {
            "schedule": schedule,
            "schedule_when": newsroom.format_instant(schedule.due_at) if schedule else "",
            "blocking": [(r, fix_html(r, user)) for r in blocking_failures(results)],
            "warnings": [(r, fix_html(r, user)) for r in warnings(results)],
            "passed": [r for r in results if r.passed],
            "entry": entry,
        },
    )
