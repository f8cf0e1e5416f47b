"""Each rule of the feed import held against feeds shaped like the hosts' own
(tests/feeds/corpus/README.md says which feed carries which case)."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.urls import reverse

from editorial import podcast_feed_import, tasks
from glossary.models import Appearance, Episode, Person, Show
from glossary.transcripts.podcast_feed import parse_feed
from tests.personas import client_for

CORPUS = Path(__file__).parent / "corpus"
FEEDS = sorted(path.name for path in CORPUS.glob("*.xml"))
# What glossary.inbound.strip_invisible removes: no stored title or name may hold one.
INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


@pytest.fixture
def show(db: Any) -> Show:
    return Show.objects.create(name="Corpus Show", slug="corpus")


def run(name: str) -> str:
    out = StringIO()
    call_command("import_feed", "corpus", str(CORPUS / name), stdout=out)
    return out.getvalue()


def roles(episode: Episode) -> dict[str, str]:
    return {a.person.name: a.role for a in Appearance.objects.filter(episode=episode)}


@pytest.mark.parametrize("name", FEEDS)
def test_every_feed_of_the_corpus_imports_and_stores_no_invisible_character(show, name):
    out = run(name)
    assert out.startswith("Corpus Show: ")
    for title in Episode.objects.values_list("title", flat=True):
        assert not INVISIBLE.search(title), title
    for person in Person.objects.values_list("name", flat=True):
        assert not INVISIBLE.search(person), person
    # A second import of the same feed changes nothing.
    assert " 0 created, 0 updated" in run(name)


def test_libsyn_seasons_numbers_and_durations(show):
    out = run("libsyn.xml")
    assert "2 created" in out and "warning" not in out
    episode = Episode.objects.get(season=2, number=12)
    assert (episode.title, episode.duration) == ("Scheduler Week", 3807)
    assert episode.audio_url.startswith("https://traffic.libsyn.example/secure/kernel/KH012")


def test_anchors_trailer_without_a_number_is_skipped_and_said(show):
    out = run("anchor.xml")
    assert "1 created" in out
    assert re.search(r"Skipped: line \d+: “Trailer” has no episode number", out)
    assert list(Episode.objects.values_list("number", flat=True)) == [2]


def test_the_channels_host_appears_on_every_episode_that_names_no_host_of_its_own(show):
    run("buzzsprout.xml")
    compost = Episode.objects.get(number=7)
    assert roles(compost) == {"Mira Okafor": "host", "Dr. Hana Lee": "guest"}
    # This episode names its own host: the channel's is not added beside them.
    seeds = Episode.objects.get(number=6)
    assert roles(seeds) == {"Sam Rivera": "host"}
    assert Person.objects.get(name="Mira Okafor").url == "https://gardenvariety.example/about"
    assert (compost.transcript_type, compost.transcript_url.rsplit("/", 1)[1]) == (
        "text/vtt",
        "transcript.vtt",
    )


def test_the_channels_host_and_the_episodes_guest_but_not_its_crew(show):
    run("transistor.xml")
    episode = Episode.objects.get(number=9)
    assert roles(episode) == {"Inès Moreau": "host", "Ravi Shankar": "guest"}
    assert not Person.objects.filter(name="Theo Park").exists()


def test_bidi_overrides_and_zero_width_characters_never_reach_titles_or_names(show):
    run("podbean.xml")
    episode = Episode.objects.get(season=4, number=31)
    assert episode.title == "Refund of gpj.exe invoices"
    assert roles(episode) == {"Weiling Tan": "host", "Nadia Osei": "guest"}


def test_inline_podlove_chapters_become_the_episodes_chapters(show):
    out = run("transistor.xml")
    episode = Episode.objects.get(number=9)
    assert episode.chapters == [
        {"startTime": 0.0, "title": "Hello"},
        {
            "startTime": 105.5,
            "title": "What make remembers",
            "url": "https://www.gnu.example/make",
            "img": "https://img.transistor.example/make.png",
        },
        {"startTime": 750.0, "title": "Content hashes"},
        {"startTime": 3723.0, "title": "After the credits"},
    ]
    # The link to the JSON chapters is kept beside them.
    assert episode.chapters_url.endswith("/chapters.json")
    line = _line_of(CORPUS / "transistor.xml", 'start="soon"')
    assert (
        f"  warning: “Incremental Builds”, line {line}: <psc:chapter> start='soon' is not a "
        "time (HH:MM:SS.mmm); that chapter is left out"
    ) in out


def test_the_episode_admin_shows_the_chapters_from_the_feed(show, editor):
    run("transistor.xml")
    episode = Episode.objects.get(number=9)
    page = (
        client_for(editor)
        .get(reverse("admin:glossary_episode_change", args=[episode.pk]))
        .content.decode()
    )
    assert "Chapters from the feed" in page
    assert "<tr><td>1:45</td><td>What make remembers</td></tr>" in page
    assert "<tr><td>1:02:03</td><td>After the credits</td></tr>" in page


def test_a_chapter_link_that_is_not_a_web_address_is_dropped_with_a_warning(show, tmp_path):
    data = (
        (CORPUS / "transistor.xml")
        .read_bytes()
        .replace(b'href="https://www.gnu.example/make"', b'href="javascript:alert(1)"')
    )
    path = tmp_path / "feed.xml"
    path.write_bytes(data)
    out = StringIO()
    call_command("import_feed", "corpus", str(path), stdout=out)
    chapter = Episode.objects.get(number=9).chapters[1]
    assert chapter == {
        "startTime": 105.5,
        "title": "What make remembers",
        "img": "https://img.transistor.example/make.png",
    }
    assert "<psc:chapter> href: 'javascript:alert(1)' is not a web address" in out.getvalue()


def test_media_content_is_the_audio_when_there_is_no_enclosure(show):
    items = {
        item.guid[-3:]: item for item in parse_feed((CORPUS / "megaphone.xml").read_bytes()).items
    }
    assert items["203"].enclosure is not None
    assert items["203"].enclosure.url.startswith("https://www.podtrac.example/")
    assert items["202"].enclosure is not None
    assert items["202"].enclosure.url == (
        "https://traffic.megaphone.example/MGP0000000202.mp3?updated=1760690000"
    )
    assert (items["202"].enclosure.type, items["202"].enclosure.length) == ("audio/mpeg", 16736000)
    # Inside <media:group>, after a video: the audio one.
    run("megaphone.xml")
    episode = Episode.objects.get(number=201)
    assert episode.audio_url == "https://traffic.megaphone.example/MGP0000000201.m4a"


def test_bad_numbers_and_durations_are_warnings_naming_the_item_and_line_never_a_refusal(show):
    out = run("megaphone.xml")
    path = CORPUS / "megaphone.xml"
    episode_line = _line_of(path, "<itunes:episode>-3<")
    season_line = _line_of(path, "<itunes:season>9999")
    duration_line = _line_of(path, "<itunes:duration>1111")
    negative_line = _line_of(path, "<itunes:duration>-20<")
    warnings = [line for line in out.splitlines() if line.startswith("  warning: ")]
    assert warnings == [
        f"  warning: “Rates, Again”, line {episode_line}: <itunes:episode> '-3' is not a whole "
        "episode number; ignored",
        f"  warning: “Bonds for Beginners”, line {season_line}: <itunes:season> "
        "'9999999999999999999999999999999999999999'… (413 characters) is not a whole season "
        "number; ignored",
        f"  warning: “Bonds for Beginners”, line {duration_line}: <itunes:duration> "
        "'1111111111111111111111111111111111111111'… (418 characters) is not a duration (write "
        "seconds, MM:SS or HH:MM:SS); the episode's duration is left as it was",
        f"  warning: “Week in Review”, line {negative_line}: <itunes:duration> '-20' is not a "
        "duration (write seconds, MM:SS or HH:MM:SS); the episode's duration is left as it was",
    ]
    assert "1 created" in out
    # Without a usable number or season a new item has no address: skipped, and said.
    assert "“Rates, Again” has no usable episode number" in out
    assert "“Bonds for Beginners” has no usable season number" in out
    week = Episode.objects.get()
    assert (week.season, week.number, week.duration) == (3, 201, None)


def test_a_bad_value_later_leaves_the_episodes_value_as_it_was(show, tmp_path):
    run("libsyn.xml")
    data = (
        (CORPUS / "libsyn.xml")
        .read_bytes()
        .replace(
            b"<itunes:duration>01:03:27</itunes:duration>",
            b"<itunes:duration>-" + b"9" * 400 + b"</itunes:duration>",
        )
        .replace(b"<itunes:episode>11</itunes:episode>", b"<itunes:episode>-11</itunes:episode>")
    )
    path = tmp_path / "feed.xml"
    path.write_bytes(data)
    out = StringIO()
    call_command("import_feed", "corpus", str(path), stdout=out)
    assert "0 created, 0 updated, 2 unchanged" in out.getvalue()
    assert out.getvalue().count("  warning: ") == 2
    assert Episode.objects.get(number=12).duration == 3807
    assert Episode.objects.filter(number=11).exists()


def test_after_a_bad_value_the_feeds_next_good_one_still_updates_the_episode(show, tmp_path):
    """The bad value left the feed's last word standing, so the next change is the feed's
    own, not taken for an editor's correction."""
    run("libsyn.xml")
    original = (CORPUS / "libsyn.xml").read_bytes()
    for number, duration in ((1, b"-1"), (2, b"01:04:00")):
        path = tmp_path / f"{number}.xml"
        path.write_bytes(original.replace(b"01:03:27", duration))
        call_command("import_feed", "corpus", str(path), stdout=StringIO())
    episode = Episode.objects.get(number=12)
    assert episode.duration == 3840
    assert episode.feed_values["duration"] == 3840


