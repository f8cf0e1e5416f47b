"""Telling people what needs them, by email.

Two halves, so nothing is sent inside the transaction that caused it:

- *recording*: the workflow, the scheduler and the link checker call the
  `tell_*` functions inside their own transaction; each writes one
  Notification row per person who should hear (never the person who acted,
  never someone whose email is off or who has no address). A source that
  changes again before its alert went out updates the waiting row instead of
  adding one.
- *delivery*: `deliver` (the Celery task editorial.tasks.deliver_notifications,
  run by beat every NOTIFY_INTERVAL_SECONDS and queued after each workflow
  change) sends each person who wants email as it happens one message holding
  all their waiting rows; `send_digests` (hourly, acting at NOTIFY_DIGEST_HOUR in
  the newsroom's zone) does the same once a day for people who chose the digest.
  Link-check alerts only go out from the beat run, so a whole run of checks is
  one email per person, never one per check.

Rows are claimed under a row lock and marked sent in the same transaction as
the send. Each person's message goes on its own connection, and a failure is
recorded on that message's rows, never allowed to stop the others: one the mail
server refuses for good (5xx) or that cannot be written (a line break in an
address) is given up at once (outcome "failed"), one refused for a passing
reason (4xx, a dropped connection, no server) waits, and the task tries it
again with backoff, as does every later run, for GIVE_UP_AFTER. The dashboard
lists both. Delivery is at least once: a crash between the SMTP server
accepting a message and the commit sends it again on retry.
"""

from __future__ import annotations

import datetime
import logging
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import Permission, User
from django.core import signing
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from editorial import newsroom
from editorial.linkcheck.state import Transition
from editorial.models import (
    Assignment,
    Comment,
    Notification,
    NotificationPreference,
    ShowMembership,
)
from editorial.permissions import ROLES, TEAM_ROLES, Role, granted
from editorial.sourcetext import report
from glossary.models import Entry, Source

log = logging.getLogger(__name__)

Kind = Notification.Kind
Delivery = NotificationPreference.Delivery

UNSUBSCRIBE_SALT = "editorial.notify.unsubscribe"
# Kinds delivered only by the periodic run, so that many of them share one email.
COALESCED_KINDS = {Kind.SOURCE_CHANGED}


# --- Who hears --------------------------------------------------------------------


def _with_permission(codename: str, show_id: int | None) -> QuerySet[User]:
    """Active people holding `codename` for an entry of show `show_id` (None: an entry of the
    whole network): everyone network-wide who holds it, and the show's team members whose
    role gives it (docs/shows-and-teams.md). A member of other shows' teams hears nothing."""
    app_label, name = codename.split(".")
    perm = Permission.objects.filter(content_type__app_label=app_label, codename=name)
    on_a_team = ShowMembership.objects.filter(user=OuterRef("pk"))
    admin = User.groups.through.objects.filter(user=OuterRef("pk"), group__name=Role.ADMIN.value)
    network_wide = Q(is_superuser=True) | ~Exists(on_a_team) | Exists(admin)
    holders = Q(groups__permissions__in=perm) | Q(user_permissions__in=perm) | Q(is_superuser=True)
    who = holders & network_wide
    roles = [role.value for role in TEAM_ROLES if granted(codename, ROLES[role])]
    if show_id is not None and roles:
        team = ShowMembership.objects.filter(show_id=show_id, role__in=roles)
        who |= Q(pk__in=team.values("user"))
    return User.objects.filter(who, is_active=True).distinct()


def editors(show_id: int | None) -> QuerySet[User]:
    """Everyone who can publish an entry of `show_id`: they review and approve."""
    return _with_permission("editorial.publish_entry", show_id)


def fact_checkers(show_id: int | None) -> QuerySet[User]:
    """Everyone who can confirm citations of an entry of `show_id`."""
    return _with_permission("editorial.confirm_citation", show_id)


def _anywhere(codename: str) -> QuerySet[User]:
    """Active people holding `codename` network-wide or on any show's team."""
    roles = [role.value for role in TEAM_ROLES if granted(codename, ROLES[role])]
    team = ShowMembership.objects.filter(role__in=roles).values("user")
    network = _with_permission(codename, None).values("pk")
    return User.objects.filter(Q(pk__in=network) | Q(pk__in=team), is_active=True)


