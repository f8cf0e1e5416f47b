"""The editorial workflow as plain functions: draft → in review → published, and back.

Each transition checks who is asking (editorial.permissions), checks the entry's
state under a row lock (so a double click or two workers cannot both act), makes
the change through glossary.publishing, and writes one WorkflowEvent: who, when,
from which state to which, and the comment. Views, admin actions and the
scheduler call these; none of them changes an entry's status another way.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Max, OuterRef, Q, Subquery
from django.utils import timezone

from editorial import newsroom, notify
from editorial.gates import NOT_OVERRIDABLE, run_gates, run_gates_for
from editorial.models import ScheduledAction, ShareLink, WorkflowEvent
from editorial.permissions import Action, require
from glossary import document, publishing, records
from glossary.models import Citation, Entry, EntryVersion, RecordEdit, SeeAlso

Status = Entry.Status

# Which states each transition starts from.
SUBMIT_FROM = {Status.DRAFT, Status.CHANGES_REQUESTED}
REVIEW_FROM = {Status.IN_REVIEW}
PUBLISH_FROM = {Status.IN_REVIEW}
ARCHIVE_FROM = {Status.DRAFT, Status.CHANGES_REQUESTED, Status.IN_REVIEW, Status.PUBLISHED}
ROLLBACK_FROM = {Status.DRAFT, Status.CHANGES_REQUESTED, Status.IN_REVIEW, Status.PUBLISHED}


class WorkflowError(Exception):
    """A transition that cannot happen now; the message says why, for the person who asked."""


class InvalidTransition(WorkflowError):
    pass


class SelfApprovalRefused(PermissionDenied):
    """The person publishing wrote part of the change (WORKFLOW_ALLOW_SELF_APPROVAL is off)."""


class GateFailed(WorkflowError):
    """Blocking publish checks failed and no override reason was given."""

    def __init__(self, results: list[Any], *, overridable: bool = True) -> None:
        self.results = results
        self.overridable = overridable
        self.blocking = [r for r in results if r.blocking and not r.passed]
        names = "; ".join(r.message for r in self.blocking)
        # A check no reason overrides (gates.NOT_OVERRIDABLE) says so, or the editor who
        # wrote one would not know why it was not enough.
        ending = "" if overridable else " No override reason publishes an entry with no body."
        super().__init__(
            f"Not published: {len(self.blocking)} blocking check(s) failed. {names}{ending}"
        )


def _lock(entry: Entry) -> Entry:
    publishing.hold_off_rerender()  # before its row: see glossary.publishing
    return Entry.objects.select_for_update().get(pk=entry.pk)


def _lock_all(entries: list[Entry]) -> list[Entry]:
    """The entries' rows, locked in id order (two batches cannot deadlock), in the order given."""
    pks = [entry.pk for entry in entries]
    if len(set(pks)) != len(pks):
        raise WorkflowError("The same entry was named twice.")
    publishing.hold_off_rerender()  # before their rows: see glossary.publishing
    locked = {e.pk: e for e in Entry.objects.select_for_update().filter(pk__in=pks).order_by("pk")}
    if len(locked) != len(pks):
        raise Entry.DoesNotExist("An entry no longer exists.")
    return [locked[pk] for pk in pks]


def _check_state(entry: Entry, allowed: set[Entry.Status], doing: str) -> None:
    if entry.status not in allowed:
        states = " or ".join(sorted(Status(s).label.lower() for s in allowed))
        raise InvalidTransition(
            f"“{entry.term}” is {Status(entry.status).label.lower()}; "
            f"only an entry that is {states} can be {doing}."
        )


def _log(
    entry: Entry,
    action: WorkflowEvent.Action,
    from_status: str,
    to_status: str,
    user: Any,
    *,
    comment: str = "",
    version: EntryVersion | None = None,
    **extra: Any,
) -> WorkflowEvent:
    event = _event(
        entry, action, from_status, to_status, user, comment=comment, version=version, **extra
    )
    event.save()
    return event


def _event(
    entry: Entry,
    action: WorkflowEvent.Action,
    from_status: str,
    to_status: str,
    user: Any,
    *,
    comment: str = "",
    version: EntryVersion | None = None,
    **extra: Any,
) -> WorkflowEvent:
    """One audit-log row, not yet saved."""
    return WorkflowEvent(
        entry=entry,
        version=version,
        action=action,
        from_status=from_status,
        to_status=to_status,
        actor=user if user is not None and user.is_authenticated else None,
        at=timezone.now(),
        comment=comment,
        **extra,
    )


def _set_status(entry: Entry, status: Entry.Status) -> None:
    # A status change is not a content edit: update() leaves updated_at alone, so
    # nobody's open edit form goes stale because someone pressed a workflow button.
    Entry.objects.filter(pk=entry.pk).update(status=status)
    entry.status = status


def change_authors(entry: Entry) -> set[int]:
    """Ids of the people who saved the change now waiting to be published.

    That is everyone who saved a version since the last one published (every
    version when the entry was never published), and whoever submitted it since.
    """
    return change_authors_of([entry])[entry.pk]


