"""Who is editing: the entry page's heartbeat, and the pages of a person's refused edits.

The heartbeat (`heartbeat_view`) is posted by the entry page every
PRESENCE_HEARTBEAT_SECONDS and answers who else has the entry open; `leave_view`
takes the mark away when the page is left (editorial.presence). The refused-edit
pages list, compare, take from and discard what a stale save kept (editorial.refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone

from editorial import presence, refused
from editorial.models import RefusedEdit
from editorial.permissions import Action, acting_user, can
from glossary.models import Entry


def panel_context(request: HttpRequest, entry: Entry) -> dict[str, Any]:
    """The presence banner of `entry`'s page: marks the viewer present, names the others."""
    user = acting_user(request)
    now = timezone.now()
    presence.mark(entry, user, now=now)
    return {
        "others": [p.sentence(now) for p in presence.others(entry, user, now=now)],
        "heartbeat_url": reverse("desk:presence-heartbeat", args=[entry.pk]),
        "leave_url": reverse("desk:presence-leave", args=[entry.pk]),
        "interval_ms": settings.PRESENCE_HEARTBEAT_SECONDS * 1000,
        "kept": refused.waiting_for(user, entry),
        "refused_url": reverse("desk:refused-list"),
    }


def _entry_for(request: HttpRequest, entry_id: int) -> Entry:
    if request.method != "POST":
        raise PermissionDenied("The entry page posts its presence; there is nothing to see here.")
    if not can(request.user, Action.VIEW):
        raise PermissionDenied("You do not have permission to view entries.")
    return get_object_or_404(Entry, pk=entry_id)


def heartbeat_view(request: HttpRequest, entry_id: int) -> JsonResponse:
    """The open page's report: mark the viewer present and answer who else is."""
    entry = _entry_for(request, entry_id)
    user = acting_user(request)
    now = timezone.now()
    presence.mark(entry, user, now=now)
    # The admin's wrapper marks it never to be cached.
    return JsonResponse({"others": [p.as_json(now) for p in presence.others(entry, user, now=now)]})


def leave_view(request: HttpRequest, entry_id: int) -> HttpResponse:
    """The page was left (navigator.sendBeacon): the viewer is no longer there."""
    entry = _entry_for(request, entry_id)
    presence.leave(entry, acting_user(request))
    return HttpResponse(status=204)


# --- Refused edits ----------------------------------------------------------------------


@dataclass
class RowChange:
    """A row of an inline as the refused edit would have left it, against the draft."""

    group: str
    label: str
    fields: list[tuple[str, str, str]]  # (field, the draft's value, the refused edit's)


def _shown(form: Any, name: str, value: Any) -> str:
    field = form.fields.get(name)
    if value in (None, "", []):
        return "—"
    queryset = getattr(field, "queryset", None)
    if queryset is not None:
        found = queryset.filter(pk=value).first() if str(value).isdecimal() else None
        return str(found) if found is not None else f"(#{value}, since deleted)"
    if isinstance(value, bool) or value in ("on", "True", "False"):
        return "yes" if value in (True, "on", "True") else "no"
    return str(value)


