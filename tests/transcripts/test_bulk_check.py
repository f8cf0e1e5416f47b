"""The bulk check of every quote: the plain function, its progress and the admin page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from editorial import quote_verification_runs
from editorial.models import QuoteCheckRun
from glossary.models import Quote


def test_a_run_checks_every_quote_and_phrase_and_records_its_counts(demo: Any) -> None:
    Quote.objects.filter(start=1538).update(start=600)
    started = QuoteCheckRun.objects.create()

    counts = quote_verification_runs.run(started.pk)

    started.refresh_from_db()
    assert counts == {"match": 3, "elsewhere": 1}
    assert (started.state, started.total, started.done, started.counts) == (
        "done",
        4,
        4,
        counts,
    )
    assert [(p["verdict"], p["stored_at"], p["found_at"]) for p in started.problems] == [
        ("elsewhere", 600, 1538)
    ]


def test_a_run_is_claimed_once(demo: Any) -> None:
    started = QuoteCheckRun.objects.create()
    quote_verification_runs.run(started.pk)

    assert quote_verification_runs.run(started.pk) == {}  # already done: a redelivery does nothing


def test_progress_is_written_after_each_batch_of_episodes(demo: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(quote_verification_runs, "BATCH_EPISODES", 1)
    seen: list[int] = []
    original = QuoteCheckRun.objects.filter

    def watch(*args: Any, **kwargs: Any) -> Any:
        row = QuoteCheckRun.objects.values("done").get(pk=started.pk)
        seen.append(row["done"])
        return original(*args, **kwargs)

    started = QuoteCheckRun.objects.create()
    monkeypatch.setattr(QuoteCheckRun.objects, "filter", watch)
    quote_verification_runs.run(started.pk)

    # Between the first episode's checks (three) and the second's (one), the row said 3.
    assert any(0 < done < 4 for done in seen), seen


def test_the_admin_starts_a_run_and_shows_its_progress(
    client: Client, editor: User, demo: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client.force_login(editor)
    assert "Check every quote" in client.get("/admin/editorial/quotecheckrun/add/").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/admin/editorial/quotecheckrun/add/")

    started = QuoteCheckRun.objects.get()
    assert started.started_by == editor
    assert started.state == "done"  # tasks run in process without a broker
    page = client.get(response["Location"]).content.decode()
    assert "4 of 4 checked (100%)" in page


def test_people_who_cannot_edit_cannot_start_one(client: Client, outsider: User) -> None:
    client.force_login(outsider)

    client.post("/admin/editorial/quotecheckrun/add/")

    assert not QuoteCheckRun.objects.exists()
