"""The paper cuts readers and a newsroom will hit, one test each, over HTTP."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client

from editorial import workflow
from glossary import publishing
from glossary.models import Entry, Episode, Quote, Transcript
from glossary.publishing import record_edit
from glossary.timestamps import format_timestamp
from tests.live import make_live_unchecked
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(entry_in_review: Callable[..., Entry], editor: User) -> Entry:
    entry = entry_in_review()
    workflow.publish_entry(entry, user=editor)
    entry.refresh_from_db()
    return entry


# --- A live entry being edited ----------------------------------------------------------------


def test_a_live_entry_with_a_pending_edit_reads_live_with_unpublished_changes(
    published: Entry, editor: User, writer: User
) -> None:
    record_edit(published, user=writer)
    client = client_for(editor)
    change = client.get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    assert '<span class="workflow-status">Live, with unpublished changes</span>' in change
    assert '<span class="workflow-status">Draft</span>' not in change
    assert '<div class="readonly">Live, with unpublished changes</div>' in change
    listed = client.get("/admin/glossary/entry/").content.decode()
    row = listed[listed.index(f">{published.term}<") :]
    row = row[: row.index("</tr>")]
    assert '<td class="field-status_label">Live, with unpublished changes</td>' in row
    dashboard = client.get("/admin/dashboard/").content.decode()
    section = dashboard[dashboard.index('id="live-edited"') : dashboard.index('id="check-dates"')]
    assert published.term in section
    assert "<td>Live, with unpublished changes</td>" in section


def test_a_live_entry_submitted_again_reads_live_with_changes_in_review(
    published: Entry, editor: User, writer: User
) -> None:
    record_edit(published, user=writer)
    workflow.submit_for_review(published, user=writer)
    change = (
        client_for(editor).get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    )
    assert '<span class="workflow-status">Live, with changes in review</span>' in change


def test_a_draft_never_published_still_reads_draft_and_a_live_one_published(
    ready_entry: Entry, published: Entry, editor: User
) -> None:
    client = client_for(editor)
    draft = client.get(f"/admin/glossary/entry/{ready_entry.pk}/change/").content.decode()
    assert '<span class="workflow-status">Draft</span>' in draft
    live = client.get(f"/admin/glossary/entry/{published.pk}/change/").content.decode()
    assert '<span class="workflow-status">Published</span>' in live
    dashboard = client.get("/admin/dashboard/").content.decode()
    assert "Every live entry is as readers see it." in dashboard


# --- Public addresses -------------------------------------------------------------------------


def test_the_glossary_folder_redirects_to_the_index(published: Entry, client: Client) -> None:
    response = client.get("/glossary/")
    assert response.status_code == 301
    assert response["Location"] == "/"
    assert f'href="/glossary/{published.slug}/"' in client.get("/glossary/", follow=True).text


# --- Listening from a person's page and the API -----------------------------------------------


def test_a_person_pages_quote_times_play_the_episode_like_the_entry_page(
    client: Client, demo: dict[str, int]
) -> None:
    quote = Quote.objects.select_related("speaker").get(entry__slug="interconnect", start=1538)
    html = client.get(f"/people/{quote.speaker.slug}/").content.decode()
    assert (
        'at <a href="https://podcast.example/audio/episode-44.mp3#t=1538" class="listen" '
        'data-listen-audio="https://podcast.example/audio/episode-44.mp3" '
        'data-listen-start="1538" data-listen-label="episode 44 at 25:38">'
        '<time datetime="PT25M38S">25:38</time></a>'
    ) in html


def test_each_quote_in_the_api_has_a_listen_url_and_keeps_its_fields(
    client: Client, demo: dict[str, int]
) -> None:
    quotes = client.get("/api/v1/entries/interconnect/").json()["quotes"]
    at_1538 = next(q for q in quotes if q["start"] == 1538)
    assert at_1538["listen_url"] == "https://podcast.example/audio/episode-44.mp3#t=1538"
    assert list(at_1538) == [
        "text",
        "verbatim",
        "lightly_edited",
        "speaker",
        "affiliation",
        "episode",
        "start",
        "end",
        "transcript_checked",
        "transcript_passage",
        "listen_url",
    ]
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]["QuoteOut"]
    assert schema["properties"]["listen_url"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert "listen_url" not in schema.get("required", [])


def test_a_quote_from_an_episode_without_audio_links_the_shows_page(
    client: Client, demo: dict[str, int], editor: User, second_editor: User
) -> None:
    episode = Episode.objects.get(number=44)
    Episode.objects.filter(pk=episode.pk).update(audio_url="")
    entry = Entry.objects.get(slug="interconnect")
    publishing.record_reference_change("episode", [episode.pk], user=editor, what="no audio")
    make_live_unchecked(entry, user=second_editor, version=entry.versions.order_by("-number")[0])
    quotes = client.get("/api/v1/entries/interconnect/").json()["quotes"]
    at_1538 = next(q for q in quotes if q["start"] == 1538)
    assert at_1538["listen_url"] == "https://podcast.example/episodes/44#t=1538"


# --- Search results -----------------------------------------------------------------------------


def test_a_search_result_shows_the_passage_that_matched_with_the_words_marked(
    make_ready_entry: Callable[..., Entry], editor: User, client: Client
) -> None:
    body = (
        "Chips talk over short links. " * 6
        + "Optical routing moves the <b>bits</b> & more between racks. "
        + "Nothing else here. " * 8
    )
    entry = make_ready_entry("Fabric", body=body, summary="How racks route their traffic.")
    workflow.submit_for_review(entry, user=entry.created_by)
    workflow.publish_entry(entry, user=editor)
    html = client.get("/search/?q=routes").content.decode()
    row = html[html.index('href="/glossary/term-1-fabric/"') :]
    row = row[: row.index("</li>")]
    assert '<span class="summary">How racks <mark>route</mark> their traffic.</span>' in row
    snippet = row[row.index('<span class="snippet">') :]
    assert snippet.startswith('<span class="snippet">…') and snippet.endswith("…</span>")
    assert (
        "Optical <mark>routing</mark> moves the &lt;b&gt;bits&lt;/b&gt; &amp; more between racks."
    ) in snippet
    assert len(snippet) < 300  # the passage around the match, not the whole body
    assert "<b>bits" not in html


def test_a_word_found_only_in_the_summary_is_marked_there_with_no_snippet(
    published: Entry, client: Client
) -> None:
    html = client.get("/search/?q=chips").content.decode()
    row = html[html.index(f'href="/glossary/{published.slug}/"') :]
    row = row[: row.index("</li>")]
    assert '<span class="summary">The links that join AI <mark>chips</mark>.</span>' in row
    assert '<span class="snippet">' not in row
    html = client.get("/search/?q=explained").content.decode()
    assert '<span class="snippet"><mark>explained</mark>' not in html
    assert '<span class="snippet">Interconnect is <mark>explained</mark> here.</span>' in html


# --- Locked out after failed sign-ins -------------------------------------------------------

# 19:00 UTC is 14:00 in New York in December (EST).
LOCKED_AT = datetime.datetime(2026, 12, 4, 19, 0, tzinfo=datetime.UTC)


def sign_in(client: Client, password: str) -> Any:
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "chief", "password": password},
        REMOTE_ADDR="203.0.113.7",
    )


def test_the_lockout_page_says_until_when_in_newsroom_time_and_who_can_help(
    client: Client, settings: Any
) -> None:
    settings.NEWSROOM_TIME_ZONE = "America/New_York"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    User.objects.create_superuser("chief", "chief@example.com", "pw-chief-123")
    with time_machine.travel(LOCKED_AT, tick=False):
        for _ in range(settings.AXES_FAILURE_LIMIT - 1):
            assert sign_in(client, "wrong").status_code == 200
        locked = sign_in(client, "wrong")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Signing in as “chief” from this device is paused after 5 wrong passwords." in page
    assert "Wait 15 minutes" in page
    assert (
        '<strong id="lockout-until">Dec 4, 2026, 14:15 EST</strong> '
        "(newsroom time, America/New_York)"
    ) in page
    assert "ask one of the desk's administrators to set a new one" in page
    assert "19:15" not in page
    # A guess while locked out starts the wait again, from that guess.
    with time_machine.travel(LOCKED_AT + datetime.timedelta(minutes=5), tick=False):
        again = sign_in(client, "pw-chief-123")
    assert again.status_code == 429
    assert '<strong id="lockout-until">Dec 4, 2026, 14:20 EST</strong>' in again.content.decode()


# --- One clock: the rest of the desk --------------------------------------------------------

ZONE_LABEL = 'id="desk-time-zone"'


def test_transcript_segments_show_times_as_the_rest_of_the_desk_does(
    client: Client, demo: dict[str, int], superuser: User
) -> None:
    transcript = Transcript.objects.select_related("episode").get(episode__number=44)
    Transcript.objects.filter(pk=transcript.pk).update(imported_at=LOCKED_AT)
    segment = transcript.segments.get(start__gte=1538, start__lt=1539)
    client.force_login(superuser)
    html = client.get(f"/admin/glossary/episode/{transcript.episode_id}/change/").text
    segments = html[html.index('<div class="transcript-segments">') :]
    assert "on Dec 4, 2026, 14:00 EST" in segments
    assert f"<tr><td>25:38</td><td>{format_timestamp(int(segment.end))}</td>" in segments
    assert "1538.0" not in segments
    assert html.count(ZONE_LABEL) == 1


def test_every_desk_page_names_the_newsroom_zone_once(
    client: Client, demo: dict[str, int], superuser: User
) -> None:
    client.force_login(superuser)
    entry = Entry.objects.get(slug="interconnect")
    pages = [
        "/admin/",
        "/admin/dashboard/",
        "/admin/notifications/",
        "/admin/password_change/",
        f"/admin/glossary/entry/{entry.pk}/history/",
        f"/admin/glossary/entry/{entry.pk}/compare/?a=live&b=working",
        f"/admin/auth/user/{superuser.pk}/password/",
    ]
    for model in admin.site._registry:
        prefix = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        pages.append(f"{prefix}add/")
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            pages += [f"{prefix}{first.pk}/change/", f"{prefix}{first.pk}/history/"]
    unlabelled, shown = [], 0
    for page in pages:
        response = client.get(page)
        if response.status_code == 403:  # a record nobody adds by hand (versions, events)
            continue
        shown += 1
        if response.status_code != 200 or response.text.count(ZONE_LABEL) != 1:
            unlabelled.append((page, response.status_code, response.text.count(ZONE_LABEL)))
    assert unlabelled == []
    assert shown > 30
