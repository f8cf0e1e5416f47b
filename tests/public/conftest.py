"""Fixtures for the public site: published entries of any size, and a real Redis cache."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings

from glossary.models import (
    Appearance,
    Citation,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    Quote,
    SeeAlso,
    Show,
    Source,
    Sponsorship,
)
from tests.live import make_live_unchecked
from tests.redis_server import shared_redis_url

CHECKED = datetime.date(2026, 10, 24)


@pytest.fixture
def no_page_cache() -> Any:
    with override_settings(PUBLIC_PAGE_CACHE=False):
        yield


@pytest.fixture
def rich_entry(db: Any) -> Callable[..., Entry]:
    """Publish an entry with `n` quotes, sources, references, disclosures and see-also links.

    Each part gets its own episode, person and organisation (or, with `shared`,
    all parts come from one episode, person and organisation), so a page that
    queried per part would show it in its query count.
    """
    counter = iter(range(1, 1000))

    def make(n: int, *, slug: str | None = None, shared: bool = False) -> Entry:
        k = next(counter)
        show, _ = Show.objects.get_or_create(slug="rich-show", defaults={"name": "Rich Show"})
        entry = Entry.objects.create(
            term=f"Rich {k}", slug=slug or f"rich-{k}", summary="Rich summary.", body="Rich body."
        )
        entry.tags.set([f"tag-{k}-{i}" for i in range(n)])
        for i in range(n):
            j = 0 if shared else i
            org, _ = Organisation.objects.get_or_create(name=f"Org {k}-{j}", slug=f"org-{k}-{j}")
            person, _ = Person.objects.get_or_create(name=f"Person {k}-{j}", slug=f"person-{k}-{j}")
            ep, created = Episode.objects.get_or_create(
                show=show,
                season=k,
                number=j + 1,
                defaults={
                    "title": f"Ep {k}-{j}",
                    "duration": 3600,
                    "url": f"https://podcast.example/{k}/{j}",
                },
            )
            if created:
                Sponsorship.objects.create(episode=ep, organisation=org, read_at=5)
                Appearance.objects.create(episode=ep, person=person, affiliation=org)
            ref = EpisodeReference.objects.create(
                entry=entry, order=i, episode=ep, at=60 + i, speaker=person, text=f"says {i}."
            )
            Disclosure.objects.create(
                entry=entry,
                order=i,
                reference=ref,
                kind="sponsorship",
                episode=ep,
                organisation=org,
                text="",
            )
            Quote.objects.create(
                entry=entry,
                order=i,
                episode=ep,
                speaker=person,
                start=60 + i,
                text=f"Quote {i}",
                lightly_edited=True,
            )
            source = Source.objects.create(url=f"https://docs.example/{k}/{i}", title=f"S {i}")
            Citation.objects.create(entry=entry, order=i, source=source, checked_on=CHECKED)
            target = Entry.objects.create(term=f"Target {k}-{i}", slug=f"target-{k}-{i}")
            make_live_unchecked(target)
            SeeAlso.objects.create(entry=entry, order=i, target=target, note=f"note {i}")
        make_live_unchecked(entry)
        entry.refresh_from_db()
        return entry

    return make


@pytest.fixture
def redis_cache() -> Any:
    """The default cache on the shared Redis, in this worker's database (tests.redis_server)."""
    url = shared_redis_url()
    caches = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "test-public",
        }
    }
    with override_settings(CACHES=caches):
        from django.core.cache import cache

        cache.clear()
        yield cache
        cache.clear()