def content_writers() -> QuerySet[User]:
    """Everyone who can write entries of some show or of the network (writers, editors,
    admins): the people a writer's assignment may name; `assignments.check_assignee`
    asks about the entry's own show."""
    return _anywhere("editorial.edit_content")


def anyone_confirming() -> QuerySet[User]:
    """Everyone who can confirm citations of some show's or the network's entries."""
    return _anywhere("editorial.confirm_citation")


def _delivery_of(users: Iterable[int]) -> dict[int, str]:
    chosen = dict(
        NotificationPreference.objects.filter(user__in=list(users)).values_list("user", "delivery")
    )
    return {pk: chosen.get(pk, settings.NOTIFY_DEFAULT_DELIVERY) for pk in users}


def _audience(user_ids: Iterable[int], actor: object = None) -> list[int]:
    """Who of `user_ids` gets a row: active, with an address, email not off, not the actor."""
    actor_id = getattr(actor, "pk", None)
    ids = set(user_ids) - {actor_id}
    reachable = list(
        User.objects.filter(pk__in=ids, is_active=True)
        .exclude(email="")
        .values_list("pk", flat=True)
    )
    delivery = _delivery_of(reachable)
    return sorted(pk for pk in reachable if delivery[pk] != Delivery.OFF)


def _rows(
    recipients: Iterable[int], kind: str, subject: str, text: str, **about: object
) -> list[Notification]:
    return [
        Notification(recipient_id=pk, kind=kind, subject=subject, text=text, **about)
        for pk in recipients
    ]


def _record(recipients: Iterable[int], kind: str, subject: str, text: str, **about: object) -> int:
    return len(Notification.objects.bulk_create(_rows(recipients, kind, subject, text, **about)))


# Sent after the transaction that recorded workflow notifications commits;
# editorial.apps queues the delivery task on it (the tasks sit above this module).
notifications_recorded = Signal()


def _after_commit_deliver() -> None:
    transaction.on_commit(lambda: notifications_recorded.send(sender=Notification))


