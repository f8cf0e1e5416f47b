"""Previews: as the public page renders, never indexed or cached, shareable for a while."""

from __future__ import annotations

import datetime
import re

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from editorial import preview, workflow
from glossary import document, entry_page, publishing
from glossary.models import Entry
from tests.personas import NOW, client_for


def _assert_private(response) -> None:
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    cache = {part.strip() for part in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache
    assert "public" not in cache
    assert '<meta name="robots" content="noindex, nofollow">' in response.content.decode()


def test_staff_preview_the_working_copy_as_the_public_page_renders_it(ready_entry, writer):
    Entry.objects.filter(pk=ready_entry.pk).update(body="Draft wording, not yet a version.")
    response = client_for(writer).get(f"/preview/entry/{ready_entry.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Preview — not published." in html
    assert "Draft wording, not yet a version." in html
    assert "<dfn>Interconnect</dfn>" in html
    _assert_private(response)


def test_a_version_preview_contains_exactly_the_article_the_public_page_would(ready_entry, writer):
    version = ready_entry.versions.get(number=1)
    response = client_for(writer).get(f"/preview/entry/{ready_entry.pk}/v1/")
    doc = document.load(version.data)
    article = entry_page.render_article(doc, publishing.live_links(doc))
    assert article in response.content.decode()
    _assert_private(response)


def test_the_preview_matches_the_public_page_once_published(ready_entry, writer, editor, client):
    before = client_for(writer).get(f"/preview/entry/{ready_entry.pk}/v1/").content.decode()
    workflow.submit_for_review(ready_entry, user=writer)
    workflow.publish_entry(ready_entry, user=editor)
    public = client.get(f"/glossary/{ready_entry.slug}/").content.decode()

    def article(html: str) -> str:
        return re.search(r"<article.*?</article>", html, re.S).group(0)

    assert article(before) == article(public)


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_the_staff_preview_needs_a_staff_login(personas, ready_entry, who):
    response = client_for(personas[who]).get(f"/preview/entry/{ready_entry.pk}/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_a_share_link_works_without_a_login_and_says_it_is_a_preview(ready_entry, writer):
    response = client_for(writer).post(f"/admin/glossary/entry/{ready_entry.pk}/share/")
    link = re.search(r'value="(http://testserver/preview/s/[^"]+)"', response.content.decode())
    assert link is not None
    shared = Client().get(link.group(1).removeprefix("http://testserver"))
    assert shared.status_code == 200
    html = shared.content.decode()
    assert "Preview — not published." in html
    assert "shared for review" in html
    assert "Interconnect is explained here." in html
    _assert_private(shared)


def _link(entry, user, **fields):
    from editorial.models import ShareLink

    version = fields.pop("version", None) or entry.versions.get(number=1)
    now = timezone.now()
    link = ShareLink.objects.create(
        entry=entry,
        version=version,
        created_by=user,
        created_at=now,
        expires_at=now + preview.share_max_age(),
        **fields,
    )
    return preview.share_url(link)


def test_a_share_link_shows_the_version_it_was_made_for(ready_entry, writer):
    token_url = _link(ready_entry, writer)
    Entry.objects.filter(pk=ready_entry.pk).update(body="Later edit.")
    html = Client().get(token_url).content.decode()
    assert "Interconnect is explained here." in html
    assert "Later edit." not in html


def test_sharing_saves_the_working_copy_first_when_it_moved_on(ready_entry, writer):
    Entry.objects.filter(pk=ready_entry.pk).update(body="Unsaved change.")
    ready_entry.refresh_from_db()
    version = preview.version_for_sharing(ready_entry, user=writer)
    assert version.number == 2
    assert version.data["body"] == "Unsaved change."
    assert preview.version_for_sharing(ready_entry, user=writer) == version


def test_a_share_link_expires(ready_entry, writer, settings):
    settings.PREVIEW_LINK_MAX_AGE_HOURS = 48
    with time_machine.travel(NOW, tick=False):
        url = _link(ready_entry, writer)
        assert Client().get(url).status_code == 200
    with time_machine.travel(NOW + datetime.timedelta(hours=47, minutes=59), tick=False):
        assert Client().get(url).status_code == 200
    with time_machine.travel(NOW + datetime.timedelta(hours=48, seconds=1), tick=False):
        expired = Client().get(url)
    assert expired.status_code == 410
    assert "This preview link has expired: links work for 48 hours" in expired.content.decode()
    _assert_private(expired)


def test_a_tampered_share_link_is_not_found(ready_entry, writer):
    url = _link(ready_entry, writer)
    assert Client().get(url[:-3] + "abc/").status_code == 404
    assert Client().get("/preview/s/nonsense/").status_code == 404


def test_a_share_link_to_a_deleted_entry_is_not_found(ready_entry, writer):
    url = _link(ready_entry, writer)
    Entry.objects.filter(pk=ready_entry.pk).delete()
    assert Client().get(url).status_code == 404


def test_fact_checkers_cannot_make_share_links(ready_entry, fact_checker):
    response = client_for(fact_checker).post(f"/admin/glossary/entry/{ready_entry.pk}/share/")
    assert response.status_code == 403
    assert ready_entry.versions.count() == 1


def test_a_share_link_needs_a_post(ready_entry, writer):
    response = client_for(writer).get(f"/admin/glossary/entry/{ready_entry.pk}/share/")
    assert response.status_code == 403


def test_a_share_link_costs_a_fixed_number_of_queries(
    ready_entry, writer, make_entry, django_assert_num_queries
):
    from glossary.models import SeeAlso
    from glossary.publishing import save_version

    for i in range(5):
        SeeAlso.objects.create(entry=ready_entry, target=make_entry(f"Other {i}"), order=i)
    url = _link(ready_entry, writer, version=save_version(ready_entry))
    # The link with its version, then the see-also targets' live versions.
    with django_assert_num_queries(2):
        assert Client().get(url).status_code == 200