def change_authors_of(entries: Iterable[Entry]) -> dict[int, set[int]]:
    """`change_authors` of several entries, by entry id, in three queries."""
    ids = [entry.pk for entry in entries]
    # The change is measured from the publication readers see now. An entry they do not
    # see (withdrawn, or never published) has none: whoever wrote any of its versions
    # wrote part of what would come back, so a withdrawal is undone by someone who wrote
    # none of it. (Measured from its last publication, the withdrawn version's author
    # was no author of "the change" and could publish it again alone.)
    shown = {entry.pk for entry in entries if entry.live_version_id is not None}
    live: dict[int, tuple[int, datetime.datetime | None]] = {}
    for entry_id, number, published_at in (
        EntryVersion.objects.filter(entry__in=shown, published_at__isnull=False)
        .order_by("entry", "-number")
        .values_list("entry", "number", "published_at")
    ):
        live.setdefault(entry_id, (number, published_at))
    authors: dict[int, set[int]] = {pk: set() for pk in ids}
    for entry_id, number, author in (
        EntryVersion.objects.filter(entry__in=ids)
        .exclude(created_by=None)
        .values_list("entry", "number", "created_by")
    ):
        if entry_id not in live or number > live[entry_id][0]:
            authors[entry_id].add(author)
    # Who submitted the change, and who rolled it back to an older text, since.
    for entry_id, at, actor in (
        WorkflowEvent.objects.filter(
            entry__in=ids,
            action__in=[WorkflowEvent.Action.SUBMIT, WorkflowEvent.Action.ROLLBACK],
        )
        .exclude(actor=None)
        .values_list("entry", "at", "actor")
    ):
        since = live.get(entry_id, (0, None))[1]
        if since is None or at >= since:
            authors[entry_id].add(actor)
    return authors


def records_edited_in_change(entries: Iterable[Entry], user: Any) -> dict[int, list[str]]:
    """The entries whose change carries to readers a shared record `user` edited, by id,
    with the records' names (as the change states them).

    An edit to a shared record (a source's title, a person, a tag...) is its editor's
    part of every change that would show readers the record as it now is, not only of
    the versions credited to them when they saved it (publishing.record_reference_change):
    an entry that takes the record up later (a new citation, a rollback to a version
    citing it) carries it too. So `user` wrote part of an entry's change where its newest
    version names a record they added or changed (glossary.models.RecordEdit) and states
    it otherwise than readers see it. One query when they edited none, five at most.
    """
    if user is None or not user.is_authenticated:
        return {}
    edited = set(
        RecordEdit.objects.filter(edited_by=user).values_list("kind", "object_id").distinct()
    )
    if not edited:
        return {}
    entries = list(entries)
    newest = _latest_versions(entries)
    named: list[tuple[int, document.EntryDocument, set[records.Key]]] = []
    for entry in entries:
        version = newest.get(entry.pk)
        if version is None:
            continue
        doc = document.load(version.data)
        keys = records.keys_of(doc) & edited
        if keys:
            named.append((entry.pk, doc, keys))
    if not named:
        return {}
    anew = records.not_as_readers_see([(doc, keys) for _, doc, keys in named])
    found = {
        entry_id: set(names.values()) for (entry_id, _, _), names in zip(named, anew, strict=True)
    }
    # A transcript is no record field: a quote's check freezes a passage of it into the
    # version (document.TranscriptCheck), so uploading one is an edit of its episode, and
    # a passage of an episode `user` edited that readers do not see yet is theirs too.
    episodes = {
        entry_id: {pk for kind, pk in keys if kind == records.Kind.EPISODE}
        for entry_id, _, keys in named
    }
    live = [e.live_version_id for e in entries if episodes.get(e.pk) and e.live_version_id]
    shown: dict[int, set[str]] = {entry_id: set() for entry_id in episodes}
    if live:
        for entry_id, data in EntryVersion.objects.filter(pk__in=live).values_list("entry", "data"):
            shown[entry_id] = _passages(document.load(data), None)
    for entry_id, doc, _ in named:
        if episodes[entry_id] and _passages(doc, episodes[entry_id]) - shown[entry_id]:
            found[entry_id] |= {
                f"the transcript of “{doc.facts.episodes[pk].title}”" for pk in episodes[entry_id]
            }
    return {entry_id: sorted(names) for entry_id, names in found.items() if names}


def _passages(doc: document.EntryDocument, episodes: set[int] | None) -> set[str]:
    """The transcript passages `doc`'s quotes show (of `episodes` only, if given)."""
    return {
        quote.check.passage
        for quote in doc.quotes
        if quote.check is not None
        and quote.check.passage
        and (episodes is None or quote.episode in episodes)
    }


def _quoted(names: list[str]) -> str:
    return ", ".join(f"“{name}”" for name in names)


