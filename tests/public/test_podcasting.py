"""Podcasting 2.0 back out: chapters and soundbites per episode, from published content only."""

from __future__ import annotations

import json

from glossary import publishing
from glossary.models import Entry, Episode, EpisodeReference, Person, Quote
from tests.live import make_live_unchecked

CHAPTERS = "/episodes/demo-show/3/44/chapters.json"
SOUNDBITES = "/episodes/demo-show/3/44/soundbites.json"


def test_chapters_name_the_terms_discussed_at_their_seconds_linking_their_entries(
    client, demo, settings
):
    response = client.get(CHAPTERS)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json+chapters")
    data = json.loads(response.content)
    assert data == {
        "version": "1.2.0",
        "title": "Scale Across: When Two Data Centers Act as One",
        "podcastName": "The Show",
        "chapters": [
            {
                "startTime": 1538,
                "title": "Interconnect",
                "url": f"{settings.SITE_URL}/glossary/interconnect/",
            }
        ],
    }
    episode28 = json.loads(client.get("/episodes/demo-show/2/28/chapters.json").content)
    assert [c["startTime"] for c in episode28["chapters"]] == [187]


def test_soundbites_suggest_the_quotes_as_json_and_as_feed_elements(client, demo, settings):
    response = client.get(SOUNDBITES)
    assert response["Content-Type"].startswith("application/json")
    data = json.loads(response.content)
    assert data["episode"] == "demo-show/3/44"
    [bite] = data["soundbites"]
    assert bite["startTime"] == 1538 and bite["duration"] == 15
    assert bite["title"].startswith("Operate as one giant cluster")
    assert bite["entry"] == f"{settings.SITE_URL}/glossary/interconnect/"
    assert data["xml"].startswith('<podcast:soundbite startTime="1538" duration="15">Operate')


def test_only_published_content_reaches_chapters_and_soundbites(client, demo, editor):
    episode = Episode.objects.get(number=44)
    patel = Person.objects.get(slug="jeetu-patel")
    # A draft entry quoting the episode, and an unpublished change to a live one.
    draft = Entry.objects.create(term="Secret draft term", slug="secret-draft")
    Quote.objects.create(entry=draft, episode=episode, speaker=patel, start=60, text="DRAFTQUOTE")
    gpu = Entry.objects.get(slug="gpu")
    EpisodeReference.objects.create(entry=gpu, episode=episode, at=120, text="UNPUBLISHED")
    publishing.record_edit(gpu, user=editor, comment="not yet published")
    chapters = client.get(CHAPTERS).content.decode()
    soundbites = client.get(SOUNDBITES).content.decode()
    for text in ("Secret draft", "GPU", "DRAFTQUOTE", '"startTime": 60', '"startTime": 120'):
        assert text not in chapters and text not in soundbites
    # Published, the change shows.
    make_live_unchecked(gpu)
    assert '"title": "GPU"' in client.get(CHAPTERS).content.decode()


def test_an_episode_without_a_public_record_has_no_chapters(client, demo):
    assert client.get("/episodes/demo-show/9/99/chapters.json").status_code == 404
    assert client.get("/episodes/demo-show/9/99/soundbites.json").status_code == 404
    publishing.unpublish(Entry.objects.get(slug="interconnect"))  # the only one citing 44
    assert client.get(CHAPTERS).status_code == 404


def test_chapters_are_cached_like_public_pages_and_listed_on_the_episode_page(client, demo):
    first = client.get(CHAPTERS)
    assert first["Cache-Control"].startswith("public")
    assert first.has_header("ETag")
    again = client.get(CHAPTERS, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    page = client.get("/episodes/demo-show/3/44/").content.decode()
    assert 'type="application/json+chapters"' in page
    assert 'href="/episodes/demo-show/3/44/soundbites.json"' in page
