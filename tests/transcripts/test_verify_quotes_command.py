"""`manage.py verify_quotes`: the demo's quotes against the demo transcripts, and its JSON."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from glossary.models import Quote, Transcript

FIELDS = [
    "entry",
    "episode",
    "kind",
    "text",
    "stored_at",
    "found_at",
    "verdict",
    "speaker_agrees",
    "score",
]


def run(*args: str) -> str:
    out = StringIO()
    call_command("verify_quotes", *args, stdout=out)
    return out.getvalue()


def test_the_seeds_quotes_and_quoted_phrases_verify_at_25_38_and_3_07(demo: Any) -> None:
    rows = json.loads(run("--entry", "interconnect", "--json"))

    assert all(list(row) == FIELDS for row in rows)
    quotes = [row for row in rows if row["kind"] == "quote"]
    assert [(q["episode"], q["stored_at"], q["found_at"], q["verdict"]) for q in quotes] == [
        ("demo-show/3/44", 1538, 1538, "match"),
        ("demo-show/2/28", 187, 187, "match"),
    ]
    assert all(q["speaker_agrees"] is True and q["score"] == 100.0 for q in quotes)
    references = [row for row in rows if row["kind"] == "reference"]
    assert [r["text"] for r in references] == [
        "hundreds of kilometers apart operate as one giant cluster",
        "scale across",
    ]
    assert {r["verdict"] for r in references} == {"match"}


def test_a_moved_quote_is_elsewhere_with_its_true_time(demo: Any) -> None:
    Quote.objects.filter(start=1538).update(start=600)

    row = json.loads(run("--entry", "interconnect", "--json"))[0]

    assert (row["verdict"], row["stored_at"], row["found_at"]) == ("elsewhere", 600, 1538)


def test_a_quote_never_said_is_not_found(demo: Any) -> None:
    Quote.objects.filter(start=1538).update(text="Nobody ever said these particular words here.")

    row = json.loads(run("--entry", "interconnect", "--json"))[0]

    assert (row["verdict"], row["found_at"], row["speaker_agrees"]) == ("not_found", None, None)


def test_without_a_transcript_the_verdict_is_no_transcript(demo: Any) -> None:
    Transcript.objects.all().delete()

    rows = json.loads(run("--json"))

    assert {row["verdict"] for row in rows} == {"no_transcript"}


def test_the_speaker_is_compared(demo: Any) -> None:
    quote = Quote.objects.get(start=1538)
    quote.speaker = Quote.objects.get(start=187).speaker  # Anush, not Jeetu Patel
    quote.save()

    row = json.loads(run("--entry", "interconnect", "--json"))[0]

    assert (row["verdict"], row["speaker_agrees"]) == ("match", False)


def test_the_tolerance_is_a_setting(demo: Any, settings: Any) -> None:
    Quote.objects.filter(start=1538).update(start=1538 + 30)
    settings.TRANSCRIPT_TOLERANCE_SECONDS = 10
    assert json.loads(run("--json"))[0]["verdict"] == "elsewhere"

    settings.TRANSCRIPT_TOLERANCE_SECONDS = 60
    assert json.loads(run("--json"))[0]["verdict"] == "match"


def test_without_json_it_prints_a_line_per_check_and_a_summary(demo: Any) -> None:
    out = run("--entry", "interconnect")

    assert "interconnect  demo-show/3/44 at 25:38  quote  match: Found at 25:38" in out
    assert out.strip().endswith("4 checked (tolerance ±10 s): 4 match.")


def test_an_unknown_entry_is_a_clear_error(demo: Any) -> None:
    with pytest.raises(CommandError, match="No entry has the slug “nope”"):
        run("--entry", "nope")


def test_its_queries_do_not_grow_with_the_entries(
    demo: Any, django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(7):
        run("--json")
