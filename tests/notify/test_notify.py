"""Who is emailed, when, and how often: review, changes, publish, schedule failures, sources."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.auth.models import User

from editorial import notify, scheduling, workflow
from editorial.linkcheck.state import Transition
from editorial.models import Notification, NotificationPreference, ScheduledAction
from glossary.models import Citation, Source
from tests.personas import client_for

pytestmark = pytest.mark.django_db

Delivery = NotificationPreference.Delivery


def recipients(message: Any) -> list[str]:
    return sorted(message.to)


def test_submitting_for_review_emails_the_editors_but_not_the_writer(
    ready_entry,
    writer,
    editor,
    second_editor,
    fact_checker,
    mailoutbox,
    django_capture_on_commit_callbacks,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        workflow.submit_for_review(ready_entry, user=writer, comment="Ready when you are.")
    assert sorted(m.to[0] for m in mailoutbox) == [editor.email, second_editor.email]
    message = mailoutbox[0]
    assert message.subject == "[The Show Glossary desk] Review requested: “Interconnect”"
    assert "Wanda Writer submitted “Interconnect” for review." in message.body
    assert "Ready when you are." in message.body
    assert f"/admin/glossary/entry/{ready_entry.pk}/change/" in message.body


def test_requesting_changes_emails_the_writer_with_the_comment(
    entry_in_review, writer, editor, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    entry = entry_in_review()
    notify.deliver()  # the review request
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        workflow.request_changes(entry, user=editor, comment="Cite the spec, please.")
    assert [m.to for m in mailoutbox] == [[writer.email]]
    assert "Changes requested" in mailoutbox[0].subject
    assert "Cite the spec, please." in mailoutbox[0].body


def test_publishing_emails_the_writer_not_the_publishing_editor(
    entry_in_review, writer, editor, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    entry = entry_in_review()
    notify.deliver()  # the review request
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        workflow.publish_entry(entry, user=editor)
    assert [m.to for m in mailoutbox] == [[writer.email]]
    assert mailoutbox[0].subject.endswith("Published: “Interconnect”")
    assert f"/glossary/{entry.slug}/" in mailoutbox[0].body


def test_a_failed_scheduled_publish_emails_the_editors(
    make_entry, writer, editor, second_editor, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    entry = make_entry("Unsourced", created_by=writer)
    from glossary.publishing import save_version

    save_version(entry, user=writer)
    workflow.submit_for_review(entry, user=writer)
    now = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)
    ScheduledAction.objects.create(
        entry=entry,
        due_at=now - datetime.timedelta(minutes=1),
        created_by=second_editor,
        approved_by=second_editor,
        version=1,
    )
    notify.deliver()  # the review request
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        report = scheduling.run_due(now)
    assert report.failed
    # The editor who scheduled it is told too: the scheduler acted, not them.
    assert sorted(m.to[0] for m in mailoutbox) == [editor.email, second_editor.email]
    assert "Scheduled publish failed: “Unsourced”" in mailoutbox[0].subject
    assert "publish checks failed" in mailoutbox[0].body


def test_people_with_email_off_or_no_address_get_nothing(
    ready_entry, writer, editor, second_editor, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    notify.set_delivery(editor, Delivery.OFF)
    User.objects.filter(pk=second_editor.pk).update(email="")
    with django_capture_on_commit_callbacks(execute=True):
        workflow.submit_for_review(ready_entry, user=writer)
    assert mailoutbox == []
    assert not Notification.objects.exists()


def test_several_waiting_notifications_go_out_as_one_email(
    make_ready_entry, writer, editor, mailoutbox
) -> None:
    # Without the commit callbacks nothing is sent yet; the periodic run sends both together.
    workflow.submit_for_review(make_ready_entry("Interconnect"), user=writer)
    workflow.submit_for_review(make_ready_entry("Chiplet"), user=writer)
    assert mailoutbox == []
    report = notify.deliver()
    assert report.as_dict() == {"emails": 1, "notifications": 2, "failed": 0, "retrying": 0}
    assert len(mailoutbox) == 1
    assert mailoutbox[0].subject == "[The Show Glossary desk] 2 things need you"
    assert "“Interconnect”" in mailoutbox[0].body and "“Chiplet”" in mailoutbox[0].body
    assert notify.deliver().as_dict() == {
        "emails": 0,
        "notifications": 0,
        "failed": 0,
        "retrying": 0,
    }
    assert len(mailoutbox) == 1


def test_every_email_carries_a_one_click_opt_out(ready_entry, writer, editor, mailoutbox) -> None:
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()
    message = mailoutbox[0]
    url = notify.unsubscribe_url(editor)
    assert message.extra_headers["List-Unsubscribe"] == f"<{url}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert url in message.body


# --- Daily digest ---------------------------------------------------------------------------

# 08:00 in New York (the newsroom's zone) on the fixed test day.
DIGEST_TIME = datetime.datetime(2026, 11, 30, 13, 0, tzinfo=datetime.UTC)


def test_daily_digest_people_get_one_email_at_the_digest_hour_only(
    make_ready_entry, writer, editor, mailoutbox
) -> None:
    notify.set_delivery(editor, Delivery.DAILY)
    workflow.submit_for_review(make_ready_entry("Interconnect"), user=writer)
    workflow.submit_for_review(make_ready_entry("Chiplet"), user=writer)
    notify.deliver()
    assert mailoutbox == []  # not as it happens
    assert notify.send_digests(DIGEST_TIME - datetime.timedelta(hours=1)).emails == 0
    report = notify.send_digests(DIGEST_TIME)
    assert report.as_dict() == {"emails": 1, "notifications": 2, "failed": 0, "retrying": 0}
    assert "daily digest: 2 items" in mailoutbox[0].subject
    # A second run in the same hour sends nothing twice, even with something new waiting.
    workflow.submit_for_review(make_ready_entry("Wafer"), user=writer)
    assert notify.send_digests(DIGEST_TIME + datetime.timedelta(minutes=30)).emails == 0
    assert notify.send_digests(DIGEST_TIME + datetime.timedelta(days=1)).emails == 1


def test_digest_task_runs_from_beat_schedule(settings) -> None:
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert schedule["send-daily-digests"]["task"] == "editorial.tasks.send_daily_digests"
    assert schedule["deliver-notifications"]["task"] == "editorial.tasks.deliver_notifications"


# --- Link alerts --------------------------------------------------------------------------


def _cite(entry, source) -> None:
    Citation.objects.create(entry=entry, source=source, note="Says so.")


def test_a_broken_moved_or_changed_source_alerts_fact_checkers_and_the_entries_writer(
    make_entry, make_source, writer, fact_checker, editor, mailoutbox
) -> None:
    broken = make_source(title="Spec", health=Source.Health.BROKEN)
    moved = make_source(
        title="Blog", health=Source.Health.MOVED, suggested_url="https://x.example/new"
    )
    changed = make_source(title="Paper")
    entry = make_entry("Interconnect", created_by=writer)
    for source in (broken, moved, changed):
        _cite(entry, source)
    made = notify.tell_source_changes(
        [
            (broken, Transition("failing", "broken", False, False)),
            (moved, Transition("ok", "moved", False, False)),
            (changed, Transition("ok", "ok", False, True)),
        ]
    )
    assert made == 6  # three sources, two people each
    # Link alerts wait for the periodic run, so a whole check run is one email.
    notify.deliver(include_coalesced=False)
    assert mailoutbox == []
    notify.deliver()
    assert sorted(m.to[0] for m in mailoutbox) == [fact_checker.email, writer.email]
    body = mailoutbox[0].body
    assert "The link is broken" in body
    assert "The page moved to https://x.example/new" in body
    assert "The page's text changed since a fact-checker confirmed it." in body
    assert body.count("Cited by: Interconnect") == 3


def test_sources_that_only_started_failing_or_recovered_send_nothing(
    make_entry, make_source, writer, fact_checker
) -> None:
    source = make_source()
    _cite(make_entry(created_by=writer), source)
    assert notify.tell_source_changes([(source, Transition("ok", "failing", False, False))]) == 0
    assert notify.tell_source_changes([(source, Transition("broken", "ok", False, False))]) == 0


def test_a_source_changing_again_before_the_email_updates_the_waiting_alert(
    make_entry, make_source, writer, fact_checker, mailoutbox
) -> None:
    source = make_source(title="Spec")
    _cite(make_entry(created_by=writer), source)
    notify.tell_source_changes([(source, Transition("failing", "broken", False, False))])
    notify.tell_source_changes([(source, Transition("ok", "ok", False, True))])
    assert Notification.objects.count() == 2  # one per person, not per check
    notify.deliver()
    assert len(mailoutbox) == 2
    assert "text changed" in mailoutbox[0].body


def test_the_link_checker_records_alerts_after_it_commits(
    make_entry, make_source, writer, fact_checker, django_capture_on_commit_callbacks
) -> None:
    from editorial.linkcheck.classify import Outcome
    from editorial.linkcheck.fetch import CheckResult
    from editorial.linkcheck.service import record

    source = make_source(url="https://docs.example/spec", health=Source.Health.OK)
    _cite(make_entry(created_by=writer), source)
    result = CheckResult(
        url=source.url, outcome=Outcome.MOVED, status_code=301, final_url="https://docs.example/v2"
    )
    with django_capture_on_commit_callbacks(execute=True):
        record([(source, result)], lease=None)
    rows = Notification.objects.filter(kind=Notification.Kind.SOURCE_CHANGED)
    assert sorted(rows.values_list("recipient__username", flat=True)) == [
        "fiona_checker",
        "wanda_writer",
    ]


# --- Opting out ---------------------------------------------------------------------------


def test_the_opt_out_link_asks_first_then_turns_email_off_without_signing_in(
    editor, client
) -> None:
    url = notify.unsubscribe_url(editor).removeprefix("http://127.0.0.1:8000")
    page = client.get(url)
    assert page.status_code == 200
    assert b"Stop all emails from the desk" in page.content
    assert not NotificationPreference.objects.filter(user=editor).exists()
    done = client.post(url)
    assert done.status_code == 200
    assert b"will not email" in done.content
    assert NotificationPreference.objects.get(user=editor).delivery == Delivery.OFF


def test_a_mail_clients_one_click_post_opts_out(editor, client) -> None:
    url = notify.unsubscribe_url(editor).removeprefix("http://127.0.0.1:8000")
    from django.test import Client

    response = Client(enforce_csrf_checks=True).post(url, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert NotificationPreference.objects.get(user=editor).delivery == Delivery.OFF


def test_a_tampered_opt_out_link_changes_nothing(editor, client) -> None:
    token = notify.unsubscribe_token(editor)
    response = client.post(f"/notifications/unsubscribe/{token[:-2]}xx/")
    assert response.status_code == 404
    assert not NotificationPreference.objects.exists()


def test_opting_out_drops_what_was_waiting(ready_entry, writer, editor, mailoutbox) -> None:
    workflow.submit_for_review(ready_entry, user=writer)
    notify.set_delivery(editor, Delivery.OFF)
    notify.deliver()
    assert mailoutbox == []
    assert Notification.objects.get().outcome == Notification.Outcome.DROPPED


def test_a_person_chooses_their_delivery_on_the_preferences_page(writer) -> None:
    client = client_for(writer)
    page = client.get("/admin/notifications/")
    assert page.status_code == 200
    assert b"One daily digest" in page.content
    response = client.post("/admin/notifications/", {"delivery": "daily"})
    assert response.status_code == 302
    assert NotificationPreference.objects.get(user=writer).delivery == Delivery.DAILY
    bad = client.post("/admin/notifications/", {"delivery": "hourly"})
    assert bad.status_code == 200
    assert b"Select a valid choice" in bad.content


def test_the_preferences_page_needs_signing_in(client) -> None:
    response = client.get("/admin/notifications/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_admins_read_the_email_log_and_nobody_edits_it(
    ready_entry, writer, editor, superuser, mailoutbox
) -> None:
    workflow.submit_for_review(ready_entry, user=writer)
    notify.deliver()
    client = client_for(superuser)
    listing = client.get("/admin/editorial/notification/")
    assert listing.status_code == 200
    assert "Review requested: “Interconnect”" in listing.content.decode()
    row = Notification.objects.filter(recipient=editor).get()
    assert client.get("/admin/editorial/notification/add/").status_code == 403
    page = client.get(f"/admin/editorial/notification/{row.pk}/change/").content.decode()
    assert 'name="subject"' not in page
    # Writers and editors have no access to the log.
    assert client_for(editor).get("/admin/editorial/notification/").status_code == 403
