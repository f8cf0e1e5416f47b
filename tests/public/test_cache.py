"""Conditional GET and the page cache: fast repeats, and never stale after a publish."""

import hashlib
import time
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from glossary import publishing, signals
from glossary.models import Entry, EntryVersion, Episode, SiteGeneration
from tests.live import make_live_unchecked
from tests.workflow.formdata import form_data


@pytest.fixture
def widget(make_entry):
    entry = make_entry("Widget", slug="widget", body="First body.")
    make_live_unchecked(entry)
    return entry


def test_a_public_page_carries_validators_and_cache_control(client, widget):
    response = client.get("/glossary/widget/")
    assert response["ETag"].startswith('"')
    assert response["Last-Modified"].endswith("GMT")
    assert "public" in response["Cache-Control"]
    assert "must-revalidate" in response["Cache-Control"]


def test_a_repeat_request_with_the_etag_answers_304(client, widget):
    first = client.get("/glossary/widget/")
    again = client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]


def test_a_repeat_request_with_the_date_answers_304(client, widget):
    first = client.get("/glossary/widget/")
    again = client.get("/glossary/widget/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304


def test_a_different_etag_gets_the_full_page(client, widget):
    current = client.get("/glossary/widget/")["ETag"]
    response = client.get("/glossary/widget/", HTTP_IF_NONE_MATCH='"something-else"')
    assert response.status_code == 200
    assert "First body." in response.content.decode()
    assert response["ETag"] == current


def test_publishing_changes_the_etag_so_the_old_one_gets_the_new_page(client, widget):
    old = client.get("/glossary/widget/")["ETag"]
    widget.body = "Second body."
    widget.save()
    make_live_unchecked(widget)
    response = client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=old)
    assert response.status_code == 200
    assert "Second body." in response.content.decode()


def test_a_cached_page_is_served_without_queries(client, widget, settings):
    # Within the sync delay a process trusts the generation it read (no query at all).
    settings.PUBLIC_CACHE_SYNC_SECONDS = 3600
    client.get("/glossary/widget/")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/glossary/widget/")
    assert response.status_code == 200
    assert "First body." in response.content.decode()
    assert len(queries) == 0


def _change_behind_the_caches_back(entry: Entry, html: str) -> None:
    # An UPDATE sends no signal: only a page rendered afresh can show it.
    entry.refresh_from_db()
    assert entry.live_version is not None
    changed = EntryVersion.objects.filter(pk=entry.live_version.pk).update(rendered_html=html)
    assert changed == 1


def test_the_page_cache_can_be_turned_off(client, widget, settings):
    settings.PUBLIC_PAGE_CACHE = False
    client.get("/glossary/widget/")
    _change_behind_the_caches_back(widget, "<p>Rendered again.</p>")
    assert "Rendered again." in client.get("/glossary/widget/").content.decode()


def test_with_the_page_cache_off_the_etag_follows_the_pages_bytes(client, widget, settings):
    settings.PUBLIC_PAGE_CACHE = False
    first = client.get("/glossary/widget/")
    assert first["ETag"] == f'"{hashlib.sha256(first.content).hexdigest()[:20]}"'
    assert client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    _change_behind_the_caches_back(widget, "<p>Rendered again.</p>")
    again = client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and again["ETag"] != first["ETag"]


def test_with_the_page_cache_on_a_repeat_is_served_from_the_cache(client, widget):
    client.get("/glossary/widget/")
    _change_behind_the_caches_back(widget, "<p>Rendered again.</p>")
    assert "First body." in client.get("/glossary/widget/").content.decode()


def test_saving_a_draft_in_the_admin_leaves_the_public_cache_warm(
    client, widget, superuser, settings
):
    settings.PUBLIC_CACHE_SYNC_SECONDS = 3600
    client.get("/glossary/widget/")
    editor = Client()
    editor.force_login(superuser)
    url = reverse("admin:glossary_entry_change", args=[widget.pk])
    data = form_data(editor.get(url).content.decode())
    data["body"] = "A draft nobody has approved."
    assert editor.post(url, data).status_code == 302
    assert widget.versions.count() == 2
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/glossary/widget/")
    assert "First body." in response.content.decode()
    assert len(queries) == 0, "the draft's save emptied the public cache"


def test_publishing_drops_cached_pages_at_once(client, widget):
    assert "First body." in client.get("/glossary/widget/").content.decode()
    assert "Widget" in client.get("/").content.decode()
    widget.body = "Second body."
    widget.save()
    make_live_unchecked(widget)
    assert "Second body." in client.get("/glossary/widget/").content.decode()


