"""The live listing: list rows rendered at publish, kept with every publish and withdrawal.

Every public list reads rows written when a version was rendered (glossary.listing_rows),
and only joined to a live version (glossary.selectors): a withdrawn entry leaves every
list at once, a correction published with another entry reaches every row showing it,
and the counts the pages show are kept exactly.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import time_machine
from django.db import IntegrityError, connection, transaction

from glossary import document, listing_index, listing_reads, publishing, selectors
from glossary.models import (
    Appearance,
    Disclosure,
    Entry,
    Episode,
    EpisodeReference,
    Listing,
    ListingCount,
    ListingName,
    Organisation,
    Person,
    Quote,
    Show,
    Sponsorship,
)
from tests.live import make_live_unchecked

PAGES = [
    "/",
    "/tags/gadgets/",
    "/people/pat-guest/",
    "/episodes/test-show/1/7/",
    "/organisations/acme/",
    "/search/?q=gadget",
    "/feed/",
    "/sitemap-entries.xml",
    "/api/v1/entries/",
    "/api/v1/search/?q=gadget",
]


@pytest.fixture
def named(db: Any) -> dict[str, Any]:
    """An episode with a sponsor and a guest working for it, as entries draw on them."""
    show = Show.objects.create(name="Test Show", slug="test-show")
    episode = Episode.objects.create(
        show=show, season=1, number=7, title="Seven", duration=3600, url="https://pod.example/7"
    )
    acme = Organisation.objects.create(name="Acme", slug="acme")
    guest = Person.objects.create(name="Pat Guest", slug="pat-guest")
    Appearance.objects.create(episode=episode, person=guest, affiliation=acme)
    Sponsorship.objects.create(episode=episode, organisation=acme, read_at=5)
    return {"episode": episode, "acme": acme, "guest": guest}


def gadget(make_entry: Any, named: dict[str, Any], term: str, *, at: int = 60) -> Entry:
    """An entry that quotes the guest, refers to the episode and discloses Acme."""
    entry = make_entry(term, slug=term.lower(), summary=f"The {term} gadget.", body="A gadget.")
    entry.tags.add("gadgets")
    ref = EpisodeReference.objects.create(
        entry=entry, episode=named["episode"], at=at, speaker=named["guest"], text=f"{term} said."
    )
    Disclosure.objects.create(
        entry=entry,
        reference=ref,
        kind="commercial_interest",
        episode=named["episode"],
        organisation=named["acme"],
        at=at + 1,
        text=f"Acme sells {term}.",
    )
    Quote.objects.create(
        entry=entry,
        episode=named["episode"],
        speaker=named["guest"],
        start=at + 2,
        text=f"I like {term}.",
    )
    return entry


def page(client: Any, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def kept_counts() -> Counter[tuple[str, int]]:
    return Counter(
        {
            (c.kind, c.object_id): c.live
            for c in ListingCount.objects.all()
            if c.live  # a letter or an object no longer named keeps its row at zero
        }
    )


def recounted() -> Counter[tuple[str, int]]:
    """The counts, computed afresh from the live versions' documents."""
    counts: Counter[tuple[str, int]] = Counter()
    for version in selectors.live_versions():
        doc = document.load(version.data)
        counts[(ListingCount.TOTAL, 0)] += 1
        counts[(ListingCount.LETTER, listing_index.a_to_z(doc.term)[0])] += 1
        refs = document.referenced(doc)
        for kind, ids in (
            ("episode", refs.episodes),
            ("person", refs.people),
            ("organisation", refs.organisations),
            ("tag", refs.tags),
        ):
            for object_id in ids:
                counts[(kind, object_id)] += 1
    return counts


def test_every_list_shows_a_published_entry_from_its_rows(client, make_entry, named):
    make_live_unchecked(gadget(make_entry, named, "Widget"))
    for path in PAGES:
        assert "Widget" in page(client, path) or "/glossary/widget/" in page(client, path), path
    person = page(client, "/people/pat-guest/")
    assert "“I like Widget.”" in person
    assert 'quoted in <a href="/glossary/widget/">Widget</a>' in person
    episode = page(client, "/episodes/test-show/1/7/")
    assert episode.index("Widget said.") < episode.index("Acme sells Widget.")
    assert '<span class="disclosure">Acme sells Widget.</span>' in page(
        client, "/organisations/acme/"
    )


def test_a_withdrawn_entry_leaves_every_list_at_once(client, make_entry, named):
    kept = gadget(make_entry, named, "Keeper")
    gone = gadget(make_entry, named, "Goner", at=90)
    make_live_unchecked(kept)
    make_live_unchecked(gone)
    assert all("goner" in page(client, path).lower() for path in PAGES)
    publishing.unpublish(gone)
    for path in PAGES:
        body = page(client, path).lower()
        assert "keeper" in body and "goner" not in body, path
    assert not Listing.objects.filter(version__entry=gone).exists()
    assert not ListingName.objects.filter(listing__version__entry=gone).exists()
    assert kept_counts() == recounted()


