"""The desk's planning pages: "My work", assigning an entry, planning one, and the calendar.

Each page is wrapped in the admin's `admin_view` (editorial.admin.urls) and checks its
own permission through editorial.permissions; the work is done by
editorial.assignments and editorial.desk_calendar. The calendar is a plain table,
read and navigated without JavaScript.
"""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers, site
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import slugify

from editorial import assignments, desk_calendar, newsroom
from editorial.models import Assignment
from editorial.permissions import Action, acting_user, can, require
from glossary.models import Entry

Role = Assignment.Role

DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


class PersonField(forms.ModelChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Any) -> str:
        full = obj.get_full_name()
        return f"{full} ({obj.get_username()})" if full else obj.get_username()


class AssignForm(forms.Form):
    role = forms.ChoiceField(
        choices=Role.choices,
        help_text="A writer writes the body; a fact-checker confirms its citations.",
    )
    assignee = PersonField(
        queryset=User.objects.filter(is_active=True).order_by("username"),
        label="Person",
        help_text="Someone who holds the role: a writer cannot be the fact-checker. They are "
        "told by email (unless they turned desk email off).",
    )
    due_on = forms.DateField(
        label="Due",
        widget=DATE_INPUT,
        help_text="The day, in the newsroom's zone; it shows as overdue from the next day.",
    )
    note = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="What you ask of them (optional). Readers never see it.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        person, role = data.get("assignee"), data.get("role")
        if person is not None and role:
            try:
                assignments.check_assignee(person, role)
            except assignments.AssignmentError as exc:
                self.add_error("assignee", str(exc))
        return data


