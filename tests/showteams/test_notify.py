"""Notifications go to the people on the entry's show (or network-wide), no one else."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from editorial import comments, notify, workflow
from editorial.comments import CommentError
from editorial.linkcheck.state import Transition
from editorial.models import Notification
from glossary.models import Citation, Source
from tests.showteams.conftest import on_team, staff


def _with_address(user: User) -> User:
    user.email = f"{user.username}@example.com"
    user.save()
    return user


@pytest.fixture
def beta_editor(roles, beta) -> User:
    return _with_address(on_team(staff("bert_editor"), beta, "editor"))


@pytest.fixture
def beta_checker(roles, beta) -> User:
    return _with_address(on_team(staff("bea_checker"), beta, "fact-checker"))


def test_the_editors_of_the_entrys_show_and_the_network_hear_of_a_review_request(
    alpha_editor, beta_editor, editor, alpha_writer, alpha, beta
):
    assert set(notify.editors(alpha.pk)) == {alpha_editor, editor}
    assert set(notify.editors(beta.pk)) == {beta_editor, editor}
    # An entry of the whole network: network-wide editors only.
    assert set(notify.editors(None)) == {editor}


def test_submitting_an_entry_tells_its_shows_editors_only(
    alpha_editor, beta_editor, editor, alpha_writer, make_entry, alpha
):
    _with_address(alpha_editor)
    entry = make_entry("Alpha draft", show=alpha, created_by=alpha_writer)
    workflow.submit_for_review(entry, user=alpha_writer)
    told = set(
        Notification.objects.filter(kind=Notification.Kind.REVIEW_REQUESTED).values_list(
            "recipient__username", flat=True
        )
    )
    assert told == {alpha_editor.username, editor.username}


def test_superusers_hear_as_network_admins_whatever_their_teams(superuser, alpha, beta):
    root = on_team(superuser, alpha, "writer")
    assert root in set(notify.editors(beta.pk))


def test_a_source_alert_goes_to_the_fact_checkers_of_the_citing_entries_shows(
    alpha_checker, beta_checker, fact_checker, make_entry, make_source, alpha
):
    _with_address(alpha_checker)
    source = make_source(health=Source.Health.BROKEN)
    Citation.objects.create(entry=make_entry("Alpha cited", show=alpha), source=source)
    notify.tell_source_changes(
        [
            (
                source,
                Transition(
                    old_health="ok", new_health="broken", was_changed=False, now_changed=False
                ),
            )
        ]
    )
    told = set(
        Notification.objects.filter(source=source).values_list("recipient__username", flat=True)
    )
    assert told == {alpha_checker.username, fact_checker.username}


def test_a_failed_schedule_tells_the_shows_editors(
    alpha_editor, beta_editor, editor, make_entry, alpha
):
    _with_address(alpha_editor)
    entry = make_entry("Alpha scheduled", show=alpha)
    notify.tell_schedule_failed(entry, action="publish", result="Checks failed.")
    told = set(Notification.objects.values_list("recipient__username", flat=True))
    assert told == {alpha_editor.username, editor.username}


def test_a_comment_cannot_mention_someone_off_the_entrys_show(
    alpha_editor, beta_editor, make_entry, alpha
):
    entry = make_entry("Alpha discussed", show=alpha)
    with pytest.raises(CommentError, match="not on this entry's show team"):
        comments.start_thread(
            entry, user=alpha_editor, field="body", text=f"@{beta_editor.username} look"
        )
    assert not Notification.objects.exists()