def writers_of(entry: Entry) -> set[int]:
    """Who hears about the entry's review and publication: its writer and the change's authors."""
    ids = change_authors(entry)
    if entry.created_by_id is not None:
        ids.add(entry.created_by_id)
    return ids


def authorship(entry: Entry, user: Any) -> str:
    """Why `user` wrote part of the entry's change, as the start of a sentence ("You wrote
    part of this change"); empty when they did not. They saved or submitted it since its
    publication, or edited a shared record it would show readers anew."""
    if user is None:
        return ""
    if user.pk in change_authors(entry):
        return "You wrote part of this change"
    edited = records_edited_in_change([entry], user).get(entry.pk)
    if edited:
        return f"You edited {_quoted(edited)}, which this change would show readers anew"
    return ""


def submit_for_review(entry: Entry, *, user: Any, comment: str = "") -> WorkflowEvent:
    return submit_entries([entry], user=user, comment=comment)[0]


def submit_entries(
    entries: Iterable[Entry], *, user: Any, comment: str = ""
) -> list[WorkflowEvent]:
    """`submit_for_review` for several entries: all of them, or none (the first refusal raised)."""
    require(user, Action.SUBMIT)
    entries = list(entries)
    with transaction.atomic():
        locked = _lock_all(entries)
        for entry in locked:
            require(user, Action.SUBMIT, entry)
            _check_state(entry, SUBMIT_FROM, "submitted for review")
        before = {entry.pk: entry.status for entry in locked}
        Entry.objects.filter(pk__in=[entry.pk for entry in locked]).update(status=Status.IN_REVIEW)
        for entry in locked:
            entry.status = Status.IN_REVIEW
        events = WorkflowEvent.objects.bulk_create(
            _event(
                entry,
                WorkflowEvent.Action.SUBMIT,
                before[entry.pk],
                Status.IN_REVIEW,
                user,
                comment=comment,
            )
            for entry in locked
        )
        notify.tell_review_requested_of(locked, actor=user, comment=comment)
    for entry, fresh in zip(entries, locked, strict=True):
        entry.status = fresh.status
    return events


def request_changes(entry: Entry, *, user: Any, comment: str) -> WorkflowEvent:
    """Send the entry back to its writer; the comment is shown on the entry until resubmitted."""
    require(user, Action.REQUEST_CHANGES, entry)
    if not comment.strip():
        raise WorkflowError("Write what needs to change: the writer sees this comment.")
    with transaction.atomic():
        locked = _lock(entry)
        _check_state(locked, REVIEW_FROM, "sent back with changes requested")
        _set_status(locked, Status.CHANGES_REQUESTED)
        event = _log(
            locked,
            WorkflowEvent.Action.REQUEST_CHANGES,
            Status.IN_REVIEW,
            Status.CHANGES_REQUESTED,
            user,
            comment=comment.strip(),
        )
        notify.tell_changes_requested(
            locked, actor=user, comment=comment.strip(), writers=writers_of(locked)
        )
    entry.status = locked.status
    return event


def open_review_comment(entry: Entry) -> WorkflowEvent | None:
    """The reviewer's request the writer still has to act on, if the entry is waiting on one."""
    if entry.status != Status.CHANGES_REQUESTED:
        return None
    return (
        WorkflowEvent.objects.filter(entry=entry, action=WorkflowEvent.Action.REQUEST_CHANGES)
        .select_related("actor")
        .first()
    )


def publish_entry(
    entry: Entry,
    *,
    user: Any,
    override_reason: str = "",
    correction_note: str = "",
    material: bool = True,
    comment: str = "",
    expected_version: int | None = None,
    seen_event: int | None = None,
    now: datetime.datetime | None = None,
) -> EntryVersion:
    """Approve and publish an entry in review, after the publish gates.

    Raises GateFailed when a blocking check fails and `override_reason` is empty;
    with a reason (and the override permission) the entry is published and the
    overridden checks are logged with the reason. `expected_version` is the
    latest version number the editor reviewed: when someone saved since, the
    publish is refused rather than publishing what nobody reviewed. `seen_event` is
    the entry's newest workflow event when the editor reviewed it (`last_event_id`):
    when it was withdrawn or sent back since, the publish is refused too.
    """
    return publish_entries(
        [entry],
        user=user,
        override_reason=override_reason,
        correction_note=correction_note,
        material=material,
        comment=comment,
        expected_versions=None if expected_version is None else {entry.pk: expected_version},
        seen_events=None if seen_event is None else {entry.pk: seen_event},
        now=now,
    )[0]