def desk_url(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def _entry_url(entry: Entry) -> str:
    return desk_url(reverse("admin:glossary_entry_change", args=[entry.pk]))


def _name(user: object) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return "The scheduler"
    full = user.get_full_name() if isinstance(user, User) else ""
    return full or str(getattr(user, "username", "someone"))


# --- Recording (called inside the transaction that did the thing) ----------------------


def tell_review_requested_of(entries: Iterable[Entry], *, actor: object, comment: str = "") -> int:
    """Every editor of each entry's show hears of it, in one read of who they are per show."""
    entries = list(entries)
    audiences = {
        show_id: _audience(editors(show_id).values_list("pk", flat=True), actor)
        for show_id in {entry.show_id for entry in entries}
    }
    rows: list[Notification] = []
    for entry in entries:
        audience = audiences[entry.show_id]
        subject = f"Review requested: “{entry.term}”"
        text = f"{_name(actor)} submitted “{entry.term}” for review."
        if comment:
            text += f"\nTheir note: {comment}"
        text += f"\nReview it: {_entry_url(entry)}"
        rows += _rows(audience, Kind.REVIEW_REQUESTED, subject, text, entry=entry)
    made = len(Notification.objects.bulk_create(rows))
    _after_commit_deliver()
    return made


def tell_changes_requested(entry: Entry, *, actor: object, comment: str, writers: set[int]) -> int:
    """`writers`: the entry's writer and whoever wrote the change (editorial.workflow)."""
    subject = f"Changes requested: “{entry.term}”"
    text = (
        f"{_name(actor)} sent “{entry.term}” back with changes requested:\n{comment}\n"
        f"Open it: {_entry_url(entry)}"
    )
    made = _record(_audience(writers, actor), Kind.CHANGES_REQUESTED, subject, text, entry=entry)
    _after_commit_deliver()
    return made


def tell_published_of(published: Iterable[tuple[Entry, set[int]]], *, actor: object) -> int:
    """Each entry's writers hear it was published, in one read of who can be told. The
    writers are read before the publish (afterwards the change is no longer waiting)."""
    published = list(published)
    reachable = set(_audience({pk for _, writers in published for pk in writers}, actor))
    rows: list[Notification] = []
    for entry, writers in published:
        subject = f"Published: “{entry.term}”"
        page = desk_url(reverse("glossary:entry", args=[entry.slug]))
        text = f"{_name(actor)} published “{entry.term}”. Readers see it at {page}"
        audience = sorted(pk for pk in writers if pk in reachable)
        rows += _rows(audience, Kind.PUBLISHED, subject, text, entry=entry)
    made = len(Notification.objects.bulk_create(rows))
    _after_commit_deliver()
    return made


def tell_schedule_failed(entry: Entry, *, action: str, result: str) -> int:
    subject = f"Scheduled {action} failed: “{entry.term}”"
    text = f"The scheduled {action} of “{entry.term}” did not happen.\n{result}\n" + (
        f"Open it: {_entry_url(entry)}"
    )
    made = _record(
        _audience(editors(entry.show_id).values_list("pk", flat=True)),
        Kind.SCHEDULE_FAILED,
        subject,
        text,
        entry=entry,
    )
    _after_commit_deliver()
    return made


def tell_mentioned(comment: Comment, user_ids: Iterable[int], *, actor: object) -> int:
    """Each person a comment names with @username hears of it (never its author)."""
    entry = comment.entry
    where = comment.get_field_display().lower()
    subject = f"{_name(actor)} mentioned you on “{entry.term}”"
    text = f"{_name(actor)} wrote on the {where} of “{entry.term}”:"
    if comment.quote:
        text += f"\n> {_one_line(comment.quote)}"
    text += f"\n{comment.text}\nReply: {_entry_url(entry)}#comment-{comment.pk}"
    made = _record(_audience(user_ids, actor), Kind.MENTIONED, subject, text, entry=entry)
    _after_commit_deliver()
    return made


def tell_assigned(assignment: Assignment, *, actor: object) -> int:
    """The assignee hears what is asked of them and by when (never when they assigned
    themselves)."""
    entry = assignment.entry
    what = "write" if assignment.role == Assignment.Role.WRITER else "fact-check"
    due = newsroom.format_date(assignment.due_on)
    subject = f"Assigned to you: {what} “{entry.term}” by {due}"
    text = f"{_name(actor)} asked you to {what} “{entry.term}” by {due}."
    if assignment.note:
        text += f"\nTheir note: {assignment.note}"
    text += f"\nOpen it: {_entry_url(entry)}\nYour work: {desk_url(reverse('desk:my-work'))}"
    made = _record(
        _audience([assignment.assignee_id], actor), Kind.ASSIGNED, subject, text, entry=entry
    )
    _after_commit_deliver()
    return made


def page_change_summary(source: Source) -> str:
    """What changed in the page's text since it was confirmed, in plain words: figures
    gone first, claims that no longer hold, then the sentences removed and added
    (editorial.sourcetext.report.change_summary); "" when no confirmed text is stored."""
    return report.change_summary(source)


def is_alert(transition: Transition) -> bool:
    """Broken, moved, empty, or its text changed since confirmed: what the people citing it
    must hear."""
    became = transition.health_changed and transition.new_health in (
        Source.Health.BROKEN,
        Source.Health.MOVED,
        Source.Health.EMPTY,
    )
    return became or transition.content_changed


def _source_text(source: Source, transition: Transition, terms: list[str]) -> str:
    lines = [f"{source.title or source.url}\n{source.url}"]
    if transition.health_changed and transition.new_health == Source.Health.BROKEN:
        lines.append("The link is broken: it failed several checks days apart.")
    elif transition.health_changed and transition.new_health == Source.Health.EMPTY:
        lines.append(
            "The page came back empty (no text) on several checks days apart: it may have "
            "been emptied, or be built by scripts the desk does not run. Open it and check "
            "it still says what it is cited for."
        )
    elif transition.health_changed and transition.new_health == Source.Health.MOVED:
        lines.append(f"The page moved to {source.suggested_url or 'another address'}.")
    if transition.content_changed:
        lines.append("The page's text changed since a fact-checker confirmed it.")
        summary = page_change_summary(source)
        if summary:
            lines.append(summary)
    lines.append("Cited by: " + "; ".join(terms))
    lines.append(desk_url(reverse("admin:glossary_source_change", args=[source.pk])))
    return "\n".join(lines)


def tell_source_changes(changes: Iterable[tuple[Source, Transition]]) -> int:
    """Record alerts for sources that became broken or moved, or whose text changed.

    Called once per recorded batch of checks (editorial.linkcheck.service.record),
    after it commits. Fact-checkers and the writers of the (unarchived) entries
    citing each source hear; a source with a waiting alert gets its row updated.
    """
    alerts = [(s, t) for s, t in changes if is_alert(t)]
    if not alerts:
        return 0
    checkers: dict[int | None, set[int]] = {}
    made = 0
    with transaction.atomic():
        for source, transition in alerts:
            citing = list(
                Entry.objects.filter(citations__source=source)
                .exclude(status=Entry.Status.ARCHIVED)
                .distinct()
                .values_list("term", "created_by", "show")
            )
            if not citing:
                continue
            terms = sorted({term for term, _, _ in citing})
            # The fact-checkers of each citing entry's show, and the entries' writers.
            hearing = {w for _, w, _ in citing if w is not None}
            for show_id in {show for _, _, show in citing}:
                if show_id not in checkers:
                    checkers[show_id] = set(fact_checkers(show_id).values_list("pk", flat=True))
                hearing |= checkers[show_id]
            audience = _audience(hearing)
            subject = f"Cited source needs a look: {source.title or source.url}"
            text = _source_text(source, transition, terms)
            waiting = set(
                Notification.objects.filter(
                    source=source, kind=Kind.SOURCE_CHANGED, sent_at__isnull=True
                ).values_list("recipient", flat=True)
            )
            Notification.objects.filter(
                source=source, kind=Kind.SOURCE_CHANGED, sent_at__isnull=True
            ).update(subject=subject, text=text, created_at=timezone.now())
            made += _record(
                [pk for pk in audience if pk not in waiting],
                Kind.SOURCE_CHANGED,
                subject,
                text,
                source=source,
            )
    return made


# --- Opting out ------------------------------------------------------------------------


def unsubscribe_token(user: User) -> str:
    return signing.dumps(user.pk, salt=UNSUBSCRIBE_SALT)


def user_for_token(token: str) -> User | None:
    try:
        pk = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return User.objects.filter(pk=pk).first()


def unsubscribe_url(user: User) -> str:
    return desk_url(reverse("notify-unsubscribe", args=[unsubscribe_token(user)]))


def set_delivery(user: User, delivery: str) -> NotificationPreference:
    pref, _ = NotificationPreference.objects.update_or_create(
        user=user, defaults={"delivery": Delivery(delivery), "changed_at": timezone.now()}
    )
    if delivery == Delivery.OFF:
        Notification.objects.filter(recipient=user, sent_at__isnull=True).update(
            sent_at=timezone.now(), outcome=Notification.Outcome.DROPPED
        )
    return pref


# --- Delivery --------------------------------------------------------------------------

# How long a message the mail server keeps refusing for a passing reason (4xx, a dropped
# connection, a server that does not answer) is tried again before it is given up; mail
# servers give up after days, and a desk notice older than that is on the dashboard anyway.
GIVE_UP_AFTER = datetime.timedelta(days=2)
# The longest error text kept on a notification.
ERROR_MAX_CHARS = 2000


@dataclass
class DeliveryReport:
    emails: int = 0
    notifications: int = 0
    # Messages given up (they can never go: refused for good, or a header that cannot be
    # written), and messages that failed for a passing reason and wait to be tried again.
    failed: int = 0
    retrying: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "emails": self.emails,
            "notifications": self.notifications,
            "failed": self.failed,
            "retrying": self.retrying,
        }