def test_an_rss_091_feed_with_netscapes_doctype_is_read_without_fetching_anything(show):
    feed = parse_feed((CORPUS / "rss091.xml").read_bytes())
    assert feed.title == "Café Radio"
    assert [item.title for item in feed.items] == ["Résumé of the week", "Naïve questions"]
    assert feed.items[0].guid == "http://cafe-radio.example/shows/42.html"
    # Its items carry no episode numbers: read, and skipped by the import with a reason.
    out = run("rss091.xml")
    assert "0 created" in out
    assert "“Résumé of the week” has no episode number" in out


def test_the_rss_091_doctype_is_never_fetched_even_from_a_server_that_answers(
    show, feed_server, allow_loopback
):
    feed_server.pages["/rss-0.91.dtd"] = (200, "application/xml-dtd", b'<!ENTITY eacute "X">')
    data = (
        (CORPUS / "rss091.xml")
        .read_bytes()
        .replace(
            b"http://my.netscape.com/publish/formats/rss-0.91.dtd",
            feed_server.url("/rss-0.91.dtd").encode(),
        )
    )
    assert parse_feed(data).title == "Café Radio"
    assert feed_server.requests == []


def test_userlands_rss2_namespace_is_read_as_rss_20(show):
    out = run("userland.xml")
    assert "1 created" in out
    episode = Episode.objects.get()
    assert (episode.number, episode.duration) == (3, 920)
    assert episode.audio_url == "http://scripting-along.example/audio/2004-03-05.mp3"


