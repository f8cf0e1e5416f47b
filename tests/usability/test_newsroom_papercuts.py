"""Paper cuts a newsroom will hit at the desk, each through the admin as a user
would meet it: the test client posts the forms the pages render."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from editorial import gates, scheduling, workflow
from editorial.models import WorkflowEvent
from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    Sponsorship,
)
from glossary.publishing import record_edit
from tests.personas import client_for
from tests.workflow.formdata import form_data

pytestmark = pytest.mark.django_db


# --- Help text shows its tags as text --------------------------------------------------------


def test_the_body_help_text_shows_its_tag_as_text_not_as_bold(
    ready_entry: Entry, writer: User
) -> None:
    html = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content
    assert b"a tag such as &lt;b&gt; shows on the page" in html
    assert b"such as <b>" not in html


def test_the_episode_guid_help_text_names_the_guid_tag(episode: Episode, editor: User) -> None:
    html = client_for(editor).get(f"/admin/glossary/episode/{episode.pk}/change/").content
    assert b"The episode&#x27;s &lt;guid&gt; in the show" in html


def test_no_help_text_carries_an_unescaped_tag() -> None:
    # The admin renders help text as HTML: a literal tag there is markup, not words.
    tag = re.compile(r"<[a-zA-Z/]")
    raw = [
        f"{model._meta.label}.{field.name}"
        for app in ("glossary", "editorial")
        for model in apps.get_app_config(app).get_models()
        for field in model._meta.get_fields()
        if tag.search(str(getattr(field, "help_text", "")))
    ]
    assert raw == []


# --- An episode cannot end before what is cited in it ------------------------------------


def episode_form(client: Client, episode: Episode) -> dict[str, Any]:
    page = client.get(f"/admin/glossary/episode/{episode.pk}/change/")
    return form_data(page.content.decode(), "episode_form")


def test_shortening_an_episode_below_a_quote_is_refused_naming_the_quote_and_its_time(
    ready_entry: Entry, episode: Episode, person: Person, editor: User
) -> None:
    Quote.objects.create(
        entry=ready_entry, episode=episode, speaker=person, start=3300, end=3320, text="Late."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="50:00", title="Seven, renamed")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["duration"]
    assert errors == [
        "Episode 7 cannot end at 50:00: the quote “Late.” at 55:00–55:20 in “Interconnect” "
        "would be past its end. Correct those times first, or keep the longer duration."
    ]
    html = response.content.decode()
    assert 'value="50:00"' in html and 'value="Seven, renamed"' in html  # nothing typed lost
    episode.refresh_from_db()
    assert (episode.duration, episode.title) == (3600, "Seven")


def test_shortening_names_every_reference_and_disclosure_left_past_the_end(
    ready_entry: Entry, episode: Episode, editor: User
) -> None:
    EpisodeReference.objects.create(entry=ready_entry, episode=episode, at=3000, text="Says.")
    Disclosure.objects.create(
        entry=ready_entry, kind=Disclosure.Kind.OTHER, episode=episode, at=2900, text="Paid."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="45:00")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    [error] = response.context["adminform"].form.errors["duration"]
    assert "the reference at 50:00 in “Interconnect”" in error
    assert "the disclosure at 48:20 in “Interconnect”" in error


def test_an_episode_can_be_shortened_to_the_end_of_its_last_quote(
    ready_entry: Entry, episode: Episode, person: Person, editor: User
) -> None:
    Quote.objects.create(
        entry=ready_entry, episode=episode, speaker=person, start=3300, end=3320, text="Late."
    )
    client = client_for(editor)
    data = episode_form(client, episode)
    data.update(duration="55:20")
    response = client.post(f"/admin/glossary/episode/{episode.pk}/change/", data)
    assert response.status_code == 302
    episode.refresh_from_db()
    assert episode.duration == 3320


# --- A reference and the disclosure after it are two sentences ----------------------------


def add_row(data: dict[str, Any], prefix: str, **fields: str) -> None:
    """Fill the inline's next empty row, as "Add another" does in the browser."""
    n = int(data[f"{prefix}-TOTAL_FORMS"])
    for key, value in list(data.items()):
        if key.startswith(f"{prefix}-__prefix__-"):
            data[key.replace("__prefix__", str(n))] = value
    data.update({f"{prefix}-{n}-{name}": value for name, value in fields.items()})
    data[f"{prefix}-TOTAL_FORMS"] = str(n + 1)


