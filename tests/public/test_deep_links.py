"""A quote's "listen" link, as the show's deep-link style makes it.

An episode with an audio file is linked at the file, with a media fragment at the second,
whatever the style; one without is linked at its page in the show's style
(glossary.entry_page.Moment.href): a media fragment, YouTube's `t=…s`, a `t=` query, or
the page alone.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.utils.html import escape

from glossary import document, entry_page, records
from glossary.models import DeepLinkStyle, Entry, Episode, Person, Quote
from tests.live import make_live_unchecked


@pytest.mark.parametrize(
    ("style", "url", "href"),
    [
        (
            DeepLinkStyle.MEDIA_FRAGMENT,
            "https://podcast.example/7#chapter-2",
            "https://podcast.example/7#t=1538",
        ),
        (
            DeepLinkStyle.YOUTUBE,
            "https://video.example/watch?v=seven",
            "https://video.example/watch?v=seven&t=1538s",
        ),
        (DeepLinkStyle.QUERY, "https://podcast.example/7", "https://podcast.example/7?t=1538"),
        (DeepLinkStyle.NONE, "https://podcast.example/7", "https://podcast.example/7"),
    ],
)
def test_a_published_quote_without_audio_links_the_episode_page_in_the_shows_style(
    client: Client,
    make_ready_entry: Callable[..., Entry],
    episode: Episode,
    person: Person,
    style: DeepLinkStyle,
    url: str,
    href: str,
) -> None:
    episode.show.deep_link_style = style
    episode.show.save()
    episode.url = url
    episode.save()
    entry = make_ready_entry("Interconnect", slug="interconnect")
    Quote.objects.create(
        entry=entry, episode=episode, speaker=person, start=1538, text="One giant cluster."
    )
    live = make_live_unchecked(entry)

    doc = document.load(live.data)
    (facts,) = records.approved_facts_each([doc])
    (quote,) = entry_page.article(doc, {}, facts).quotes
    assert quote.moment.href == href
    html = client.get("/glossary/interconnect/").content.decode()
    assert f'<a href="{escape(href)}">episode 7 at <time datetime="PT25M38S">25:38</time></a>' in (
        html
    )


@pytest.mark.parametrize("style", list(DeepLinkStyle))
def test_a_published_quote_with_audio_links_the_audio_file_at_the_second_in_any_style(
    make_ready_entry: Callable[..., Entry], episode: Episode, person: Person, style: DeepLinkStyle
) -> None:
    episode.show.deep_link_style = style
    episode.show.save()
    episode.audio_url = "https://podcast.example/audio/7.mp3"
    episode.save()
    entry = make_ready_entry()
    Quote.objects.create(
        entry=entry, episode=episode, speaker=person, start=1538, text="One giant cluster."
    )
    doc = document.load(make_live_unchecked(entry).data)
    (facts,) = records.approved_facts_each([doc])
    (quote,) = entry_page.article(doc, {}, facts).quotes
    assert quote.moment.href == "https://podcast.example/audio/7.mp3#t=1538"
