"""The demo shows a planned entry and assignments, once, and readers see none of it."""

import io

from django.core.management import call_command
from django.test import Client

from demo.content import load_demo
from editorial.models import Assignment
from glossary.models import Entry


def test_the_demo_logins_bring_a_planned_entry_and_assignments(db, settings):
    settings.DEBUG = True
    load_demo()
    assert not Assignment.objects.exists()  # nobody to assign yet

    call_command("ensure_demo_admin", stdout=io.StringIO())
    load_demo()  # again, and the logins again: nothing more
    call_command("ensure_demo_admin", stdout=io.StringIO())

    planned = Entry.objects.get(slug="optical-circuit-switch")
    assert (planned.status, planned.body, planned.created_by.username) == ("draft", "", "editor")
    assert sorted(Assignment.objects.values_list("entry__slug", "role", "assignee__username")) == [
        ("interconnect", "fact_checker", "factchecker"),
        ("optical-circuit-switch", "fact_checker", "factchecker"),
        ("optical-circuit-switch", "writer", "writer"),
    ]
    assert Client().get("/glossary/optical-circuit-switch/").status_code == 404
