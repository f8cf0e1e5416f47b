"""import_feed: episodes from a feed file or URL, idempotent, all or nothing, never
overruling an editor, and never changing what readers see by itself."""

from __future__ import annotations

import datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from demo.content import DEMO_FEED
from glossary import episode_feed
from glossary.models import Appearance, Entry, EntryVersion, Episode, Person, Quote, Show
from glossary.transcripts.podcast_feed import parse_feed
from tests.feeds.feeds import feed, item
from tests.live import make_live_unchecked


@pytest.fixture
def test_show(db: Any) -> Show:
    return Show.objects.create(name="Test Show", slug="test-show")


def run(*args: str) -> str:
    out = StringIO()
    call_command("import_feed", *args, stdout=out)
    return out.getvalue()


def write(tmp_path: Path, data: bytes, name: str = "feed.xml") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_a_feed_file_creates_episodes_with_every_field_and_their_people(test_show, tmp_path):
    path = write(
        tmp_path, feed(item(2, "Second things"), item(1, "First things", duration="1:02:03"))
    )
    out = run("test-show", path)
    assert "Test Show: 2 created, 0 updated, 0 unchanged, 0 differences waiting" in out
    assert "New people: Conor, Grace Guest." in out
    first = Episode.objects.get(show=test_show, number=1)
    assert first.title == "First things"
    assert first.guid == "test-show-1"
    assert first.duration == 3723
    assert first.air_date == datetime.date(2025, 10, 14)
    assert first.url == "https://show.invalid/episodes/1"
    assert first.audio_url == "https://show.invalid/audio/1.mp3"
    assert (first.transcript_url, first.transcript_type) == (
        "https://show.invalid/t/1.vtt",
        "text/vtt",
    )
    assert first.chapters_url == "https://show.invalid/c/1.json"
    roles = {a.person.name: a.role for a in Appearance.objects.filter(episode=first)}
    assert roles == {"Conor": "host", "Grace Guest": "guest"}  # the producer is crew
    assert Person.objects.get(name="Conor").url == "https://show.invalid/people/conor"
    assert not Person.objects.filter(name="Pat Producer").exists()


def test_importing_the_same_feed_again_changes_nothing(test_show, tmp_path):
    path = write(tmp_path, feed(item(1), item(2)))
    run("test-show", path)
    before = list(Episode.objects.order_by("pk").values())
    out = run("test-show", path)
    assert "0 created, 0 updated, 2 unchanged, 0 differences waiting" in out
    assert list(Episode.objects.order_by("pk").values()) == before
    assert Appearance.objects.count() == 4 and Person.objects.count() == 2


def test_a_changed_feed_updates_the_fields_nobody_corrected(test_show, tmp_path):
    run("test-show", write(tmp_path, feed(item(1, "Old title"))))
    out = run("test-show", write(tmp_path, feed(item(1, "New title", duration="59:00"))))
    assert "0 created, 1 updated" in out
    episode = Episode.objects.get(guid="test-show-1")
    assert (episode.title, episode.duration) == ("New title", 3540)


def test_an_episode_typed_by_hand_is_found_by_number_and_its_values_are_not_overwritten(
    test_show, tmp_path
):
    typed = Episode.objects.create(show=test_show, season=1, number=1, title="Typed title")
    out = run("test-show", write(tmp_path, feed(item(1, "Feed title"))))
    typed.refresh_from_db()
    assert typed.guid == "test-show-1"
    assert typed.title == "Typed title"  # never overwritten silently
    assert typed.duration == 3510  # an empty field is filled
    assert "1 difference waiting" in out
    assert "title: the feed says 'Feed title', the desk has 'Typed title'" in out


def test_an_editor_correction_is_kept_and_a_later_feed_change_asks_again(test_show, tmp_path):
    run("test-show", write(tmp_path, feed(item(1, "Feed title"))))
    episode = Episode.objects.get(guid="test-show-1")
    # What the episode admin does when an editor corrects a field (EpisodeAdmin.save_model).
    episode.title = "Corrected title"
    episode.feed_kept = {"title": "Feed title"}
    episode.save()
    out = run("test-show", write(tmp_path, feed(item(1, "Feed title"))))
    assert "0 differences waiting" in out
    out = run("test-show", write(tmp_path, feed(item(1, "Feed title, revised"))))
    episode.refresh_from_db()
    assert episode.title == "Corrected title"
    assert "1 difference waiting" in out
    [diff] = episode_feed.differences(episode)
    assert (diff.field, diff.feed, diff.current) == (
        "title",
        "Feed title, revised",
        "Corrected title",
    )