def publish_entries(
    entries: Iterable[Entry],
    *,
    user: Any,
    override_reason: str = "",
    correction_note: str = "",
    material: bool = True,
    comment: str = "",
    expected_versions: dict[int, int] | None = None,
    seen_events: dict[int, int] | None = None,
    now: datetime.datetime | None = None,
) -> list[EntryVersion]:
    """`publish_entry` for several entries in one transaction, in the order given.

    Each entry must pass every check `publish_entry` makes (its state, the
    self-approval rule, the version reviewed (`expected_versions`, by entry id) and
    what happened to it since (`seen_events`), the publish checks): otherwise nothing
    is published and the first refusal is raised. The checks, the public records and
    the pages are done for all of them together (glossary.publishing.make_live),
    which is what makes publishing thousands of entries affordable (generate_glossary).

    The one door through which an entry reaches readers: every publish (the admin's,
    a bulk action's, the scheduler's, the demo's and the generator's) comes here, and
    only here and `publish_check_dates` call the make-live step.
    """
    require(user, Action.PUBLISH)
    entries = list(entries)
    with transaction.atomic():
        locked = _lock_all(entries)
        for entry in locked:
            require(user, Action.PUBLISH, entry)
            _check_state(entry, PUBLISH_FROM, "published (submit it for review first)")
        authors = change_authors_of(locked)
        _refuse_self_approval(locked, user, authors)
        latest = _latest_versions(locked)
        _refuse_unless_reviewed(locked, latest, expected_versions or {})
        _refuse_if_objected_since(locked, seen_events or {})
        reason = override_reason.strip()
        blocking = _refuse_unless_checks_pass(locked, user, reason, now=now)
        # Who hears of the publication: read before it, when the change is still waiting.
        writers = {
            entry.pk: authors[entry.pk] | ({entry.created_by_id} if entry.created_by_id else set())
            for entry in locked
        }
        note = correction_note.strip()
        if note and any(entry.first_published_at is None for entry in locked):
            raise WorkflowError(
                "A correction note is for a change to an entry readers have already seen; "
                "this is its first publication."
            )
        reviewed = _reviewed_versions(locked, latest, user)
        versions = publishing.make_live(
            [(entry, reviewed[entry.pk]) for entry in locked],
            user=user,
            material=material,
            correction_note=note,
            comment=comment,
            now=now,
        )
        WorkflowEvent.objects.bulk_create(
            _event(
                entry,
                WorkflowEvent.Action.PUBLISH,
                Status.IN_REVIEW,
                Status.PUBLISHED,
                user,
                comment=comment,
                version=version,
                override_reason=reason if blocking[entry.pk] else "",
                overridden_checks=[
                    {"code": r.code, "message": r.message} for r in blocking[entry.pk]
                ],
            )
            for entry, version in zip(locked, versions, strict=True)
        )
        notify.tell_published_of([(entry, writers[entry.pk]) for entry in locked], actor=user)
    for entry in entries:
        entry.refresh_from_db()
    return versions


def _refuse_self_approval(locked: list[Entry], user: Any, authors: dict[int, set[int]]) -> None:
    """Refuse the publish when `user` wrote part of any entry's change (saved or submitted
    it, or edited a shared record it would show readers anew), unless
    WORKFLOW_ALLOW_SELF_APPROVAL is on."""
    if settings.WORKFLOW_ALLOW_SELF_APPROVAL or user is None:
        return
    for entry in locked:
        if user.pk in authors[entry.pk]:
            raise SelfApprovalRefused(
                "You wrote part of this change, so another editor has to approve it "
                "(WORKFLOW_ALLOW_SELF_APPROVAL is off)."
            )
    edited = records_edited_in_change(locked, user)
    for entry in locked:
        if entry.pk in edited:
            raise SelfApprovalRefused(
                f"You edited {_quoted(edited[entry.pk])}, which “{entry.term}” would "
                "show readers anew, so another editor has to approve it "
                "(WORKFLOW_ALLOW_SELF_APPROVAL is off)."
            )


def _refuse_unless_reviewed(
    locked: list[Entry], latest: dict[int, EntryVersion], expected: dict[int, int]
) -> None:
    """Refuse the publish when the version a form names (`expected`, by entry id) is not
    the entry's newest: someone saved since the editor reviewed it, or it never existed."""
    for entry in locked:
        newest, shown = latest.get(entry.pk), expected.get(entry.pk)
        if shown is not None and newest is not None and shown > newest.number:
            raise InvalidTransition(
                f"This form names version {shown} of “{entry.term}”, which it does not "
                "have; reload the page and review the latest version."
            )
        if shown is not None and newest is not None and newest.number != shown:
            who = newest.created_by.get_username() if newest.created_by else "someone"
            raise InvalidTransition(
                f"{who} saved version {newest.number} after you opened version "
                f"{shown}; review the new version before publishing."
            )


def _refuse_unless_checks_pass(
    locked: list[Entry], user: Any, reason: str, *, now: datetime.datetime | None
) -> dict[int, list[Any]]:
    """Run the publish checks; the failing blocking ones of each entry, by entry id.

    Refused when one fails and no override `reason` is given, when one fails that no
    reason overrides (gates.NOT_OVERRIDABLE), or when `user` may not override."""
    results = run_gates_for(locked, Entry.objects.filter(pk__in=[e.pk for e in locked]), now=now)
    blocking: dict[int, list[Any]] = {}
    for entry in locked:
        blocking[entry.pk] = [r for r in results[entry.pk] if r.blocking and not r.passed]
        if blocking[entry.pk] and not reason:
            raise GateFailed(results[entry.pk])
        if any(r.code in NOT_OVERRIDABLE for r in blocking[entry.pk]):
            raise GateFailed(results[entry.pk], overridable=False)
    for entry in locked:
        if blocking[entry.pk]:
            require(user, Action.OVERRIDE_GATES, entry)
    return blocking


