"""The feed in the admin (differences, take and keep, the show's import action) and beat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from editorial import podcast_feed_import, tasks, workflow
from glossary.models import Entry, Episode, Show
from tests.feeds.feeds import feed, item
from tests.personas import client_for


@pytest.fixture
def imported(db: Any, tmp_path: Path) -> Episode:
    show = Show.objects.create(name="Test Show", slug="test-show")
    Episode.objects.create(show=show, season=1, number=1, title="Typed by hand")
    path = tmp_path / "feed.xml"
    path.write_bytes(feed(item(1, "From the feed")))
    podcast_feed_import.import_feed(show, str(path), user=None)
    return Episode.objects.get(number=1)


def change_page(episode: Episode) -> str:
    return reverse("admin:glossary_episode_change", args=[episode.pk])


def feed_action(episode: Episode) -> str:
    return reverse("admin:glossary_episode_feed", args=[episode.pk])


def test_the_episode_page_shows_the_difference_with_buttons_outside_its_form(imported, editor):
    page = client_for(editor).get(change_page(imported)).content.decode()
    assert "The feed says otherwise" in page
    assert "<td>From the feed</td><td>Typed by hand</td>" in page
    assert "name='take' value='title'" in page and "name='keep' value='title'" in page
    assert "form='feed-differences'" in page
    assert f'<form id="feed-differences" method="post" action="{feed_action(imported)}">' in page


def test_take_in_the_admin_gives_the_feeds_value_and_keep_keeps_mine(imported, editor):
    client = client_for(editor)
    response = client.post(feed_action(imported), {"keep": "title"})
    assert response.status_code == 302
    imported.refresh_from_db()
    assert imported.title == "Typed by hand"
    assert "Nothing: the desk agrees" in client.get(change_page(imported)).content.decode()
    client.post(feed_action(imported), {"take": "title"})
    imported.refresh_from_db()
    assert imported.title == "From the feed"


def test_the_feed_action_refuses_get_and_people_who_may_not_change_episodes(
    imported, editor, outsider
):
    assert client_for(editor).get(feed_action(imported)).status_code == 405
    response = client_for(outsider).post(feed_action(imported), {"take": "title"})
    assert response.status_code in (302, 403)
    imported.refresh_from_db()
    assert imported.title == "Typed by hand"


def test_an_editor_correction_in_the_admin_is_kept_against_the_feed(imported, editor):
    client = client_for(editor)
    client.post(feed_action(imported), {"take": "title"})
    page = client.get(change_page(imported))
    form = page.context["adminform"].form
    data = {
        name: ("" if value is None else value)
        for name, value in form.initial.items()
        if name in form.fields
    }
    data.update(
        {
            "title": "Corrected by the desk",
            "show": imported.show_id,
            "duration": "58:30",
            "sponsorships-TOTAL_FORMS": "0",
            "sponsorships-INITIAL_FORMS": "0",
            "appearances-TOTAL_FORMS": "0",
            "appearances-INITIAL_FORMS": "0",
        }
    )
    response = client.post(change_page(imported), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    imported.refresh_from_db()
    assert imported.title == "Corrected by the desk"
    assert imported.feed_kept == {"title": "From the feed"}
    assert "Nothing: the desk agrees" in client.get(change_page(imported)).content.decode()


def test_the_show_action_imports_from_its_feed_url_credited_to_the_user(
    demo, editor, feed_server, allow_loopback
):
    show = Show.objects.get(slug="demo-show")
    from demo.content import DEMO_FEED

    retitled = DEMO_FEED.read_bytes().replace(
        b"Every Layer at Once: Where Chip Gains Come From", b"Every Layer, Retitled"
    )
    feed_server.pages["/feed.xml"] = (200, "application/rss+xml", retitled)
    Show.objects.filter(pk=show.pk).update(feed_url=feed_server.url("/feed.xml"))
    Show.objects.create(name="No Feed", slug="no-feed")
    response = client_for(editor).post(
        reverse("admin:glossary_show_changelist"),
        {
            "action": "import_from_feed",
            "_selected_action": [s.pk for s in Show.objects.all()],
        },
        follow=True,
    )
    text = response.content.decode()
    assert "No Feed has no feed URL" in text
    assert "The Show: 0 created, 1 updated, 1 unchanged" in text
    latest = Entry.objects.get(slug="interconnect").versions.order_by("-number").first()
    assert latest is not None and latest.created_by == editor
    show.refresh_from_db()
    assert show.feed_refreshed_at is not None and show.feed_error == ""


def test_beat_refreshes_only_shows_with_a_feed_url_as_the_system_user(
    demo, feed_server, allow_loopback
):
    assert settings.CELERY_BEAT_SCHEDULE["refresh-show-feeds"]["task"] == (
        "editorial.tasks.refresh_feeds"
    )
    # The demo show has no feed URL: nothing is fetched.
    assert tasks.refresh_feeds.delay().get() == 0
    assert feed_server.requests == []
    from demo.content import DEMO_FEED

    feed_server.pages["/feed.xml"] = (
        200,
        "application/rss+xml",
        DEMO_FEED.read_bytes().replace(b"<itunes:duration>47:10", b"<itunes:duration>47:20"),
    )
    Show.objects.filter(slug="demo-show").update(feed_url=feed_server.url("/feed.xml"))
    assert tasks.refresh_feeds.delay().get() == 1
    assert feed_server.requests == ["/feed.xml"]
    assert Episode.objects.get(number=28).duration == 47 * 60 + 20
    latest = Entry.objects.get(slug="interconnect").versions.order_by("-number").first()
    assert latest is not None and latest.created_by is not None
    robot = User.objects.get(username=podcast_feed_import.SYSTEM_USERNAME)
    assert latest.created_by == robot and not robot.is_active
    assert not robot.has_usable_password()


def test_a_failing_scheduled_refresh_is_recorded_on_the_show(db, feed_server, allow_loopback):
    show = Show.objects.create(name="S", slug="s", feed_url=feed_server.url("/missing.xml"))
    message = tasks.refresh_feed.delay(show.pk).get()
    show.refresh_from_db()
    assert "answered HTTP 404" in message and "answered HTTP 404" in show.feed_error


def test_whoever_sets_the_feed_url_cannot_approve_what_the_scheduled_refresh_brings(
    demo, editor, second_editor, writer, feed_server, allow_loopback
):
    """Choosing the feed is choosing its words: an editor who points the show at a feed
    they control, waits for the scheduled refresh, and publishes, is refused."""
    from demo.content import DEMO_FEED
    from tests.workflow.formdata import form_data

    feed_server.pages["/feed.xml"] = (
        200,
        "application/rss+xml",
        DEMO_FEED.read_bytes().replace(
            b"Every Layer at Once: Where Chip Gains Come From", b"Words I Wrote Myself"
        ),
    )
    show = Show.objects.get(slug="demo-show")
    page = reverse("admin:glossary_show_change", args=[show.pk])
    client = client_for(editor)
    data = form_data(client.get(page).content.decode(), "show_form")
    data["feed_url"] = feed_server.url("/feed.xml")
    assert client.post(page, data).status_code == 302
    show.refresh_from_db()
    assert show.feed_url_set_by == editor
    shown = client.get(page).content.decode()
    assert "Feed URL set by" in shown
    assert f">{editor.get_username()}</a></div>" in shown

    assert tasks.refresh_feeds.delay().get() == 1
    entry = Entry.objects.get(slug="interconnect")
    latest = entry.versions.order_by("-number").first()
    assert latest is not None and latest.created_by == editor
    assert "Updated from the feed of The Show" in latest.comment
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=editor)
    workflow.publish_entry(entry, user=second_editor)
    assert "Words I Wrote Myself" in Client().get("/glossary/interconnect/").content.decode()


def test_clearing_the_feed_url_forgets_who_set_it(demo, editor):
    from tests.workflow.formdata import form_data

    show = Show.objects.get(slug="demo-show")
    Show.objects.filter(pk=show.pk).update(
        feed_url="https://feeds.example.org/show.xml", feed_url_set_by=editor
    )
    page = reverse("admin:glossary_show_change", args=[show.pk])
    client = client_for(editor)
    data = form_data(client.get(page).content.decode(), "show_form")
    data["feed_url"] = ""
    assert client.post(page, data).status_code == 302
    show.refresh_from_db()
    assert show.feed_url == "" and show.feed_url_set_by is None


def test_an_import_someone_else_runs_is_still_credited_to_whoever_set_the_feed_url(
    demo, editor, second_editor, writer, feed_server, allow_loopback
):
    from demo.content import DEMO_FEED

    feed_server.pages["/feed.xml"] = (
        200,
        "application/rss+xml",
        DEMO_FEED.read_bytes().replace(
            b"Every Layer at Once: Where Chip Gains Come From", b"Chosen By The Feed's Setter"
        ),
    )
    show = Show.objects.get(slug="demo-show")
    Show.objects.filter(pk=show.pk).update(
        feed_url=feed_server.url("/feed.xml"), feed_url_set_by=editor
    )
    response = client_for(second_editor).post(
        reverse("admin:glossary_show_changelist"),
        {"action": "import_from_feed", "_selected_action": [show.pk]},
        follow=True,
    )
    assert "1 updated" in response.content.decode()
    entry = Entry.objects.get(slug="interconnect")
    latest = entry.versions.order_by("-number").first()
    assert latest is not None and latest.created_by == editor
    workflow.submit_for_review(entry, user=writer)
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=editor)
    workflow.publish_entry(entry, user=second_editor)
