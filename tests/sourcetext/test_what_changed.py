"""What changed, shown where people look: the publish checks, the source admin, the dashboard
and the fact-checkers' summary."""

from __future__ import annotations

import pytest
from django.urls import reverse

from editorial import gates, workflow
from editorial.sourcetext.report import change_summary, claim_warnings
from glossary.models import Citation
from glossary.publishing import save_version
from tests.personas import client_for
from tests.sourcetext.helpers import (
    NVLinkSourceFactory,
    UnconfirmedCitationFactory,
    change_page,
    confirm_in_admin,
    scheduled_check,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_loopback")]

NOW_SAYS = "NVIDIA: NVLink and NVLink Switch no longer says '3 TB/s'; it now says '3.6 TB/s'"


@pytest.fixture
def entry(site, make_entry, writer, fact_checker):
    source = NVLinkSourceFactory.create(site=site)
    entry = make_entry("NVLink", slug="nvlink", created_by=writer)
    UnconfirmedCitationFactory.create(entry=entry, source=source)
    confirm_in_admin(fact_checker, entry)
    return entry


def test_the_publish_checks_warn_when_the_source_no_longer_says_the_notes_figure(
    site, entry
) -> None:
    assert [r.passed for r in gates.run_gates(entry) if r.code == gates.CLAIM_HELD] == [True]
    change_page(site)
    scheduled_check(entry.citations.get().source)
    [claim] = [r for r in gates.run_gates(entry) if r.code == gates.CLAIM_HELD]
    assert claim.is_warning
    assert claim.message == NOW_SAYS
    assert claim.fix_url.endswith("#what-changed")


def test_the_claim_check_reads_no_text_while_no_cited_page_changed(
    entry, django_assert_num_queries
) -> None:
    citations = list(Citation.objects.select_related("source"))
    with django_assert_num_queries(0):
        assert claim_warnings(citations) == []


def test_the_source_admin_shows_figures_gone_first_then_the_diff(site, entry, editor) -> None:
    source = entry.citations.get().source
    url = reverse("admin:glossary_source_change", args=[source.pk])
    page = client_for(editor).get(url).content.decode()
    assert "The page says what it said when it was confirmed." in page
    change_page(site)
    scheduled_check(source)
    page = client_for(editor).get(url).content.decode()
    assert "What changed since confirmed" in page
    figures = page.index("Figures gone:")
    assert figures < page.index("Removed") < page.index("Added")
    assert "3 TB/s" in page[figures : figures + 200]
    assert NOW_SAYS.replace("'", "&#x27;") in page
    assert "Sentences that matter to the citing entries" in page


def test_the_dashboard_lists_the_changed_source_and_the_entry_whose_claim_broke(
    site, entry, editor
) -> None:
    save_version(entry, user=entry.created_by)
    workflow.submit_for_review(entry, user=entry.created_by)
    workflow.publish_entry(entry, user=editor)
    change_page(site)
    scheduled_check(entry.citations.get().source)
    page = client_for(editor).get("/admin/dashboard/").content.decode()
    sources = page[page.index('id="sources"') :]
    assert "page changed since it was confirmed" in sources
    assert "<strong>Figures gone:</strong> 3 TB/s" in sources
    claims = page[page.index('id="claims"') : page.index('id="aging"')]
    assert ">NVLink</a>" in claims
    assert NOW_SAYS.replace("'", "&#x27;") in claims


def test_the_summary_for_fact_checkers_puts_the_figures_first(site, entry) -> None:
    source = entry.citations.get().source
    assert change_summary(source) == ""
    change_page(site)
    scheduled_check(source)
    source.refresh_from_db()
    summary = change_summary(source)
    lines = summary.splitlines()
    assert lines[0] == f"NVIDIA: NVLink and NVLink Switch ({source.url})"
    assert lines[1] == "Changed since it was confirmed on November 20, 2026."
    assert lines[2] == "Figures no longer on the page: 3 TB/s."
    assert lines[3] == f"- NVLink (nvlink): {NOW_SAYS}"
    assert "  + The sixth generation of NVLink delivers 3.6 TB/s" in summary
    assert lines[-1] == "Cited by: nvlink."


def test_a_change_without_both_texts_stored_says_so_rather_than_showing_nothing(
    make_source, editor
) -> None:
    # Confirmed before texts were kept: the fingerprints differ, no text to compare.
    source = make_source(confirmed_fingerprint="a" * 64, last_fingerprint="b" * 64)
    url = reverse("admin:glossary_source_change", args=[source.pk])
    page = client_for(editor).get(url).content.decode()
    assert "the two texts to compare were not both stored" in page
    assert "Re-confirming stores the page as it is now." in page


def test_the_fact_checkers_email_says_what_changed(
    site, entry, fact_checker, mailoutbox, django_capture_on_commit_callbacks
) -> None:
    from editorial import notify

    fact_checker.email = "fiona@example.org"
    fact_checker.save()
    source = entry.citations.get().source
    change_page(site)
    with django_capture_on_commit_callbacks(execute=True):
        scheduled_check(source)
    notify.deliver()

    [email] = [m for m in mailoutbox if m.to == ["fiona@example.org"]]
    assert "Figures no longer on the page: 3 TB/s." in email.body
    assert NOW_SAYS in email.body
