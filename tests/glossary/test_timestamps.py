import pytest

from glossary.timestamps import TimestampError, format_timestamp, iso_duration, parse_timestamp


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1538", 1538), ("25:38", 1538), ("1:02:03", 3723), ("0:05", 5), (" 3:07 ", 187), (42, 42)],
)
def test_it_reads_the_three_written_forms(text, seconds):
    assert parse_timestamp(text) == seconds


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "Enter a timestamp"),
        ("-5", "negative"),
        ("-0:05", "negative"),
        ("25:61", "seconds go up to 59"),
        ("1:75:00", "minutes go up to 59"),
        ("25.38", "not a timestamp"),
        ("abc", "not a timestamp"),
        ("1:2:3:4", "not a timestamp"),
        ("25:3", "not a timestamp"),
    ],
)
def test_it_names_the_problem_with_a_malformed_timestamp(text, problem):
    with pytest.raises(TimestampError, match=problem):
        parse_timestamp(text)


def test_it_refuses_a_negative_number_of_seconds():
    with pytest.raises(TimestampError, match="negative"):
        parse_timestamp(-1)


@pytest.mark.parametrize(
    ("seconds", "shown"), [(5, "0:05"), (187, "3:07"), (1538, "25:38"), (3723, "1:02:03")]
)
def test_it_shows_seconds_as_podcast_apps_do(seconds, shown):
    assert format_timestamp(seconds) == shown


@pytest.mark.parametrize(
    ("seconds", "iso"), [(0, "PT0S"), (5, "PT5S"), (1538, "PT25M38S"), (3723, "PT1H2M3S")]
)
def test_it_writes_iso_durations_for_time_elements(seconds, iso):
    assert iso_duration(seconds) == iso
