"""Refused edits: what someone submitted when their save was refused as stale, kept for them.

The entry form refuses a save made after someone else saved (editorial.admin.forms.
ConflictCheckingForm). What the form held (the entry's fields and every row of its
inlines) is kept as a `RefusedEdit` credited to its author, who can compare it with the
draft as it is now, field by field, and take their own value of any of the entry's
fields into the draft. Taking is an ordinary edit: refused like any save if someone
saved after the comparison was shown, recorded as a version credited to whoever took
it, logged as a workflow step, and published only by someone else. Nothing here is in a
version, so a refused edit never reaches readers by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from django import forms
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import QuerySet
from taggit.utils import edit_string_for_tags, parse_tags

from editorial import newsroom, versions, workflow
from editorial.models import RefusedEdit, WorkflowEvent
from editorial.permissions import Action, can
from glossary import document, publishing
from glossary.models import Entry, EntryVersion

# The entry's own fields a refused edit can give back, in the order of the entry page.
FIELDS: dict[str, str] = {
    "term": "Term",
    "slug": "Address",
    "aliases": "Aliases",
    "summary": "Summary",
    "body": "Body",
    "tags": "Tags",
}
# What the form carries that is not the author's text: tokens and which button was pressed.
NOT_KEPT = frozenset(
    {"csrfmiddlewaretoken", "edit_token", "_save", "_continue", "_addanother", "_saveasnew"}
)


# Which parts of a version's document each kind of row is: a disclosure may sit under its
# reference, so either changes both.
PART_SECTIONS: dict[str, tuple[str, ...]] = {
    "episodereference": ("references", "disclosures"),
    "disclosure": ("references", "disclosures"),
    "quote": ("quotes",),
    "citation": ("citations",),
    "seealso": ("see_also",),
}


class RowTaker(Protocol):
    """Takes the refused edit's rows of the groups asked for into the draft (the admin's
    inline formsets do it: editorial.admin.presence)."""

    def take(self, entry: Entry) -> list[str]:
        """Save the rows; the groups' names. Raises MergeError, saving nothing, if not."""
        ...

    def recorded(self, entry: Entry, version: EntryVersion) -> None:
        """After the version is saved: what the rows' own rules record (fact-checks)."""
        ...


class MergeError(Exception):
    """A merge that did not happen, with a message meant for the person who asked."""


class MergeStale(MergeError):
    """Someone saved the entry after the comparison was shown."""


def edit_token(entry: Entry) -> str:
    """What an edit was based on: the entry's last content save and its latest version.
    The entry form carries it (ConflictCheckingForm), and so does the merge page."""
    stamp = entry.updated_at.isoformat() if entry.updated_at else ""
    return f"{stamp}|{workflow.latest_version_number(entry)}"


def is_admin(user: Any) -> bool:
    """Admins read and discard anyone's refused edits (the admin role holds editorial.*)."""
    return bool(user.is_superuser or user.has_perm("editorial.view_refusededit"))


def visible_to(user: Any) -> QuerySet[RefusedEdit]:
    """The refused edits `user` may read: their own, and everyone's for an admin."""
    found = RefusedEdit.objects.select_related("entry", "author", "saved_by")
    return found if is_admin(user) else found.filter(author=user)


def keep(
    entry: Entry,
    *,
    author: Any,
    submitted: Any,
    opened_version: int | None,
    conflicting_version: int | None,
    saved_by: Any,
) -> RefusedEdit:
    """Keep what `author` submitted (a QueryDict, or a dict of lists) as a refused edit."""
    getlist = submitted.getlist if hasattr(submitted, "getlist") else submitted.get
    data = {key: [str(v) for v in getlist(key)] for key in submitted.keys() if key not in NOT_KEPT}
    return RefusedEdit.objects.create(
        entry=entry,
        term=entry.term[:200],
        author=author,
        opened_version=opened_version or None,
        conflicting_version=conflicting_version or None,
        saved_by=saved_by,
        data=data,
    )


def submitted(refused: RefusedEdit, name: str) -> str | None:
    """The value the form sent for `name`; None when the form had no such field (a
    fact-checker's form shows the entry's text read-only)."""
    values = refused.data.get(name)
    if not values:
        return None
    return str(values[-1])