@dataclass(frozen=True)
class Failure:
    """Why one message did not go, and whether trying again may help."""

    error: str
    transient: bool
    # The mail server itself could not be used (not reached, refused the login): every
    # other message of the run would fail the same way, so the run stops there.
    server: bool = False


def _smtp_reply(code: int, message: bytes | str) -> str:
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    return f"{code} {' '.join(text.split())}"


def describe_failure(exc: Exception, *, server: bool = False) -> Failure:
    """Classify an exception from building or sending one message.

    A 4xx reply, a dropped connection or an unreachable server passes; a 5xx reply
    does not, and neither does a message Django cannot write (a line break in a
    header or an address: BadHeaderError or ValueError).
    """
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        replies = exc.recipients.items()
        error = "The mail server refused " + "; ".join(
            f"{address}: {_smtp_reply(code, message)}" for address, (code, message) in replies
        )
        transient = all(400 <= code < 500 for _, (code, _) in replies)
        return Failure(error, transient, server)
    if isinstance(exc, smtplib.SMTPResponseException):
        error = f"The mail server answered {_smtp_reply(exc.smtp_code, exc.smtp_error)}"
        return Failure(error, server or 400 <= exc.smtp_code < 500, server)
    if isinstance(exc, OSError):  # smtplib's other errors, timeouts, refused connections
        return Failure(f"The mail server could not be reached: {exc}", True, server)
    return Failure(f"The message could not be written ({type(exc).__name__}): {exc}", False)


