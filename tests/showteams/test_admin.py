"""The admin follows the show teams: lists, pages, choices, actions and the dashboard."""

from __future__ import annotations

import json

from django.db import connection
from django.test.utils import CaptureQueriesContext
from taggit.models import Tag

from editorial import workflow
from editorial.models import ScheduledAction, ShowMembership
from glossary.models import Citation, Entry, EntryVersion, Quote, RecordEdit
from glossary.publishing import record_edit
from tests.editorial.test_entry_admin import add_form, inline_management
from tests.personas import client_for, reviewed
from tests.showteams.conftest import on_team, staff
from tests.workflow.formdata import form_data

ENTRIES = "/admin/glossary/entry/"


def test_a_show_member_lists_searches_and_filters_only_their_shows_entries(
    alpha_writer, alpha_entry, beta_entry, network_entry
):
    client = client_for(alpha_writer)
    for query in ("", "?q=term", "?status__exact=draft"):
        page = client.get(ENTRIES + query).content.decode()
        assert "Alpha term" in page, query
        assert "Beta term" not in page, query
        assert "Network term" not in page, query


def test_a_network_wide_editor_lists_every_show_and_the_network(
    editor, alpha_entry, beta_entry, network_entry
):
    page = client_for(editor).get(ENTRIES).content.decode()
    assert "Alpha term" in page and "Beta term" in page and "Network term" in page


def test_episodes_and_shows_lists_follow_the_team(
    alpha_writer, alpha_episode, beta_episode, alpha, beta
):
    client = client_for(alpha_writer)
    episodes = client.get("/admin/glossary/episode/").content.decode()
    assert "Alpha Hour 1" in episodes and "Beta Talk 2" not in episodes
    shows = client.get("/admin/glossary/show/").content.decode()
    assert "Alpha Hour" in shows and "Beta Talk" not in shows