class PlanForm(forms.ModelForm):  # type: ignore[type-arg]
    """A planned entry: its term and address, who writes it and who checks it, by when."""

    writer = PersonField(
        queryset=User.objects.none(),
        help_text="Who writes the body. They are told by email.",
    )
    writer_due = forms.DateField(label="Writer's due date", widget=DATE_INPUT)
    fact_checker = PersonField(
        queryset=User.objects.none(),
        required=False,
        help_text="Optional: who confirms its citations once it is written.",
    )
    fact_checker_due = forms.DateField(
        label="Fact-checker's due date", widget=DATE_INPUT, required=False
    )
    note = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text="What the entry should cover (optional), for the people assigned.",
    )

    class Meta:
        model = Entry
        fields = ["term", "slug"]
        help_texts = {
            "term": "The term readers will look up. The entry stays a draft with no body "
            "until its writer writes it; the publish checks refuse an empty body.",
            "slug": "The page address; leave it empty to make it from the term.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False
        self.fields["writer"].queryset = assignments.eligible(Role.WRITER)  # type: ignore[attr-defined]
        self.fields["fact_checker"].queryset = assignments.eligible(Role.FACT_CHECKER)  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("slug") and data.get("term"):
            data["slug"] = slugify(data["term"])[:200]
            if not data["slug"]:
                self.add_error("slug", "The term makes no address: type a slug.")
            elif Entry.objects.filter(slug=data["slug"]).exists():
                self.add_error(
                    "slug",
                    f"An entry already has the address /glossary/{data['slug']}/: "
                    "type another slug.",
                )
        for person_field, due_field in [
            ("writer", "writer_due"),
            ("fact_checker", "fact_checker_due"),
        ]:
            person, due = data.get(person_field), data.get(due_field)
            if person is not None and due is None and due_field not in self.errors:
                self.add_error(due_field, "Give the day it is due.")
            if person is None and due is not None and person_field not in self.errors:
                self.add_error(person_field, "Choose who it is due from, or clear the date.")
            if due is not None:
                try:
                    assignments.check_due(due)
                except assignments.AssignmentError as exc:
                    self.add_error(due_field, str(exc))
        return data

    def planned(self) -> list[tuple[str, User, datetime.date]]:
        data = self.cleaned_data
        out = [(Role.WRITER.value, data["writer"], data["writer_due"])]
        if data.get("fact_checker") is not None:
            out.append((Role.FACT_CHECKER.value, data["fact_checker"], data["fact_checker_due"]))
        return out


def _context(request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
    return {**site.each_context(request), "title": title, **extra}


def my_work_view(request: HttpRequest) -> HttpResponse:
    user = acting_user(request)
    if request.method == "POST" and request.POST.get("reset_feed"):
        desk_calendar.reset_feed(user)
        messages.success(
            request,
            "Your calendar has a new address: the old one stops working at once. "
            "Subscribe to the new one in your calendar app.",
        )
        return HttpResponseRedirect(reverse("desk:my-work") + "#calendar-feed")
    today = newsroom.today()
    mine = list(assignments.open_for(user))
    context = _context(
        request,
        "My work",
        open=mine,
        overdue=sum(1 for a in mine if a.due_on < today),
        today=today,
        done=list(assignments.recently_done(user)),
        feed_url=desk_calendar.feed_url(user),
        can_assign=can(user, Action.ASSIGN),
    )
    return TemplateResponse(request, "editorial/my_work.html", context)


def done_view(request: HttpRequest, assignment_id: int) -> HttpResponse:
    if request.method != "POST":
        raise PermissionDenied("Mark an assignment done with its button.")
    user = acting_user(request)
    assignment = get_object_or_404(Assignment.objects.select_related("entry"), pk=assignment_id)
    assignments.mark_done(assignment, user=user)
    messages.success(
        request,
        f"Marked done: {assignment.get_role_display().lower()} of “{assignment.entry.term}”.",
    )
    return HttpResponseRedirect(reverse("desk:my-work"))


def assign_view(request: HttpRequest, entry_id: int) -> HttpResponse:
    user = acting_user(request)
    require(user, Action.ASSIGN)
    entry = get_object_or_404(Entry, pk=entry_id)
    initial: dict[str, Any] = {"role": request.GET.get("role", Role.WRITER)}
    form = AssignForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            made = assignments.assign(
                entry,
                role=data["role"],
                assignee=data["assignee"],
                due_on=data["due_on"],
                note=data["note"],
                user=user,
            )
        except assignments.AssignmentError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Assigned: {made.get_role_display().lower()} of “{entry.term}” is "
                f"{made.assignee.get_username()}, due {newsroom.format_date(made.due_on)}. "
                "Readers see nothing of it.",
            )
            return HttpResponseRedirect(reverse("admin:glossary_entry_change", args=[entry.pk]))
    current = Assignment.objects.filter(entry=entry, done_at__isnull=True).select_related(
        "assignee"
    )
    context = _context(
        request, f"Assign “{entry.term}”", form=form, entry=entry, current=list(current)
    )
    return TemplateResponse(request, "editorial/assign.html", context)


def plan_view(request: HttpRequest) -> HttpResponse:
    user = acting_user(request)
    require(user, Action.ASSIGN)
    require(user, Action.ADD)
    form = PlanForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        entry = form.save(commit=False)
        try:
            assignments.plan_entry(
                entry, user=user, assignments=form.planned(), note=form.cleaned_data["note"]
            )
        except assignments.AssignmentError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Planned “{entry.term}”: a draft with no body, assigned. It cannot be "
                "published until it is written, reviewed and approved.",
            )
            return HttpResponseRedirect(reverse("admin:glossary_entry_change", args=[entry.pk]))
    return TemplateResponse(
        request, "editorial/plan_entry.html", _context(request, "Plan an entry", form=form)
    )