def _reviewed_versions(
    locked: list[Entry], latest: dict[int, EntryVersion], user: Any
) -> dict[int, EntryVersion | None]:
    """The version of each entry readers get, by entry id: exactly the one the editor
    reviewed, its stored document, never a fresh build of the working copy, which may have
    moved since without a version of this entry (a renamed see-also target, a flag the
    link checker set). A version published before (re-publishing after a withdrawal) goes
    out again as a copy under a new number, its content unchanged."""
    again = [
        entry
        for entry in locked
        if (newest := latest.get(entry.pk)) is not None and newest.published_at is not None
    ]
    copies = publishing.save_versions(
        [(entry, document.load(latest[entry.pk].data)) for entry in again],
        user=user,
        comment="Published again as it was last published.",
    )
    # A copy is its original's text: credited to whoever wrote that, not to the editor
    # publishing it, who would otherwise count as an author of the entry's next change.
    for entry, copy in zip(again, copies, strict=True):
        copy.created_by_id = latest[entry.pk].created_by_id
        EntryVersion.objects.filter(pk=copy.pk).update(created_by=copy.created_by_id)
    reviewed: dict[int, EntryVersion | None] = {e.pk: latest.get(e.pk) for e in locked}
    reviewed |= {entry.pk: copy for entry, copy in zip(again, copies, strict=True)}
    return reviewed


# What makes an approval stale though the version is the same: the entry was withdrawn,
# or someone sent it back, after the approving editor read it. A publish page opened
# before a takedown, posted once the writer had submitted the entry again unchanged,
# put the page back up.
OBJECTIONS = (
    WorkflowEvent.Action.UNPUBLISH,
    WorkflowEvent.Action.ARCHIVE,
    WorkflowEvent.Action.REQUEST_CHANGES,
)


def last_event_ids(entries: Iterable[Entry | int]) -> dict[int, int]:
    """Each entry's newest workflow event id, by entry id (entries with none left out):
    what a publish page, a bulk publish's confirmation or a schedule records as seen
    (`seen_event`)."""
    return dict(
        WorkflowEvent.objects.filter(entry__in=list(entries))
        .values("entry")
        .annotate(n=Max("pk"))
        .values_list("entry", "n")
    )


def last_event_id(entry: Entry) -> int:
    """`last_event_ids` of one entry (0 when it has none)."""
    return last_event_ids([entry]).get(entry.pk, 0)


def seen_on_form(entry: Entry, posted: str, version: str) -> int | None:
    """What a publish form says it saw (`seen_event`), as `publish_entry` takes it. A form
    without it (a page from before it existed, a request made by hand) is taken to have
    seen only what happened before the version it names was saved."""
    if posted.isdecimal():
        return int(posted)
    return event_before_version(entry, int(version)) if version.isdecimal() else None


def event_before_version(entry: Entry, number: int) -> int:
    """The id of the newest workflow event of the entry before its version `number` was
    saved: what a form that does not say what it saw is taken to have seen (one from a
    page older than `seen_event`), so an objection after that version still counts."""
    saved = entry.versions.filter(number=number).values_list("created_at", flat=True).first()
    if saved is None:
        return 0
    events = WorkflowEvent.objects.filter(entry=entry, at__lte=saved)
    return events.aggregate(n=Max("pk"))["n"] or 0


def _refuse_if_objected_since(entries: list[Entry], seen: dict[int, int]) -> None:
    if not seen:
        return
    newest = last_event_ids(entries)
    theirs = set(
        WorkflowEvent.objects.filter(pk__in=[n for n in seen.values() if n]).values_list(
            "pk", "entry"
        )
    )
    for entry in entries:
        mark = seen.get(entry.pk, 0)
        if mark > newest.get(entry.pk, 0) or (mark and (mark, entry.pk) not in theirs):
            raise InvalidTransition(
                f"This page's record of what happened to “{entry.term}” is not one it has "
                "had; reload the page and review it again."
            )
    since = Q()
    for entry in entries:
        if entry.pk in seen:
            since |= Q(entry=entry.pk, pk__gt=seen[entry.pk])
    objection = (
        WorkflowEvent.objects.filter(since, action__in=OBJECTIONS)
        .select_related("actor", "entry")
        .order_by("-pk")
        .first()
        if since
        else None
    )
    if objection is not None:
        who = objection.actor.get_username() if objection.actor else "someone"
        raise InvalidTransition(
            f"{who} {OBJECTED_AS[objection.action]} “{objection.entry.term}” at "
            f"{newsroom.format_instant(objection.at)}, after you reviewed it; open it again "
            "and review it before publishing."
        )


