"""Bounded reading: any feed under FEED_MAX_BYTES costs well under 200 MB while it is
parsed, measured with tracemalloc (every allocation of Python and of expat, which
allocates through Python), not with a clock. Before the streaming reader, 16 MiB of tiny
elements took 1.3 GB."""

from __future__ import annotations

import io
import tracemalloc
import xml.sax.handler
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings

from glossary.transcripts import podcast_feed as feed_module
from glossary.transcripts.podcast_feed import MAX_ELEMENTS, FeedError, parse_feed

BUDGET = 200 * 1024 * 1024
HEAD = (
    b'<?xml version="1.0"?>\n<rss version="2.0" '
    b'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
    b'xmlns:podcast="https://podcastindex.org/namespace/1.0" '
    b'xmlns:psc="http://podlove.org/simple-chapters">\n<channel><title>T</title>\n'
)
TAIL = b"</channel></rss>\n"


def full_size(middle: Callable[[int], bytes], unit: int) -> bytes:
    """A feed of FEED_MAX_BYTES, less a little, made of `middle(room)`."""
    room = settings.FEED_MAX_BYTES - len(HEAD) - len(TAIL) - unit
    data = HEAD + middle(room) + TAIL
    assert settings.FEED_MAX_BYTES - 1024 <= len(data) <= settings.FEED_MAX_BYTES
    return data


def peak(data: bytes) -> tuple[Any, int]:
    """What parsing `data` gave (a Feed or the FeedError) and its peak memory in bytes."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = parse_feed(data)
        except FeedError as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_16_mib_of_tiny_elements_is_refused_at_the_element_cap_within_budget():
    item = b"<item><title>t</title><guid>g</guid>"
    data = full_size(lambda room: item + b"<x/>" * ((room - len(item) - 7) // 4) + b"</item>", 8)
    outcome, used = peak(data)
    assert isinstance(outcome, FeedError)
    assert f"the feed has more than {MAX_ELEMENTS:,} elements" in str(outcome)
    assert used < BUDGET / 10


def test_elements_nested_past_the_depth_cap_are_refused_at_once():
    data = full_size(lambda room: b"<x>" * (room // 7) + b"</x>" * (room // 7), 8)
    outcome, used = peak(data)
    assert isinstance(outcome, FeedError)
    assert "elements are nested more than 64 deep" in str(outcome)
    assert used < BUDGET / 10


def test_a_16_mib_title_is_refused_before_it_is_held():
    data = full_size(
        lambda room: (
            b"<item><guid>g</guid><title>" + b"a " * ((room - 50) // 2) + b"</title></item>"
        ),
        64,
    )
    outcome, used = peak(data)
    assert "<title> holds more than 100,000 characters" in str(outcome)
    assert used < BUDGET / 10


@pytest.mark.parametrize("first", [b"", b"z='>' "])
def test_a_start_tag_with_millions_of_attributes_is_refused_before_expat_reads_it(first):
    def tag(room: int) -> bytes:
        count = (room - 60) // 12
        attributes = b" ".join(b"a%07d=''" % n for n in range(count))
        return b"<item><x " + first + attributes + b"/></item>"

    data = full_size(tag, 64)
    outcome, used = peak(data)
    assert "line 4: an element has more than 10,000 attributes" in str(outcome)
    assert used < BUDGET / 5


ITEM = (
    b"<item><title>Episode %d</title><guid>guid-%d</guid>"
    b"<itunes:episode>%d</itunes:episode><itunes:season>2</itunes:season>"
    b"<itunes:duration>58:30</itunes:duration>"
    b'<enclosure url="https://show.invalid/%d.mp3" type="audio/mpeg" length="1"/>'
    b'<podcast:transcript url="https://show.invalid/%d.vtt" type="text/vtt"/>'
    b'<podcast:person role="guest">Guest %d</podcast:person>'
    b'<psc:chapters><psc:chapter start="00:00:00" title="Hello"/></psc:chapters>'
    b"</item>\n"
)


@pytest.mark.parametrize(
    "item",
    [
        b"<item><title>t</title><guid>%d</guid></item>",  # the most items per element
        ITEM.replace(b"%d", b"%(n)d"),  # every element the import reads
    ],
)
def test_the_items_a_feed_can_hold_under_the_caps_fit_the_budget(item):
    """Every item is kept; what one costs, times the most items the element cap lets
    through, stays within the budget. Measured on 2,000 items to keep the test quick."""
    count = 2000
    body = b"".join(item % {b"n": n} if b"%(n)" in item else item % n for n in range(count))
    data = HEAD + body + TAIL
    outcome, used = peak(data)
    assert len(outcome.items) == count
    elements_per_item = item.count(b"<") - item.count(b"</")
    most_items = MAX_ELEMENTS // elements_per_item
    assert used / count * most_items < BUDGET


def test_long_text_full_of_equals_signs_is_no_crowded_tag():
    notes = b"<description>" + b"a=b " * 30000 + b"</description>"
    data = HEAD + b"<item><title>t</title><guid>g</guid>" + notes + b"</item>" + TAIL
    assert parse_feed(data).items[0].guid == "g"


def test_only_what_is_read_is_kept():
    """Show notes and everything else the import does not read are counted, never held."""
    notes = b"<description>" + b"<p>x</p>" * 1000 + b"</description>"
    data = HEAD + b"<item><title>t</title><guid>g</guid>" + notes + b"</item>" + TAIL
    reader = feed_module._Reader()
    parser = feed_module._Parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, True)
    parser.setContentHandler(reader)
    parser.parse(io.BytesIO(data))
    assert reader.elements == 1007  # rss, channel, two titles, item, guid, notes, 1,000 <p>
    assert reader.channel is not None and reader.channel.children_ == [
        child for child in reader.channel.children_ if child.key == ("", "title")
    ]
