"""An episode's, a person's and an organisation's first page, stored after a publish
(glossary.stored_pages.store_first_pages), and served only while every row the page
reads is what it was rendered from (glossary.page_fingerprints.stored_or_rows).

The rule these tests hold: a stored page never shows a reader anything the rows no
longer say. Each test that puts a page back, or tampers with one, does what a render
racing a withdrawal, or a bug, could leave in the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client

import glossary.models
from glossary import page_fingerprints, publishing, stored_pages
from glossary.models import (
    Appearance,
    Entry,
    Episode,
    EpisodeReference,
    Organisation,
    Person,
    PublicRecord,
    Show,
    StoredPage,
)
from tests.live import make_live_unchecked

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("no_page_cache"),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="pages are stored on PostgreSQL only; elsewhere each is built per request",
    ),
]


@pytest.fixture
def guest(db: Any) -> dict[str, Any]:
    """Two entries quoting a guest from an organisation on one episode, both published."""
    show = Show.objects.create(name="Stored Show", slug="stored-show")
    org = Organisation.objects.create(name="Acme Labs", slug="acme-labs")
    person = Person.objects.create(name="Gwen Guest", slug="gwen-guest")
    episode = Episode.objects.create(
        show=show, season=1, number=4, title="On storage", duration=3600
    )
    Appearance.objects.create(
        episode=episode, person=person, role=Appearance.Role.GUEST, affiliation=org
    )
    entries = []
    for term in ("Stored Alpha", "Stored Beta"):
        entry = Entry.objects.create(term=term, slug=term.lower().replace(" ", "-"), summary="S.")
        EpisodeReference.objects.create(
            entry=entry, episode=episode, at=30, speaker=person, text=f"{term} said."
        )
        make_live_unchecked(entry)
        entries.append(entry)
    return {"person": person, "org": org, "episode": episode, "entries": entries}


PERSON = "/people/gwen-guest/"
ORGANISATION = "/organisations/acme-labs/"
EPISODE = "/episodes/stored-show/1/4/"
PAGES = (PERSON, ORGANISATION, EPISODE)


def _store_all() -> None:
    stored_pages.store_all_first_pages()


def _stored(kind: str, slug: str) -> StoredPage:
    return StoredPage.objects.get(kind=kind, slug=slug)


def _tamper(kind: str, slug: str) -> StoredPage:
    """Mark the stored page so a test can tell it was served, fingerprint untouched."""
    page = _stored(kind, slug)
    page.parts = page.parts.replace("Gwen Guest", "STORED MARK")
    page.save()
    return page


def test_a_publish_stores_the_first_pages_it_touched(
    guest: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    StoredPage.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        make_live_unchecked(guest["entries"][0])
    assert set(StoredPage.objects.values_list("kind", "slug")) == {
        ("person", "gwen-guest"),
        ("organisation", "acme-labs"),
        ("episode", "stored-show/1/4"),
    }


def test_a_stored_page_is_served_and_is_the_page_the_rows_make(guest: dict[str, Any]) -> None:
    client = Client()
    built = {path: client.get(path).content for path in PAGES}
    _store_all()
    for path, body in built.items():
        assert client.get(path).content == body
    # And it is the stored page that was served, not the rows rendered again.
    _tamper("person", "gwen-guest")
    _tamper("episode", "stored-show/1/4")
    assert b"STORED MARK" in client.get(PERSON).content
    assert b"STORED MARK" in client.get(EPISODE).content


def test_a_withdrawn_entry_never_comes_back_through_a_stored_page(
    guest: dict[str, Any],
) -> None:
    """The stored page as it was before the withdrawal, put back (a render that read the rows
    just before the withdrawal committed and wrote just after): not served."""
    _store_all()
    before = {(p.kind, p.slug): (p.fingerprint, p.parts) for p in StoredPage.objects.all()}
    client = Client()
    assert b"Stored Alpha" in client.get(PERSON).content
    publishing.unpublish(guest["entries"][0])
    for (kind, slug), (fingerprint, parts) in before.items():
        StoredPage.objects.filter(kind=kind, slug=slug).update(fingerprint=fingerprint, parts=parts)
    for path in PAGES:
        body = client.get(path).content
        assert b"Stored Alpha" not in body
        assert b"Stored Beta" in body


def test_a_corrected_name_is_shown_though_the_page_stored_shows_the_old(
    guest: dict[str, Any],
) -> None:
    _store_all()
    _tamper("organisation", "acme-labs")
    Organisation.objects.filter(pk=guest["org"].pk).update(name="Acme Research")
    make_live_unchecked(guest["entries"][1])  # the correction reaches the records
    body = Client().get(ORGANISATION).content.decode()
    assert "Acme Research" in body
    assert "STORED MARK" not in body


def test_a_page_is_not_served_for_other_code_or_another_address(
    guest: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _store_all()
    _tamper("person", "gwen-guest")
    client = Client()
    assert b"STORED MARK" in client.get(PERSON).content
    # ?page=1 is the same page at another address: built from the rows.
    assert b"STORED MARK" not in client.get(PERSON + "?page=1").content
    # A parameter the page does not read changes nothing.
    assert b"STORED MARK" in client.get(PERSON + "?utm_source=feed").content
    # New code: the page stored by the old is not used.
    monkeypatch.setattr(page_fingerprints, "rendered_by", lambda: "other code")
    assert b"STORED MARK" not in client.get(PERSON).content


def test_no_page_is_served_for_an_address_with_no_record(guest: dict[str, Any]) -> None:
    _store_all()
    for entry in guest["entries"]:
        publishing.unpublish(entry)
    assert not PublicRecord.objects.filter(kind="person", slug="gwen-guest").exists()
    assert Client().get(PERSON).status_code == 404


def test_storing_all_forgets_pages_at_addresses_no_record_has(guest: dict[str, Any]) -> None:
    StoredPage.objects.create(kind="person", slug="gone", fingerprint="0" * 64, parts="{}")
    _store_all()
    assert not StoredPage.objects.filter(slug="gone").exists()
    assert StoredPage.objects.filter(slug="gwen-guest").exists()


def test_a_stored_page_costs_one_query(
    guest: dict[str, Any], django_assert_num_queries: Any
) -> None:
    _store_all()
    client = Client()
    client.get(PERSON)
    with django_assert_num_queries(1):
        assert client.get(PERSON).status_code == 200


def test_a_failure_to_store_never_undoes_the_publish(
    guest: dict[str, Any],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(keys: Any, **_: Any) -> int:
        raise RuntimeError("disk full")

    monkeypatch.setattr(stored_pages, "store_first_pages", broken)
    entry = Entry.objects.create(term="Stored Gamma", slug="stored-gamma", summary="S.")
    EpisodeReference.objects.create(
        entry=entry, episode=guest["episode"], at=40, speaker=guest["person"], text="Gamma."
    )
    with django_capture_on_commit_callbacks(execute=True):
        make_live_unchecked(entry)
    assert b"Stored Gamma" in Client().get(PERSON).content
    assert "Could not store the first pages" in caplog.text


def test_rerender_stores_every_first_page_again(
    guest: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    StoredPage.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("rerender")
    assert StoredPage.objects.count() == 3


def _current(*keys: tuple[str, str]) -> bool:
    """Whether each page stored for these addresses is its rows' (nothing left to store)."""
    return stored_pages.store_first_pages(keys) == 0 and StoredPage.objects.filter(
        slug__in=[slug for _, slug in keys]
    ).count() == len(keys)


