"""Topics in any script, or with no letters at all, publish and have pages: a Unicode or
empty tag slug must not make publishing fail."""

from __future__ import annotations

import pytest
from django.urls import reverse
from taggit.models import Tag

from glossary.models import EntryRedirect, normalise_url
from tests.live import make_live_unchecked

pytestmark = pytest.mark.django_db


def test_topics_in_any_script_publish_and_each_opens_its_page(client, make_entry):
    entry = make_entry("Memory", slug="memory")
    entry.tags.add("mémoire", "内存", "+++", "!!!")
    make_live_unchecked(entry)

    slugs = dict(Tag.objects.values_list("name", "slug"))
    assert slugs == {"mémoire": "mémoire", "内存": "内存", "+++": "topic", "!!!": "topic_1"}
    page = client.get("/glossary/memory/").content.decode()
    for name, slug in slugs.items():
        url = reverse("glossary:tag", args=[slug])
        assert f'href="{url}"' in page
        topic = client.get(url)
        assert topic.status_code == 200, name
        assert "Memory" in topic.content.decode()
    assert client.get("/tags/").status_code == 200
    assert client.get("/sitemap.xml").status_code == 200
    api = client.get("/api/v1/tags/").json()
    assert {t["name"] for t in api["results"]} == set(slugs)
    assert client.get("/api/v1/tags/内存/").json()["name"] == "内存"


def test_a_topic_named_topic_keeps_its_slug_and_a_punctuation_topic_gets_another(make_entry):
    entry = make_entry("Memory")
    entry.tags.add("Topic")
    entry.tags.add("+++")
    assert dict(Tag.objects.values_list("name", "slug")) == {"Topic": "topic", "+++": "topic_1"}


def test_an_alias_too_long_for_an_address_publishes_without_one(make_entry):
    # The entry form refuses such aliases; an older version or loaded data may hold one.
    entry = make_entry("Memory", slug="memory", aliases="HBM\n" + "x" * 250)
    make_live_unchecked(entry)
    assert list(entry.redirects.values_list("slug", flat=True)) == ["hbm"]
    assert not EntryRedirect.objects.filter(name__startswith="xxx").exists()


def test_a_string_that_is_no_url_normalises_to_itself_for_the_validators_to_name():
    assert normalise_url(" http://[ ") == "http://["