def test_take_gives_the_feeds_value_and_keep_silences_it_until_the_feed_changes(
    test_show, tmp_path, editor
):
    Episode.objects.create(show=test_show, season=1, number=1, title="Typed")
    run("test-show", write(tmp_path, feed(item(1, "From the feed", duration="10:00"))))
    episode = Episode.objects.get(number=1)
    episode.duration = 100  # changed outside the admin: nothing kept it
    episode.save()
    assert {d.field for d in episode_feed.differences(episode)} == {"title", "duration"}
    episode_feed.keep(episode, "title")
    assert {d.field for d in episode_feed.differences(episode)} == {"duration"}
    episode_feed.take(episode, "duration", user=editor)
    episode_feed.take(episode, "title", user=editor)
    episode.refresh_from_db()
    assert (episode.title, episode.duration) == ("From the feed", 600)
    assert episode_feed.differences(episode) == []


def test_an_item_without_an_episode_number_is_skipped_and_said_so(test_show, tmp_path):
    data = feed(item(1)).replace(b"<itunes:episode>1</itunes:episode>", b"")
    out = run("test-show", write(tmp_path, data))
    assert "0 created" in out and "has no episode number" in out
    assert not Episode.objects.exists()


@pytest.mark.parametrize(
    ("bad", "expected", "marker"),
    [
        (item(2, audio="ftp://x.invalid/2.mp3"), "<enclosure> url of item 'test-show-2'", "<item>"),
        (item(2, guid="test-show-1"), "repeats the guid of the item at line 7", "<item>"),
        (item(1, guid="another-guid"), "already has the guid 'test-show-1'", "<item>"),
        (item(2, "x" * 301), "is 301 characters; an episode title holds at most 300", "<item>"),
    ],
)
def test_a_bad_feed_names_the_element_and_line_and_saves_nothing(
    test_show, tmp_path, bad, expected, marker
):
    """The second item is bad; the first, valid, is not saved either."""
    data = feed(item(1), bad)
    lines = data.decode().splitlines()
    second = lines.index("<item>", 10)
    bad_line = next(n for n, text in enumerate(lines[second:], second + 1) if marker in text)
    with pytest.raises(CommandError) as caught:
        run("test-show", write(tmp_path, data))
    message = str(caught.value)
    assert expected in message
    assert f"line {bad_line}:" in message
    assert "Nothing was saved" in message
    assert not Episode.objects.exists() and not Person.objects.exists()


def test_a_feed_that_is_not_xml_names_its_line(test_show, tmp_path):
    data = feed(item(1)).replace(b"</title>", b"</titel>", 2)
    with pytest.raises(CommandError, match=r"line \d+: not well-formed XML"):
        run("test-show", write(tmp_path, data))


def test_an_unknown_show_a_missing_file_and_another_scheme_are_clear_errors(test_show):
    with pytest.raises(CommandError, match="No show with the slug 'nope'"):
        run("nope", "feed.xml")
    with pytest.raises(CommandError, match="No such file"):
        run("test-show", "/nonexistent/feed.xml")
    with pytest.raises(CommandError, match="other schemes are never fetched"):
        run("test-show", "file:///etc/passwd")


def test_a_feed_from_a_local_http_server(test_show, feed_server, allow_loopback):
    feed_server.pages["/feed.xml"] = (200, "application/rss+xml", feed(item(1), item(2)))
    feed_server.pages["/old"] = (301, "text/plain", b"/feed.xml")
    out = run("test-show", feed_server.url("/old"))
    assert "2 created" in out
    assert feed_server.requests == ["/old", "/feed.xml"]


def test_a_feed_url_goes_through_the_ssrf_guard(test_show, feed_server, settings):
    settings.LINKCHECK_ALLOW_PRIVATE = []  # the default: loopback is refused
    feed_server.pages["/feed.xml"] = (200, "application/rss+xml", feed(item(1)))
    with pytest.raises(CommandError, match="was not fetched") as caught:
        run("test-show", feed_server.url("/feed.xml"))
    assert "Nothing was saved" in str(caught.value)
    assert feed_server.requests == []  # refused before any request
    with pytest.raises(CommandError, match="was not fetched"):
        run("test-show", "http://10.0.0.1/feed.xml")  # the fence proves no packet left


def test_a_feed_larger_than_the_cap_is_refused_not_cut_short(
    test_show, feed_server, allow_loopback, tmp_path
):
    allow_loopback.FEED_MAX_BYTES = 1024
    data = feed(*(item(n) for n in range(1, 10)))
    feed_server.pages["/feed.xml"] = (200, "application/rss+xml", data)
    with pytest.raises(CommandError, match="larger than 1,024 bytes"):
        run("test-show", feed_server.url("/feed.xml"))
    with pytest.raises(CommandError, match="feeds are read up to 1,024"):
        run("test-show", write(tmp_path, data))
    feed_server.pages["/gone.xml"] = (404, "text/plain", b"")
    with pytest.raises(CommandError, match="answered HTTP 404"):
        run("test-show", feed_server.url("/gone.xml"))
    assert not Episode.objects.exists()