def test_storing_all_replaces_a_page_though_its_fingerprint_is_current(
    guest: dict[str, Any],
) -> None:
    """`manage.py rerender` mends a stored page whatever it holds (an operator's edit, a
    page an older release rendered): it renders every page again."""
    _store_all()
    _tamper("person", "gwen-guest")
    _store_all()
    assert b"STORED MARK" not in Client().get(PERSON).content


def test_the_code_digest_is_the_code_this_process_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker still running the last release after a deploy changed the files must store
    its pages under the last release's digest, not the new files'."""
    imported = page_fingerprints.rendered_by()
    monkeypatch.setattr(page_fingerprints, "code_digest", lambda: "the files as they are now")
    assert page_fingerprints.rendered_by() == imported


def test_the_code_digest_reads_every_module_of_the_models_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A change to a model's code retires stored pages as a change to any other module of
    the package does: the models are a package of their own, not top-level files."""
    read: list[Path] = []
    read_bytes = Path.read_bytes

    def recording(path: Path) -> bytes:
        read.append(path)
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", recording)
    page_fingerprints.code_digest()
    package = Path(glossary.models.__file__).resolve().parent
    assert sorted(package.glob("*.py")) == sorted(p for p in read if p.parent == package)


def test_deleting_an_entry_stores_the_pages_it_touched(
    guest: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from editorial import workflow

    _store_all()
    admin = User.objects.create_superuser("stored-admin", "a@example.com", "pw")
    with django_capture_on_commit_callbacks(execute=True):
        workflow.delete_entry(guest["entries"][0], user=admin)
    assert _current(
        ("person", "gwen-guest"), ("organisation", "acme-labs"), ("episode", "stored-show/1/4")
    )


def test_a_published_show_rename_stores_its_other_episodes_pages(
    guest: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    other = Episode.objects.create(
        show=guest["episode"].show, season=1, number=5, title="Elsewhere", duration=3600
    )
    entry = Entry.objects.create(term="Stored Delta", slug="stored-delta", summary="S.")
    EpisodeReference.objects.create(entry=entry, episode=other, at=20, text="Delta.")
    make_live_unchecked(entry)
    _store_all()
    Show.objects.filter(pk=guest["episode"].show_id).update(name="Renamed Show")
    with django_capture_on_commit_callbacks(execute=True):
        make_live_unchecked(guest["entries"][1])
    assert b"Renamed Show" in Client().get("/episodes/stored-show/1/5/").content
    assert _current(("episode", "stored-show/1/5"))


def test_publishes_storing_once_store_the_pages_they_touched_and_no_other(
    guest: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    """`generate_glossary --force-append` of one entry into a large glossary stored every
    page of it (15 s at 10,000 entries); it stores what its publishes touched."""
    elsewhere = Episode.objects.create(
        show=Show.objects.create(name="Other Show", slug="other-show"),
        season=1,
        number=1,
        title="Apart",
        duration=3600,
    )
    entry = Entry.objects.create(term="Stored Apart", slug="stored-apart", summary="S.")
    EpisodeReference.objects.create(entry=entry, episode=elsewhere, at=20, text="Apart.")
    make_live_unchecked(entry)
    StoredPage.objects.all().delete()
    with stored_pages.storing_once(), django_capture_on_commit_callbacks(execute=True):
        make_live_unchecked(guest["entries"][0])
    assert set(StoredPage.objects.values_list("kind", "slug")) == {
        ("person", "gwen-guest"),
        ("organisation", "acme-labs"),
        ("episode", "stored-show/1/4"),
    }


@pytest.mark.parametrize(
    ("one", "other"),
    [
        # A value's end moved into the next value.
        (("ab", "c"), ("a", "bc")),
        # A row's values moved into the next row.
        (("a", "b\n1:x"), ("a", "b")),
        # NULL is not the empty text, nor the text "-".
        ((None, "b"), ("", "b")),
        ((None, "b"), ("-", "b")),
        # A length written into a value.
        (("1:a", ""), ("", "1:a")),
    ],
)
def test_pages_whose_rows_differ_never_share_a_fingerprint(
    one: tuple[str | None, str], other: tuple[str | None, str]
) -> None:
    from glossary import page_fingerprints

    def fingerprint(row: tuple[str | None, str]) -> str:
        seen, _, _ = page_fingerprints.stored_or_rows(
            "SELECT 0 AS part, CAST(%s AS TEXT) AS a, CAST(%s AS TEXT) AS b",
            list(row),
            "p.part",
            "person",
            "nobody",
            "stamp",
            columns=("part", "a", "b"),
            fresh=True,
        )
        return seen.fingerprint

    assert fingerprint(one) != fingerprint(other)
    assert fingerprint(one) == fingerprint(one)
