"""The entry page: each quote's verdict, the one-click move, and a suggested timestamp."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from glossary.models import Entry, EntryVersion, Person, Quote
from tests.workflow.formdata import form_data


def change_url(entry: Entry) -> str:
    return f"/admin/glossary/entry/{entry.pk}/change/"


def verdicts(html: str) -> list[str]:
    return re.findall(r'class="quote-verdict" data-verdict="(\w+)"', html)


def test_each_quote_shows_its_verdict_at_a_fixed_number_of_queries(
    client: Client, editor: User, demo: Any, django_assert_max_num_queries: Any
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    client.force_login(editor)
    client.get(change_url(entry))  # warm the session and caches
    with django_assert_max_num_queries(200) as counted:
        html = client.get(change_url(entry)).content.decode()
    baseline = len(counted.captured_queries)

    assert verdicts(html) == ["match", "match"]
    assert "Found at 25:38, said by Jeetu Patel (score 100)." in html

    episode = Quote.objects.get(start=1538).episode
    for order in range(3, 8):  # more quotes cost no more queries
        Quote.objects.create(
            entry=entry,
            order=order,
            episode=episode,
            speaker=Person.objects.get(slug="jeetu-patel"),
            start=1538,
            text="scale across",
        )
    with django_assert_max_num_queries(baseline) as more:
        html = client.get(change_url(entry)).content.decode()
    assert len(verdicts(html)) == 7
    assert len(more.captured_queries) <= baseline


def test_a_quote_said_elsewhere_offers_a_move_that_is_credited_to_who_clicks(
    client: Client, editor: User, demo: Any
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    quote = Quote.objects.get(entry=entry, start=1538)
    Quote.objects.filter(pk=quote.pk).update(start=600)
    client.force_login(editor)

    html = client.get(change_url(entry)).content.decode()
    assert verdicts(html)[0] == "elsewhere"
    assert f'href="/admin/quotes/{quote.pk}/move/">Move the quote to 25:38</a>' in html

    confirm = client.get(f"/admin/quotes/{quote.pk}/move/")
    assert "Move this quote from 10:00 to 25:38?" in confirm.content.decode()
    assert Quote.objects.get(pk=quote.pk).start == 600  # GET changes nothing

    response = client.post(f"/admin/quotes/{quote.pk}/move/")

    assert response.status_code == 302
    assert Quote.objects.get(pk=quote.pk).start == 1538
    version = EntryVersion.objects.filter(entry=entry).order_by("-number").first()
    assert version is not None and version.created_by == editor
    assert "Moved a quote from 10:00 to 25:38" in version.comment
    assert verdicts(client.get(change_url(entry)).content.decode())[0] == "match"


def test_the_move_needs_the_edit_permission(client: Client, demo: Any, outsider: User) -> None:
    quote = Quote.objects.get(start=1538)
    Quote.objects.filter(pk=quote.pk).update(start=600)
    client.force_login(outsider)

    client.post(f"/admin/quotes/{quote.pk}/move/")

    assert Quote.objects.get(pk=quote.pk).start == 600


def test_a_quote_pasted_without_a_time_or_speaker_gets_them_suggested(
    client: Client, editor: User, demo: Any
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    client.force_login(editor)
    data = form_data(client.get(change_url(entry)).content.decode())
    data["quotes-1-start"] = ""
    data["quotes-1-speaker"] = ""
    data["_continue"] = "1"

    response = client.post(change_url(entry), data)

    html = response.content.decode()
    assert response.status_code == 200
    assert "Suggested from the transcript: 3:07, said by Anush Elangovan (score 100)." in html
    suggested = form_data(html)
    assert suggested["quotes-1-start"] == "3:07"
    assert suggested["quotes-1-speaker"] == str(Person.objects.get(slug="anush-elangovan").pk)

    saved = client.post(change_url(entry), {**suggested, "_continue": "1"})

    assert saved.status_code == 302
    assert Quote.objects.filter(entry=entry, start=187).exists()


def test_a_quote_without_a_time_the_transcript_lacks_asks_for_one(
    client: Client, editor: User, demo: Any
) -> None:
    entry = Entry.objects.get(slug="interconnect")
    client.force_login(editor)
    data = form_data(client.get(change_url(entry)).content.decode())
    data["quotes-1-start"] = ""
    data["quotes-1-text"] = "Words nobody on this show has ever said aloud."

    html = client.post(change_url(entry), data).content.decode()

    assert "The episode&#x27;s transcript does not have it" in html
    assert Quote.objects.get(entry=entry, order=2).start == 187