def _one_line(text: str) -> str:
    """A header value on one line: a line break would be a second header (or a refusal)."""
    return " ".join(text.split())


def compose(user: User, rows: list[Notification], *, digest: bool) -> EmailMessage:
    site = settings.PUBLIC_SITE_NAME
    if digest:
        subject = (
            f"[{site} desk] Your daily digest: {len(rows)} item{'s' if len(rows) != 1 else ''}"
        )
    elif len(rows) == 1:
        subject = f"[{site} desk] {_one_line(rows[0].subject)}"
    else:
        subject = f"[{site} desk] {len(rows)} things need you"
    greeting = f"Hello {user.get_full_name() or user.get_username()},"
    parts = [greeting, ""]
    for row in rows:
        parts += [f"• {row.subject}", row.text, ""]
    opt_out = unsubscribe_url(user)
    prefs = desk_url(reverse("desk:notifications"))
    parts += [
        "—",
        f"Choose how you hear from the desk (as it happens, daily, or not at all): {prefs}",
        f"Stop these emails with one click: {opt_out}",
    ]
    return EmailMessage(
        subject=subject,
        body="\n".join(parts),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={
            # RFC 2369 and RFC 8058: mail clients offer their own one-click unsubscribe.
            "List-Unsubscribe": f"<{opt_out}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
        },
    )


def _send(message: EmailMessage) -> Failure | None:
    """Send one message over a connection of its own; the failure, or None when it went.

    Its own connection: a server that refused one recipient or dropped the line
    cannot take the next person's message down with it.
    """
    connection = get_connection()
    try:
        connection.open()
    except Exception as exc:
        log.warning("The mail server could not be used: %s", exc)
        return describe_failure(exc, server=True)
    try:
        message.connection = connection
        message.send()
    except Exception as exc:
        failure = describe_failure(exc)
        if isinstance(exc, OSError | ValueError):
            log.warning("Could not send %s a notification: %s", message.to, failure.error)
        else:  # not the mail server's answer nor a bad header: keep the traceback
            log.exception("Could not send %s a notification", message.to)
        return failure
    finally:
        try:
            connection.close()
        except Exception:  # a connection already dropped has nothing left to close
            log.debug("Closing the mail connection failed", exc_info=True)
    return None


def _record_failure(rows: list[Notification], failure: Failure, now: datetime.datetime) -> bool:
    """Note the failure on every row of the message; give the rows up when it can never
    go or has failed for GIVE_UP_AFTER. Whether any row still waits."""
    ids = [row.pk for row in rows]
    Notification.objects.filter(pk__in=ids, failed_at__isnull=True).update(failed_at=now)
    Notification.objects.filter(pk__in=ids).update(
        attempts=F("attempts") + 1, error=failure.error[:ERROR_MAX_CHARS]
    )
    done = Notification.objects.filter(pk__in=ids)
    if failure.transient:
        done = done.filter(failed_at__lte=now - GIVE_UP_AFTER)
    given_up = done.update(sent_at=now, outcome=Notification.Outcome.FAILED)
    return given_up < len(ids)


@dataclass(frozen=True)
class _Sent:
    rows: int
    failure: Failure | None = None
    waiting: bool = False  # after a failure: rows left to try again


