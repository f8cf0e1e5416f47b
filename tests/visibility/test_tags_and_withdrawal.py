"""Tags follow the roles; withdrawing an entry is complete."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from taggit.models import Tag

from editorial import workflow
from editorial.models import ShareLink, WorkflowEvent
from glossary.models import Entry
from tests.personas import client_for
from tests.visibility.desk import public_fingerprint

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/taggit/tag/"


def _merge(client: Client, tags: list[Tag], name: str = "Networking") -> None:
    client.post(
        CHANGELIST,
        {
            "action": "merge_tags",
            "_selected_action": [str(t.pk) for t in tags],
            "merge": "1",
            "name": name,
        },
    )


def test_a_fact_checker_cannot_merge_rename_or_delete_tags(client, demo, fact_checker):
    tags = list(Tag.objects.filter(name__in=["networking", "hardware"]))
    before = public_fingerprint(client, ["/tags/", "/tags/networking/", "/glossary/interconnect/"])
    checker = client_for(fact_checker)
    _merge(checker, tags)
    tag = tags[0]
    checker.post(reverse("admin:taggit_tag_change", args=[tag.pk]), {"name": "x", "slug": "x"})
    checker.post(reverse("admin:taggit_tag_delete", args=[tag.pk]), {"post": "yes"})
    assert sorted(
        Tag.objects.filter(pk__in=[t.pk for t in tags]).values_list("name", flat=True)
    ) == [
        "hardware",
        "networking",
    ]
    assert after_equal(client, before)


def after_equal(client: Client, before: dict[str, str]) -> bool:
    return public_fingerprint(client, list(before)) == before


def test_an_editors_merge_is_a_version_of_every_entry_it_touches_and_public_only_once_published(
    client, demo, editor, second_editor
):
    tags = list(Tag.objects.filter(name__in=["networking", "hardware"]))
    touched = set(Entry.objects.filter(tags__in=tags).values_list("pk", flat=True))
    before = public_fingerprint(client, ["/tags/", "/tags/networking/", "/glossary/interconnect/"])
    _merge(client_for(editor), tags, name="Chips and links")
    assert Tag.objects.filter(name="Chips and links").exists()
    for entry in Entry.objects.filter(pk__in=touched):
        latest = entry.versions.order_by("-number").first()
        assert latest.created_by == editor and latest.comment.startswith("Tags merged")
        assert entry.has_unpublished_changes
    assert after_equal(client, before)
    interconnect = Entry.objects.get(slug="interconnect")
    workflow.submit_for_review(interconnect, user=editor)
    workflow.publish_entry(interconnect, user=second_editor)
    assert "Chips and links" in client.get("/glossary/interconnect/").content.decode()


def test_deleting_a_tag_is_a_version_of_every_entry_that_carried_it(client, demo, editor, writer):
    tag = Tag.objects.get(name="hardware")
    carrying = list(Entry.objects.filter(tags=tag).order_by("pk"))
    assert carrying
    before = {e.pk: e.versions.count() for e in carrying}
    gpu_page = client.get(f"/api/v1/entries/{carrying[0].slug}/").json()
    response = client_for(editor).post(f"{CHANGELIST}{tag.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Tag.objects.filter(pk=tag.pk).exists()
    for entry in carrying:
        entry.refresh_from_db()
        latest = entry.versions.order_by("-number").first()
        assert entry.versions.count() == before[entry.pk] + 1
        assert latest is not None and latest.created_by == editor
        assert "hardware" not in [t["name"] for t in latest.data["tags"]]
        assert entry.has_unpublished_changes
    # Readers keep the tag until someone other than the editor publishes the change.
    assert client.get(f"/api/v1/entries/{carrying[0].slug}/").json() == gpu_page
    entry = carrying[0]
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=editor, override_reason="Test.")


def test_merging_needs_two_tags_and_creates_nothing_otherwise(demo, editor):
    one = Tag.objects.filter(name="networking")
    response = client_for(editor).post(
        CHANGELIST,
        {
            "action": "merge_tags",
            "_selected_action": [str(one.get().pk)],
            "merge": "1",
            "name": "New",
        },
        follow=True,
    )
    assert "Select at least two tags to merge" in response.content.decode()
    assert not Tag.objects.filter(name="New").exists()
    response = client_for(editor).post(CHANGELIST, {"action": "merge_tags"}, follow=True)
    assert response.status_code == 200
    assert not Tag.objects.filter(name="").exists()


def test_an_admin_deletes_an_entry_with_its_history_and_readers_lose_it(
    client, demo, admin_user, editor, writer
):
    entry = Entry.objects.get(slug="inference")
    loaded = WorkflowEvent.objects.filter(entry=entry).count()  # the demo's own publish
    workflow.unpublish_entry(entry, user=editor, comment="Withdrawn.")  # some workflow history
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=editor, override_reason="Back for the test.")
    assert WorkflowEvent.objects.filter(entry=entry).count() == loaded + 3
    page = client_for(admin_user).get(reverse("admin:glossary_entry_delete", args=[entry.pk]))
    assert page.status_code == 200
    response = client_for(admin_user).post(
        reverse("admin:glossary_entry_delete", args=[entry.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not Entry.objects.filter(pk=entry.pk).exists()
    assert client.get("/glossary/inference/").status_code == 404
    assert client.get("/api/v1/entries/inference/").status_code == 404
    assert 'href="/glossary/inference/"' not in client.get("/").content.decode()
    # Entries that linked to it keep no link: a version without it, credited to the admin.
    training = Entry.objects.get(slug="training")
    assert not training.see_also.filter(target_id=entry.pk).exists()
    assert training.versions.order_by("-number").first().created_by == admin_user
    assert 'href="/glossary/inference/"' not in client.get("/glossary/training/").content.decode()


def test_editors_cannot_delete_entries(demo, editor):
    entry = Entry.objects.get(slug="inference")
    response = client_for(editor).post(
        reverse("admin:glossary_entry_delete", args=[entry.pk]), {"post": "yes"}
    )
    assert response.status_code == 403
    assert Entry.objects.filter(pk=entry.pk).exists()


def _share(user, entry: Entry) -> str:
    response = client_for(user).post(reverse("admin:glossary_entry_share", args=[entry.pk]))
    match = re.search(r'value="http://testserver(/preview/s/[^"]+)"', response.content.decode())
    assert match, "no share link on the page"
    return match.group(1)


@pytest.mark.parametrize("withdraw", ["unpublish", "archive", "delete"])
def test_share_links_die_when_the_entry_is_withdrawn(demo, editor, admin_user, writer, withdraw):
    entry = Entry.objects.get(slug="interconnect")
    link = _share(writer, entry)
    assert Client().get(link).status_code == 200
    if withdraw == "unpublish":
        workflow.unpublish_entry(entry, user=editor, comment="Withdrawn.")
    elif withdraw == "archive":
        workflow.archive_entry(entry, user=editor)
    else:
        workflow.delete_entry(entry, user=admin_user)
    dead = Client().get(link)
    assert dead.status_code in (404, 410)
    assert "Interconnect" not in dead.content.decode()


def test_one_share_link_can_be_revoked_from_the_entry(demo, writer, editor):
    entry = Entry.objects.get(slug="interconnect")
    first, second = _share(writer, entry), _share(writer, entry)
    page = client_for(editor).get(reverse("admin:glossary_entry_change", args=[entry.pk]))
    assert "Preview links that work now" in page.content.decode()
    link = ShareLink.objects.filter(entry=entry).order_by("pk").first()
    client_for(editor).post(reverse("admin:glossary_entry_revoke_share", args=[entry.pk, link.pk]))
    assert Client().get(first).status_code == 410
    assert "withdrawn" in Client().get(first).content.decode()
    assert Client().get(second).status_code == 200