def test_a_refresh_never_changes_what_readers_see_until_another_editor_publishes(
    demo, editor, second_editor, client
):
    """The demo's episode 44 is shown by the live Interconnect entry."""
    page = "/episodes/demo-show/3/44/"
    before = client.get(page).content
    changed = DEMO_FEED.read_bytes().replace(
        b"Scale Across: When Two Data Centers Act as One", b"Scale Across, Retitled"
    )
    show = Show.objects.get(slug="demo-show")
    result = episode_feed.apply_feed(show, parse_feed(changed), user=editor)
    assert result.entries_versioned == 1
    interconnect = Entry.objects.get(slug="interconnect")
    latest = interconnect.versions.order_by("-number").first()
    assert latest is not None and latest.created_by == editor
    assert latest != interconnect.live_version
    assert client.get(page).content == before  # readers see nothing new yet
    make_live_unchecked(interconnect, user=second_editor, version=latest)
    assert "Scale Across, Retitled" in client.get(page).content.decode()


def test_a_quote_stays_valid_when_the_feed_fills_an_episode(test_show, tmp_path):
    run("test-show", write(tmp_path, feed(item(1))))
    assert Quote.objects.count() == 0 and EntryVersion.objects.count() == 0


def test_an_unchanged_refresh_costs_the_same_queries_for_2_or_40_episodes(test_show, tmp_path):
    def refresh_cost(count: int) -> int:
        Episode.objects.all().delete()
        path = write(tmp_path, feed(*(item(n) for n in range(1, count + 1))), f"{count}.xml")
        run("test-show", path)
        with CaptureQueriesContext(connection) as queries:
            assert f"{count} unchanged" in run("test-show", path)
        return len(queries)

    assert refresh_cost(40) == refresh_cost(2)


def test_a_redirect_to_a_private_address_is_refused_at_that_hop(
    test_show, feed_server, allow_loopback
):
    feed_server.pages["/feed.xml"] = (302, "text/plain", b"http://10.0.0.1/feed.xml")
    with pytest.raises(CommandError, match="was not fetched") as caught:
        run("test-show", feed_server.url("/feed.xml"))
    assert "10.0.0.1" in str(caught.value)
    assert feed_server.requests == ["/feed.xml"]  # the fence proves nothing else was reached


def test_a_number_too_big_to_store_is_a_warning_and_its_new_item_waits(test_show, tmp_path):
    data = feed(item(1), item(2, season=40000), item(3, duration="99999999999"))
    out = run("test-show", write(tmp_path, data))
    lines = data.decode().splitlines()
    second = lines.index("<item>", 10) + 1
    third = lines.index("<item>", second) + 1
    assert (
        f"  warning: “The episode numbered 2”, line {second}: <itunes:season> of item "
        "'test-show-2' is 40000; at most 32767 is stored, so it is ignored"
    ) in out
    assert (
        f"  warning: “The episode numbered 3”, line {third}: <itunes:duration> of item "
        "'test-show-3' is 99999999999; at most 2147483647 is stored, so it is ignored"
    ) in out
    assert f"Skipped: line {second}: “The episode numbered 2” has no usable season number" in out
    assert sorted(Episode.objects.values_list("number", "duration")) == [(1, 3510), (3, None)]


def test_a_feed_never_shortens_an_episode_to_before_a_time_an_entry_cites(demo, editor):
    """As the episode form refuses it: the feed's shorter duration waits, said as a warning
    naming what it would cut off, and taking it is refused the same way."""
    show = Show.objects.get(slug="demo-show")
    episode = Episode.objects.get(show=show, season=3, number=44)
    cited = episode.moments_past(60)
    assert cited  # the demo's entries quote episode 44 after its first minute
    shorter = DEMO_FEED.read_bytes().replace(
        b"<itunes:duration>58:30</itunes:duration>", b"<itunes:duration>1:00</itunes:duration>"
    )
    result = episode_feed.apply_feed(show, parse_feed(shorter), user=editor)
    episode.refresh_from_db()
    assert episode.duration == 3510
    [warning] = [w for w in result.warnings if "shorter than" in w]
    assert "“Scale Across: When Two Data Centers Act as One”, line " in warning
    assert "<itunes:duration> 1:00 is shorter than " + cited[0] in warning
    assert "keeps 58:30" in warning
    assert {d.field for d in episode_feed.differences(episode)} == {"duration"}
    with pytest.raises(ValidationError, match="would end the episode before the quote"):
        episode_feed.take(episode, "duration", user=editor)
    episode.refresh_from_db()
    assert episode.duration == 3510

    # The feed's next word, longer, waits like any value the desk differs on, and taking
    # it works: only a duration ending before a cited time is refused.
    longer = DEMO_FEED.read_bytes().replace(
        b"<itunes:duration>58:30</itunes:duration>", b"<itunes:duration>59:30</itunes:duration>"
    )
    result = episode_feed.apply_feed(show, parse_feed(longer), user=editor)
    assert not [w for w in result.warnings if "shorter than" in w]
    episode.refresh_from_db()
    episode_feed.take(episode, "duration", user=editor)
    episode.refresh_from_db()
    assert episode.duration == 3570
