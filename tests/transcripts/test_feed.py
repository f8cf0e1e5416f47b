import datetime
import http.server
import re
import threading
from pathlib import Path

import pytest

from glossary.transcripts.podcast_feed import (
    ChaptersLink,
    Enclosure,
    FeedError,
    Person,
    TranscriptLink,
    parse_feed,
)

DATA = Path(__file__).parent / "data"
FEED = (DATA / "feed.xml").read_bytes()


def rss(items: str, channel: str = "<title>T</title>") -> bytes:
    return (
        '<?xml version="1.0"?>\n'
        '<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'
        ' xmlns:podcast="https://podcastindex.org/namespace/1.0">\n'
        f"<channel>\n{channel}\n{items}\n</channel>\n</rss>\n"
    ).encode()


def item(*lines: str) -> str:
    return "<item>\n" + "\n".join(lines) + "\n</item>"


def test_it_reads_the_channel_and_its_people():
    feed = parse_feed(FEED)

    assert feed.title == "Wires & Chips"
    assert feed.link == "https://wires.example/"
    assert feed.persons == (
        Person("Ada Park", role="host", group="cast", img="https://wires.example/ada.jpg"),
        Person("Sam Reyes", role="producer", group="crew"),
    )


def test_it_reads_an_episode_with_everything_the_namespaces_give():
    episode = parse_feed(FEED).items[0]

    assert episode.title == "Scale across, with Jeetu Patel"
    assert episode.guid == "wires-44"
    assert episode.line == 11
    assert episode.link == "https://wires.example/44"
    assert episode.published == datetime.datetime(2025, 10, 14, 7, 0, tzinfo=datetime.UTC)
    assert episode.published.utcoffset() == datetime.timedelta(hours=2)
    assert (episode.duration, episode.season, episode.episode) == (3510, 3, 44)
    assert episode.enclosure == Enclosure("https://wires.example/44.mp3", "audio/mpeg", 56160000)
    assert episode.transcripts == (
        TranscriptLink("https://wires.example/44.vtt", "text/vtt", "en", "captions"),
        TranscriptLink("https://wires.example/44.json", "application/json"),
    )
    assert episode.chapters == ChaptersLink(
        "https://wires.example/44.chapters.json", "application/json+chapters"
    )
    assert episode.persons == (
        Person(
            "Jeetu Patel", "guest", "cast", "https://www.cisco.com/", "https://wires.example/jp.jpg"
        ),
        Person("Ada Park", "host", "cast"),
    )


def test_it_takes_season_and_episode_from_the_podcast_namespace_alone():
    episode = parse_feed(FEED).items[1]

    assert (episode.season, episode.episode, episode.duration) == (2, 28, 2830)
    assert episode.published == datetime.datetime(2025, 3, 11, 9, 0, tzinfo=datetime.UTC)
    assert episode.enclosure == Enclosure("https://wires.example/28.mp3", "audio/mpeg", 0)
    assert (episode.transcripts, episode.chapters, episode.persons) == ((), None, ())


def test_what_an_episode_does_not_say_is_none():
    trailer = parse_feed(FEED).items[2]

    assert trailer.duration == 3723
    assert (trailer.published, trailer.season, trailer.episode) == (None, None, None)
    assert (trailer.link, trailer.enclosure) == (None, None)


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("3510", 3510), ("58:30", 3510), ("00:58:30", 3510), ("1:02:03", 3723), ("3510.7", 3510)],
)
def test_it_reads_a_duration_in_any_of_its_written_forms(written, seconds):
    feed = parse_feed(
        rss(item("<title>A</title><guid>a</guid>", f"<itunes:duration>{written}</itunes:duration>"))
    )

    assert feed.items[0].duration == seconds


