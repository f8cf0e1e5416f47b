"""The entry change page: one page for the entry and all its parts."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from glossary.models import (
    Citation,
    Disclosure,
    Entry,
    EpisodeReference,
    Quote,
    SeeAlso,
    Source,
)


@pytest.fixture
def staff_client(client, superuser):
    client.force_login(superuser)
    return client


def fill(entry, episode, person, make_entry, make_source, n):
    for i in range(n):
        ref = EpisodeReference.objects.create(
            entry=entry, episode=episode, at=i, speaker=person, text=f"ref {i}", order=i
        )
        Quote.objects.create(
            entry=entry, episode=episode, speaker=person, start=i, text=f"quote {i}", order=i
        )
        Citation.objects.create(entry=entry, source=make_source(), note=f"note {i}", order=i)
        Disclosure.objects.create(
            entry=entry, kind="other", reference=ref, episode=episode, at=i, text=f"d {i}"
        )
        SeeAlso.objects.create(entry=entry, target=make_entry(), order=i)


def change_page_queries(client, entry):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/admin/glossary/entry/{entry.pk}/change/")
    assert response.status_code == 200
    return len(queries)


def test_the_change_page_query_count_does_not_grow_with_inline_rows(
    staff_client, make_entry, make_source, episode, person
):
    small = make_entry("Small")
    fill(small, episode, person, make_entry, make_source, 1)
    large = make_entry("Large")
    fill(large, episode, person, make_entry, make_source, 40)
    change_page_queries(staff_client, small)  # warm the session and content types
    assert change_page_queries(staff_client, small) == change_page_queries(staff_client, large)


def test_the_change_page_shows_timestamps_as_minutes_and_seconds(
    staff_client, make_entry, episode, person
):
    entry = make_entry()
    Quote.objects.create(entry=entry, episode=episode, speaker=person, start=1538, text="q")
    page = staff_client.get(f"/admin/glossary/entry/{entry.pk}/change/").content.decode()
    start = re.search(r'<input[^>]*name="quotes-0-start"[^>]*>', page).group(0)
    assert 'value="25:38"' in start
    # A browser empties a number input holding "25:38", losing the timestamp on save.
    assert 'type="text"' in start


def inline_management(prefix, total=0, initial=0):
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": str(initial),
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


PREFIXES = ["references", "disclosures", "quotes", "citations", "see_also"]


def add_form(**extra):
    data = {"term": "Typed term", "slug": "typed-term", "summary": "Typed summary"}
    data["body"] = "Typed body that must survive."
    data["tags"] = "networking"
    for prefix in PREFIXES:
        data.update(inline_management(prefix))
    data.update(extra)
    return data


def test_a_malformed_timestamp_names_the_problem_and_keeps_what_was_typed(
    staff_client, episode, person
):
    data = add_form(
        **inline_management("quotes", total=1),
        **{
            "quotes-0-order": "1",
            "quotes-0-episode": str(episode.pk),
            "quotes-0-speaker": str(person.pk),
            "quotes-0-start": "25:61",
            "quotes-0-text": "A quote I typed carefully.",
        },
    )
    response = staff_client.post("/admin/glossary/entry/add/", data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "“25:61” has 61 seconds; seconds go up to 59." in page
    assert "Typed body that must survive." in page
    assert "A quote I typed carefully." in page
    assert 'value="25:61"' in page
    assert not Entry.objects.exists()


def test_a_timestamp_past_the_episode_is_refused_in_the_admin(staff_client, episode, person):
    data = add_form(
        **inline_management("references", total=1),
        **{
            "references-0-order": "1",
            "references-0-episode": str(episode.pk),
            "references-0-at": "1:00:01",
            "references-0-text": "Says something.",
        },
    )
    page = staff_client.post("/admin/glossary/entry/add/", data).content.decode()
    assert "1:00:01 is past the end of episode 7, which runs 1:00:00." in page
    assert not Entry.objects.exists()


def test_a_valid_entry_with_parts_saves(staff_client, episode, person):
    data = add_form(
        **inline_management("quotes", total=1),
        **{
            "quotes-0-order": "1",
            "quotes-0-episode": str(episode.pk),
            "quotes-0-speaker": str(person.pk),
            "quotes-0-start": "1:02",
            "quotes-0-text": "Short.",
        },
    )
    response = staff_client.post("/admin/glossary/entry/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    entry = Entry.objects.get(slug="typed-term")
    assert entry.quotes.get().start == 62
    assert [t.name for t in entry.tags.all()] == ["networking"]
    assert not entry.is_live


def test_a_citation_with_a_known_url_reuses_the_source(staff_client, make_source):
    existing = make_source(url="https://docs.example/known", title="Known")
    data = add_form(
        **inline_management("citations", total=1),
        **{
            "citations-0-order": "1",
            "citations-0-new_url": "HTTPS://DOCS.EXAMPLE/known",
            "citations-0-note": "Says so.",
        },
    )
    response = staff_client.post("/admin/glossary/entry/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Source.objects.count() == 1
    assert Entry.objects.get().citations.get().source == existing


def test_a_citation_with_a_new_url_creates_the_source(staff_client):
    data = add_form(
        **inline_management("citations", total=1),
        **{
            "citations-0-order": "1",
            "citations-0-new_url": "https://docs.example/new",
            "citations-0-new_title": "A new page",
        },
    )
    response = staff_client.post("/admin/glossary/entry/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Source.objects.get().title == "A new page"


def test_a_citation_url_with_a_javascript_scheme_is_refused(staff_client):
    data = add_form(
        **inline_management("citations", total=1),
        **{
            "citations-0-order": "1",
            "citations-0-new_url": "javascript:alert(1)",
            "citations-0-new_title": "Bad",
        },
    )
    page = staff_client.post("/admin/glossary/entry/add/", data).content.decode()
    assert "“javascript:” links are not allowed" in page
    assert not Source.objects.exists()


def test_adding_a_source_that_exists_resolves_to_it(staff_client, make_source):
    existing = make_source(url="https://docs.example/same", title="Same")
    response = staff_client.post(
        "/admin/glossary/source/add/",
        {
            "url": "https://docs.example/same",
            "title": "Typed again",
            "kind": "other",
            "citation_status": "live",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == f"/admin/glossary/source/{existing.pk}/change/"
    assert Source.objects.count() == 1


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("file:///etc/passwd", "“file:” links are not allowed"),
        ("/docs/page", "starting with http:// or https://"),
        # Neither may reach the duplicate lookup: normalising the first raised, and
        # PostgreSQL cannot compare the second.
        ("http://[", "Enter a valid URL."),
        ("https://docs.example/\x00", "Null characters are not allowed."),
    ],
)
def test_the_source_admin_refuses_unsafe_urls_and_keeps_the_title(staff_client, url, problem):
    response = staff_client.post(
        "/admin/glossary/source/add/",
        {"url": url, "title": "My typed title", "kind": "other", "citation_status": "live"},
    )
    page = response.content.decode()
    assert problem in page
    assert 'value="My typed title"' in page
    assert not Source.objects.exists()