OBJECTED_AS: dict[str, str] = {
    WorkflowEvent.Action.UNPUBLISH: "unpublished",
    WorkflowEvent.Action.ARCHIVE: "archived",
    WorkflowEvent.Action.REQUEST_CHANGES: "asked for changes to",
}


def _latest_versions(entries: list[Entry]) -> dict[int, EntryVersion]:
    """Each entry's newest version (with who saved it), by entry id; entries with none left out."""
    newest = EntryVersion.objects.filter(entry=OuterRef("entry")).order_by("-number")
    return {
        version.entry_id: version
        for version in EntryVersion.objects.filter(entry__in=[e.pk for e in entries])
        .filter(number=Subquery(newest.values("number")[:1]))
        .select_related("created_by")
    }


# What confirming a citation writes into a document: the check date, the reader's
# excerpt of the page as confirmed (editorial.sourcetext) with its date, and whether the
# page has changed since it was confirmed.
CONFIRMATION_FIELDS = {
    "checked_on": None,
    "excerpt": "",
    "excerpt_on": None,
    "source_changed": False,
}


def _without_check_dates(data: dict[str, Any]) -> dict[str, Any]:
    return {
        **data,
        "citations": [{**c, **CONFIRMATION_FIELDS} for c in data.get("citations", [])],
    }


def only_check_dates_differ(live: dict[str, Any], working: dict[str, Any]) -> bool:
    """Whether two stored documents differ, and only in what re-confirming citations writes.

    Fingerprints live on the source (shared by every entry) and take effect when
    confirmed; in a document a re-confirmation changes the check date, the excerpt
    and its date, and "changed since confirmed" (CONFIRMATION_FIELDS), nothing else.
    """
    return live != working and _without_check_dates(live) == _without_check_dates(working)


def check_dates_only_versions(entry: Entry) -> tuple[EntryVersion, EntryVersion] | None:
    """(live, working) when `entry` is live and its working copy changed only check dates."""
    if entry.live_version_id is None or not entry.has_unpublished_changes:
        return None
    latest = entry.versions.order_by("-number").first()
    live = entry.live_version
    if latest is None or live is None or latest.pk == live.pk:
        return None
    if not only_check_dates_differ(live.data, latest.data):
        return None
    return live, latest


@dataclass(frozen=True)
class Reconfirmation:
    """One citation's confirmation as readers see it now and as the one-step publish
    would make it: its check date and the excerpt of the cited page (third-party text
    that readers will read, so the editor who publishes it sees it first)."""

    source: str
    url: str
    old_checked_on: datetime.date | None
    new_checked_on: datetime.date | None
    old_excerpt: str
    new_excerpt: str

    @property
    def excerpt_changed(self) -> bool:
        return self.old_excerpt != self.new_excerpt


def reconfirmations(live: EntryVersion, working: EntryVersion) -> list[Reconfirmation]:
    """The citations whose confirmation differs between two versions that differ only in
    confirmations (`only_check_dates_differ`), in the entry's order."""
    old = document.load(live.data)
    new = document.load(working.data)
    sources = {s.id: s for s in new.sources}
    changed = []
    # Equal but for CONFIRMATION_FIELDS, so the two lists pair up citation by citation.
    for before, after in zip(old.citations, new.citations, strict=True):
        if before == after:
            continue
        source = sources.get(after.source)
        changed.append(
            Reconfirmation(
                source=source.title if source else f"source {after.source}",
                url=source.url if source else "",
                old_checked_on=before.checked_on,
                new_checked_on=after.checked_on,
                old_excerpt=before.excerpt,
                new_excerpt=after.excerpt,
            )
        )
    return changed


