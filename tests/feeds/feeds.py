"""Feeds for the tests, written the way hosts write them."""

from __future__ import annotations

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel>
<title>Test Show</title>
<link>https://show.invalid/</link>
"""
TAIL = "</channel>\n</rss>\n"


def item(
    number: int,
    title: str | None = None,
    *,
    season: int = 1,
    duration: str = "58:30",
    guid: str | None = None,
    audio: str | None = None,
    extra: str = "",
) -> str:
    audio = audio or f"https://show.invalid/audio/{number}.mp3"
    return f"""<item>
<title>{title or f"The episode numbered {number}"}</title>
<guid isPermaLink="false">{guid or f"test-show-{number}"}</guid>
<link>https://show.invalid/episodes/{number}</link>
<pubDate>Tue, 14 Oct 2025 09:00:00 +0000</pubDate>
<itunes:duration>{duration}</itunes:duration>
<itunes:season>{season}</itunes:season>
<itunes:episode>{number}</itunes:episode>
<enclosure url="{audio}" type="audio/mpeg" length="1"/>
<podcast:transcript url="https://show.invalid/t/{number}.vtt" type="text/vtt"/>
<podcast:chapters url="https://show.invalid/c/{number}.json" type="application/json+chapters"/>
<podcast:person role="host" href="https://show.invalid/people/conor">Conor</podcast:person>
<podcast:person role="guest">Grace Guest</podcast:person>
<podcast:person role="producer">Pat Producer</podcast:person>
{extra}</item>
"""


def feed(*items: str) -> bytes:
    return (HEAD + "".join(items) + TAIL).encode()
