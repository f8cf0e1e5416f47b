"""Who else has an entry open: the marks, the banner on load, the heartbeat and leaving."""

from __future__ import annotations

import datetime
import re

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editorial import presence
from editorial.models import EditingPresence
from tests.personas import NOW, client_for, member

# 10:00 in New York on the day the personas' clock reads.
AT_TEN = datetime.datetime(2026, 11, 30, 15, 0, tzinfo=datetime.UTC)


def _change(entry):
    return f"/admin/glossary/entry/{entry.pk}/change/"


def _beat(client, entry):
    return client.post(f"/admin/presence/{entry.pk}/heartbeat/")


def test_a_mark_keeps_its_since_while_the_page_keeps_reporting(ready_entry, editor):
    presence.mark(ready_entry, editor, now=AT_TEN)
    presence.mark(ready_entry, editor, now=AT_TEN + datetime.timedelta(seconds=30))
    row = EditingPresence.objects.get()
    assert row.since == AT_TEN
    assert row.last_seen == AT_TEN + datetime.timedelta(seconds=30)


def test_someone_back_after_being_gone_is_open_from_their_return(ready_entry, editor, settings):
    settings.PRESENCE_GONE_AFTER_SECONDS = 120
    presence.mark(ready_entry, editor, now=AT_TEN)
    back = AT_TEN + datetime.timedelta(minutes=5)
    presence.mark(ready_entry, editor, now=back)
    assert EditingPresence.objects.get().since == back


def test_others_never_names_the_viewer_and_forgets_who_stopped_reporting(
    ready_entry, editor, writer, settings
):
    settings.PRESENCE_GONE_AFTER_SECONDS = 120
    presence.mark(ready_entry, writer, now=AT_TEN)
    presence.mark(ready_entry, editor, now=AT_TEN)
    seen = presence.others(ready_entry, editor, now=AT_TEN + datetime.timedelta(seconds=60))
    assert [p.name for p in seen] == ["Wanda Writer"]
    assert presence.others(ready_entry, writer, now=AT_TEN)[0].name == "Ed Editor"
    later = AT_TEN + datetime.timedelta(seconds=121)
    assert presence.others(ready_entry, editor, now=later) == []
    assert not EditingPresence.objects.exists()  # both stopped reporting: pruned


def test_the_sentence_names_the_time_in_newsroom_time(ready_entry, writer, editor):
    presence.mark(ready_entry, writer, now=AT_TEN)
    (ana,) = presence.others(ready_entry, editor, now=AT_TEN)
    assert ana.sentence(AT_TEN) == "Wanda Writer has had this entry open since 10:00 EST."
    next_day = AT_TEN + datetime.timedelta(days=1)
    assert "since Nov 30, 2026, 10:00 EST" in ana.sentence(next_day)


def test_a_reader_who_cannot_change_the_text_is_named_as_reading(ready_entry, fact_checker, editor):
    presence.mark(ready_entry, fact_checker, now=AT_TEN)
    (fiona,) = presence.others(ready_entry, editor, now=AT_TEN)
    assert fiona.editing is False
    assert "(reading; they cannot change its text)" in fiona.sentence(AT_TEN)


@time_machine.travel(NOW, tick=False)
def test_the_entry_page_shows_who_else_has_it_open_without_javascript(ready_entry, writer, editor):
    client_for(writer).get(_change(ready_entry))
    page = client_for(editor).get(_change(ready_entry)).content.decode()
    assert 'data-testid="presence"' in page
    assert "Wanda Writer has had this entry open since 10:00 EST." in page
    mine = client_for(writer).get(_change(ready_entry)).content.decode()
    assert "Ed Editor has had this entry open since 10:00 EST." in mine
    assert "Wanda Writer has had" not in mine


@time_machine.travel(NOW, tick=False)
def test_the_banner_is_hidden_when_nobody_else_is_there(ready_entry, editor):
    page = client_for(editor).get(_change(ready_entry)).content.decode()
    assert 'data-testid="presence"' in page
    assert "has had this entry open" not in page
    banner = re.search(r'<section class="presence-banner"[^>]*>', page)
    assert banner is not None
    assert banner.group(0).endswith(" hidden>")


