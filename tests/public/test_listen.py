"""Listen where it was said: every public timestamp plays the episode audio from that second.

A plain link with a media fragment (no script needed), marked for the inline player
that glossary/static/glossary/listen.js adds where scripts run.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from glossary import publishing
from glossary.models import Entry, Episode
from tests.live import make_live_unchecked

LISTEN_JS = Path(settings.BASE_DIR) / "glossary" / "static" / "glossary" / "listen.js"


def anchors(html: str) -> list[str]:
    return re.findall(r"<a [^>]*>", html)


def test_every_timestamp_on_the_entry_page_is_an_audio_link_with_a_fragment(client, demo):
    html = client.get("/glossary/interconnect/").content.decode()
    article = html.split('<script type="application/ld+json">')[0]
    timed = [a for a in anchors(article) if "#t=" in a]
    # references (25:38, 3:07), the disclosure at 31:57, the sponsor read 0:05, two quotes
    assert len(timed) == 6
    for anchor in timed:
        assert re.search(
            r'href="https://podcast\.example/audio/episode-(44|28)\.mp3#t=\d+"', anchor
        )
        assert 'data-listen-audio="https://podcast.example/audio/episode-' in anchor
        assert re.search(r'data-listen-start="\d+"', anchor)
    assert 'data-listen-start="1538" data-listen-label="episode 44 at 25:38"' in article, (
        "the quote at 25:38"
    )


def test_the_episode_page_links_every_moment_and_the_whole_episode_to_the_audio(client, demo):
    html = client.get("/episodes/demo-show/3/44/").content.decode()
    assert (
        '<a href="https://podcast.example/audio/episode-44.mp3" class="listen" '
        'data-listen-audio="https://podcast.example/audio/episode-44.mp3" data-listen-start="0"'
    ) in html
    moments = html.split('id="moments-heading"')[1].split("</section>")[0]
    timed = [a for a in anchors(moments) if "#t=" in a]
    assert len(timed) == 3  # 25:38 (reference and quote), 31:57
    assert all("episode-44.mp3#t=" in a and "data-listen-start" in a for a in timed)
    html28 = client.get("/episodes/demo-show/2/28/").content.decode()
    assert 'href="https://podcast.example/audio/episode-28.mp3#t=5" class="listen"' in html28


def test_an_episode_without_audio_keeps_the_shows_deep_link_and_no_player(
    client, demo, editor, second_editor
):
    Episode.objects.filter(number=44).update(audio_url="")
    entry = Entry.objects.get(slug="interconnect")
    publishing.record_reference_change(
        "episode", [Episode.objects.get(number=44).pk], user=editor, what="x"
    )
    make_live_unchecked(entry, user=second_editor, version=entry.versions.order_by("-number")[0])
    html = client.get("/glossary/interconnect/").content.decode()
    assert '<a href="https://podcast.example/episodes/44#t=1538">' in html


def test_the_audio_link_comes_from_the_published_facts_not_the_desk(client, demo):
    Episode.objects.filter(number=44).update(audio_url="https://elsewhere.invalid/new.mp3")
    html = client.get("/glossary/interconnect/").content.decode()
    assert "elsewhere.invalid" not in html
    html = client.get("/episodes/demo-show/3/44/").content.decode()
    assert "elsewhere.invalid" not in html


def test_public_pages_load_the_player_script_from_this_site_and_csp_lets_audio_play(client, demo):
    response = client.get("/glossary/interconnect/")
    html = response.content.decode()
    assert '<script src="/static/glossary/listen.js" defer></script>' in html
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "media-src 'self' https:" in policy


def test_the_player_uses_real_buttons_an_audio_element_and_labels():
    script = LISTEN_JS.read_text()
    assert 'createElement("button")' in script and 'button.type = "button"' in script
    assert 'createElement("audio")' in script and "audio.controls = true" in script
    assert '"aria-label", "Play " + label + " here"' in script
    assert '"aria-live", "polite"' in script
    assert "opener.focus()" in script  # closing returns focus