def _parse_day(text: str) -> datetime.date | None:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def calendar_view(request: HttpRequest) -> HttpResponse:
    user = acting_user(request)
    require(user, Action.VIEW)
    today = newsroom.today()
    view = request.GET.get("view", "month")
    if view not in ("month", "week"):
        messages.error(request, f"There is no “{view}” view: showing the month.")
        view = "month"
    asked = request.GET.get("date", "")
    day = _parse_day(asked) if asked else today
    if day is None:
        messages.error(request, f"“{asked}” is not a date (write it as 2026-12-05): showing today.")
        day = today
    context = _context(
        request,
        "Desk calendar",
        view=view,
        today=today,
        weekdays=["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    )
    if view == "month":
        start, end = desk_calendar.month_range(day.year, day.month)
        events = desk_calendar.events_between(start, end, user=user, today=today)
        first = day.replace(day=1)
        previous = (first - datetime.timedelta(days=1)).replace(day=1)
        following = (first + datetime.timedelta(days=32)).replace(day=1)
        context |= {
            "heading": f"{first:%B} {first.year}",
            "weeks": desk_calendar.month_grid(day.year, day.month, events, today),
            "previous": previous,
            "following": following,
            "previous_label": f"{previous:%B} {previous.year}",
            "following_label": f"{following:%B} {following.year}",
            "anchor": first,
        }
    else:
        start = desk_calendar.week_start(day)
        end = start + datetime.timedelta(days=6)
        events = desk_calendar.events_between(start, end, user=user, today=today)
        by_day: dict[datetime.date, list[desk_calendar.Event]] = {}
        for event in events:
            by_day.setdefault(event.day, []).append(event)
        days = [
            desk_calendar.Day(
                start + datetime.timedelta(days=n),
                by_day.get(start + datetime.timedelta(days=n), []),
                True,
                start + datetime.timedelta(days=n) == today,
            )
            for n in range(7)
        ]
        context |= {
            "heading": f"Week of {newsroom.format_date(start)}",
            "days": days,
            "previous": start - datetime.timedelta(days=7),
            "following": start + datetime.timedelta(days=7),
            "previous_label": "Previous week",
            "following_label": "Next week",
            "anchor": start,
        }
    return TemplateResponse(request, "editorial/calendar.html", context)


def assignments_panel(entry: Entry | None, user: Any) -> SafeString:
    """The entry page's list of its assignments, with the links to change them."""
    if entry is None or entry.pk is None:
        return format_html("{}", "Save the entry first, then assign it.")
    rows = Assignment.objects.filter(entry=entry, done_at__isnull=True).select_related("assignee")
    today = newsroom.today()
    items = format_html_join(
        "",
        "<li>{}: {}, due {}{}</li>",
        (
            (
                a.get_role_display(),
                a.assignee.get_username(),
                newsroom.format_date(a.due_on),
                " (overdue)" if a.due_on < today else "",
            )
            for a in rows
        ),
    )
    listed = (
        format_html("<ul>{}</ul>", items) if items else format_html("{}", "Nobody is assigned.")
    )
    if not can(user, Action.ASSIGN):
        return listed
    link = reverse("desk:assign", args=[entry.pk])
    return format_html(
        '{} <p><a class="addlink" href="{}">Assign a writer or fact-checker</a></p>', listed, link
    )


class AssignmentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Every assignment, read-only: they are made and changed from the entry or "Plan an
    entry", where each step is logged and the assignee told."""

    list_display = ["entry", "role", "assignee", "due_on", "assigned_by", "done_at"]
    list_filter = ["role", ("done_at", admin.EmptyFieldListFilter), "due_on"]
    list_select_related = ["entry", "assignee", "assigned_by"]
    search_fields = ["entry__term", "assignee__username"]
    date_hierarchy = "due_on"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def assign_selected_form(request: HttpRequest, entries: list[Entry]) -> HttpResponse | None:
    """The entry list's action: one person, role and day for every selected entry.

    The first post shows the form; the confirmed one assigns each entry (each step
    logged, the assignee told once per entry) and says which could not be.
    """
    user = acting_user(request)
    require(user, Action.ASSIGN)
    confirmed = request.POST.get("confirmed") == "yes"
    form = AssignForm(request.POST if confirmed else None)
    if confirmed and form.is_valid():
        data = form.cleaned_data
        done: list[str] = []
        refused: list[str] = []
        for entry in entries:
            try:
                assignments.assign(
                    entry,
                    role=data["role"],
                    assignee=data["assignee"],
                    due_on=data["due_on"],
                    note=data["note"],
                    user=user,
                )
            except assignments.AssignmentError as exc:
                refused.append(f"“{entry.term}” ({exc})")
            else:
                done.append(f"“{entry.term}”")
        if done:
            messages.success(
                request,
                f"Assigned {', '.join(done)} to {data['assignee'].get_username()} "
                f"({Role(data['role']).label.lower()}), "
                f"due {newsroom.format_date(data['due_on'])}.",
            )
        if refused:
            messages.error(request, "Not assigned: " + "; ".join(refused))
        return None
    context = _context(
        request,
        "Assign the selected entries",
        form=form,
        entries=entries,
        action_checkbox_name=helpers.ACTION_CHECKBOX_NAME,
    )
    return TemplateResponse(request, "editorial/assign_selected.html", context)