def inline_changes(request: HttpRequest, kept: RefusedEdit, entry: Entry) -> list[RowChange]:
    """The rows (references, disclosures, quotes, citations, see-also) the refused edit
    added, changed or deleted, compared with the draft's rows now. Read-only: they are
    for copying by hand into the entry page."""
    model_admin = admin.site._registry[Entry]
    changes: list[RowChange] = []
    prefixes: dict[str, int] = {}
    for formset_class, inline in model_admin.get_formsets_with_inlines(request, entry):
        prefix = formset_class.get_default_prefix()
        prefixes[prefix] = prefixes.get(prefix, 0) + 1
        if prefixes[prefix] != 1:
            prefix = f"{prefix}-{prefixes[prefix]}"
        if f"{prefix}-TOTAL_FORMS" not in kept.data:
            continue
        data = {key: values[-1] for key, values in kept.data.items() if values}
        formset = formset_class(
            data=data, instance=entry, prefix=prefix, queryset=inline.get_queryset(request)
        )
        if not formset.management_form.is_valid():
            continue
        group = str(inline.model._meta.verbose_name_plural).capitalize()
        for number, form in enumerate(formset.forms, start=1):
            deleted = bool(form.data.get(f"{form.prefix}-DELETE"))
            if not form.has_changed() and not deleted:
                continue
            is_new = form.instance.pk is None
            if is_new and not form.has_changed():
                continue
            label = (
                f"new row {number}"
                if is_new
                else f"row {number}: {form.instance}"
                + (" (deleted in your edit)" if deleted else "")
            )
            fields = []
            for name in form.changed_data:
                if name in ("DELETE", "id"):
                    continue
                before = form.initial.get(name) if not is_new else None
                fields.append(
                    (
                        str(form.fields[name].label or name),
                        _shown(form, name, before),
                        _shown(form, name, form.data.get(form.add_prefix(name))),
                    )
                )
            changes.append(RowChange(group, label, fields))
    return changes


def _kept_or_404(request: HttpRequest, refused_id: int) -> RefusedEdit:
    return get_object_or_404(refused.visible_to(request.user), pk=refused_id)


def refused_list_view(request: HttpRequest) -> TemplateResponse:
    kept = list(refused.visible_to(request.user).order_by("-refused_at", "-pk"))
    return TemplateResponse(
        request,
        "admin/refused/list.html",
        {
            **admin.site.each_context(request),
            "title": "Refused edits" if refused.is_admin(request.user) else "My refused edits",
            "kept": kept,
            "everyone": refused.is_admin(request.user),
        },
    )


def refused_view(request: HttpRequest, refused_id: int) -> HttpResponse:
    """One refused edit against the draft now, with a "take mine" box per field."""
    kept = _kept_or_404(request, refused_id)
    entry = Entry.objects.filter(pk=kept.entry_id).first() if kept.entry_id else None
    error = ""
    if request.method == "POST" and entry is not None:
        take = request.POST.getlist("take")
        try:
            version = refused.merge(
                kept, user=acting_user(request), take=take, token=request.POST.get("token", "")
            )
        except refused.MergeError as exc:
            error = str(exc)
            entry.refresh_from_db()
        else:
            taken = ", ".join(refused.FIELDS[n].lower() for n in take if n in refused.FIELDS)
            messages.success(
                request,
                f"Took your {taken} into the draft as version {version.number}. Readers see "
                "nothing of it until another editor publishes it.",
            )
            return HttpResponseRedirect(reverse("admin:glossary_entry_change", args=[entry.pk]))
    elif request.method == "POST":
        raise PermissionDenied("The entry was deleted: this edit can only be read or discarded.")
    mine = kept.author_id == request.user.pk
    return TemplateResponse(
        request,
        "admin/refused/detail.html",
        {
            **admin.site.each_context(request),
            "title": f"Your refused edit of “{kept.term}”"
            if mine
            else f"Refused edit of “{kept.term}”",
            "kept": kept,
            "entry": entry,
            "choices": refused.choices(kept, entry) if entry is not None else [],
            "rows": inline_changes(request, kept, entry) if entry is not None else [],
            "token": refused.edit_token(entry) if entry is not None else "",
            "can_take": mine and entry is not None and can(request.user, Action.EDIT),
            "error": error,
            "a_label": "The draft now",
            "b_label": "Your refused edit" if mine else f"{kept.author}'s refused edit",
        },
    )


def discard_view(request: HttpRequest, refused_id: int) -> HttpResponse:
    kept = _kept_or_404(request, refused_id)
    if request.method != "POST":
        raise PermissionDenied("Discard with the button on the refused edit's page.")
    refused.discard(kept, user=acting_user(request))
    messages.success(request, f"Discarded the refused edit of “{kept.term}”.")
    return HttpResponseRedirect(reverse("desk:refused-list"))