def _send_waiting(
    user_id: int, *, kinds: set[str] | None, digest: bool, now: datetime.datetime
) -> _Sent:
    """Send `user_id` their waiting rows (of `kinds`, or all) in one email."""
    with transaction.atomic():
        waiting = Notification.objects.select_for_update().filter(
            recipient_id=user_id, sent_at__isnull=True
        )
        if kinds is not None:
            waiting = waiting.filter(kind__in=kinds)
        rows = list(waiting.order_by("created_at", "pk"))
        if not rows:
            return _Sent(0)
        user = User.objects.get(pk=user_id)
        outcome = Notification.Outcome.DIGEST if digest else Notification.Outcome.EMAILED
        if not user.is_active or not user.email:
            outcome = Notification.Outcome.DROPPED
        else:
            failure = _send(compose(user, rows, digest=digest))
            if failure is not None:
                # Recorded in the transaction that claimed the rows; nothing was sent.
                return _Sent(len(rows), failure, _record_failure(rows, failure, now))
        Notification.objects.filter(pk__in=[r.pk for r in rows]).update(
            sent_at=now, outcome=outcome
        )
        if digest:
            NotificationPreference.objects.filter(user_id=user_id).update(last_digest_at=now)
    return _Sent(len(rows))


def _count(report: DeliveryReport, sent: _Sent) -> bool:
    """Add one person's result to the report; False when the run should stop (the mail
    server cannot be used, so every later message would fail the same way)."""
    if sent.failure is None:
        report.notifications += sent.rows
        report.emails += 1 if sent.rows else 0
        return True
    if sent.waiting:
        report.retrying += 1
    else:
        report.failed += 1
    return not sent.failure.server


def _waiting_recipients() -> list[int]:
    return list(
        Notification.objects.filter(sent_at__isnull=True)
        .order_by()
        .values_list("recipient", flat=True)
        .distinct()
    )


def deliver(
    *, include_coalesced: bool = True, now: datetime.datetime | None = None
) -> DeliveryReport:
    """Email everyone who wants it as it happens their waiting notifications, one email each.

    Without `include_coalesced`, link-check alerts keep waiting for the periodic run.
    Rows of people who turned email off are marked dropped, unsent. Each person's
    message is sent on its own: one the mail server refuses, or one that cannot be
    written, is recorded on its rows (`Notification.error`, `failed_at`) and the
    others still go; see `describe_failure` for what is tried again.
    """
    now = now or timezone.now()
    report = DeliveryReport()
    recipients = _waiting_recipients()
    delivery = _delivery_of(recipients)
    kinds = None if include_coalesced else {k.value for k in Kind} - COALESCED_KINDS
    for pk in recipients:
        if delivery[pk] == Delivery.OFF:
            Notification.objects.filter(recipient_id=pk, sent_at__isnull=True).update(
                sent_at=now, outcome=Notification.Outcome.DROPPED
            )
            continue
        if delivery[pk] != Delivery.IMMEDIATE:
            continue
        if not _count(report, _send_waiting(pk, kinds=kinds, digest=False, now=now)):
            break
    return report


def send_digests(now: datetime.datetime | None = None) -> DeliveryReport:
    """At NOTIFY_DIGEST_HOUR (newsroom time), send each daily-digest person one email.

    Runs every hour; outside the digest hour it does nothing, and a person whose
    digest went out in the last 20 hours is skipped, so a second run in the same
    hour (or two beats) sends nothing twice.
    """
    now = now or timezone.now()
    report = DeliveryReport()
    if newsroom.to_local(now).hour != settings.NOTIFY_DIGEST_HOUR:
        return report
    recent = now - datetime.timedelta(hours=20)
    recipients = _waiting_recipients()
    delivery = _delivery_of(recipients)
    done_recently = set(
        NotificationPreference.objects.filter(
            user__in=recipients, last_digest_at__gte=recent
        ).values_list("user", flat=True)
    )
    for pk in recipients:
        if delivery[pk] != Delivery.DAILY or pk in done_recently:
            continue
        if not _count(report, _send_waiting(pk, kinds=None, digest=True, now=now)):
            break
    return report
