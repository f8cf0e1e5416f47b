"""Shows are the unit of permission: each team role against each action, on each show."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied

from editorial import twofactor, workflow
from editorial.models import ShowMembership
from editorial.permissions import Action, can, require, role_grants, show_roles
from glossary.models import Citation, Entry, Episode, Quote, Show
from glossary.publishing import record_edit
from tests.personas import member, reviewed
from tests.showteams.conftest import on_team, staff

# What each team role may do to its own show's entries (the network-wide matrix's rows:
# tests/workflow/test_permission_matrix.py).
ALLOWED: dict[str, set[Action]] = {
    "writer": {
        Action.VIEW,
        Action.ADD,
        Action.EDIT,
        Action.SUBMIT,
        Action.SHARE_PREVIEW,
        Action.COMMENT,
    },
    "fact-checker": {Action.VIEW, Action.CONFIRM_CITATION, Action.COMMENT},
    "editor": set(Action) - {Action.CONFIRM_CITATION, Action.DELETE},
}


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("role", list(ALLOWED))
def test_a_team_role_allows_on_its_show_exactly_what_the_role_may_do_and_nothing_elsewhere(
    roles, alpha, beta, alpha_entry, beta_entry, network_entry, role, action
):
    user = on_team(staff("teammate"), alpha, role)
    assert role_grants(role, action) is (action in ALLOWED[role])
    assert can(user, action, alpha_entry) is (action in ALLOWED[role])
    assert can(user, action, beta_entry) is False
    # An entry of the whole network is out of a show member's reach too.
    assert can(user, action, network_entry) is False


def test_a_role_on_each_of_two_shows_applies_to_that_shows_entries(
    roles, alpha, beta, alpha_entry, beta_entry
):
    user = on_team(staff("two_hats"), alpha, "writer")
    user = on_team(user, beta, "editor")
    assert can(user, Action.PUBLISH, beta_entry)
    assert not can(user, Action.PUBLISH, alpha_entry)
    assert can(user, Action.EDIT, alpha_entry)
    # Without an object: what they may do somewhere (the admin's menus and buttons).
    assert can(user, Action.PUBLISH)
    assert not can(user, Action.DELETE)


def test_an_account_on_no_team_keeps_its_network_wide_role(
    editor, writer, alpha_entry, beta_entry, network_entry
):
    for entry in (alpha_entry, beta_entry, network_entry):
        assert can(editor, Action.PUBLISH, entry)
        assert can(writer, Action.EDIT, entry)
        assert not can(writer, Action.PUBLISH, entry)
    assert show_roles(editor) is None


def test_a_members_groups_no_longer_count(roles, alpha, alpha_entry, beta_entry):
    # An editor group beside a writer membership: the membership is the role.
    user = member("grouped", None)
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get(name="editor"))
    user = on_team(user, alpha, "writer")
    assert not can(user, Action.PUBLISH, alpha_entry)
    assert not can(user, Action.PUBLISH)
    assert not can(user, Action.VIEW, beta_entry)


def test_superusers_and_admins_see_and_do_everything_whatever_their_teams(
    roles, superuser, admin_user, alpha, beta_entry, network_entry
):
    root = on_team(superuser, alpha, "writer")
    admin = on_team(admin_user, alpha, "writer")
    for user in (root, admin):
        assert show_roles(user) is None
        assert can(user, Action.PUBLISH, beta_entry)
        assert can(user, Action.DELETE, network_entry)


def test_the_parts_of_an_entry_and_an_episodes_rows_follow_their_show(
    alpha_writer,
    alpha,
    beta,
    alpha_entry,
    beta_entry,
    alpha_episode,
    beta_episode,
    make_source,
    person,
):
    quote = Quote.objects.create(
        entry=beta_entry, episode=alpha_episode, speaker=person, start=5, text="q"
    )
    citation = Citation.objects.create(entry=alpha_entry, source=make_source())
    assert not can(alpha_writer, Action.EDIT, quote)  # the entry's show, not the episode's
    assert can(alpha_writer, Action.EDIT, citation)
    assert can(alpha_writer, Action.VIEW, alpha_episode)
    assert not can(alpha_writer, Action.VIEW, beta_episode)
    assert can(alpha_writer, Action.VIEW, alpha)
    assert not can(alpha_writer, Action.VIEW, beta)


def test_a_writer_on_one_show_cannot_submit_another_shows_entry(alpha_writer, beta_entry):
    with pytest.raises(PermissionDenied, match="Beta Talk"):
        workflow.submit_for_review(beta_entry, user=alpha_writer)
    beta_entry.refresh_from_db()
    assert beta_entry.status == Entry.Status.DRAFT


def test_an_editor_of_one_show_cannot_publish_another_shows_entry(
    alpha_editor, make_ready_entry, beta
):
    entry = make_ready_entry("Beta ready", in_review=True, show=beta)
    with pytest.raises(PermissionDenied, match="Beta Talk"):
        workflow.publish_entry(entry, user=alpha_editor)
    entry.refresh_from_db()
    assert entry.live_version_id is None  # readers see nothing


def test_an_editor_of_the_show_publishes_and_the_second_person_rule_still_holds(
    alpha_editor, alpha_editor2, make_ready_entry, alpha
):
    entry = make_ready_entry("Alpha ready", show=alpha)
    record_edit(entry, user=alpha_editor, comment="A change of the editor's own.")
    workflow.submit_for_review(entry, user=alpha_editor)
    # The editor who wrote part of the change cannot approve it, on their own show too.
    with pytest.raises(workflow.SelfApprovalRefused):
        workflow.publish_entry(entry, user=alpha_editor, expected_version=int(reviewed(entry)))
    entry.refresh_from_db()
    assert entry.live_version_id is None
    workflow.publish_entry(entry, user=alpha_editor2, expected_version=int(reviewed(entry)))
    entry.refresh_from_db()
    assert entry.live_version_id is not None


def test_a_refusal_names_the_show_and_a_role_without_the_permission_says_so(
    alpha_writer, alpha_entry
):
    with pytest.raises(PermissionDenied, match="publish entries"):
        require(alpha_writer, Action.PUBLISH, alpha_entry)


def test_a_memberships_end_takes_the_show_away_at_the_next_request(alpha_writer, alpha_entry):
    assert can(alpha_writer, Action.EDIT, alpha_entry)
    ShowMembership.objects.filter(user=alpha_writer).delete()
    again = User.objects.get(pk=alpha_writer.pk)  # a new request loads the account anew
    # No team and no group: nothing at all.
    assert not can(again, Action.EDIT, alpha_entry)


def test_one_show_per_person_once(alpha_writer, alpha):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        ShowMembership.objects.create(user=alpha_writer, show=alpha, role="editor")


def test_entries_episodes_and_shows_name_their_show(alpha, alpha_episode, alpha_entry):
    from editorial.permissions import show_of

    assert show_of(alpha) == alpha.pk
    assert show_of(alpha_episode) == alpha.pk
    assert show_of(alpha_entry) == alpha.pk
    assert show_of(Entry(term="loose")) is None
    assert isinstance(Show.objects.get(pk=alpha.pk).entries.first(), Entry)
    assert Episode.objects.filter(show=alpha).count() == 1


def test_a_team_editor_must_sign_in_with_a_second_factor_like_any_editor(
    settings, alpha_editor, alpha_writer
):
    settings.DESK_REQUIRE_2FA = True
    assert twofactor.is_required(alpha_editor)
    assert not twofactor.is_required(alpha_writer)