@pytest.mark.django_db(transaction=True)
def test_a_listing_row_left_behind_is_never_what_shows_an_entry(
    client, make_entry, named, no_page_cache
):
    """A live version withdrawn or replaced by hand, its listing row left behind. PostgreSQL
    refuses to commit that (migration 0023), so its list statements read rows unchecked;
    SQLite commits it, and there each row is checked live as it is read."""
    entry = gadget(make_entry, named, "Widget")
    make_live_unchecked(entry)
    make_live_unchecked(gadget(make_entry, named, "Other", at=90))
    live = Entry.objects.get(pk=entry.pk).live_version
    draft = publishing.save_version(Entry.objects.get(pk=entry.pk))
    for change in (None, draft):
        if connection.vendor == "postgresql":
            with pytest.raises(IntegrityError, match="glossary_listing_version_is_live"):
                with transaction.atomic():
                    Entry.objects.filter(pk=entry.pk).update(live_version=change)
            assert Entry.objects.get(pk=entry.pk).live_version == live
        else:
            Entry.objects.filter(pk=entry.pk).update(live_version=change)
            assert Listing.objects.filter(version=live).exists()
            for path in PAGES:
                assert "widget" not in page(client, path).lower(), path
            Entry.objects.filter(pk=entry.pk).update(live_version=live)
    publishing.unpublish(Entry.objects.get(pk=entry.pk))
    assert not Listing.objects.filter(version__entry=entry).exists()
    for path in PAGES:
        body = page(client, path).lower()
        assert "widget" not in body and "other" in body, path


def test_a_correction_published_with_another_entry_reaches_every_row_showing_it(
    client, make_entry, named
):
    first = gadget(make_entry, named, "Widget")
    make_live_unchecked(first)
    guest = named["guest"]
    guest.name = "Pat Corrected"
    guest.save()
    # Not public until an entry showing the guest is published (glossary.records)...
    assert "Pat Corrected" not in page(client, "/episodes/test-show/1/7/")
    make_live_unchecked(gadget(make_entry, named, "Second", at=90))
    # ...then every live page showing them is rendered again, rows included.
    person = page(client, "/people/pat-guest/")
    assert "Pat Corrected" in person and "Pat Guest" not in person
    moments = page(client, "/episodes/test-show/1/7/")
    widget_quote = moments[moments.index("I like Widget.") :]
    assert widget_quote.index("Pat Corrected") < widget_quote.index("quoted in")


def test_counts_follow_every_publish_replacement_and_withdrawal(make_entry, named):
    entries = [gadget(make_entry, named, term, at=60 + i) for i, term in enumerate("ABC")]
    for entry in entries:
        make_live_unchecked(entry)
    assert kept_counts() == recounted()
    Entry.objects.filter(pk=entries[0].pk).update(term="Zed")  # under another letter
    make_live_unchecked(entries[0])
    assert kept_counts() == recounted()
    publishing.unpublish(entries[1])
    assert kept_counts() == recounted()
    make_live_unchecked(entries[1])
    publishing.rerender_all()
    assert kept_counts() == recounted()
    assert kept_counts()[(ListingCount.LETTER, 26)] == 1  # Zed


def test_listing_a_version_twice_counts_it_once(make_entry, named):
    entry = gadget(make_entry, named, "Widget")
    make_live_unchecked(entry)
    version = Entry.objects.get(pk=entry.pk).live_version
    assert version is not None
    assert not listing_index.index_live(version, document.load(version.data))
    assert listing_index.unindex(version) and not listing_index.unindex(version)
    assert kept_counts()[(ListingCount.TOTAL, 0)] == 0


def test_a_page_rendered_before_the_listing_existed_is_listed_by_rendering_it(
    client, make_entry, named, no_page_cache
):
    """A database migrated but not yet re-rendered: the next render of a page lists it."""
    entry = gadget(make_entry, named, "Widget")
    make_live_unchecked(entry)
    Listing.objects.all().delete()
    ListingCount.objects.all().delete()
    assert "Widget" not in page(client, "/")
    version = Entry.objects.get(pk=entry.pk).live_version
    assert version is not None
    publishing.render_live(version, Entry.objects.get(pk=entry.pk))
    assert "Widget" in page(client, "/")
    assert kept_counts() == recounted()


@pytest.mark.django_db
def test_the_lists_indexes_exist():
    with connection.cursor() as cursor:
        constraints = {
            table: connection.introspection.get_constraints(cursor, table)
            for table in ("glossary_listing", "glossary_listingname", "glossary_listingcount")
        }
    assert constraints["glossary_listing"]["listing_a_to_z_idx"]["columns"] == [
        "initial",
        "sort_key",
        "term",
        "version_id",
    ]
    names = constraints["glossary_listingname"]
    assert names["listingname_object_idx"]["columns"][:2] == ["kind", "object_id"]
    assert [c["columns"] for c in names.values() if c["primary_key"]] == [
        ["listing_id", "kind", "object_id"]
    ]
    counts = constraints["glossary_listingcount"]
    assert [c["columns"] for c in counts.values() if c["primary_key"]] == [["kind", "object_id"]]


def test_the_newest_listings_carry_every_time_or_only_the_newest(make_entry):
    for n in range(3):
        with time_machine.travel(f"2026-11-0{n + 1} 09:00Z", tick=False):
            make_live_unchecked(make_entry(f"Gadget {n}", slug=f"gadget-{n}"))
    each = listing_reads.newest_listings("l.slug", limit=3)
    first = listing_reads.newest_listings("l.slug", limit=3, times="first")
    assert (
        [slug for slug, _ in first]
        == [slug for slug, _ in each]
        == [
            "gadget-2",
            "gadget-1",
            "gadget-0",
        ]
    )
    assert all(changed is not None for _, changed in each)
    assert [changed for _, changed in first] == [each[0][1], None, None]


def test_a_pages_stored_json_texts_are_decoded_together_each_to_its_own_value() -> None:
    texts = ['{"number": 7, "roles": [["guest", 3]]}', "", '[[60, "<li>a, b</li>"]]', "[]"]
    assert listing_reads._loads_each(texts) == [
        {"number": 7, "roles": [["guest", 3]]},
        None,
        [[60, "<li>a, b</li>"]],
        [],
    ]
    assert listing_reads._loads_each([]) == []
    # One text holding two values would shift every value after it: refused, not misread.
    with pytest.raises(ValueError, match="more than one value"):
        listing_reads._loads_each(["1, 2", "3"])
