"""Integrity lives in the database as well as in forms."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from glossary.models import (
    Entry,
    Episode,
    Quote,
    SeeAlso,
    Source,
    Sponsorship,
    normalise_url,
)


def test_entry_slugs_are_unique(make_entry):
    make_entry("One", slug="same")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_entry("Two", slug="same")


def test_one_source_row_per_url_even_when_spelled_differently(make_source):
    make_source(url="https://Docs.Example:443/page")
    with pytest.raises(IntegrityError), transaction.atomic():
        Source.objects.create(url="https://docs.example/page", title="Again")


def test_normalise_url_keeps_path_query_and_non_default_ports():
    assert normalise_url(" HTTP://Example.ORG:8080/a?b=1 ") == "http://example.org:8080/a?b=1"
    assert normalise_url("https://example.org") == "https://example.org/"


def test_one_episode_per_show_season_and_number(episode):
    with pytest.raises(IntegrityError), transaction.atomic():
        Episode.objects.create(show=episode.show, season=1, number=7, title="Dup")


def test_the_same_number_in_another_season_is_allowed(episode):
    Episode.objects.create(show=episode.show, season=2, number=7, title="Other season")


def test_the_database_refuses_negative_timestamps(make_entry, episode, person):
    entry = make_entry()
    with pytest.raises(IntegrityError), transaction.atomic():
        Quote.objects.create(entry=entry, episode=episode, speaker=person, start=-1, text="x")


def test_the_database_refuses_a_quote_ending_before_it_starts(make_entry, episode, person):
    entry = make_entry()
    with pytest.raises(IntegrityError), transaction.atomic():
        Quote.objects.create(
            entry=entry, episode=episode, speaker=person, start=100, end=50, text="x"
        )


def test_an_entry_cannot_see_also_itself(make_entry):
    entry = make_entry()
    with pytest.raises(IntegrityError), transaction.atomic():
        SeeAlso.objects.create(entry=entry, target=entry)


def test_a_timestamp_past_the_end_of_the_episode_is_a_field_error(make_entry, episode, person):
    quote = Quote(entry=make_entry(), episode=episode, speaker=person, start=3601, text="x")
    with pytest.raises(ValidationError) as error:
        quote.full_clean()
    assert error.value.message_dict["start"] == [
        "1:00:01 is past the end of episode 7, which runs 1:00:00."
    ]


def test_a_sponsor_read_past_the_end_of_the_episode_is_refused(episode, db):
    from glossary.models import Organisation

    org = Organisation.objects.create(name="Acme", slug="acme")
    read = Sponsorship(episode=episode, organisation=org, read_at=4000)
    with pytest.raises(ValidationError) as error:
        read.full_clean()
    assert "past the end of episode 7" in error.value.message_dict["read_at"][0]


def test_a_timestamp_at_the_very_end_is_fine(make_entry, episode, person):
    Quote(entry=make_entry(), episode=episode, speaker=person, start=3600, text="x").full_clean()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("javascript:alert(1)", "“javascript:” links are not allowed"),
        ("file:///etc/passwd", "“file:” links are not allowed"),
        ("/relative/path", "starting with http:// or https://"),
        ("example.org/page", "starting with http:// or https://"),
        ("https://example.org/" + "a" * 2000, "the limit is 2000"),
        ("https://", "Enter a valid URL"),
    ],
)
def test_source_urls_must_be_absolute_http(db, url, problem):
    source = Source(url=url, title="t")
    with pytest.raises(ValidationError) as error:
        source.full_clean()
    assert any(problem in message for message in error.value.message_dict["url"])


def test_a_plain_https_url_is_accepted(db):
    Source(url="https://example.org/a?b=c", title="t").full_clean()


def test_unpublished_entries_are_not_in_published(make_entry):
    make_entry()
    assert list(Entry.objects.published()) == []