def publish_through_the_admin(entry: Entry, writer: User, editor: User) -> Client:
    assert client_for(writer).post(f"/admin/glossary/entry/{entry.pk}/submit/").status_code == 302
    client = client_for(editor)
    page = client.get(f"/admin/glossary/entry/{entry.pk}/publish/").content.decode()
    response = client.post(
        f"/admin/glossary/entry/{entry.pk}/publish/", form_data(page, "publish_form")
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    return client


def test_a_reference_without_a_stop_is_flagged_and_never_runs_into_the_disclosure(
    ready_entry: Entry, episode: Episode, writer: User, editor: User, client: Client
) -> None:
    writing = client_for(writer)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    data = form_data(writing.get(url).content.decode())
    add_row(
        data,
        "references",
        episode=str(episode.pk),
        at="3:07",
        text="AMD’s Anush Elangovan says the chips improved at every layer at once",
    )
    add_row(
        data,
        "disclosures",
        kind=Disclosure.Kind.OTHER,
        episode=str(episode.pk),
        text="Episode 7 was sponsored by Galileo",
    )
    assert writing.post(url, data).status_code == 302

    panel = writing.get(url).content.decode()
    assert (
        "The episode reference at 3:07 in episode 7 (“Seven”) ends “…chips improved at every layer "
        "at once”, which does not end a sentence; the page adds a full stop after it."
    ) in panel

    publish_through_the_admin(ready_entry, writer, editor)
    page = client.get(f"/glossary/{ready_entry.slug}/").content.decode()
    paragraph = page[page.index('<p class="on-the-show">') :]
    paragraph = paragraph[: paragraph.index("</p>")]
    assert "every layer at once. <span" in paragraph
    assert '<span class="disclosure">Episode 7 was sponsored by Galileo.</span>' in paragraph
    assert "at once Episode" not in paragraph


def test_a_reference_ending_in_its_own_punctuation_is_left_as_written(
    ready_entry: Entry, episode: Episode, writer: User, editor: User, client: Client
) -> None:
    EpisodeReference.objects.create(
        entry=ready_entry, episode=episode, at=187, text="He calls it “scale across.”"
    )
    record_edit(ready_entry, user=writer)
    results = {r.code: r for r in gates.run_gates(ready_entry)}
    assert results[gates.REFERENCE_ENDS_SENTENCE].passed
    publish_through_the_admin(ready_entry, writer, editor)
    page = client.get(f"/glossary/{ready_entry.slug}/").content.decode()
    assert "He calls it “scale across.”</p>" in page


# --- Unpublishing asks first, and why ---------------------------------------------------------


@pytest.fixture
def live(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


def test_the_unpublish_button_asks_for_confirmation_and_a_reason(live: Entry, editor: User) -> None:
    client = client_for(editor)
    page = client.get(f"/admin/glossary/entry/{live.pk}/change/").content.decode()
    # The button opens the question; it does not take the page down by itself.
    assert f'href="/admin/glossary/entry/{live.pk}/unpublish/"' in page
    asked = client.get(f"/admin/glossary/entry/{live.pk}/unpublish/")
    assert asked.status_code == 200
    html = asked.content.decode()
    assert "Unpublish “Interconnect”?" in html
    assert '<textarea id="id_reason" name="reason"' in html and "required" in html
    live.refresh_from_db()
    assert live.is_live


def test_unpublishing_without_a_reason_is_refused_and_keeps_the_page_up(
    live: Entry, editor: User
) -> None:
    client = client_for(editor)
    page = client.get(f"/admin/glossary/entry/{live.pk}/unpublish/").content.decode()
    data = form_data(page, "unpublish_form") | {"reason": "   "}
    response = client.post(f"/admin/glossary/entry/{live.pk}/unpublish/", data)
    assert response.status_code == 400
    assert "Write why the entry is coming down" in response.content.decode()
    live.refresh_from_db()
    assert live.is_live
    assert not WorkflowEvent.objects.filter(entry=live, action="unpublish").exists()


def test_the_reason_is_in_the_history_and_offered_as_the_correction_note_on_return(
    live: Entry, editor: User, second_editor: User, writer: User, client: Client
) -> None:
    desk = client_for(editor)
    page = desk.get(f"/admin/glossary/entry/{live.pk}/unpublish/").content.decode()
    data = form_data(page, "unpublish_form") | {"reason": "The figure for port speed was wrong."}
    assert desk.post(f"/admin/glossary/entry/{live.pk}/unpublish/", data).status_code == 302
    live.refresh_from_db()
    assert not live.is_live
    assert client.get(f"/glossary/{live.slug}/").status_code in (404, 410)

    history = desk.get(f"/admin/glossary/entry/{live.pk}/history/").content.decode()
    events = history[history.index('id="workflow-events"') :]
    row = events[events.index("Unpublished") :]
    assert "The figure for port speed was wrong." in row[: row.index("</tr>")]

    assert client_for(writer).post(f"/admin/glossary/entry/{live.pk}/submit/").status_code == 302
    publishing = client_for(second_editor)
    page = publishing.get(f"/admin/glossary/entry/{live.pk}/publish/").content.decode()
    form = form_data(page, "publish_form")
    assert form["correction_note"] == "The figure for port speed was wrong."  # prefilled
    assert "Filled in with why it was unpublished" in page
    form["correction_note"] = "An earlier version gave the wrong port speed."  # and editable
    response = publishing.post(f"/admin/glossary/entry/{live.pk}/publish/", form)
    assert response.status_code == 302
    public = client.get(f"/glossary/{live.slug}/").content.decode()
    assert "An earlier version gave the wrong port speed." in public
    assert "The figure for port speed was wrong." not in public
    # Offered once: the next publication starts with an empty note.
    assert workflow.withdrawal_reason(live) == ""


def test_only_whoever_may_unpublish_is_asked(live: Entry, writer: User) -> None:
    client = client_for(writer)
    assert client.get(f"/admin/glossary/entry/{live.pk}/unpublish/").status_code == 403
    refused = client.post(f"/admin/glossary/entry/{live.pk}/unpublish/", {"reason": "Mine."})
    assert refused.status_code == 403
    assert Entry.objects.get(pk=live.pk).is_live


def test_a_scheduled_unpublish_offers_no_note(live: Entry, editor: User) -> None:
    reason = workflow.scheduled_reason(editor, live.created_at)
    workflow.unpublish_entry(live, user=editor, comment=reason)
    assert workflow.withdrawal_reason(live) == ""


def test_the_bulk_unpublish_asks_too_and_records_the_reason(live: Entry, editor: User) -> None:
    client = client_for(editor)
    selected = {"action": "unpublish_selected", "_selected_action": [live.pk]}
    asked = client.post("/admin/glossary/entry/", selected)
    assert asked.status_code == 200
    live.refresh_from_db()
    assert live.is_live
    confirmation = form_data(asked.content.decode(), "unpublish_form")
    refused = client.post("/admin/glossary/entry/", confirmation)
    assert refused.status_code == 400
    assert "Write why the entries are coming down" in refused.content.decode()
    live.refresh_from_db()
    assert live.is_live
    confirmation["reason"] = "Legal asked."
    done = client.post("/admin/glossary/entry/", confirmation)
    assert done.status_code == 302
    assert not Entry.objects.get(pk=live.pk).is_live
    event = WorkflowEvent.objects.get(entry=live, action="unpublish")
    assert event.comment == "Legal asked."


# --- A fact-check is a step in the history -----------------------------------------------------


def history_row(client: Client, entry: Entry, action: str) -> str:
    html = client.get(f"/admin/glossary/entry/{entry.pk}/history/").content.decode()
    events = html[html.index('id="workflow-events"') :]
    start = events.rindex("<tr>", 0, events.index(f"<td>{action}"))
    return events[start : events.index("</tr>", start)]


def test_confirming_a_citation_on_the_entry_page_is_a_fact_check_in_the_history(
    ready_entry: Entry, fact_checker: User, writer: User
) -> None:
    Citation.objects.filter(entry=ready_entry).update(checked_on=None)
    client = client_for(fact_checker)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    data = form_data(client.get(url).content.decode())
    data["citations-0-checked_on"] = "2026-11-29"
    assert client.post(url, data).status_code == 302
    event = WorkflowEvent.objects.get(entry=ready_entry, action="fact_check")
    assert event.actor == fact_checker
    assert event.version == ready_entry.versions.order_by("-number").first()
    row = history_row(client_for(writer), ready_entry, "Fact-checked")
    assert "Fiona Checker" in row
    assert "Confirmed the citation of “Source 1” on November 29, 2026." in row
    assert "Draft → Draft" in row


def test_an_edit_that_confirms_nothing_leaves_no_fact_check(
    ready_entry: Entry, editor: User
) -> None:
    client = client_for(editor)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    data = form_data(client.get(url).content.decode()) | {"summary": "Shorter."}
    assert client.post(url, data).status_code == 302
    assert not WorkflowEvent.objects.filter(entry=ready_entry, action="fact_check").exists()


def test_mark_confirmed_today_is_a_fact_check_of_every_citing_entry(
    ready_entry: Entry, fact_checker: User, writer: User
) -> None:
    source = Citation.objects.get(entry=ready_entry).source
    response = client_for(fact_checker).post(
        "/admin/glossary/source/",
        {"action": "mark_confirmed_today", "_selected_action": [source.pk]},
    )
    assert response.status_code == 302
    row = history_row(client_for(writer), ready_entry, "Fact-checked")
    assert "Fiona Checker" in row and "Confirmed the citation of “Source 1” on" in row


# --- "Fix this" never sends a writer to a fact-checker's field ----------------------------------


def test_a_writer_is_told_who_confirms_a_citation_instead_of_sent_to_its_field(
    ready_entry: Entry, writer: User, fact_checker: User
) -> None:
    Citation.objects.filter(entry=ready_entry).update(checked_on=None)
    url = f"/admin/glossary/entry/{ready_entry.pk}/change/"
    html = client_for(writer).get(url).content.decode()
    row = gate_row(html, gates.CITATION_FRESH)
    assert "#citations-group" not in row
    assert "A fact-checker confirms this: ask Fiona Checker." in row
    # The fact-checker, who can set the date, gets the link.
    row = gate_row(client_for(fact_checker).get(url).content.decode(), gates.CITATION_FRESH)
    assert f'<a href="{url}#citations-group">Fix this</a>' in row


def test_the_publish_page_tells_the_editor_who_must_confirm_a_stale_citation(
    entry_in_review: Callable[..., Entry], editor: User, fact_checker: User
) -> None:
    entry = entry_in_review()
    Citation.objects.filter(entry=entry).update(checked_on=None)
    html = client_for(editor).get(f"/admin/glossary/entry/{entry.pk}/publish/").content.decode()
    row = html[html.index(f'data-code="{gates.CITATION_FRESH}"') :]
    row = row[: row.index("</tr>")]
    assert "Fix it" not in row
    assert "A fact-checker confirms this: ask Fiona Checker." in row


def gate_row(html: str, code: str) -> str:
    row = html[html.index(f'data-code="{code}"') :]
    return row[: row.index("</li>")]


def test_the_dashboard_tells_an_editor_who_must_confirm_stale_citations(
    entry_in_review: Callable[..., Entry], editor: User, fact_checker: User
) -> None:
    rotting = entry_in_review("Rotting")
    workflow.publish_entry(rotting, user=editor)
    Citation.objects.filter(entry=rotting).update(checked_on=datetime.date(2025, 1, 1))
    stale = entry_in_review("Stale", checked_on=datetime.date(2025, 1, 1))
    now = timezone.now()
    scheduling.schedule(
        stale, action="publish", due_at=now + datetime.timedelta(minutes=1), user=editor
    )
    scheduling.run_due(now=now + datetime.timedelta(minutes=2))

    html = client_for(editor).get("/admin/dashboard/").content.decode()
    scheduled = html[html.index('id="scheduled"') : html.index('id="published-failing"')]
    failing = html[html.index('id="published-failing"') : html.index('id="stale-citations"')]
    for section in (scheduled, failing):
        assert "A fact-checker confirms this: ask Fiona Checker." in section
        assert "#citations-group" not in section
    html = client_for(fact_checker).get("/admin/dashboard/").content.decode()
    failing = html[html.index('id="published-failing"') : html.index('id="stale-citations"')]
    assert (
        f'<a href="/admin/glossary/entry/{rotting.pk}/change/#citations-group">Fix</a>' in failing
    )


@pytest.fixture
def quoting_a_guest(
    ready_entry: Entry, episode: Episode, person: Person
) -> tuple[Entry, Organisation]:
    """The entry quotes a guest who spoke for Cisco, in an episode Galileo sponsored."""
    cisco = Organisation.objects.create(name="Cisco", slug="cisco")
    galileo = Organisation.objects.create(name="Galileo", slug="galileo")
    Sponsorship.objects.create(episode=episode, organisation=galileo, read_at=5)
    Appearance.objects.create(episode=episode, person=person, affiliation=cisco)
    Quote.objects.create(entry=ready_entry, episode=episode, speaker=person, start=60, text="Hi")
    return ready_entry, cisco


def test_a_writer_is_sent_to_add_the_interest_disclosure_not_to_the_editors_waiver(
    quoting_a_guest: tuple[Entry, Organisation], writer: User, editor: User
) -> None:
    entry, cisco = quoting_a_guest
    url = f"/admin/glossary/entry/{entry.pk}/change/"
    waiver = f"/admin/gates/{entry.pk}/interest/{cisco.pk}/not-needed/"
    row = gate_row(client_for(writer).get(url).content.decode(), gates.INTEREST_DISCLOSED)
    assert waiver not in row
    assert f'<a href="{url}#disclosures-group">Fix this</a>' in row
    row = gate_row(client_for(editor).get(url).content.decode(), gates.INTEREST_DISCLOSED)
    assert f'<a href="{waiver}">Fix this</a>' in row


def test_a_fact_checker_is_told_who_adds_a_sponsorship_disclosure(
    quoting_a_guest: tuple[Entry, Organisation], fact_checker: User, writer: User, editor: User
) -> None:
    entry, _ = quoting_a_guest
    url = f"/admin/glossary/entry/{entry.pk}/change/"
    row = gate_row(client_for(fact_checker).get(url).content.decode(), gates.SPONSORSHIP_DISCLOSED)
    assert "/sponsorship/" not in row
    assert "A writer or editor makes this change: ask Ed Editor or Wanda Writer." in row
