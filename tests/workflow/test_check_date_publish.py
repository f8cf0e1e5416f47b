"""One-step publish of a published entry whose only change is new citation check dates."""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.utils import timezone

from editorial import workflow
from editorial.admin import dashboard
from editorial.models import WorkflowEvent
from editorial.sourcetext.service import confirm_citations, record_text
from glossary.models import Citation, Entry, Source
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


def shown(entry: Entry) -> int:
    """The version number the entry page shows an editor (and its form sends back)."""
    return workflow.latest_version_number(entry)


def reconfirm(entry: Entry, user: User) -> None:
    Citation.objects.filter(entry=entry).update(checked_on=NEW_DATE, checked_by=user)
    record_edit(entry, user=user, comment="Re-confirmed.")


def test_an_editor_publishes_new_check_dates_in_one_step_and_it_is_logged(
    published: Entry, fact_checker: User, editor: User, client: Client
) -> None:
    reconfirm(published, fact_checker)
    assert workflow.check_dates_only_versions(published) is not None
    version = workflow.publish_check_dates(published, user=editor, shown_version=shown(published))
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
        workflow.publish_check_dates(published, user=editor, shown_version=shown(published))
    workflow.publish_check_dates(published, user=second_editor, shown_version=shown(published))


def test_any_other_change_needs_the_usual_review(
    published: Entry, fact_checker: User, editor: User, writer: User
) -> None:
    reconfirm(published, fact_checker)
    Entry.objects.filter(pk=published.pk).update(summary="A different summary.")
    published.refresh_from_db()
    record_edit(published, user=writer)
    assert workflow.check_dates_only_versions(published) is None
    with pytest.raises(workflow.InvalidTransition, match="besides citation check dates"):
        workflow.publish_check_dates(published, user=editor, shown_version=shown(published))


def test_writers_and_fact_checkers_cannot_publish_check_dates(
    published: Entry, fact_checker: User, writer: User
) -> None:
    reconfirm(published, fact_checker)
    with pytest.raises(PermissionDenied):
        workflow.publish_check_dates(published, user=writer, shown_version=shown(published))


def test_the_entry_page_offers_the_button_and_it_publishes(
    published: Entry, fact_checker: User, editor: User
) -> None:
    reconfirm(published, fact_checker)
    client = client_for(editor)
    change = f"/admin/glossary/entry/{published.pk}/change/"
    assert "Publish new check dates" in client.get(change).content.decode()
    client_for(fact_checker).get(change)  # the fact-checker does not see it
    assert "Publish new check dates" not in client_for(fact_checker).get(change).content.decode()
    response = client.post(
        f"/admin/glossary/entry/{published.pk}/publish-check-dates/",
        {"shown_version": str(shown(published))},
    )
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
    version = workflow.publish_check_dates(published, user=editor, shown_version=shown(published))
    assert version.data["citations"][0]["checked_on"] == NEW_DATE.isoformat()
    assert version.data["citations"][0]["source_changed"] is False


def confirm_page_text(entry: Entry, user: User, text: str, fingerprint: str) -> None:
    """The cited page now reads `text`; `user` confirms the citation against it."""
    citation = Citation.objects.select_related("source").get(entry=entry)
    record_text(citation.source_id, text, fingerprint, timezone.now())
    Source.objects.filter(pk=citation.source_id).update(last_fingerprint=fingerprint)
    Citation.objects.filter(pk=citation.pk).update(checked_on=NEW_DATE, checked_by=user)
    confirm_citations([Citation.objects.get(pk=citation.pk)], user=user)
    record_edit(entry, user=user, comment="Re-confirmed.")


def test_the_entry_page_shows_each_changed_excerpt_before_the_button(
    published: Entry, fact_checker: User, editor: User
) -> None:
    confirm_page_text(published, fact_checker, "It defines the links that join AI chips.", "fp-a")
    page = client_for(editor).get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    section = page[page.index('data-testid="reconfirmations"') : page.index("Publish new check")]
    assert f"New check dates in version {shown(published)}" in section
    assert '<blockquote class="old-excerpt">(no excerpt)</blockquote>' in section
    assert (
        '<blockquote class="new-excerpt">It defines the links that join AI chips.</blockquote>'
        in section
    )
    assert f'name="shown_version" value="{shown(published)}"' in page


def test_an_excerpt_that_changed_after_the_page_showed_it_is_never_published(
    published: Entry, fact_checker: User, editor: User, client: Client
) -> None:
    confirm_page_text(published, fact_checker, "It defines the links that join AI chips.", "fp-a")
    desk = client_for(editor)
    change = f"/admin/glossary/entry/{published.pk}/change/"
    page = desk.get(change).content.decode()
    seen = shown(published)
    assert "SEND ALL PAYMENTS" not in page
    # The page changes and is confirmed again while the editor reads the old excerpt.
    confirm_page_text(
        published, fact_checker, "It defines SEND ALL PAYMENTS as the links of AI chips.", "fp-b"
    )
    live_before = Entry.objects.get(pk=published.pk).live_version_id
    response = desk.post(
        f"/admin/glossary/entry/{published.pk}/publish-check-dates/",
        {"shown_version": str(seen)},
        follow=True,
    )
    body = response.content.decode()
    assert f"changed after the page you published from showed version {seen}" in body
    published.refresh_from_db()
    assert published.live_version_id == live_before
    assert published.live_version is not None
    assert "SEND ALL PAYMENTS" not in str(published.live_version.data)
    assert "SEND ALL PAYMENTS" not in client.get(f"/glossary/{published.slug}/").content.decode()
    # Shown now, and published as shown.
    page = desk.get(change).content.decode()
    assert "It defines SEND ALL PAYMENTS as the links of AI chips.</blockquote>" in page
    desk.post(
        f"/admin/glossary/entry/{published.pk}/publish-check-dates/",
        {"shown_version": str(shown(published))},
    )
    published.refresh_from_db()
    assert published.live_version is not None
    assert not published.has_unpublished_changes
    assert "SEND ALL PAYMENTS" in published.live_version.data["citations"][0]["excerpt"]


def test_a_publish_that_does_not_say_what_was_shown_publishes_nothing(
    published: Entry, fact_checker: User, editor: User
) -> None:
    confirm_page_text(published, fact_checker, "It defines the links that join AI chips.", "fp-a")
    live_before = published.live_version_id
    response = client_for(editor).post(
        f"/admin/glossary/entry/{published.pk}/publish-check-dates/", follow=True
    )
    assert "the request did not say which version" in response.content.decode()
    published.refresh_from_db()
    assert published.live_version_id == live_before
    assert published.has_unpublished_changes


def test_a_version_number_no_version_could_have_publishes_nothing_and_says_why(
    published: Entry, fact_checker: User, editor: User
) -> None:
    """5,000 digits passed `isdecimal()` and then failed `int()`: a 500."""
    confirm_page_text(published, fact_checker, "It defines the links that join AI chips.", "fp-a")
    live_before = published.live_version_id
    for posted in ["9" * 5000, "٣"]:
        response = client_for(editor).post(
            f"/admin/glossary/entry/{published.pk}/publish-check-dates/",
            {"shown_version": posted},
            follow=True,
        )
        assert response.status_code == 200
        assert "the request did not say which version" in response.content.decode()
        published.refresh_from_db()
        assert published.live_version_id == live_before