def test_the_admin_action_shows_each_warning_and_a_bad_feed_is_never_a_500(
    show, editor, feed_server, allow_loopback
):
    feed_server.pages["/feed.xml"] = (
        200,
        "application/rss+xml",
        (CORPUS / "megaphone.xml").read_bytes(),
    )
    Show.objects.filter(pk=show.pk).update(feed_url=feed_server.url("/feed.xml"))
    response = client_for(editor).post(
        reverse("admin:glossary_show_changelist"),
        {"action": "import_from_feed", "_selected_action": [show.pk]},
        follow=True,
    )
    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert shown[0].startswith("Corpus Show: 1 created")
    assert "4 warnings: values left out of the feed's items." in shown[0]
    line = _line_of(CORPUS / "megaphone.xml", "<itunes:episode>-3<")
    assert (
        f"Corpus Show: “Rates, Again”, line {line}: <itunes:episode> '-3' is not a whole "
        "episode number; ignored"
    ) in shown
    assert len(shown) == 5
    show.refresh_from_db()
    assert show.feed_error == "" and show.feed_refreshed_at is not None
    # Kept on the show, for the scheduled refresh's warnings too, and shown on its page.
    assert show.feed_warnings.splitlines() == [w.removeprefix("Corpus Show: ") for w in shown[1:]]
    page = client_for(editor).get(reverse("admin:glossary_show_change", args=[show.pk]))
    assert "is not a whole episode number; ignored" in page.content.decode()


def test_any_failure_of_an_import_is_kept_on_the_show_by_the_admin_and_the_beat(
    show, editor, feed_server, allow_loopback, monkeypatch
):
    """A fault of ours (here injected into the import) is said and kept, never a 500 or
    an empty feed_error; the feed's own failures were kept before."""
    feed_server.pages["/feed.xml"] = (
        200,
        "application/rss+xml",
        (CORPUS / "libsyn.xml").read_bytes(),
    )
    Show.objects.filter(pk=show.pk).update(feed_url=feed_server.url("/feed.xml"))

    def fault(*args: Any, **kwargs: Any) -> Any:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(podcast_feed_import, "apply_feed", fault)
    Show.objects.filter(pk=show.pk).update(feed_warnings="kept from the last import")
    message = tasks.refresh_feed.delay(show.pk).get()
    show.refresh_from_db()
    assert show.feed_warnings == "kept from the last import"  # nothing else was saved
    expected = (
        "the import stopped on an unexpected error (OverflowError: int too large to convert "
        "to float); the server's log has the details"
    )
    assert message == f"Corpus Show: {expected}"
    assert show.feed_error == expected
    Show.objects.filter(pk=show.pk).update(feed_error="")
    response = client_for(editor).post(
        reverse("admin:glossary_show_changelist"),
        {"action": "import_from_feed", "_selected_action": [show.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert f"Corpus Show: {expected}. Nothing was saved." in [
        str(m) for m in response.context["messages"]
    ]
    show.refresh_from_db()
    assert show.feed_error == expected
    assert not Episode.objects.exists()


def _line_of(path: Path, text: str) -> int:
    """The line of `path` holding `text`, counted from 1."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_a_bad_podcast_episode_number_does_not_throw_away_a_good_itunes_one():
    """A 5,000-digit <podcast:episode> beside a valid <itunes:episode>47 does not make the
    item skipped as having no usable number."""
    data = (
        b'<?xml version="1.0"?>\n<rss version="2.0" '
        b'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
        b'xmlns:podcast="https://podcastindex.org/namespace/1.0">\n<channel><title>T</title>\n'
        b"<item><title>Forty-seven</title><guid>g47</guid>\n"
        b"<itunes:episode>47</itunes:episode>\n"
        b"<podcast:episode>" + b"9" * 5000 + b"</podcast:episode>\n"
        b"</item></channel></rss>\n"
    )
    (item,) = parse_feed(data).items
    assert item.episode == 47
    assert "episode" not in item.unreadable
    assert any("line 6: <podcast:episode>" in warning for warning in item.warnings)