@time_machine.travel(NOW, tick=False)
def test_the_heartbeat_marks_the_viewer_and_answers_who_else_is_there(ready_entry, writer, editor):
    client_for(writer).get(_change(ready_entry))
    answer = _beat(client_for(editor), ready_entry)
    assert answer.status_code == 200
    assert "no-store" in answer["Cache-Control"]
    others = answer.json()["others"]
    assert [o["name"] for o in others] == ["Wanda Writer"]
    assert others[0]["editing"] is True
    assert others[0]["sentence"] == "Wanda Writer has had this entry open since 10:00 EST."
    assert EditingPresence.objects.filter(user=editor, entry=ready_entry).exists()


def test_the_heartbeat_is_a_post_and_needs_the_csrf_token(ready_entry, editor):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(editor)
    assert strict.post(f"/admin/presence/{ready_entry.pk}/heartbeat/").status_code == 403
    assert client_for(editor).get(f"/admin/presence/{ready_entry.pk}/heartbeat/").status_code == 403
    assert not EditingPresence.objects.exists()


def test_the_heartbeat_needs_permission_to_view_entries(ready_entry, roles):
    nobody = member("nora_staff", None)
    nobody.is_staff = True
    nobody.save()
    response = _beat(client_for(nobody), ready_entry)
    assert response.status_code == 403
    assert not EditingPresence.objects.exists()


def test_the_heartbeat_of_someone_signed_out_goes_to_the_login_page(ready_entry, db):
    response = _beat(client_for(None), ready_entry)
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    assert not EditingPresence.objects.exists()


def test_the_heartbeat_of_an_entry_that_does_not_exist_is_not_found(editor):
    assert client_for(editor).post("/admin/presence/999999/heartbeat/").status_code == 404


def test_leaving_the_page_takes_the_mark_away(ready_entry, writer, editor):
    wanda = client_for(writer)
    wanda.get(_change(ready_entry))
    assert wanda.post(f"/admin/presence/{ready_entry.pk}/leave/").status_code == 204
    assert presence.others(ready_entry, editor) == []


def test_a_heartbeat_costs_a_fixed_number_of_queries(ready_entry, writer, editor, fact_checker):
    ed = client_for(editor)
    _beat(ed, ready_entry)
    with CaptureQueriesContext(connection) as alone:
        _beat(ed, ready_entry)
    presence.mark(ready_entry, writer)
    presence.mark(ready_entry, fact_checker)
    with CaptureQueriesContext(connection) as company:
        _beat(ed, ready_entry)
    # Each other person's role is read once to say whether they can edit: their
    # permissions, and whether a show team gives them their role (editorial.permissions).
    assert len(alone) <= 8
    assert len(company) <= len(alone) + 2 * 3


def test_pruning_removes_marks_of_pages_closed_without_saying_so(ready_entry, writer, editor):
    presence.mark(ready_entry, writer, now=AT_TEN - datetime.timedelta(days=2))
    presence.mark(ready_entry, editor, now=AT_TEN)
    assert presence.prune(now=AT_TEN) == 1
    assert list(EditingPresence.objects.values_list("user__username", flat=True)) == ["ed_editor"]


@pytest.mark.parametrize("seconds", ["0", "9", "soon"])
def test_a_nonsense_gone_after_setting_stops_the_start(seconds, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from config.env import env_int

    monkeypatch.setenv("PRESENCE_GONE_AFTER_SECONDS", seconds)
    with pytest.raises(ImproperlyConfigured, match="PRESENCE_GONE_AFTER_SECONDS"):
        env_int("PRESENCE_GONE_AFTER_SECONDS", 120, minimum=10)


def test_beat_prunes_marks_of_closed_pages_every_hour(ready_entry, writer, settings):
    from editorial import tasks

    entry = settings.CELERY_BEAT_SCHEDULE["prune-presence-marks"]
    assert entry == {"task": "editorial.tasks.prune_presence", "schedule": 3600.0}
    presence.mark(ready_entry, writer, now=AT_TEN - datetime.timedelta(days=2))
    assert tasks.prune_presence.apply().get() == 1
    assert tasks.prune_presence.apply().get() == 0