def test_unpublishing_drops_cached_pages_at_once(client, widget):
    assert client.get("/glossary/widget/").status_code == 200
    assert 'href="/glossary/widget/"' in client.get("/").content.decode()
    publishing.unpublish(widget)
    assert client.get("/glossary/widget/").status_code == 404
    assert 'href="/glossary/widget/"' not in client.get("/").content.decode()


def test_after_the_live_content_changed_signal_this_process_asks_the_database(
    client, widget, settings
):
    settings.PUBLIC_CACHE_SYNC_SECONDS = 3600
    etag = client.get("/glossary/widget/")["ETag"]
    widget.refresh_from_db()
    _publish_elsewhere(widget, "<p>Published elsewhere.</p>")
    assert "First body." in client.get("/glossary/widget/").content.decode()
    signals.live_content_changed.send(sender=Entry, entry_id=widget.pk)
    response = client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert "Published elsewhere." in response.content.decode()


def test_publishing_moves_the_generation_in_its_own_transaction(
    widget, django_capture_on_commit_callbacks
):
    before = SiteGeneration.objects.get().token
    with django_capture_on_commit_callbacks() as callbacks:
        make_live_unchecked(Entry.objects.get(pk=widget.pk), material=False)
        # Before the commit: any process reading the database sees the new token.
        assert SiteGeneration.objects.get().token != before
    assert callbacks, "this process is told to forget its copy after the commit"


def test_editing_reference_data_leaves_the_public_episode_page_as_published(client, demo):
    assert "Episode 28" in client.get("/episodes/demo-show/2/28/").content.decode()
    episode = Episode.objects.get(number=28)
    episode.title = "Chips all the way down"
    episode.save()
    assert "Chips all the way down" not in client.get("/episodes/demo-show/2/28/").content.decode()


def test_a_not_found_page_is_not_cached(client, make_entry):
    entry = make_entry("Later", slug="later")
    assert client.get("/glossary/later/").status_code == 404
    make_live_unchecked(entry)
    assert client.get("/glossary/later/").status_code == 200


def test_the_admin_is_never_given_public_cache_headers(admin_client, widget):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert "public" not in response.get("Cache-Control", "")
    assert not response.has_header("ETag")


def test_the_page_cache_works_on_real_redis_and_is_dropped_on_publish(
    client, widget, redis_cache, settings
):
    settings.PUBLIC_CACHE_SYNC_SECONDS = 3600
    assert "First body." in client.get("/glossary/widget/").content.decode()
    keys = redis_cache._cache.get_client().keys("test-public:*public:page:*")
    assert keys, "the page was not stored in Redis"
    with CaptureQueriesContext(connection) as queries:
        assert "First body." in client.get("/glossary/widget/").content.decode()
    assert len(queries) == 0
    widget.body = "Second body."
    widget.save()
    make_live_unchecked(widget)
    assert "Second body." in client.get("/glossary/widget/").content.decode()
    etag = client.get("/glossary/widget/")["ETag"]
    assert client.get("/glossary/widget/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def _publish_elsewhere(entry, body: str) -> None:
    """What another process's publish leaves behind: new rows and a new generation."""
    EntryVersion.objects.filter(pk=entry.live_version_id).update(rendered_html=body)
    SiteGeneration.objects.update(token=uuid.uuid4().hex)


def test_with_no_sync_delay_a_publish_elsewhere_shows_at_once(client, widget, settings):
    settings.PUBLIC_CACHE_SYNC_SECONDS = 0
    assert "First body." in client.get("/glossary/widget/").content.decode()
    widget.refresh_from_db()
    _publish_elsewhere(widget, "<p>Published elsewhere.</p>")
    assert "Published elsewhere." in client.get("/glossary/widget/").content.decode()


def test_a_publish_elsewhere_shows_within_the_sync_delay(client, widget, settings):
    settings.PUBLIC_CACHE_SYNC_SECONDS = 0.3
    assert "First body." in client.get("/glossary/widget/").content.decode()
    widget.refresh_from_db()
    _publish_elsewhere(widget, "<p>Published elsewhere.</p>")
    deadline = time.monotonic() + 5
    while "Published elsewhere." not in client.get("/glossary/widget/").content.decode():
        assert time.monotonic() < deadline, "the other process's publish never showed"
    assert time.monotonic() < deadline
