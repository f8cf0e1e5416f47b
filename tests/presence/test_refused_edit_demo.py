"""The demo shows a kept refused edit of the seed entry, once, and readers never see it."""

import io

from django.core.management import call_command
from django.test import Client

from demo.content import load_demo
from editorial import refused
from editorial.models import RefusedEdit
from glossary.models import Entry


def test_the_demo_logins_bring_the_writers_refused_edit_of_the_seed_entry(db, settings):
    settings.DEBUG = True
    load_demo()
    assert not RefusedEdit.objects.exists()  # nobody to have written it yet
    page = Client().get("/glossary/interconnect/").content

    call_command("ensure_demo_admin", stdout=io.StringIO())
    load_demo()  # again: still one

    kept = RefusedEdit.objects.get()
    seed = Entry.objects.get(slug="interconnect")
    assert (kept.author.username, kept.saved_by.username, kept.entry) == ("writer", "editor", seed)
    [summary] = [c for c in refused.choices(kept, seed) if c.differs]
    assert summary.name == "summary" and summary.take_by_default
    assert Client().get("/glossary/interconnect/").content == page
    assert refused.DEMO_SUMMARY.encode() not in page