@pytest.mark.parametrize(
    ("written", "moment"),
    [
        (
            "Tue, 14 Oct 2025 09:00:00 EST",
            datetime.datetime(2025, 10, 14, 14, 0, tzinfo=datetime.UTC),
        ),
        ("Tue, 14 Oct 2025 09:00:00", datetime.datetime(2025, 10, 14, 9, 0, tzinfo=datetime.UTC)),
        ("14 Oct 2025 09:00 +0000", datetime.datetime(2025, 10, 14, 9, 0, tzinfo=datetime.UTC)),
        ("2025-10-14T09:00:00Z", datetime.datetime(2025, 10, 14, 9, 0, tzinfo=datetime.UTC)),
    ],
)
def test_it_reads_publication_dates_as_aware_datetimes(written, moment):
    feed = parse_feed(rss(item("<title>A</title><guid>a</guid>", f"<pubDate>{written}</pubDate>")))

    assert feed.items[0].published == moment
    assert feed.items[0].published.tzinfo is not None


def test_it_accepts_the_podcast_namespace_under_its_old_address():
    old = rss(
        item("<title>A</title><guid>a</guid>", '<podcast:transcript url="u" type="text/vtt"/>')
    )
    old = old.replace(
        b"https://podcastindex.org/namespace/1.0",
        b"https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md",
    )

    assert parse_feed(old).items[0].transcripts == (TranscriptLink("u", "text/vtt"),)


def test_it_never_expands_or_fetches_an_entity(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("do not read")
    attack = (
        f'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY leak SYSTEM "file://{secret}">]>\n'
        "<rss><channel><title>&leak;</title></channel></rss>"
    ).encode()

    with pytest.raises(
        FeedError, match="declares the entity 'leak'; entity declarations are refused"
    ):
        parse_feed(attack)


def test_it_refuses_an_entity_expansion_bomb():
    bomb = (
        b'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<rss><channel><title>&b;</title>'
        b"</channel></rss>"
    )

    with pytest.raises(FeedError, match="entity declarations are refused"):
        parse_feed(bomb)


GOOD = "<title>A</title><guid>a</guid>"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"this is not XML", "line 1: not well-formed XML: syntax error"),
        (b"", "not well-formed XML"),
        (rss(item(GOOD, "<title>unclosed")), "line 8: not well-formed XML: mismatched tag"),
        (
            b'<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title></feed>',
            "line 1: the document is <feed> \\(Atom\\), not an RSS",
        ),
        (b'<rss version="2.0"></rss>', "line 1: <rss> has no <channel>"),
        (rss("", channel="<link>x</link>"), "line 3: <channel> has no <title>"),
        (rss(item("<guid>a</guid>")), "line 5: <item> with guid 'a' has no <title>"),
        (rss(item("<title>Pilot</title>")), "line 5: <item> 'Pilot' has no <guid>"),
        (
            rss(item("<title>Pilot</title>", "<guid>  </guid>")),
            "line 5: <item> 'Pilot' has no <guid>",
        ),
        (rss(item(GOOD, '<enclosure type="audio/mpeg"/>')), 'line 7: <enclosure> has no url="..."'),
        (
            rss(item(GOOD, '<enclosure url="u" length="big"/>')),
            "line 7: <enclosure> length='big' is not a number",
        ),
        (
            rss(item(GOOD, '<podcast:transcript url="u"/>')),
            'line 7: <podcast:transcript> has no type="..."',
        ),
        (
            rss(item(GOOD, '<podcast:chapters type="application/json"/>')),
            'line 7: <podcast:chapters> has no url="..."',
        ),
        (rss(item(GOOD, '<podcast:person role="guest"/>')), "line 7: <podcast:person> has no name"),
        (
            b'<rss version="2.0" xmlns="http://example.org/my-rss"><channel/></rss>',
            "line 1: <rss> is in the namespace 'http://example.org/my-rss', which no RSS "
            "version uses",
        ),
        (
            b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
            "line 1: the document is <RDF> \\(RSS 1.0\\), not an RSS 2.0 <rss> feed",
        ),
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS '
            b'0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">\n'
            b"<rss><channel><title>&trade;</title></channel></rss>",
            "line 3: &trade; is not one of the entities the RSS 0.91 DTD defines",
        ),
        (
            b"<rss><channel><title>&eacute;</title></channel></rss>",
            "line 1: not well-formed XML: undefined entity",
        ),
        (
            rss(item(GOOD) + "\n" + item(GOOD)),
            "line 8: <guid> 'a' repeats the guid of the item at line 5",
        ),
    ],
)
def test_it_names_the_element_and_line_of_a_bad_feed(content, problem):
    with pytest.raises(FeedError, match=problem):
        parse_feed(content)


