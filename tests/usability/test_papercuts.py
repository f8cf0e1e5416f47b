"""The paper cuts a new editor meets on a first walk through the desk, one test each."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client

from editorial import gates, workflow
from editorial.admin import dashboard
from glossary.entry_page import note_clause
from glossary.fields import TimestampFormField
from glossary.models import Citation, Disclosure, Entry, Episode, Quote
from glossary.publishing import record_edit, save_version
from tests.personas import client_for
from tests.workflow.formdata import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


def codes(results: list[gates.GateResult]) -> dict[str, gates.GateResult]:
    return {r.code: r for r in results}


# --- Timestamps --------------------------------------------------------------------------


def test_an_empty_timestamp_field_has_no_grey_value_only_help_text(
    ready_entry: Entry, writer: User, episode: Episode, person: Any
) -> None:
    assert "placeholder" not in TimestampFormField().widget.attrs
    Quote.objects.create(entry=ready_entry, episode=episode, speaker=person, start=187, text="Q")
    page = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/change/")
    html = page.content.decode()
    assert 'placeholder="25:38"' not in html
    assert "where the quote ends, as minutes:seconds" in html


# --- Duplicate names and slugs --------------------------------------------------------------


def test_a_second_entry_with_the_same_term_warns_on_save_and_in_the_publish_checks(
    ready_entry: Entry, writer: User, make_entry: Callable[..., Entry]
) -> None:
    client = client_for(writer)
    data = add_form(client)
    data.update(term="interconnect", slug="interconnect-2", summary="Again.")
    response = client.post("/admin/glossary/entry/add/", data, follow=True)
    assert response.status_code == 200, response.content[:2000]
    text = response.content.decode()
    assert "Another entry has the same name" in text
    assert "“interconnect” is also used by “Interconnect”" in text
    second = Entry.objects.get(slug="interconnect-2")
    result = codes(gates.run_gates(second))[gates.NAME_UNIQUE]
    assert result.is_warning and "“interconnect” is also “Interconnect”" in result.message


def test_an_alias_that_is_another_entrys_term_is_a_duplicate(
    ready_entry: Entry, make_entry: Callable[..., Entry]
) -> None:
    other = make_entry("NVLink", aliases="Interconnect\nNV link")
    assert gates.duplicate_names(other) == [("interconnect", "Interconnect")]
    assert codes(gates.run_gates(make_entry("Chiplet")))[gates.NAME_UNIQUE].passed


def test_a_capitalised_slug_is_stored_lowercase(writer: User) -> None:
    client = client_for(writer)
    data = add_form(client)
    data.update(term="Wafer", slug="Wafer-Scale", summary="S.")
    assert client.post("/admin/glossary/entry/add/", data).status_code == 302
    assert Entry.objects.get(term="Wafer").slug == "wafer-scale"


def test_the_migration_lowercases_existing_slugs_without_collisions(
    make_entry: Callable[..., Entry],
) -> None:
    make_entry("A", slug="interconnect")
    upper = make_entry("B", slug="Interconnect")
    mixed = make_entry("C", slug="Wafer")
    Entry.objects.filter(pk__in=[upper.pk, mixed.pk]).update(has_unpublished_changes=False)
    migration = importlib.import_module(
        "glossary.migrations.0011_lowercase_slugs_and_truer_help_text"
    )
    migration.lowercase_slugs(apps, None)
    upper.refresh_from_db()
    mixed.refresh_from_db()
    assert (upper.slug, mixed.slug) == ("interconnect-2", "wafer")
    assert upper.has_unpublished_changes and mixed.has_unpublished_changes


def test_another_case_of_an_address_redirects_to_the_lowercase_one(
    published: Entry, client: Client
) -> None:
    assert published.slug == published.slug.lower()
    response = client.get(f"/glossary/{published.slug.title()}/")
    assert response.status_code == 301
    assert response["Location"] == f"/glossary/{published.slug}/"


def test_a_live_address_published_capitalised_is_reached_in_lowercase(
    published: Entry, client: Client
) -> None:
    # Published before slugs were lowercased: the live version still has the capital.
    live = published.live_version
    live.slug = "Interconnect-Live"
    live.save(update_fields=["slug"])
    response = client.get("/glossary/interconnect-live/")
    assert response.status_code == 301
    assert response["Location"] == "/glossary/Interconnect-Live/"


def test_the_changelist_shows_slugs(published: Entry, editor: User) -> None:
    html = client_for(editor).get("/admin/glossary/entry/").content.decode()
    assert f">{published.slug}<" in html


# --- Sources, body, summary -------------------------------------------------------------------


def test_a_source_note_ending_in_a_full_stop_is_joined_without_a_stray_one(
    published: Entry, client: Client
) -> None:
    assert Citation.objects.get(entry=published).note == "Defines it."
    html = client.get(f"/glossary/{published.slug}/").content.decode()
    assert "Defines it; checked" in html
    assert ".;" not in html


def test_a_note_loses_only_a_single_closing_full_stop() -> None:
    assert note_clause("Defines it.") == "Defines it"
    assert note_clause("Says so…") == "Says so…"
    assert note_clause("Wait...") == "Wait..."


def test_the_body_help_text_says_what_really_happens_and_raw_html_is_flagged(
    make_entry: Callable[..., Entry],
) -> None:
    help_text = str(Entry._meta.get_field("body").help_text)
    assert "shows on the page as literal text" in help_text
    assert "removed" not in help_text
    entry = make_entry("Raw", body="Uses <b>bold</b> here.\n\n`<i>` in code is fine.")
    result = codes(gates.run_gates(entry))[gates.NO_RAW_HTML]
    assert result.is_warning
    assert "“<b>”, “</b>”" in result.message and "<i>" not in result.message
    clean = make_entry("Clean", body="Uses **bold** and `<i>` in code.")
    assert codes(gates.run_gates(clean))[gates.NO_RAW_HTML].passed


def test_the_summary_length_counts_one_character_in_the_singular(
    make_entry: Callable[..., Entry],
) -> None:
    result = codes(gates.run_gates(make_entry("S", summary="A")))[gates.SUMMARY_LENGTH]
    assert result.message.startswith("The summary is 1 character,")


# --- Admin lists ------------------------------------------------------------------------


def test_an_up_to_date_entry_shows_no_red_cross_for_unpublished_changes(
    published: Entry, editor: User
) -> None:
    html = client_for(editor).get("/admin/glossary/entry/").content.decode()
    row = html[html.index(f">{published.term}<") :]
    row = row[: row.index("</tr>")]
    assert "icon-no" not in row
    assert 'class="field-unpublished_changes">No</td>' in row
    record_edit(published, user=editor)
    html = client_for(editor).get("/admin/glossary/entry/").content.decode()
    assert 'class="field-unpublished_changes">Yes</td>' in html


def test_the_compare_page_names_an_episode_without_a_time_plainly(
    published: Entry, episode: Episode, editor: User, writer: User
) -> None:
    Disclosure.objects.create(
        entry=published, kind=Disclosure.Kind.SPONSORSHIP, episode=episode, text="Paid."
    )
    save_version(published, user=writer)
    html = (
        client_for(editor)
        .get(f"/admin/glossary/entry/{published.pk}/compare/?a=live&b=working")
        .content.decode()
    )
    assert f"(episode {episode.number})" in html
    assert "no time" not in html


def test_never_checked_citations_have_their_own_heading(
    published: Entry, make_source: Any, editor: User
) -> None:
    Citation.objects.create(entry=published, source=make_source(title="Unchecked one"))
    data = dashboard.build()
    assert [c.source.title for c in data["never_checked"].items] == ["Unchecked one"]
    assert data["stale"].items == []
    html = client_for(editor).get("/admin/dashboard/").content.decode()
    stale = html[html.index('id="stale-citations"') : html.index('id="never-checked"')]
    assert "Unchecked one" not in stale
    never = html[html.index('id="never-checked"') : html.index('id="sources"')]
    assert "Unchecked one" in never


def test_the_tag_box_is_wide_enough_for_its_text(ready_entry: Entry, writer: User) -> None:
    html = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content
    assert b"#id_tags { width: min(40em, 100%)" in html


# --- Public pages -----------------------------------------------------------------------


def test_the_search_page_has_one_search_box(published: Entry, client: Client) -> None:
    html = client.get("/search/?q=interconnect").content.decode()
    assert html.count('type="search"') == 1
    assert 'id="search-page-q"' in html


def test_every_public_page_has_a_favicon(published: Entry, client: Client) -> None:
    for path in ("/", f"/glossary/{published.slug}/", "/search/", "/api/"):
        assert 'rel="icon"' in client.get(path).content.decode(), path


def test_the_footer_links_a_readable_api_page_that_links_the_openapi_document(
    published: Entry, client: Client
) -> None:
    home = client.get("/").content.decode()
    assert '<a href="/api/">JSON API</a>' in home
    page = client.get("/api/")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert 'href="/api/openapi.json"' in html
    assert "/api/v1/entries" in html


def add_form(client: Client) -> dict[str, Any]:
    return form_data(client.get("/admin/glossary/entry/add/").content.decode())
