"""The desk's forms: the entry form that catches stale saves, inline formsets that keep
the entry page's query count flat, the citation form, and the scheduling form."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.admin.widgets import AdminDateWidget, AdminTimeWidget, AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.forms.utils import ErrorList
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import slugify

from editorial import newsroom, workflow
from editorial.admin.base import CheckedAutocompleteSelect, possible_ids
from editorial.models import ScheduledAction, WorkflowEvent
from editorial.permissions import Action, can
from editorial.refused import edit_token
from glossary import publishing
from glossary.fields import SingleLineFormField, WebURLValidator, refuse_line_breaks
from glossary.models import (
    Citation,
    Entry,
    EntryRedirect,
    EpisodeReference,
    PublicRecord,
    Source,
    normalise_url,
)


class KnownAutocompleteSelect(CheckedAutocompleteSelect):
    """An autocomplete that labels its selected value from a preloaded map.

    Django's widget runs one query per row to label the selected option; on
    an entry with forty quotes that is forty queries. The formset loads every
    selected object in one query per field and hands the labels in here.
    """

    known: dict[str, str] | None = None

    def optgroups(self, name: str, value: Any, attr: Any = None) -> list[Any]:
        if self.known is None:
            return super().optgroups(name, value, attr)
        selected = possible_ids(v for v in value if v not in ("", None))
        default: tuple[None, list[dict[str, Any]], int] = (None, [], 0)
        groups = [default]
        if not self.is_required and not self.allow_multiple_selected:
            default[1].append(self.create_option(name, "", "", False, 0))
        for index, pk in enumerate(selected, start=1):
            if pk in self.known:
                default[1].append(self.create_option(name, pk, self.known[pk], True, index))
        return groups


class QuietErrorList(ErrorList):
    """Django's error list, except that an empty one is "" at once.

    Django renders the list's template even when it holds nothing (the template then
    gives ""): the entry page shows hundreds of empty lists, one for each field of
    every inline row, and rendering them was a tenth of the page's time.
    """

    def render(
        self, template_name: str | None = None, context: Any = None, renderer: Any = None
    ) -> SafeString:
        if not self.data:
            return SafeString("")
        return super().render(template_name, context, renderer)

    __str__ = render
    __html__ = render


class PreloadingInlineFormSet(forms.BaseInlineFormSet[Any, Any, Any]):
    """Loads the labels of every autocomplete's selected value once for all rows."""

    error_class = QuietErrorList

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._preload_autocompletes()
        self._share_choices()

    def _preload_autocompletes(self) -> None:
        empty = self.empty_form
        for name, field in empty.fields.items():
            widget = getattr(field.widget, "widget", None)  # inside the related-field wrapper
            if (
                not isinstance(widget, KnownAutocompleteSelect)
                or not isinstance(field, forms.ModelChoiceField)
                or field.queryset is None
            ):
                continue
            values = set(
                possible_ids(
                    v for form in self.forms for v in [form[name].value()] if v not in ("", None)
                )
            )
            objects = self._label_queryset(field.queryset.model, values) if values else []
            known = {str(obj.pk): str(obj) for obj in objects}
            for form in [*self.forms, empty]:
                form.fields[name].widget.widget.known = known

    @staticmethod
    def _label_queryset(model: type[Model], pks: set[str]) -> Any:
        qs = model._default_manager.filter(pk__in=pks)
        if model is EpisodeReference:
            qs = qs.select_related("episode")
        if hasattr(model, "show"):
            qs = qs.select_related("show")
        return qs

    def _share_choices(self) -> None:
        """Plain selects (not autocompletes) evaluate their choices once, not per row.

        Hidden fields are left alone: a row's hidden `id` is a model choice field
        over the whole part table (every citation of every entry), and listing it
        would read and label all of them. It renders its own value and validates
        with one lookup. The plain selects that remain list only this entry's rows
        (a disclosure's claim); every unbounded table is an autocomplete.
        """
        for name, field in self.empty_form.fields.items():
            if field.widget.is_hidden:
                continue
            if isinstance(field, forms.ModelChoiceField) and not isinstance(
                getattr(field.widget, "widget", None), AutocompleteSelect
            ):
                # A model choice field's choices iterate its queryset (a ModelChoiceIterator).
                choices = list(field.choices)  # type: ignore[arg-type]
                for form in [*self.forms, self.empty_form]:
                    shared = form.fields[name]
                    assert isinstance(shared, forms.ModelChoiceField)  # noqa: S101 - same form
                    shared.choices = choices