def test_another_shows_pages_answer_403_naming_the_show(
    alpha_editor, beta_entry, beta_episode, beta
):
    client = client_for(alpha_editor)
    urls = [
        f"{ENTRIES}{beta_entry.pk}/change/",
        f"{ENTRIES}{beta_entry.pk}/history/",
        f"{ENTRIES}{beta_entry.pk}/publish/",
        f"{ENTRIES}{beta_entry.pk}/compare/",
        f"/admin/glossary/episode/{beta_episode.pk}/change/",
        f"/admin/glossary/show/{beta.pk}/change/",
        f"/preview/entry/{beta_entry.pk}/",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 403, url
    # A POST to a workflow button is refused the same way, and changes nothing.
    response = client.post(f"{ENTRIES}{beta_entry.pk}/submit/")
    assert response.status_code == 403
    beta_entry.refresh_from_db()
    assert beta_entry.status == Entry.Status.DRAFT


def test_an_entry_that_does_not_exist_is_still_djangos_answer_not_a_500(alpha_editor):
    response = client_for(alpha_editor).get(f"{ENTRIES}999999/change/")
    assert response.status_code == 302


def test_a_form_naming_another_shows_episode_is_a_form_error_and_keeps_what_was_typed(
    alpha_writer, alpha, beta_episode, person
):
    data = add_form(
        show=str(alpha.pk),
        **inline_management("quotes", total=1),
        **{
            "quotes-0-order": "1",
            "quotes-0-episode": str(beta_episode.pk),
            "quotes-0-speaker": str(person.pk),
            "quotes-0-start": "1:02",
            "quotes-0-text": "A quote I typed carefully.",
        },
    )
    response = client_for(alpha_writer).post(f"{ENTRIES}add/", data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "That episode belongs to a show whose team you are not on" in page
    assert "A quote I typed carefully." in page
    assert not Entry.objects.filter(slug="typed-term").exists()
    assert not Quote.objects.exists()


def test_a_show_member_files_new_entries_under_a_show_of_theirs(alpha_writer, alpha, beta):
    client = client_for(alpha_writer)
    # Their only show is the default.
    page = client.get(f"{ENTRIES}add/").content.decode()
    assert f'<option value="{alpha.pk}" selected>Alpha Hour</option>' in page
    refused = client.post(f"{ENTRIES}add/", add_form(show=str(beta.pk)))
    assert refused.status_code == 200
    assert "Choose one of your shows" in refused.content.decode()
    missing = client.post(f"{ENTRIES}add/", add_form())
    assert "Choose the show this entry belongs to" in missing.content.decode()
    assert not Entry.objects.exists()
    saved = client.post(f"{ENTRIES}add/", add_form(show=str(alpha.pk)))
    assert saved.status_code == 302
    assert Entry.objects.get(slug="typed-term").show == alpha


def test_a_single_show_desk_files_new_entries_under_its_show(editor, alpha):
    page = client_for(editor).get(f"{ENTRIES}add/").content.decode()
    assert f'<option value="{alpha.pk}" selected>Alpha Hour</option>' in page


def test_autocompletes_offer_only_the_members_shows_episodes(
    alpha_writer, alpha_episode, beta_episode
):
    response = client_for(alpha_writer).get(
        "/admin/autocomplete/",
        {"app_label": "glossary", "model_name": "quote", "field_name": "episode", "term": ""},
    )
    found = {row["text"] for row in json.loads(response.content)["results"]}
    assert any("Alpha Hour 1" in text for text in found)
    assert not any("Beta Talk 2" in text for text in found)


def test_a_bulk_action_on_a_mixed_selection_leaves_the_other_shows_entries_and_names_them(
    alpha_editor, alpha_entry, beta_entry
):
    response = client_for(alpha_editor).post(
        ENTRIES,
        {"action": "archive_selected", "_selected_action": [alpha_entry.pk, beta_entry.pk]},
        follow=True,
    )
    page = response.content.decode()
    assert "Beta term" in page and "whose team you are not on" in page
    alpha_entry.refresh_from_db()
    beta_entry.refresh_from_db()
    assert alpha_entry.status == Entry.Status.ARCHIVED
    assert beta_entry.status == Entry.Status.DRAFT


def test_a_bulk_publish_refuses_a_show_where_the_role_does_not_publish(
    roles, alpha, beta, make_ready_entry
):
    two_hats = on_team(on_team(staff("two_hats"), alpha, "writer"), beta, "editor")
    entry = make_ready_entry("Alpha ready", in_review=True, show=alpha)
    response = client_for(two_hats).post(
        ENTRIES,
        {
            "action": "publish_selected",
            "_selected_action": [entry.pk],
            "confirmed": "yes",
            f"version_{entry.pk}": str(entry.versions.count()),
        },
        follow=True,
    )
    assert "Not published: “Alpha ready”" in response.content.decode()
    entry.refresh_from_db()
    assert entry.live_version_id is None


def test_the_dashboard_lists_only_the_members_shows(alpha_writer, alpha_entry, beta_entry):
    Entry.objects.update(status=Entry.Status.IN_REVIEW)
    page = client_for(alpha_writer).get("/admin/dashboard/").content.decode()
    assert "Alpha term" in page
    assert "Beta term" not in page


def _list_queries(client) -> int:
    client.get(ENTRIES)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(ENTRIES).status_code == 200
    return len(queries)


def test_the_entry_list_costs_a_member_two_reads_of_their_teams_more_at_any_size(
    editor, alpha_writer, alpha, beta, make_entry
):
    make_entry("Alpha one", show=alpha)
    network, member = _list_queries(client_for(editor)), _list_queries(client_for(alpha_writer))
    for n in range(30):
        make_entry(f"Alpha more {n}", show=alpha)
        make_entry(f"Beta more {n}", show=beta)
    assert _list_queries(client_for(editor)) == network
    # Their memberships, and whether they are an admin all the same.
    assert _list_queries(client_for(alpha_writer)) == member == network + 2


def test_moving_a_live_entry_to_another_show_changes_nothing_readers_see_until_a_publish(
    entry_in_review, editor, second_editor, alpha, beta, client
):
    entry = entry_in_review()
    workflow.publish_entry(entry, user=second_editor)
    page = client.get(entry.get_absolute_url()).content
    live = Entry.objects.get(pk=entry.pk).live_version_id
    desk = client_for(editor)
    data = form_data(desk.get(f"{ENTRIES}{entry.pk}/change/").content.decode())
    data["show"] = str(beta.pk)
    response = desk.post(f"{ENTRIES}{entry.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    entry.refresh_from_db()
    assert entry.show == beta
    assert client.get(entry.get_absolute_url()).content == page
    assert entry.live_version_id == live


def test_a_shows_fact_checker_cannot_confirm_a_source_another_show_cites(
    alpha_checker, alpha_entry, beta_entry, make_source
):
    shared = make_source(title="Shared page")
    Citation.objects.create(entry=alpha_entry, source=shared)
    Citation.objects.create(entry=beta_entry, source=shared)
    response = client_for(alpha_checker).post(
        "/admin/glossary/source/",
        {"action": "mark_confirmed_today", "_selected_action": [shared.pk]},
        follow=True,
    )
    assert "Nothing was confirmed" in response.content.decode()
    assert "Beta term" in response.content.decode()
    assert not Citation.objects.filter(checked_on__isnull=False).exists()


def test_topics_are_the_networks_a_team_editor_cannot_rename_or_merge_them(
    alpha_editor, editor, alpha_entry
):
    alpha_entry.tags.add("networking")
    tag = Tag.objects.get()
    response = client_for(alpha_editor).post(
        f"/admin/taggit/tag/{tag.pk}/change/", {"name": "Renamed", "slug": "renamed"}
    )
    assert response.status_code == 403
    assert Tag.objects.get().name == "networking"
    assert client_for(editor).get(f"/admin/taggit/tag/{tag.pk}/change/").status_code == 200


def test_a_schedule_for_a_show_where_the_role_does_not_schedule_is_a_form_error(
    roles, alpha, beta, make_ready_entry
):
    two_hats = on_team(on_team(staff("two_hats"), alpha, "writer"), beta, "editor")
    alpha_ready = make_ready_entry("Alpha ready", in_review=True, show=alpha)
    response = client_for(two_hats).post(
        "/admin/editorial/scheduledaction/add/",
        {
            "entry": alpha_ready.pk,
            "action": "publish",
            "due_date": "2099-12-01",
            "due_time": "09:00",
        },
    )
    assert response.status_code == 200
    assert "does not let you schedule" in response.content.decode()
    assert not ScheduledAction.objects.exists()


def test_a_member_saves_their_entry_that_quotes_another_shows_episode_but_cannot_pick_one(
    alpha_writer, alpha_entry, alpha_episode, beta_episode, person
):
    # Quoted by a network-wide writer before the teams: kept as it is on every save.
    Quote.objects.create(
        entry=alpha_entry, episode=beta_episode, speaker=person, start=5, text="Kept."
    )
    desk = client_for(alpha_writer)
    url = f"{ENTRIES}{alpha_entry.pk}/change/"
    data = form_data(desk.get(url).content.decode())
    data["summary"] = "Saved by the show's writer."
    response = desk.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Quote.objects.get().episode == beta_episode
    # Picking another show's episode anew is refused.
    other = beta_episode.__class__.objects.create(
        show=beta_episode.show, season=1, number=3, title="Beta Talk 3", duration=3600
    )
    data = form_data(desk.get(url).content.decode())
    data["quotes-0-episode"] = str(other.pk)
    page = desk.post(url, data).content.decode()
    assert "That episode belongs to a show whose team you are not on" in page
    assert Quote.objects.get().episode == beta_episode


def test_an_admin_adds_a_team_member_on_the_shows_page_and_no_entry_gets_a_version(
    admin_user, editor, writer, alpha, alpha_episode, person, make_ready_entry
):
    # A live entry showing the show: a change to what readers see of it would be recorded
    # as a version of that entry (glossary.publishing.record_reference_change).
    entry = make_ready_entry("Alpha live", show=alpha)
    Quote.objects.create(entry=entry, episode=alpha_episode, speaker=person, start=5, text="q")
    record_edit(entry, user=writer, comment="Quoted.")
    workflow.submit_for_review(entry, user=writer)
    workflow.publish_entry(entry, user=editor, expected_version=int(reviewed(entry)))
    desk = client_for(admin_user)
    url = f"/admin/glossary/show/{alpha.pk}/change/"
    page = desk.get(url).content.decode()
    assert "Team (people who work on this show only" in page
    newcomer = staff("nina_new")
    data = form_data(page, "show_form")
    data.update(
        {
            "memberships-TOTAL_FORMS": "1",
            "memberships-0-user": str(newcomer.pk),
            "memberships-0-role": "editor",
            "memberships-0-show": str(alpha.pk),
        }
    )
    versions = EntryVersion.objects.count()
    response = desk.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert ShowMembership.objects.get().user == newcomer
    assert EntryVersion.objects.count() == versions
    # Nor is the admin an author of the show's record for it (they could approve its next
    # change to readers as before).
    assert not RecordEdit.objects.filter(edited_by=admin_user).exists()
    # Whereas renaming the show is a change readers would see, recorded in the entry.
    data = form_data(desk.get(url).content.decode(), "show_form")
    data["name"] = "Alpha Hour Renamed"
    assert desk.post(url, data).status_code == 302
    assert EntryVersion.objects.count() == versions + 1


def test_a_team_member_does_not_see_the_team_on_the_shows_page(alpha_editor, alpha):
    page = client_for(alpha_editor).get(f"/admin/glossary/show/{alpha.pk}/change/")
    assert page.status_code == 200
    assert "Team (people who work on this show only" not in page.content.decode()