def _text(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n").strip()


def same(name: str, a: str | None, b: str | None) -> bool:
    """Whether two values of field `name` say the same (tags in any order, any line ends)."""
    if a is None or b is None:
        return a is b
    if name == "tags":
        return sorted(parse_tags(a)) == sorted(parse_tags(b))
    if name == "slug":
        return a.strip().lower() == b.strip().lower()
    return _text(a) == _text(b)


def current(entry: Entry, name: str) -> str:
    """The draft's value of `name`, as the entry form would show it."""
    if name == "tags":
        return str(edit_string_for_tags(list(entry.tags.all())))
    return str(getattr(entry, name) or "")


def _from_version(data: dict[str, Any], name: str) -> str:
    if name == "tags":
        return ", ".join(t["name"] if isinstance(t, dict) else str(t) for t in data.get("tags", []))
    if name == "aliases":
        return "\n".join(data.get("aliases", []))
    return str(data.get(name, ""))


def _lines(name: str, value: str) -> list[str]:
    if name == "tags":
        return [", ".join(sorted(parse_tags(value), key=str.casefold))]
    return [line for line in _text(value).split("\n") if line.strip()] or [""]


@dataclass
class FieldChoice:
    """One of the entry's fields as the merge page shows it."""

    name: str
    label: str
    mine: str
    now: str
    base: str | None  # the value in the version the author's form was opened on
    rows: list[versions.Row] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return not same(self.name, self.mine, self.now)

    @property
    def you_changed(self) -> bool:
        return self.base is None or not same(self.name, self.mine, self.base)

    @property
    def they_changed(self) -> bool:
        return self.base is not None and not same(self.name, self.now, self.base)

    @property
    def take_by_default(self) -> bool:
        """Ticked on the page: you changed it, and it is not already what you wrote."""
        return self.differs and self.you_changed


def choices(refused: RefusedEdit, entry: Entry) -> list[FieldChoice]:
    """The entry's fields the refused edit holds, each against the draft now (left) and
    what the author submitted (right), word by word."""
    base_data: dict[str, Any] | None = None
    if refused.opened_version:
        base_data = (
            EntryVersion.objects.filter(entry=entry, number=refused.opened_version)
            .values_list("data", flat=True)
            .first()
        )
    found = []
    for name, label in FIELDS.items():
        mine = submitted(refused, name)
        if mine is None:
            continue
        now = current(entry, name)
        base = _from_version(base_data, name) if base_data is not None else None
        choice = FieldChoice(name, label, mine, now, base)
        choice.rows = versions.side_by_side(_lines(name, now), _lines(name, mine))
        found.append(choice)
    return found


def unchanged_parts(refused: RefusedEdit, entry: Entry) -> set[str]:
    """The kinds of row (`PART_SECTIONS`' keys) the draft has exactly as in the version the
    refused form was opened on: the other save did not touch them, so the refused rows
    can be taken as they were submitted without undoing anyone's work."""
    if not refused.opened_version:
        return set()
    data = (
        EntryVersion.objects.filter(entry=entry, number=refused.opened_version)
        .values_list("data", flat=True)
        .first()
    )
    if data is None:
        return set()
    try:
        base = document.load(data)
    except document.DocumentError:
        return set()
    now = document.build(entry)
    return {
        kind
        for kind, sections in PART_SECTIONS.items()
        if all(getattr(base, s) == getattr(now, s) for s in sections)
    }


def _require_author(refused: RefusedEdit, user: Any, *, fields: bool) -> None:
    if refused.author_id != user.pk:
        raise PermissionDenied("Only whoever made a refused edit can take it into the draft.")
    if fields and not can(user, Action.EDIT):
        raise PermissionDenied("You do not have permission to edit entries.")


@transaction.atomic
def merge(
    refused: RefusedEdit,
    *,
    user: Any,
    take: list[str],
    token: str,
    rows: RowTaker | None = None,
) -> EntryVersion:
    """Take the author's value of each field in `take` into the entry's draft.

    `token` is the entry's edit token when the comparison was shown: if anyone saved
    since, nothing is taken (MergeStale) and the page shows the draft as it is now.
    Values are checked as the entry form checks them (MergeError naming each problem).
    `rows` takes the refused rows of the groups the author ticked (the admin's formsets).
    The refused edit is removed once taken; the version is credited to `user` and the
    step is in the entry's history. Nothing is published.
    """
    take = [name for name in FIELDS if name in take]
    _require_author(refused, user, fields=bool(take))
    if refused.entry_id is None:
        raise MergeError("The entry was deleted, so there is no draft to take this into.")
    if not take and rows is None:
        raise MergeError("Tick at least one field to take into the draft, or discard the edit.")
    entry = _lock_unchanged_since(refused.entry_id, token)
    missing = [name for name in take if submitted(refused, name) is None]
    if missing:
        raise MergeError(f"Your refused edit has no {FIELDS[missing[0]].lower()} to take.")
    data = {name: current(entry, name) for name in FIELDS}
    data.update({name: submitted(refused, name) or "" for name in take})
    form_class = forms.modelform_factory(Entry, fields=list(FIELDS))
    form = form_class(data=data, instance=entry)
    if not form.is_valid():
        problems = "; ".join(
            f"{FIELDS.get(name, name)}: {' '.join(str(e) for e in errors)}"
            for name, errors in form.errors.items()
        )
        raise MergeError(f"Nothing was taken: {problems}")
    before = entry.status
    with transaction.atomic():  # the rows' errors undo the fields too
        if take:
            form.save()
        groups = rows.take(entry) if rows is not None else []
    if not take and not groups:
        raise MergeError("Tick at least one field to take into the draft, or discard the edit.")
    labels = ", ".join([FIELDS[name].lower() for name in take] + groups)
    version = publishing.record_edit(
        entry, user=user, comment=f"Took {labels} from a refused edit."
    )
    if rows is not None:
        rows.recorded(entry, version)
    entry.refresh_from_db(fields=["status"])
    _log_merge(refused, entry, version, user=user, before=before, labels=labels)
    refused.delete()
    return version


def _lock_unchanged_since(entry_id: int, token: str) -> Entry:
    """The refused edit's entry, locked; refused (MergeStale) when anyone saved it since
    the comparison carrying `token` was shown."""
    publishing.hold_off_rerender()
    entry = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("updated_by")
        .filter(pk=entry_id)
        .first()
    )
    if entry is None:
        raise MergeError("The entry was deleted, so there is no draft to take this into.")
    if token != edit_token(entry):
        by = entry.updated_by
        who = (by.get_full_name() or by.get_username()) if by is not None else "Someone"
        raise MergeStale(
            f"{who} saved this entry at {newsroom.format_instant(entry.updated_at)}, after "
            "this comparison was shown, so nothing was taken. The comparison below is "
            "against the draft as it is now: check it, then take your fields again."
        )
    return entry


