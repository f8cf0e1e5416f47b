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

from editorial import presence, refused, workflow
from editorial.models import RefusedEdit
from editorial.permissions import Action, acting_user, can
from glossary.models import Citation, Entry


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

    label: str
    fields: list[tuple[str, str, str]]  # (field, the draft's value, the refused edit's)


@dataclass
class RowGroup:
    """One inline's rows the refused edit changed, and whether they can be taken."""

    prefix: str
    title: str
    kind: str  # the row model's name, a key of refused.PART_SECTIONS
    rows: list[RowChange]
    takeable: bool  # the draft still has these rows as the refused form was opened on


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


def _formsets(request: HttpRequest, kept: RefusedEdit, entry: Entry) -> list[tuple[Any, Any]]:
    """The entry page's inline formsets, bound to what the refused form sent, against the
    draft's rows now: (formset, inline) for each inline the refused form had."""
    model_admin = admin.site._registry[Entry]
    data = {key: values[-1] for key, values in kept.data.items() if values}
    found = []
    prefixes: dict[str, int] = {}
    for formset_class, inline in model_admin.get_formsets_with_inlines(request, entry):
        prefix = formset_class.get_default_prefix()
        prefixes[prefix] = prefixes.get(prefix, 0) + 1
        if prefixes[prefix] != 1:
            prefix = f"{prefix}-{prefixes[prefix]}"
        if f"{prefix}-TOTAL_FORMS" not in data:
            continue
        formset = formset_class(
            data=data, instance=entry, prefix=prefix, queryset=inline.get_queryset(request)
        )
        if formset.management_form.is_valid():
            found.append((formset, inline))
    return found


def _changed_rows(formset: Any) -> list[RowChange]:
    rows = []
    for number, form in enumerate(formset.forms, start=1):
        deleted = bool(form.data.get(f"{form.prefix}-DELETE"))
        is_new = form.instance.pk is None
        if not form.has_changed() and not (deleted and not is_new):
            continue
        label = (
            f"new row {number}"
            if is_new
            else f"row {number}: {form.instance}" + (" (deleted in your edit)" if deleted else "")
        )
        fields = [
            (
                str(form.fields[name].label or name),
                _shown(form, name, None if is_new else form.initial.get(name)),
                _shown(form, name, form.data.get(form.add_prefix(name))),
            )
            for name in form.changed_data
            if name not in ("DELETE", "id")
        ]
        rows.append(RowChange(label, fields))
    return rows


def inline_changes(request: HttpRequest, kept: RefusedEdit, entry: Entry) -> list[RowGroup]:
    """The rows (references, disclosures, quotes, citations, see-also) the refused edit
    added, changed or deleted, against the draft's rows now, by inline."""
    unchanged = refused.unchanged_parts(kept, entry)
    groups = []
    for formset, inline in _formsets(request, kept, entry):
        rows = _changed_rows(formset)
        if rows:
            kind = inline.model._meta.model_name
            groups.append(
                RowGroup(
                    formset.prefix,
                    str(inline.model._meta.verbose_name_plural).capitalize(),
                    kind,
                    rows,
                    kind in unchanged and inline.has_change_permission(request, entry),
                )
            )
    return groups


class AdminRowTaker:
    """Takes a refused edit's rows of the ticked inlines through the entry page's own
    formsets, so each row is checked and saved exactly as the entry page would."""

    def __init__(self, request: HttpRequest, kept: RefusedEdit, prefixes: list[str]) -> None:
        self.request, self.kept, self.prefixes = request, kept, prefixes
        self.saved: list[Any] = []

    def take(self, entry: Entry) -> list[str]:
        if not self.prefixes:
            return []
        model_admin = admin.site._registry[Entry]
        unchanged = refused.unchanged_parts(self.kept, entry)
        names = []
        for formset, inline in _formsets(self.request, self.kept, entry):
            if formset.prefix not in self.prefixes:
                continue
            title = str(inline.model._meta.verbose_name_plural)
            if not inline.has_change_permission(self.request, entry):
                raise refused.MergeError(f"You do not have permission to change {title}.")
            if inline.model._meta.model_name not in unchanged:
                raise refused.MergeError(
                    f"Nothing was taken: the draft's {title} were changed after your form was "
                    "opened, so taking yours would undo that. Copy what you need by hand."
                )
            if not formset.is_valid():
                problems = "; ".join(
                    f"{title} row {n}: "
                    + " ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in errors.items())
                    for n, errors in enumerate(formset.errors, start=1)
                    if errors
                ) or " ".join(str(e) for e in formset.non_form_errors())
                raise refused.MergeError(f"Nothing was taken: {problems}")
            model_admin.save_formset(self.request, None, formset, change=True)
            self.saved.append(formset)
            names.append(title)
        return names

    def recorded(self, entry: Entry, version: Any) -> None:
        """A check date set in a taken citation row is a fact-check, as on the entry page."""
        confirmed = [
            row.instance
            for formset in self.saved
            if formset.model is Citation
            for row in formset.forms
            if "checked_on" in row.changed_data
            and row.cleaned_data.get("checked_on")
            and not row.cleaned_data.get("DELETE")
        ]
        if confirmed:
            workflow.record_fact_checks(
                {entry.pk: confirmed},
                user=self.request.user,
                versions={entry.pk: version},
                on=max(c.checked_on for c in confirmed),
            )


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
        rows = AdminRowTaker(request, kept, request.POST.getlist("take_rows"))
        try:
            version = refused.merge(
                kept,
                user=acting_user(request),
                take=take,
                token=request.POST.get("token", ""),
                rows=rows,
            )
        except refused.MergeError as exc:
            error = str(exc)
            entry.refresh_from_db()
        else:
            taken = ", ".join(
                [refused.FIELDS[n].lower() for n in take if n in refused.FIELDS]
                + [str(f.model._meta.verbose_name_plural) for f in rows.saved]
            )
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
            "can_take_rows": mine and entry is not None,
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