def publish_check_dates(
    entry: Entry,
    *,
    user: Any,
    shown_version: int | None,
    now: datetime.datetime | None = None,
) -> EntryVersion:
    """Publish a live entry's new citation check dates in one step, without a review.

    Only when nothing but check dates changed since the live version; by an
    editor who did not make the change (unless WORKFLOW_ALLOW_SELF_APPROVAL);
    the blocking publish checks still run. Logged as its own workflow event and
    published as a minor (non-material) change.

    A re-confirmation also brings a new excerpt of the cited page, text readers will
    see; the entry page shows the editor every changed excerpt of one version, and
    `shown_version` is that version's number. Only that version is published: when it
    is missing, or the entry has a newer one (confirmed again since the page was shown),
    nothing is published.
    """
    require(user, Action.PUBLISH, entry)
    with transaction.atomic():
        locked = _lock(entry)
        if locked.status == Status.ARCHIVED:
            raise InvalidTransition(f"“{locked.term}” is archived.")
        pair = check_dates_only_versions(locked)
        if pair is None:
            raise InvalidTransition(
                f"“{locked.term}” has changes besides citation check dates (or none at all); "
                "submit it for review and publish it the usual way."
            )
        _, working = pair
        if shown_version is None:
            raise InvalidTransition(
                f"Nothing was published: the request did not say which version of "
                f"“{locked.term}” you were shown. Open the entry and read the new check "
                "dates and excerpts before publishing them."
            )
        if shown_version != working.number:
            raise InvalidTransition(
                f"Nothing was published: “{locked.term}” changed after the page you "
                f"published from showed version {shown_version}; version {working.number} "
                "is the latest, and its excerpts may differ from what you read. Read its "
                "check dates and excerpts on the entry and publish again."
            )
        reason = authorship(locked, user)
        if reason and not settings.WORKFLOW_ALLOW_SELF_APPROVAL:
            # Said as the publish page says it: who changed the dates, or edited a record
            # the entry would show readers anew.
            raise SelfApprovalRefused(
                f"{reason}, so another editor has to publish these check dates "
                "(WORKFLOW_ALLOW_SELF_APPROVAL is off)."
            )
        results = run_gates(locked, now=now)
        blocking = [r for r in results if r.blocking and not r.passed]
        if blocking:
            raise GateFailed(results)
        before = locked.status
        (version,) = publishing.make_live(
            [(locked, working)],
            user=user,
            material=False,
            comment="New citation check dates.",
            now=now,
        )
        _log(
            locked,
            WorkflowEvent.Action.PUBLISH_CHECK_DATES,
            before,
            Status.PUBLISHED,
            user,
            comment="Only citation check dates changed; published in one step.",
            version=version,
        )
    entry.refresh_from_db()
    return version


def record_fact_checks(
    confirmed: dict[int, list[Citation]],
    *,
    user: Any,
    versions: dict[int, EntryVersion],
    on: datetime.date,
) -> list[WorkflowEvent]:
    """A "Fact-checked" step in the history of each entry whose citations `user` confirmed
    (`confirmed`, by entry id), naming the sources and the date, with the version that
    carries the new dates. The entry's state does not change: a fact-check is a step of
    the review, not a transition."""
    require(user, Action.CONFIRM_CITATION)
    entries = Entry.objects.in_bulk(list(confirmed))
    for entry in entries.values():
        require(user, Action.CONFIRM_CITATION, entry)
    events = []
    for entry_id, citations in confirmed.items():
        entry = entries[entry_id]
        titles = ", ".join(f"“{c.source.display_title}”" for c in citations)
        plural = "s" if len(citations) > 1 else ""
        events.append(
            _event(
                entry,
                WorkflowEvent.Action.FACT_CHECK,
                entry.status,
                entry.status,
                user,
                comment=f"Confirmed the citation{plural} of {titles} on "
                f"{newsroom.format_date(on)}.",
                version=versions.get(entry_id),
            )
        )
    return WorkflowEvent.objects.bulk_create(events)


def cancel_scheduled(entry: Entry, *, user: Any, because: str) -> int:
    """Cancel every waiting scheduled action of `entry` (it was withdrawn): nothing
    withdrawn comes back by a schedule set before. How many there were."""
    return ScheduledAction.objects.filter(entry=entry, state=ScheduledAction.State.PENDING).update(
        state=ScheduledAction.State.CANCELLED,
        cancelled_by=user,
        finished_at=timezone.now(),
        result=f"Cancelled: the entry was {because} by {user.get_username()}.",
    )


def revoke_share_links(entry: Entry, *, user: Any, because: str) -> int:
    """Stop every working preview link of `entry` (it was withdrawn); how many there were."""
    return ShareLink.objects.filter(entry=entry, revoked_at__isnull=True).update(
        revoked_at=timezone.now(),
        revoked_by=user if user is not None and user.is_authenticated else None,
        revoked_because=because,
    )


# How the reason of an unpublish the scheduler carried out begins (`scheduled_reason`):
# it names the schedule, not a reason anyone wrote for readers.
SCHEDULED_UNPUBLISH = "Scheduled unpublish."


def scheduled_reason(scheduled_by: Any, scheduled_at: datetime.datetime) -> str:
    """The reason a scheduled unpublish carries: that it was scheduled, by whom and when."""
    who = scheduled_by.get_username() if scheduled_by is not None else "someone"
    return f"{SCHEDULED_UNPUBLISH} Scheduled by {who} on {newsroom.format_instant(scheduled_at)}."


def withdrawal_reason(entry: Entry) -> str:
    """Why the entry was unpublished, when it has not been published since ("" otherwise):
    the publish page offers it as the public correction note when the entry comes back."""
    last = (
        WorkflowEvent.objects.filter(
            entry=entry,
            action__in=[
                WorkflowEvent.Action.PUBLISH,
                WorkflowEvent.Action.PUBLISH_CHECK_DATES,
                WorkflowEvent.Action.UNPUBLISH,
            ],
        )
        .order_by("-at", "-pk")
        .first()
    )
    if last is None or last.action != WorkflowEvent.Action.UNPUBLISH:
        return ""
    return "" if last.comment.startswith(SCHEDULED_UNPUBLISH) else last.comment.strip()