@pytest.mark.parametrize(
    ("written", "warning"),
    [
        (
            "<itunes:duration>abc</itunes:duration>",
            r"line 7: <itunes:duration> 'abc' is not a duration \(write seconds",
        ),
        ("<itunes:duration>58:61</itunes:duration>", "line 7: <itunes:duration> '58:61'"),
        ("<itunes:duration>-5</itunes:duration>", "line 7: <itunes:duration> '-5'"),
        (
            f"<itunes:duration>{'9' * 400}</itunes:duration>",
            "line 7: <itunes:duration> '9999999999999999999999999999999999999999'… "
            r"\(400 characters\) is not a duration",
        ),
        (
            "<itunes:season>two</itunes:season>",
            "line 7: <itunes:season> 'two' is not a whole season number; ignored",
        ),
        ("<itunes:season>-1</itunes:season>", "line 7: <itunes:season> '-1' is not a whole"),
        (
            f"<itunes:episode>{'1' * 400}</itunes:episode>",
            r"line 7: <itunes:episode> '1111111111111111111111111111111111111111'… \(400",
        ),
        (
            f"<itunes:episode>{'1' * 5000}</itunes:episode>",
            r"line 7: <itunes:episode> '1111111111111111111111111111111111111111'… \(5000",
        ),
        (
            "<podcast:episode>44.5</podcast:episode>",
            "line 7: <podcast:episode> '44.5' is not a whole episode number",
        ),
        (
            "<itunes:episode>44</itunes:episode>\n<podcast:episode>45</podcast:episode>",
            "line 8: <podcast:episode> 45 disagrees with <itunes:episode> 44 at line 7; both",
        ),
    ],
)
def test_a_bad_number_or_duration_is_a_warning_on_its_item_and_left_out(written, warning):
    feed = parse_feed(rss(item(GOOD, written) + "\n" + item("<title>B</title><guid>b</guid>")))

    [bad, good] = feed.items
    [said] = bad.warnings
    assert re.match(warning, said), said
    assert (bad.duration, bad.season, bad.episode) == (None, None, None)
    assert good.warnings == ()


def test_an_error_carries_its_line_for_callers_that_show_it_elsewhere():
    with pytest.raises(FeedError) as raised:
        parse_feed(rss(item(GOOD, "<pubDate>soon</pubDate>")))

    assert raised.value.line == 7


def test_one_bad_episode_fails_the_whole_feed():
    good_then_bad = rss(
        item(GOOD)
        + "\n"
        + item("<title>B</title><guid>b</guid>", '<enclosure url="u" length="x"/>')
    )

    with pytest.raises(FeedError, match="line 10: <enclosure> length='x'"):
        parse_feed(good_then_bad)


@pytest.fixture
def dtd_server():
    """A local server that would hand out a DTD, recording every request it gets."""
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'<!ENTITY title "fetched">')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()
    thread.join()


def test_it_refuses_an_external_dtd_without_fetching_it(dtd_server):
    base, requests = dtd_server
    feed = (
        f'<?xml version="1.0"?>\n<!DOCTYPE rss SYSTEM "{base}/rss.dtd">\n'
        "<rss><channel><title>&title;</title></channel></rss>"
    ).encode()

    with pytest.raises(FeedError, match="refers to an external document .*never fetched"):
        parse_feed(feed)
    assert requests == []


def test_it_refuses_an_external_parameter_entity_without_fetching_it(dtd_server):
    base, requests = dtd_server
    feed = (
        f'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY % remote SYSTEM "{base}/x.dtd"> %remote;]>'
        "\n<rss><channel><title>T</title></channel></rss>"
    ).encode()

    with pytest.raises(FeedError, match="entity declarations are refused"):
        parse_feed(feed)
    assert requests == []