class CitationForm(forms.ModelForm[Citation]):
    """Cite a known source, or paste a URL: a URL we already have resolves to its source."""

    new_url = forms.CharField(
        label="or paste a URL",
        required=False,
        max_length=2000,
        validators=[WebURLValidator()],
        help_text="A URL already in the library is reused; a new one needs a title.",
        widget=forms.URLInput(attrs={"size": 40}),
    )
    new_title = SingleLineFormField(
        label="title for a new source",
        required=False,
        max_length=300,
        validators=[refuse_line_breaks],
    )
    # Who is filling the form in (CitationInline.get_formset sets it).
    writer: Any = None

    class Meta:
        model = Citation
        fields = ["order", "source", "new_url", "new_title", "note", "checked_on", "checked_by"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source"].required = False

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        url = (cleaned.get("new_url") or "").strip()
        if url and not cleaned.get("source"):
            existing = Source.objects.filter(url=normalise_url(url)).first()
            if existing is not None:
                cleaned["source"] = existing
            elif "new_title" in self.errors:
                pass  # the title's own error (a line break, its length) says what to fix
            elif not (cleaned.get("new_title") or "").strip():
                self.add_error("new_title", "This URL is new to the library: give it a title.")
            else:
                # Created now so the row's constraints validate against a saved source;
                # if the page has other errors the new source is kept, not lost.
                cleaned["source"], created = Source.objects.get_or_create(
                    url=normalise_url(url), defaults={"title": cleaned["new_title"].strip()}
                )
                if created:
                    # Its title is the writer's: they are an author of any change that
                    # shows it to readers (workflow.records_edited_in_change).
                    publishing.note_record_edits(
                        PublicRecord.Kind.SOURCE, [cleaned["source"].pk], user=self.writer
                    )
        elif not cleaned.get("source") and not self.errors and self.has_changed():
            self.add_error("source", "Choose a source or paste its URL.")
        return cleaned


def display_name(user: Any) -> str:
    if user is None:
        return "Someone"
    return str(user.get_full_name() or user.get_username())


class ConflictCheckingForm(forms.ModelForm[Entry]):
    """Refuses to save over a change made after the form was opened.

    The hidden `edit_token` records the entry's `updated_at` (and latest version)
    when the form was rendered. If someone saved since, the form is invalid: the
    admin re-shows it with everything typed, names who saved, links to the
    comparison, and carries the new token so a deliberate second save wins.
    """

    edit_token = forms.CharField(widget=forms.HiddenInput, required=False)
    # Keeps a refused submission for its author and answers the address of its page
    # (EntryAdmin.get_form sets it; editorial.refused). None: refuse without keeping.
    keeper: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("error_class", QuietErrorList)
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["edit_token"].initial = edit_token(self.instance)

    def has_changed(self) -> bool:
        return bool(set(self.changed_data) - {"edit_token"})

    def clean_aliases(self) -> str:
        """Each alias becomes a redirect (glossary.publishing): its name and address must fit."""
        text: str = self.cleaned_data.get("aliases", "")
        limit = EntryRedirect._meta.get_field("slug").max_length or 200
        for number, line in enumerate(text.splitlines(), start=1):
            alias = line.strip()
            if len(alias) > limit or len(slugify(alias)) > limit:
                raise ValidationError(
                    f"Line {number}: “{alias[:40]}…” is too long for an alias "
                    f"({len(alias)} characters; at most {limit})."
                )
        return text

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.instance.pk:
            return cleaned
        # Lock the row: a concurrent save waits here and then sees the new token.
        # (The admin's change view runs in one transaction.)
        publishing.hold_off_rerender()
        current = (
            Entry.objects.select_for_update(of=("self",))
            .select_related("updated_by")
            .filter(pk=self.instance.pk)
            .first()
        )
        if current is None:
            raise ValidationError(
                "Someone deleted this entry after you opened it, so nothing was saved. What "
                "you typed is still below: copy what you want to keep into a new entry.",
                code="deleted",
            )
        now_token = edit_token(current)
        sent = self.data.get(self.add_prefix("edit_token"), "")
        if sent == now_token:
            return cleaned
        opened_version = sent.rpartition("|")[2] if "|" in sent else ""
        latest = workflow.latest_version_number(current)
        kept_url = ""
        if self.keeper is not None:
            opened = int(opened_version) if opened_version.isdecimal() else None
            kept_url = self.keeper(current, self.data, opened, latest)
        data = self.data.copy()  # type: ignore[attr-defined]  # a QueryDict
        data[self.add_prefix("edit_token")] = now_token
        self.data = data
        when = newsroom.format_instant(current.updated_at) if current.updated_at else "just now"
        compare_url = reverse("admin:glossary_entry_compare", args=[current.pk])
        if opened_version.isdecimal() and int(opened_version) and latest:
            compare_url += f"?a={opened_version}&b={latest}"
        message = format_html(
            "{} saved this entry at {}, after you opened it. Nothing from your form "
            "has been saved yet; your changes are still below. "
            '<a href="{}" target="_blank" rel="noopener">Compare what they changed</a>, '
            "then save again to keep your version (theirs stays in the history).",
            display_name(current.updated_by),
            when,
            compare_url,
        )
        if kept_url:
            message = format_html(
                '{} Your edit is also kept as a <a href="{}" data-testid="refused-edit-link">'
                "refused edit</a>: compare it with their draft field by field and take yours "
                "where you choose, even after you leave this page.",
                message,
                kept_url,
            )
        raise ValidationError(message, code="stale")


class ScheduledActionForm(forms.ModelForm[ScheduledAction]):
    """A publish or unpublish at a date and time typed in the newsroom's zone."""

    # The admin's "Today" and "Now" fill in newsroom time (the page's zone is the
    # newsroom's: editorial.newsroom.DeskTimeMiddleware); admin.js adds "Now + 30 min",
    # which fills in both fields, as the date may turn over.
    due_date = forms.DateField(
        label="Date", widget=AdminDateWidget, help_text="The day in newsroom time."
    )
    due_time = forms.TimeField(
        label="Time",
        widget=AdminTimeWidget(attrs={"data-soon-minutes": "30", "data-date-field": "due_date"}),
        help_text="Newsroom time (the zone named at the top of the page), on the 24-hour "
        "clock, e.g. 09:00 or 17:30. The entry is published at the scheduler's first run "
        "after this (within a minute), and only if it passes the publish checks then.",
    )
    # The version this page named, which saving approves (clean): a waiting row's, or the
    # one the publish page's schedule link names; none on a blank new schedule, which
    # approves the newest and names it in the confirmation.
    shown_version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # The entry's newest workflow event this page knew of (workflow.last_event_id): an
    # unpublish, archive or request for changes after it is named before saving approves.
    seen_through = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)
    # Who is saving (ScheduledActionAdmin.get_form): the schedule is carried out as them.
    approver: Any = None

    class Meta:
        model = ScheduledAction
        fields = ["entry", "action"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial.setdefault("shown_version", self.instance.version)
            self.initial.setdefault("seen_through", self.instance.seen_event)
        if self.instance.pk and self.instance.due_at:
            local = newsroom.to_local(self.instance.due_at)
            self.initial.setdefault("due_date", local.date())
            self.initial.setdefault("due_time", local.time().replace(second=0, microsecond=0))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        day, time = data.get("due_date"), data.get("due_time")
        if day is None or time is None:
            return data
        try:
            due_at = newsroom.from_local(datetime.datetime.combine(day, time))
        except ValidationError as exc:
            raise ValidationError({"due_time": exc.messages}) from None
        if due_at <= timezone.now():
            raise ValidationError(
                {
                    "due_time": f"{newsroom.format_instant(due_at)} has already passed; "
                    "choose a time in the future."
                }
            )
        self.instance.due_at = due_at
        entry, action = data.get("entry"), data.get("action")
        if entry is None and self.instance.pk:
            entry = self.instance.entry  # a waiting row's entry is read-only
        if entry is not None and self.approver is not None:
            if not can(self.approver, Action.SCHEDULE, entry):
                # A team member whose role on this entry's show does not schedule (a writer
                # there, an editor elsewhere): the run would refuse it anyway.
                raise ValidationError(
                    {
                        "entry": f"Your role on the show of “{entry.term}” does not let you "
                        "schedule its publication or withdrawal."
                    }
                )
        if entry is not None and action:
            waiting = ScheduledAction.objects.filter(
                entry=entry, action=action, state=ScheduledAction.State.PENDING
            ).exclude(pk=self.instance.pk)
            if waiting.exists():
                raise ValidationError(
                    f"“{entry.term}” already has a {action} waiting; change that one's time "
                    "or cancel it first."
                )
        if entry is not None and action == ScheduledAction.Action.PUBLISH:
            data["shown_version"] = self._approved(entry, data.get("shown_version"))
        else:
            data["shown_version"] = None
        if entry is not None:
            data["seen_through"] = self._seen(entry, data.get("seen_through"))
        return data

    def _seen(self, entry: Entry, seen: int | None) -> int:
        """What had happened to the entry when this page was shown: an objection since
        (workflow.OBJECTIONS) is named, and saving again approves the entry as it is now.
        A new schedule opened without a record of it approves the entry as it is now;
        a waiting one made before approvals recorded it, likewise."""
        newest = workflow.last_event_id(entry)
        if seen is None and (self.instance.pk is None or self.instance.seen_event is None):
            return newest
        objection = (
            WorkflowEvent.objects.filter(
                entry=entry, pk__gt=seen or 0, action__in=workflow.OBJECTIONS
            )
            .select_related("actor")
            .order_by("-pk")
            .first()
        )
        ours = not seen or WorkflowEvent.objects.filter(entry=entry, pk=seen).exists()
        if seen is not None and seen <= newest and ours and objection is None:
            return seen
        data = self.data.copy()  # type: ignore[attr-defined]  # a QueryDict
        data[self.add_prefix("seen_through")] = str(newest)
        self.data = data
        if objection is None:  # a record this entry never had (typed by hand)
            raise ValidationError(
                f"This page's record of what happened to “{entry.term}” is not one it has "
                "had. Review the entry, then save again."
            )
        who = objection.actor.get_username() if objection.actor else "someone"
        raise ValidationError(
            f"{who} {workflow.OBJECTED_AS[objection.action]} “{entry.term}” on "
            f"{newsroom.format_instant(objection.at)}, after this page was opened. Review "
            "the entry as it is now, then save again to approve it."
        )

    def _approved(self, entry: Entry, shown: int | None) -> int:
        """The version saving approves: refused to one of its authors, and only the version
        this page named. A new schedule opened without naming one approves the newest,
        which the confirmation names; a waiting one names the version it approved, so a
        save made after the entry was saved again asks to review the new version first."""
        reason = "" if self.approver is None else workflow.authorship(entry, self.approver)
        if reason and not settings.WORKFLOW_ALLOW_SELF_APPROVAL:
            mine = (
                f"{reason} (“{entry.term}”), so another editor has to approve it: "
                "ask one to schedule it."
            )
            raise ValidationError({"entry": mine} if "entry" in self.fields else mine)
        newest = entry.versions.select_related("created_by").order_by("-number").first()
        if newest is None:
            none = f"“{entry.term}” has no saved version to publish yet."
            raise ValidationError({"entry": none} if "entry" in self.fields else none)
        if shown == newest.number or (shown is None and self.instance.pk is None):
            return newest.number
        # Named on the page now; saving again approves it.
        data = self.data.copy()  # type: ignore[attr-defined]  # a QueryDict
        data[self.add_prefix("shown_version")] = str(newest.number)
        self.data = data
        who = newest.created_by.get_username() if newest.created_by else "someone"
        when = newsroom.format_instant(newest.created_at)
        saved = f"version {newest.number}, saved by {who} on {when}"
        raise ValidationError(
            (
                f"“{entry.term}” was saved again since this page showed version {shown}: "
                if shown is not None
                else f"Saving this schedules the publish of “{entry.term}” "
            )
            + f"{saved}. Review that version (the entry's page shows and compares it), then "
            "save again to approve it."
        )