def unpublish_entry(entry: Entry, *, user: Any, comment: str) -> WorkflowEvent:
    """Take the entry off the public site; its working copy becomes a draft.

    A withdrawal always says why (`comment`, kept in the entry's history and offered as
    the correction note when it comes back): an empty one is refused, from any caller.
    """
    require(user, Action.UNPUBLISH, entry)
    comment = comment.strip()
    if not comment:
        raise WorkflowError(
            "Write why the entry is coming down: the reason is kept in its history. "
            "Nothing was unpublished."
        )
    with transaction.atomic():
        locked = _lock(entry)
        if not locked.is_live:
            raise InvalidTransition(
                f"“{locked.term}” is not published, so it cannot be unpublished."
            )
        before = locked.status
        publishing.unpublish(locked, user=user)
        revoke_share_links(locked, user=user, because="unpublished")
        cancel_scheduled(locked, user=user, because="unpublished")
        event = _log(
            locked, WorkflowEvent.Action.UNPUBLISH, before, Status.DRAFT, user, comment=comment
        )
    entry.refresh_from_db()
    return event


def archive_entry(entry: Entry, *, user: Any, comment: str = "") -> WorkflowEvent:
    """Retire the entry: off the public site if it was live, kept with all its versions."""
    require(user, Action.ARCHIVE, entry)
    with transaction.atomic():
        locked = _lock(entry)
        _check_state(locked, ARCHIVE_FROM, "archived")
        before = locked.status
        if locked.is_live:
            publishing.unpublish(locked, user=user, archive=True)
        else:
            _set_status(locked, Status.ARCHIVED)
        revoke_share_links(locked, user=user, because="archived")
        cancel_scheduled(locked, user=user, because="archived")
        event = _log(
            locked, WorkflowEvent.Action.ARCHIVE, before, Status.ARCHIVED, user, comment=comment
        )
    entry.refresh_from_db()
    return event


def delete_entry(entry: Entry, *, user: Any) -> str:
    """Delete an entry with all its versions and history (admins only); its term.

    Readers lose it first, exactly as with an unpublish (its page, its records'
    facts, every cached copy), its preview links die with it, and entries whose
    working copy links to it by see-also get a version without that link,
    credited to whoever deleted it.
    """
    require(user, Action.DELETE, entry)
    with transaction.atomic():
        locked = _lock(entry)
        term = locked.term
        if locked.is_live:
            publishing.unpublish(locked, user=user, archive=True)
        linking = list(Entry.objects.filter(see_also__target=locked).exclude(pk=locked.pk))
        SeeAlso.objects.filter(target=locked).delete()
        for other in linking:
            publishing.record_edit(
                other, user=user, comment=f"See-also link to the deleted entry “{term}” removed."
            )
        locked.delete()
    return term


def restore_entry(entry: Entry, *, user: Any, comment: str = "") -> WorkflowEvent:
    """Bring an archived entry back as a draft."""
    require(user, Action.ARCHIVE, entry)
    with transaction.atomic():
        locked = _lock(entry)
        _check_state(locked, {Status.ARCHIVED}, "restored")
        _set_status(locked, Status.DRAFT)
        event = _log(
            locked,
            WorkflowEvent.Action.RESTORE,
            Status.ARCHIVED,
            Status.DRAFT,
            user,
            comment=comment,
        )
    entry.status = locked.status
    return event


def rollback_to(
    entry: Entry, version: EntryVersion, *, user: Any, comment: str = ""
) -> EntryVersion:
    """Make `version`'s content the working copy again, saved as a new version (a draft).

    History is never rewritten: the result is the next version number, a copy of
    the old one. Readers keep seeing the live version until it is published.
    """
    require(user, Action.ROLLBACK, entry)
    if version.entry_id != entry.pk:
        raise WorkflowError("That version belongs to another entry.")
    with transaction.atomic():
        locked = _lock(entry)
        _check_state(locked, ROLLBACK_FROM, "rolled back (restore it from the archive first)")
        before = locked.status
        warnings = document.write_back(locked, document.load(version.data), user=user)
        new = publishing.record_edit(
            locked, user=user, comment=comment or f"Rolled back to version {version.number}."
        )
        # The copy is the old version's text: credited to whoever wrote that (the rollback
        # itself is on record, and its editor counts as an author too: change_authors_of).
        # Credited to the editor rolling back, the text's author could approve it.
        new.created_by_id = version.created_by_id
        EntryVersion.objects.filter(pk=new.pk).update(created_by=version.created_by_id)
        # A rollback is a draft whatever the state it started from (even in review).
        _set_status(locked, Status.DRAFT)
        _log(
            locked,
            WorkflowEvent.Action.ROLLBACK,
            before,
            Status.DRAFT,
            user,
            comment=comment or f"Rolled back to version {version.number} (saved as {new.number}).",
            version=version,
        )
    entry.refresh_from_db()
    new.rollback_warnings = warnings  # type: ignore[attr-defined]
    return new


def latest_version_number(entry: Entry) -> int:
    return entry.versions.aggregate(n=Max("number"))["n"] or 0
