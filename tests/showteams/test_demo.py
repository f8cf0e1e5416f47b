"""The demo shows a team at work: its one show holds every entry, and `writer` is on that
show's team as a writer, able to do exactly what it could before."""

from __future__ import annotations

import io

from django.contrib.auth.models import User
from django.core.management import call_command

from demo.content import load_demo
from editorial.models import ShowMembership
from editorial.permissions import Action, can, show_roles
from glossary.models import Entry, Show


def test_the_demos_writer_is_on_its_shows_team_and_every_entry_is_that_shows(db, settings):
    settings.DEBUG = True
    load_demo()
    call_command("ensure_demo_admin", stdout=io.StringIO())
    call_command("ensure_demo_admin", stdout=io.StringIO())  # twice: still one membership
    show = Show.objects.get(slug="demo-show")
    assert set(Entry.objects.values_list("show", flat=True)) == {show.pk}
    membership = ShowMembership.objects.get()
    assert (membership.user.username, membership.show, membership.role) == (
        "writer",
        show,
        "writer",
    )
    writer = User.objects.get(username="writer")
    assert show_roles(writer) == {show.pk: "writer"}
    interconnect = Entry.objects.get(slug="interconnect")
    assert can(writer, Action.EDIT, interconnect)
    assert can(writer, Action.SUBMIT, interconnect)
    assert not can(writer, Action.PUBLISH, interconnect)
