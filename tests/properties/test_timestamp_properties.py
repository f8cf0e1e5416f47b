"""Timestamps as people type them: any text is read or refused in words, never a crash."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from glossary.fields import TimestampFormField
from glossary.timestamps import (
    MAX_SECONDS,
    TimestampError,
    format_timestamp,
    iso_duration,
    parse_timestamp,
)

SECONDS = st.integers(min_value=0, max_value=MAX_SECONDS)
# Digits, colons and signs are what timestamps are made of; the rest of unicode around them.
TIMESTAMPISH = st.text(
    st.one_of(st.sampled_from("0123456789:-+. ²①١٣"), st.characters()), max_size=30
)
# Strings of nothing but digits, of every script (Python's isdigit says yes to ² and ①).
UNICODE_DIGITS = st.text(st.characters(categories=["Nd", "No"]), min_size=1, max_size=6)
MANY_DIGITS = st.builds(lambda n, d: d * n, st.integers(1, 6000), st.sampled_from("0123456789"))
ANY_TEXT = st.one_of(TIMESTAMPISH, UNICODE_DIGITS, MANY_DIGITS, st.text(max_size=300))


@settings(max_examples=300)
@given(SECONDS)
def test_every_offset_reads_back_from_how_it_is_shown(seconds: int) -> None:
    assert parse_timestamp(format_timestamp(seconds)) == seconds
    assert parse_timestamp(str(seconds)) == seconds


@settings(max_examples=300)
@given(ANY_TEXT)
def test_any_text_is_a_whole_number_of_seconds_or_a_timestamp_error(text: str) -> None:
    try:
        seconds = parse_timestamp(text)
    except TimestampError as exc:
        assert str(exc)  # a sentence for the editor
    else:
        assert seconds >= 0
        # Reading what was read gives the same offset: the shown form is canonical.
        assert parse_timestamp(format_timestamp(seconds)) == seconds


@settings(max_examples=200)
@given(ANY_TEXT)
def test_the_form_field_answers_any_text_with_a_value_or_a_field_error(text: str) -> None:
    field = TimestampFormField(required=False)
    try:
        value = field.clean(text)
    except ValidationError as exc:
        assert exc.messages
    else:
        assert value is None or value >= 0


@settings(max_examples=200)
@given(SECONDS)
def test_the_iso_duration_adds_up_to_the_offset(seconds: int) -> None:
    text = iso_duration(seconds)
    assert text.startswith("PT")
    total = 0
    for amount, unit in re.findall(r"(\d+)([HMS])", text):
        total += int(amount) * {"H": 3600, "M": 60, "S": 1}[unit]
    assert total == seconds


@pytest.mark.parametrize("text", ["²", "①", "١٥٣٨", "9" * 5000, "1:０5", "2147483648"])
def test_digits_that_are_not_ascii_or_too_many_are_refused_in_words(text: str) -> None:
    with pytest.raises(TimestampError):
        parse_timestamp(text)
