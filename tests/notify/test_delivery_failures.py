"""One message the mail server refuses, or one that cannot be written, never stops the others.

Every test sends through Django's real SMTP backend to a real SMTP server on
127.0.0.1 (aiosmtpd, tests/notify/smtp_server.py) that refuses or defers the
addresses a test names, the way Postfix answers an unknown or greylisted mailbox.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from celery.exceptions import Retry
from django.contrib.auth.models import User

from editorial import notify, tasks, workflow
from editorial.models import Notification
from editorial.permissions import Role
from tests.notify.smtp_server import NO_SUCH_USER, TRY_LATER, SMTPServer
from tests.personas import NOW, client_for, member

pytestmark = pytest.mark.django_db

Outcome = Notification.Outcome
SUBJECT = "[The Show Glossary desk] Review requested: “Interconnect”"


@pytest.fixture(scope="session")
def _smtp_server() -> Iterator[SMTPServer]:
    server = SMTPServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def smtp(_smtp_server: SMTPServer, settings: Any) -> SMTPServer:
    """Mail goes over the wire to the local server, as production sends it."""
    _smtp_server.reset()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = _smtp_server.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5
    return _smtp_server


@pytest.fixture
def third_editor(roles: None) -> User:
    return member("ivy_editor", Role.EDITOR)


@pytest.fixture
def editors(editor: User, second_editor: User, third_editor: User) -> list[User]:
    """Three editors; the first (the lowest id, so the first one sent) is the one refused."""
    return sorted([editor, second_editor, third_editor], key=lambda u: u.pk)


@pytest.fixture(autouse=True)
def frozen() -> Iterator[None]:
    with time_machine.travel(NOW, tick=False):
        yield


def rows_of(user: User) -> list[Notification]:
    return list(Notification.objects.filter(recipient=user))


def test_a_recipient_the_server_refuses_does_not_stop_the_others(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    refused, *others = editors
    smtp.refuse[refused.email] = NO_SUCH_USER
    workflow.submit_for_review(ready_entry, user=writer)

    report = notify.deliver()

    assert smtp.delivered_to() == sorted(u.email for u in others)
    assert smtp.message_to(others[0].email)["Subject"].strip() == SUBJECT
    assert report.as_dict() == {"emails": 2, "notifications": 2, "failed": 1, "retrying": 0}
    [row] = rows_of(refused)
    # A 5xx is for good: given up at once, with the server's own words and when.
    assert row.outcome == Outcome.FAILED
    assert row.sent_at == NOW and row.failed_at == NOW and row.attempts == 1
    assert row.error == (
        f"The mail server refused {refused.email}: 550 5.1.1 <{refused.email}>: "
        "Recipient address rejected: User unknown"
    )
    for other in others:
        assert [r.outcome for r in rows_of(other)] == [Outcome.EMAILED]
    # Given up means given up: the next run does not knock again.
    assert notify.deliver().as_dict()["failed"] == 0
    assert smtp.recipients_seen.count(refused.email) == 1


def test_a_passing_refusal_waits_and_goes_on_a_later_run(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    deferred, *others = editors
    smtp.refuse[deferred.email] = TRY_LATER
    workflow.submit_for_review(ready_entry, user=writer)

    report = notify.deliver()

    assert report.as_dict() == {"emails": 2, "notifications": 2, "failed": 0, "retrying": 1}
    assert smtp.delivered_to() == sorted(u.email for u in others)
    [row] = rows_of(deferred)
    assert row.sent_at is None and row.outcome == Outcome.WAITING
    assert row.attempts == 1 and row.failed_at == NOW
    assert "451 4.3.0" in row.error

    smtp.refuse.clear()
    with time_machine.travel(NOW + datetime.timedelta(minutes=5), tick=False):
        later = notify.deliver()
    assert later.as_dict() == {"emails": 1, "notifications": 1, "failed": 0, "retrying": 0}
    assert smtp.message_to(deferred.email)["Subject"].strip() == SUBJECT
    row.refresh_from_db()
    assert row.outcome == Outcome.EMAILED
    # The log keeps that it took two tries.
    assert row.attempts == 1 and "451" in row.error


def test_a_message_refused_for_a_passing_reason_is_given_up_after_two_days(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    deferred = editors[0]
    smtp.refuse[deferred.email] = TRY_LATER
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()
    with time_machine.travel(NOW + datetime.timedelta(days=1), tick=False):
        assert notify.deliver().retrying == 1
    give_up = NOW + notify.GIVE_UP_AFTER
    with time_machine.travel(give_up, tick=False):
        assert notify.deliver().as_dict()["failed"] == 1
    [row] = rows_of(deferred)
    assert row.outcome == Outcome.FAILED
    assert row.attempts == 3 and row.failed_at == NOW and row.sent_at == give_up


def test_a_message_whose_header_cannot_be_written_fails_alone(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    # An address carried over from an old system with a header smuggled into it.
    injected, *others = editors
    bad = f"{injected.username}@example.com\r\nBcc: everyone@example.com"
    User.objects.filter(pk=injected.pk).update(email=bad)
    workflow.submit_for_review(ready_entry, user=writer)

    report = notify.deliver()

    assert report.as_dict() == {"emails": 2, "notifications": 2, "failed": 1, "retrying": 0}
    assert smtp.delivered_to() == sorted(u.email for u in others)
    assert "everyone@example.com" not in smtp.recipients_seen
    [row] = rows_of(injected)
    assert row.outcome == Outcome.FAILED
    assert row.error.startswith("The message could not be written (ValueError): ")
    assert "Invalid address" in row.error


def test_a_term_with_a_line_break_still_reaches_the_editors_on_one_subject_line(
    smtp: SMTPServer, make_ready_entry: Any, writer: User, editors: list[User]
) -> None:
    # Stored before terms refused line breaks: the subject must not become two headers.
    entry = make_ready_entry("Hdr Test")
    type(entry).objects.filter(pk=entry.pk).update(term="Hdr Test\r\nBcc: everyone@example.com")
    entry.refresh_from_db()
    workflow.submit_for_review(entry, user=writer)

    report = notify.deliver()

    assert report.failed == 0
    assert smtp.delivered_to() == sorted(u.email for u in editors)
    message = smtp.message_to(editors[0].email)
    assert message["Subject"].strip() == (
        "[The Show Glossary desk] Review requested: “Hdr Test Bcc: everyone@example.com”"
    )
    assert message["Bcc"] is None
    assert "everyone@example.com" not in smtp.recipients_seen


def test_a_mail_server_that_does_not_answer_stops_the_run_and_keeps_everything_waiting(
    smtp: SMTPServer, settings: Any, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    settings.EMAIL_PORT = 1  # nothing listens there: connection refused
    workflow.submit_for_review(ready_entry, user=writer)

    report = notify.deliver()

    # Every message would fail the same way: one attempt, then the run stops.
    assert report.as_dict() == {"emails": 0, "notifications": 0, "failed": 0, "retrying": 1}
    rows = Notification.objects.order_by("recipient_id")
    assert [r.outcome for r in rows] == [Outcome.WAITING] * 3
    assert [r.attempts for r in rows] == [1, 0, 0]
    assert rows[0].error.startswith("The mail server could not be reached: ")
    assert "Connection refused" in rows[0].error


def test_the_task_asks_celery_to_retry_only_passing_failures(
    smtp: SMTPServer, make_ready_entry: Any, writer: User, editors: list[User]
) -> None:
    smtp.refuse[editors[0].email] = TRY_LATER
    smtp.refuse[editors[1].email] = NO_SUCH_USER
    workflow.submit_for_review(make_ready_entry("Interconnect"), user=writer)
    # Called as a worker calls it (not eagerly): a passing failure asks for a retry.
    with pytest.raises(Retry):
        tasks.deliver_notifications()
    assert smtp.delivered_to() == [editors[2].email]
    smtp.refuse.clear()
    # Only the deferred message is left; it goes, and nothing asks for a retry.
    assert tasks.deliver_notifications() == {
        "emails": 1,
        "notifications": 1,
        "failed": 0,
        "retrying": 0,
    }
    # Run eagerly (no worker: inside the web request that queued it), a retry would run
    # again at once and hold the request; it leaves the message for the next run.
    smtp.refuse[editors[0].email] = TRY_LATER
    workflow.submit_for_review(make_ready_entry("Chiplet"), user=writer)
    result = tasks.deliver_notifications.apply()
    assert result.successful()
    assert result.get()["retrying"] == 1


def test_the_dashboard_says_which_emails_failed_and_why(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    refused, deferred, _ = editors
    smtp.refuse[refused.email] = NO_SUCH_USER
    smtp.refuse[deferred.email] = TRY_LATER
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()

    page = client_for(editors[2]).get("/admin/dashboard/").content.decode()
    section = page[page.index('id="email-failures"') : page.index('id="published-failing"')]
    assert "Email that could not be sent" in section
    assert f"/admin/glossary/entry/{ready_entry.pk}/change/" in section
    assert "Review requested: “Interconnect”" in section
    assert "<strong>Not sent</strong> (1 attempt)" in section
    assert "Trying again (1 failed attempt so far)" in section
    assert "550 5.1.1" in section and "451 4.3.0" in section
    assert refused.get_full_name() in section and deferred.get_full_name() in section


def test_the_dashboard_says_nothing_failed_when_nothing_did(
    smtp: SMTPServer, ready_entry: Any, writer: User, editors: list[User]
) -> None:
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()
    page = client_for(editors[0]).get("/admin/dashboard/").content.decode()
    assert "No email failed in the last 30 days." in page


def test_an_admin_sends_a_failed_email_again_once_the_address_is_fixed(
    smtp: SMTPServer,
    ready_entry: Any,
    writer: User,
    editors: list[User],
    admin_user: User,
    django_capture_on_commit_callbacks: Any,
) -> None:
    refused = editors[0]
    smtp.refuse[refused.email] = NO_SUCH_USER
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()
    [row] = rows_of(refused)
    User.objects.filter(pk=refused.pk).update(email="ed.editor@example.com")

    client = client_for(admin_user)
    listing = client.get("/admin/editorial/notification/?outcome__exact=failed").content.decode()
    assert "550 5.1.1" in listing and "(1 failed attempt)" in listing
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/editorial/notification/",
            {"action": "send_again", "_selected_action": [str(row.pk)]},
            follow=True,
        )
    assert "1 notification will be emailed again now" in response.content.decode()
    row.refresh_from_db()
    assert row.outcome == Outcome.EMAILED and row.error == ""
    assert "ed.editor@example.com" in smtp.delivered_to()