def _log_merge(
    refused: RefusedEdit,
    entry: Entry,
    version: EntryVersion,
    *,
    user: Any,
    before: str,
    labels: str,
) -> None:
    """The taking-back as a step of the entry's history."""
    WorkflowEvent.objects.create(
        entry=entry,
        version=version,
        action=WorkflowEvent.Action.MERGE_REFUSED,
        from_status=before,
        to_status=entry.status,
        actor=user,
        comment=(
            f"Took {labels} from the edit refused on "
            f"{newsroom.format_instant(refused.refused_at)}"
            + (f" (opened on version {refused.opened_version})" if refused.opened_version else "")
            + "."
        ),
    )


def discard(refused: RefusedEdit, *, user: Any) -> None:
    """Throw a refused edit away: its author or an admin, deliberately."""
    if refused.author_id != user.pk and not is_admin(user):
        raise PermissionDenied("Only whoever made a refused edit (or an admin) can discard it.")
    refused.delete()


def waiting_for(user: Any, entry: Entry) -> int:
    """How many refused edits of `entry` `user` has kept (the entry page names them)."""
    return RefusedEdit.objects.filter(author=user, entry=entry).count()


# The demo's kept refused edit: the writer's sharper summary of the seed entry, refused
# because an editor saved first (docs/demo.md).
DEMO_ENTRY = "interconnect"
DEMO_SUMMARY = (
    "The links and switches that join AI chips into one machine: they decide how many "
    "GPUs can work as one."
)


def add_demo_refused_edit() -> bool:
    """Keep one refused edit of the seed entry for the demo's `writer`, once; whether it
    was added. Nothing happens without the seed entry, its versions or the demo logins."""
    entry = Entry.objects.filter(slug=DEMO_ENTRY).first()
    people = {u.username: u for u in User.objects.filter(username__in=["writer", "editor"])}
    if entry is None or len(people) < 2:
        return False
    latest = entry.versions.order_by("-number").first()
    if latest is None or RefusedEdit.objects.filter(entry=entry, author=people["writer"]).exists():
        return False
    data: dict[str, list[str]] = {name: [current(entry, name)] for name in FIELDS}
    data["summary"] = [DEMO_SUMMARY]
    RefusedEdit.objects.create(
        entry=entry,
        term=entry.term,
        author=people["writer"],
        opened_version=max(latest.number - 1, 1),
        conflicting_version=latest.number,
        saved_by=people["editor"],
        data=data,
    )
    return True
