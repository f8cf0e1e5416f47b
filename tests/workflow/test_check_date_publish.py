"""One-step publish of a published entry whose only change is new citation check dates."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.test import Client

from editorial import workflow
from editorial.admin import dashboard
from editorial.models import WorkflowEvent
from glossary.models import Citation, Entry
from glossary.publishing import record_edit
from tests.personas import client_for

pytestmark = pytest.mark.django_db

NEW_DATE = datetime.date.today() - datetime.timedelta(days=1)
OLD_DATE = datetime.date.today() - datetime.timedelta(days=100)


@pytest.fixture
def published(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review(checked_on=OLD_DATE)
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


def reconfirm(entry: Entry, user: User) -> None:
    Citation.objects.filter(entry=entry).update(checked_on=NEW_DATE, checked_by=user)
    record_edit(entry, user=user, comment="Re-confirmed.")


def test_an_editor_publishes_new_check_dates_in_one_step_and_it_is_logged(
    published: Entry, fact_checker: User, editor: User, client: Client
) -> None:
    reconfirm(published, fact_checker)
    assert workflow.check_dates_only_versions(published) is not None
    version = workflow.publish_check_dates(published, user=editor)
    published.refresh_from_db()
    assert published.live_version == version
    assert published.status == Entry.Status.PUBLISHED
    assert not published.has_unpublished_changes
    assert version.data["citations"][0]["checked_on"] == NEW_DATE.isoformat()
    assert not version.is_material
    event = WorkflowEvent.objects.filter(entry=published).first()
    assert event is not None
    assert event.action == WorkflowEvent.Action.PUBLISH_CHECK_DATES
    assert event.actor == editor
    page = client.get(f"/glossary/{published.slug}/").content.decode()
    assert f'checked <time datetime="{NEW_DATE.isoformat()}">' in page


def test_the_fact_checker_who_changed_them_cannot_publish_them(
    published: Entry, editor: User, second_editor: User
) -> None:
    # An editor re-confirming is the "fact-checker" of this change.
    reconfirm(published, editor)
    with pytest.raises(
        workflow.SelfApprovalRefused,
        match="You wrote part of this change, so another editor has to publish these check",
    ):
        workflow.publish_check_dates(published, user=editor)
    workflow.publish_check_dates(published, user=second_editor)


def test_any_other_change_needs_the_usual_review(
    published: Entry, fact_checker: User, editor: User, writer: User
) -> None:
    reconfirm(published, fact_checker)
    Entry.objects.filter(pk=published.pk).update(summary="A different summary.")
    published.refresh_from_db()
    record_edit(published, user=writer)
    assert workflow.check_dates_only_versions(published) is None
    with pytest.raises(workflow.InvalidTransition, match="besides citation check dates"):
        workflow.publish_check_dates(published, user=editor)


def test_writers_and_fact_checkers_cannot_publish_check_dates(
    published: Entry, fact_checker: User, writer: User
) -> None:
    reconfirm(published, fact_checker)
    with pytest.raises(PermissionDenied):
        workflow.publish_check_dates(published, user=writer)


def test_the_entry_page_offers_the_button_and_it_publishes(
    published: Entry, fact_checker: User, editor: User
) -> None:
    reconfirm(published, fact_checker)
    client = client_for(editor)
    change = f"/admin/glossary/entry/{published.pk}/change/"
    assert "Publish new check dates" in client.get(change).content.decode()
    client_for(fact_checker).get(change)  # the fact-checker does not see it
    assert "Publish new check dates" not in client_for(fact_checker).get(change).content.decode()
    response = client.post(f"/admin/glossary/entry/{published.pk}/publish-check-dates/")
    assert response.status_code == 302
    published.refresh_from_db()
    assert not published.has_unpublished_changes


def test_the_dashboard_lists_entries_with_only_new_check_dates(
    published: Entry, make_ready_entry, fact_checker: User, editor: User, writer: User
) -> None:
    reconfirm(published, fact_checker)
    other = make_ready_entry("Chiplet", in_review=True)
    workflow.publish_entry(other, user=editor)
    other.refresh_from_db()
    Entry.objects.filter(pk=other.pk).update(summary="Changed.")
    other.refresh_from_db()
    record_edit(other, user=writer)
    assert [e.term for e in dashboard.check_dates_only_entries()] == ["Interconnect"]
    body = client_for(editor).get("/admin/dashboard/").content.decode()
    section = body[body.index('id="check-dates"') : body.index('id="stale-citations"')]
    assert "Interconnect" in section and "fiona_checker" in section
    assert "Chiplet" not in section


def test_a_real_reconfirmation_of_a_changed_source_is_a_check_date_only_change(
    published: Entry, fact_checker: User, editor: User, writer: User
) -> None:
    """Confirming again also rewrites what the confirmation stores (the reader's excerpt,
    its date, "changed since confirmed"); that is still only a re-confirmation."""
    from django.utils import timezone

    from editorial.sourcetext.service import confirm_citations, record_text
    from glossary.models import Source

    citation = Citation.objects.select_related("source").get(entry=published)
    source = citation.source
    record_text(source.pk, "It defines the links that join AI chips.", "fp-old", timezone.now())
    Source.objects.filter(pk=source.pk).update(last_fingerprint="fp-old")
    confirm_citations([Citation.objects.get(pk=citation.pk)], user=fact_checker)
    # The page changes before the next publish: readers' version says so.
    record_text(
        source.pk, "It defines the links that join AI chips, and more.", "fp-new", timezone.now()
    )
    Source.objects.filter(pk=source.pk).update(last_fingerprint="fp-new")
    record_edit(published, user=writer, comment="Confirmed once.")
    workflow.submit_for_review(published, user=writer)
    workflow.publish_entry(published, user=editor)
    published.refresh_from_db()
    assert published.live_version is not None
    assert published.live_version.data["citations"][0]["source_changed"] is True
    # The fact-checker reads the page again and confirms it.
    Citation.objects.filter(pk=citation.pk).update(checked_on=NEW_DATE, checked_by=fact_checker)
    confirm_citations([Citation.objects.get(pk=citation.pk)], user=fact_checker)
    record_edit(published, user=fact_checker, comment="Re-confirmed.")
    published.refresh_from_db()
    pair = workflow.check_dates_only_versions(published)
    assert pair is not None
    assert pair[1].data["citations"][0]["excerpt_on"] == NEW_DATE.isoformat()
    assert published in dashboard.check_dates_only_entries()
    version = workflow.publish_check_dates(published, user=editor)
    assert version.data["citations"][0]["checked_on"] == NEW_DATE.isoformat()
    assert version.data["citations"][0]["source_changed"] is False
