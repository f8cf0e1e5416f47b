"""Stored texts: hashed, compressed, and kept while confirmed or recent."""

from __future__ import annotations

import datetime
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editorial.sourcetext.store import StoredRef, compress, content_hash, decompress, to_keep
from editorial.sourcetext.text import readable_text
from tests.sourcetext.pages import PAGE_V1

START = datetime.datetime(2026, 10, 24, 6, 0, tzinfo=datetime.UTC)


def seen(source_id: int, content: str, day: int) -> StoredRef:
    return StoredRef(source_id, content, START + datetime.timedelta(days=day))


def test_the_content_hash_is_the_sha256_of_the_utf8_text() -> None:
    assert content_hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_hash("3 TB/s") != content_hash("3.6 TB/s")
    assert len(content_hash("é")) == 64


def test_a_stored_page_round_trips_and_is_smaller_than_its_text() -> None:
    text = readable_text(PAGE_V1, "text/html") * 3
    data = compress(text)
    assert decompress(data) == text
    assert len(data) < len(text.encode()) / 2


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_round_trips(text: str) -> None:
    assert decompress(compress(text)) == text


def test_bytes_that_are_not_a_stored_text_are_refused_naming_zlib() -> None:
    with pytest.raises(ValueError, match="not a valid zlib stream"):
        decompress(b"3 TB/s")
    with pytest.raises(ValueError, match="not a valid zlib stream"):
        decompress(compress("The sixth generation")[:-3])  # truncated


def test_a_stream_that_is_not_utf8_is_refused_naming_the_byte() -> None:
    with pytest.raises(ValueError, match="not UTF-8 \\(byte 1 of 2\\)"):
        decompress(zlib.compress(b"a\xff"))


def test_it_keeps_a_confirmed_text_however_old_and_the_latest_three() -> None:
    history = [seen(1, f"v{day}", day) for day in range(6)]
    assert to_keep(history, {"v0"}, latest=3) == {"v0", "v3", "v4", "v5"}


def test_it_keeps_confirmed_texts_missing_from_the_history() -> None:
    assert to_keep([], {"confirmed"}, latest=3) == {"confirmed"}


def test_latest_counts_distinct_texts_not_checks() -> None:
    history = [
        seen(1, "a", 0),
        seen(1, "b", 1),
        seen(1, "c", 2),
        *(seen(1, "d", d) for d in (3, 4)),
    ]
    assert to_keep(history, set(), latest=2) == {"c", "d"}


def test_a_page_that_went_back_to_older_words_brings_that_text_forward() -> None:
    history = [seen(1, "a", 0), seen(1, "b", 1), seen(1, "c", 2), seen(1, "a", 3)]
    assert to_keep(history, set(), latest=2) == {"a", "c"}


def test_history_order_does_not_matter() -> None:
    history = [seen(1, "c", 2), seen(1, "a", 0), seen(1, "b", 1)]
    assert to_keep(history, set(), latest=1) == {"c"}


def test_each_source_keeps_its_own_latest_and_a_shared_text_stays_for_either() -> None:
    history = [seen(1, "old", 0), seen(1, "shared", 1), seen(2, "shared", 0), seen(2, "new", 5)]
    assert to_keep(history, set(), latest=1) == {"shared", "new"}
    assert to_keep(history, set(), latest=2) == {"old", "shared", "new"}


def test_latest_zero_keeps_only_confirmed_texts() -> None:
    assert to_keep([seen(1, "a", 0), seen(1, "b", 1)], {"a"}, latest=0) == {"a"}


def test_a_negative_latest_is_refused() -> None:
    with pytest.raises(ValueError, match="latest must be 0 or more, not -1"):
        to_keep([], set(), latest=-1)
